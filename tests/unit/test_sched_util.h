/* Helpers shared by the scheduling-cycle unit tests: build a cluster from YAML, run one pod's
 * Filter on a node, schedule everything. */
#ifndef KP_TEST_SCHED_UTIL_H
#define KP_TEST_SCHED_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/sched.h"
#include "sched/cycle.h"
#include "sched/framework.h"
#include "sched/nominator.h"
#include "sched/plugins/pod_topology_spread_default.h"
#include "sched/schedule_one.h"
#include "sched/score.h"

static inline kp_cluster *ts_load(const char *y) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) return NULL;
    if (kp_cluster_load_buffer(cl, "test.yaml", y, strlen(y), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load failed: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static inline kp_sched *ts_sched(kp_cluster *cl, const char *cfg_yaml, uint64_t seed) {
    kp_error err;
    kp_error_clear(&err);
    kp_sched_config *cfg = NULL;
    if (cfg_yaml && kp_sched_config_load_buffer("cfg.yaml", cfg_yaml, strlen(cfg_yaml), NULL, &cfg,
                                                &err) != KP_OK) {
        fprintf(stderr, "  config failed: %s\n", err.msg);
        return NULL;
    }
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.seed = seed;
    kp_sched *s = NULL;
    if (kp_sched_new(cl, cfg, &o, &s, &err) != KP_OK)
        fprintf(stderr, "  sched failed: %s\n", err.msg);
    kp_sched_config_free(cfg);
    return s;
}

/* ts_sched with --compat VERSION (an older upstream line). */
static inline kp_sched *ts_sched_compat(kp_cluster *cl, const char *compat) {
    kp_error err;
    kp_error_clear(&err);
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.compat = compat;
    kp_sched *s = NULL;
    if (kp_sched_new(cl, NULL, &o, &s, &err) != KP_OK)
        fprintf(stderr, "  sched failed: %s\n", err.msg);
    return s;
}

/* Filter verdict of pod on node as the scheduler computes it (incl. nominated pods). */
static inline kp_node_status ts_filter(kp_sched *s, const char *pod, const char *node) {
    kp_node_status st;
    kp__status_reset(&st);
    long p = kp_cluster_find_pod(s->cl, pod), n = kp_cluster_find_node(s->cl, node);
    KT_CHECK(p >= 0 && n >= 0);
    if (p < 0 || n < 0) {
        st.code = KP_CODE_ERROR;
        return st;
    }
    kp_node_status pre;
    kp_cycle *c = kp__cycle_new(s, (uint32_t)p, &pre);
    KT_CHECK(c != NULL);
    if (!c) return st;
    if (pre.code != KP_CODE_SUCCESS) st = pre;
    else kp__cycle_filter(c, (uint32_t)n, &st);
    kp__cycle_free(c);
    return st;
}

/* Result of pod after kp_sched_run. */
static inline const kp_sched_pod_result *ts_result(const kp_sched *s, const char *pod) {
    kp_index p = kp_cluster_find_pod(s->cl, pod);
    if (p < 0 || s->res_of_pod[p] < 0) return NULL;
    return kp_sched_result(s, (size_t)s->res_of_pod[p]);
}

static inline const char *ts_node_of(const kp_sched *s, const char *pod) {
    const kp_sched_pod_result *r = ts_result(s, pod);
    if (!r || r->node < 0) return "";
    return kp_cluster_node_name(s->cl, r->node);
}

#endif
