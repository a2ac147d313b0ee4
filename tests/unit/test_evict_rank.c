/* Ranking and threshold helpers (helpers_test.go): TestOrderedby*, TestRankMemoryPressure-style
 * orderings R1-R9 of the spec, byEvictionPriority (R10), thresholdsMet (R11), rank function
 * tables per filesystem layout. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/summary.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kubelet/evict_rank.h"
#include "kubelet/evict_signals.h"
#include "kubelet/evict_thresholds.h"

#define MI (INT64_C(1024) * 1024)

static char ybuf[65536];
static size_t ylen;

static void y(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void y(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(ybuf + ylen, sizeof ybuf - ylen, fmt, ap);
    va_end(ap);
    if (n > 0) ylen += (size_t)n;
}

/* A bound pod: priority, memory request (Mi, <0 none), ephemeral request (Mi, <0 none),
 * optional volumes YAML. */
static void pod(const char *name, int prio, int mem_mi, int eph_mi, const char *volumes) {
    y("---\nkind: Pod\napiVersion: v1\nmetadata: {name: %s, namespace: default, uid: %s}\n", name,
      name);
    y("spec:\n  nodeName: n1\n  priority: %d\n  containers:\n  - name: %s\n", prio, name);
    if (mem_mi >= 0 || eph_mi >= 0) {
        y("    resources:\n      requests:\n");
        if (mem_mi >= 0) y("        memory: %dMi\n", mem_mi);
        if (eph_mi >= 0) y("        ephemeral-storage: %dMi\n", eph_mi);
    }
    if (volumes) y("  volumes:\n%s", volumes);
}

static kp_cluster *load(void) {
    static const char node[] = "---\nkind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
                               "status: {allocatable: {memory: 8Gi, cpu: '4', pods: '110'}}\n";
    kp_cluster *cl = kp_cluster_new();
    kp_error err;
    kp_error_clear(&err);
    if (kp_cluster_load_buffer(cl, "node.yaml", node, strlen(node), &err) != KP_OK ||
        kp_cluster_load_buffer(cl, "pods.yaml", ybuf, ylen, &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "load: %s\n", err.msg);
        kp_cluster_free(cl);
        ylen = 0;
        return NULL;
    }
    ylen = 0;
    return cl;
}

/* a summary assembled by hand: pod i has container i (named like the pod) and, when a test
 * adds one, volume i */
static kp__ev_pstats st[16];
static kp__ev_cstats cs[16];
static kp__ev_vstats vs[16];
static char strs[512];
static size_t strs_len;
static kp_evict_summary sum;
static kp__ev_rank_pod rp[40];

static uint32_t add_str(const char *s) {
    size_t len = strlen(s);
    uint32_t off = (uint32_t)strs_len;
    memcpy(strs + strs_len, s, len + 1);
    strs_len += len + 1;
    return off;
}

static void setup(kp_cluster *cl, uint32_t n) {
    memset(st, 0, sizeof st);
    memset(cs, 0, sizeof cs);
    memset(vs, 0, sizeof vs);
    memset(&sum, 0, sizeof sum);
    strs_len = 0;
    sum.pods = st;
    sum.conts = cs;
    sum.vols = vs;
    sum.strs = strs;
    for (uint32_t i = 0; i < n; i++) {
        const kp_pod *p = &cl->pods[i];
        rp[i].pod = i;
        rp[i].priority = p->priority;
        rp[i].mem_req = kp__resv_get(&p->req, KP_RES_MEM);
        rp[i].eph_req = kp__resv_get(&p->req, KP_RES_EPH);
        rp[i].st = &st[i];
        st[i].c0 = i;
        st[i].n_containers = 1;
        st[i].v0 = i;
        cs[i].name = add_str(kp__s(cl, p->name));
        cs[i].name_len = (uint32_t)strlen(kp__s(cl, p->name));
        cs[i].has = KP__EVC_NAME;
    }
}

static void set_ws(uint32_t i, int64_t ws) {
    st[i].has |= KP__EVP_MEM | KP__EVP_WS;
    st[i].ws = (uint64_t)ws;
}
static void set_fs(uint32_t i, int64_t root, int64_t logs) {
    cs[i].has |= KP__EVC_ROOT_USED | KP__EVC_LOGS_USED;
    cs[i].root_used = (uint64_t)root;
    cs[i].logs_used = (uint64_t)logs;
}

static void rank(kp_cluster *cl, kp_evict_signal sig, bool imagefs, bool split, uint32_t n) {
    kp__ev_rank_key keys[32];
    kp__ev_rank_pod tmp[16];
    kp__ev_rank_fn fn = kp__ev_rank_fn_for(sig, imagefs, split);
    kp__ev_rank(cl, &sum, &fn, rp, n, keys, tmp, NULL);
}

static const char *name_at(kp_cluster *cl, uint32_t i) {
    return kp__s(cl, cl->pods[rp[i].pod].name);
}

/* R1 */
KT_TEST(exceed_memory_requests_first) {
    pod("below", -1, 200, -1, NULL);
    pod("exceeds", 1, 100, -1, NULL);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    setup(cl, 2);
    set_ws(0, 199 * MI);
    set_ws(1, 101 * MI);
    rank(cl, KP_EVSIG_MEMORY_AVAILABLE, false, false, 2);
    KT_CHECK_STR(name_at(cl, 0), "exceeds");
    KT_CHECK_STR(name_at(cl, 1), "below");
    kp_cluster_free(cl);
}

/* R2 */
KT_TEST(exceed_disk_requests_first) {
    pod("below", -1, -1, 200, NULL);
    pod("exceeds", 1, -1, 100, NULL);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 2);
    set_fs(0, 100 * MI, 99 * MI);
    set_fs(1, 90 * MI, 11 * MI);
    rank(cl, KP_EVSIG_NODEFS_AVAILABLE, false, false, 2);
    KT_CHECK_STR(name_at(cl, 0), "exceeds");
    kp_cluster_free(cl);
}

/* R3: no stats involved for priority; pods without stats go first and tie */
KT_TEST(priority_orders_ascending) {
    pod("high", 12534, -1, -1, NULL);
    pod("mid", 1, -1, -1, NULL);
    pod("low", -134, -1, -1, NULL);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 3);
    for (int i = 0; i < 3; i++) rp[i].st = NULL;
    rank(cl, KP_EVSIG_MEMORY_AVAILABLE, false, false, 3);
    KT_CHECK_STR(name_at(cl, 0), "low");
    KT_CHECK_STR(name_at(cl, 1), "mid");
    KT_CHECK_STR(name_at(cl, 2), "high");
    kp_cluster_free(cl);
}

/* R4: disk usage - request, with one emptyDir each (all priorities equal) */
KT_TEST(disk_usage_minus_request) {
    static const char vol[] = "  - name: v\n    emptyDir: {}\n";
    const int req[6] = {-1, -1, 100, 100, 400, 400};
    const char *names[6] = {"p1", "p2", "p3", "p4", "p5", "p6"};
    const int64_t use[6] = {300, 100, 350, 110, 375, 120};
    for (int i = 5; i >= 0; i--) pod(names[i], 0, -1, req[i], vol);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 6);
    for (uint32_t i = 0; i < 6; i++) {
        int k = 5 - (int)i;
        set_fs(i, use[k] * MI / 3, use[k] * MI / 3);
        vs[i].name = add_str("v");
        vs[i].name_len = 1;
        vs[i].has = KP__EVV_NAME | KP__EVV_USED;
        vs[i].used = (uint64_t)(use[k] * MI - 2 * (use[k] * MI / 3));
        st[i].n_volumes = 1;
    }
    rank(cl, KP_EVSIG_NODEFS_AVAILABLE, false, false, 6);
    const char *want[6] = {"p1", "p3", "p2", "p4", "p5", "p6"};
    for (int i = 0; i < 6; i++) KT_CHECK_STR(name_at(cl, (uint32_t)i), want[i]);
    kp_cluster_free(cl);
}

/* R5 */
KT_TEST(inodes_rank) {
    pod("low", 0, -1, -1, NULL);
    pod("medium", 0, -1, -1, NULL);
    pod("high", 0, -1, -1, NULL);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 3);
    const uint64_t inodes[3] = {200000, 300000, 400000};
    for (int i = 0; i < 3; i++) {
        cs[i].has |= KP__EVC_ROOT_IUSED;
        cs[i].root_iused = inodes[i];
    }
    rank(cl, KP_EVSIG_NODEFS_INODES_FREE, false, false, 3);
    KT_CHECK_STR(name_at(cl, 0), "high");
    KT_CHECK_STR(name_at(cl, 1), "medium");
    KT_CHECK_STR(name_at(cl, 2), "low");
    kp_cluster_free(cl);
}

/* R6 / R8: exceeds, then priority, then usage - request; given in reverse */
KT_TEST(full_disk_and_memory_rank) {
    const int prio[8] = {-1, -1, 1, 1, -1, -1, 1, 1};
    const int64_t delta[8] = {500, 50, 500, 50, -200, -800, -200, -800};
    char name[8][8];
    for (int i = 7; i >= 0; i--) {
        snprintf(name[i], sizeof name[i], "pod%d", i + 1);
        pod(name[i], prio[i], 1000, 1000, NULL);
    }
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        setup(cl, 8);
        for (uint32_t i = 0; i < 8; i++) {
            int k = 7 - (int)i;
            set_fs(i, (1000 + delta[k]) * MI, 0);
            set_ws(i, (1000 + delta[k]) * MI);
        }
        rank(cl, pass ? KP_EVSIG_MEMORY_AVAILABLE : KP_EVSIG_NODEFS_AVAILABLE, false, false, 8);
        for (int i = 0; i < 8; i++) KT_CHECK_STR(name_at(cl, (uint32_t)i), name[i]);
    }
    kp_cluster_free(cl);
}

/* R7 */
KT_TEST(memory_usage_minus_request) {
    const int req[6] = {-1, -1, 100, 100, 1024, 1024};
    const int64_t ws[6] = {500, 300, 800, 300, 800, 200};
    const char *names[6] = {"p1", "p2", "p3", "p4", "p5", "p6"};
    for (int i = 0; i < 6; i++) pod(names[i], 0, req[i], -1, NULL);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 6);
    for (uint32_t i = 0; i < 6; i++) set_ws(i, ws[i] * MI);
    rank(cl, KP_EVSIG_MEMORY_AVAILABLE, false, false, 6);
    const char *want[6] = {"p3", "p1", "p2", "p4", "p5", "p6"};
    for (int i = 0; i < 6; i++) KT_CHECK_STR(name_at(cl, (uint32_t)i), want[i]);
    kp_cluster_free(cl);
}

/* R9 */
KT_TEST(pid_rank) {
    pod("p4", 1, -1, -1, NULL);
    pod("p3", 1, -1, -1, NULL);
    pod("p2", -1, -1, -1, NULL);
    pod("p1", -1, -1, -1, NULL);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 4);
    const uint64_t procs[4] = {5, 20, 6, 20};
    for (int i = 0; i < 4; i++) {
        st[i].has |= KP__EVP_PROCS;
        st[i].procs = procs[i];
    }
    rank(cl, KP_EVSIG_PID_AVAILABLE, false, false, 4);
    const char *want[4] = {"p1", "p2", "p3", "p4"};
    for (int i = 0; i < 4; i++) KT_CHECK_STR(name_at(cl, (uint32_t)i), want[i]);
    kp_cluster_free(cl);
}

/* Pods without stats are evicted first (cmpBool(!found1, !found2)). */
KT_TEST(no_stats_first) {
    pod("with", -5, -1, -1, NULL);
    pod("without", 5, -1, -1, NULL);
    kp_cluster *cl = load();
    if (!cl) {
        KT_CHECK(0);
        return;
    }
    setup(cl, 2);
    set_ws(0, 10 * MI);
    rp[1].st = NULL;
    rank(cl, KP_EVSIG_MEMORY_AVAILABLE, false, false, 2);
    KT_CHECK_STR(name_at(cl, 0), "without");
    kp_cluster_free(cl);
}

/* buildSignalToRankFunc per layout */
KT_TEST(rank_tables_per_layout) {
    kp__ev_rank_fn f = kp__ev_rank_fn_for(KP_EVSIG_NODEFS_AVAILABLE, true, false);
    KT_CHECK_INT(f.fs_types, KP__EVFS_LOGS | KP__EVFS_LOCALVOL);
    f = kp__ev_rank_fn_for(KP_EVSIG_IMAGEFS_INODES_FREE, true, false);
    KT_CHECK_INT(f.fs_types, KP__EVFS_ROOT | KP__EVFS_IMAGES);
    KT_CHECK(f.inodes);
    f = kp__ev_rank_fn_for(KP_EVSIG_CONTAINERFS_AVAILABLE, true, false);
    KT_CHECK_INT(f.fs_types, KP__EVFS_ROOT | KP__EVFS_IMAGES);
    f = kp__ev_rank_fn_for(KP_EVSIG_CONTAINERFS_AVAILABLE, true, true);
    KT_CHECK_INT(f.fs_types, KP__EVFS_LOGS | KP__EVFS_LOCALVOL | KP__EVFS_ROOT);
    f = kp__ev_rank_fn_for(KP_EVSIG_IMAGEFS_AVAILABLE, true, true);
    KT_CHECK_INT(f.fs_types, KP__EVFS_IMAGES);
    f = kp__ev_rank_fn_for(KP_EVSIG_IMAGEFS_AVAILABLE, false, false);
    KT_CHECK_INT(f.fs_types, KP__EVFS_IMAGES | KP__EVFS_ROOT | KP__EVFS_LOGS | KP__EVFS_LOCALVOL);
    KT_CHECK_INT(kp__ev_rank_fn_for(KP_EVSIG_PID_AVAILABLE, false, false).kind, KP__EVRANK_PID);
}

static kp__ev_threshold th_q(kp_evict_signal s, const char *q, const char *mr) {
    kp__ev_threshold t;
    memset(&t, 0, sizeof t);
    t.signal = s;
    t.has_op = true;
    if (q[strlen(q) - 1] == '%') {
        t.value.is_pct = true;
        kp__ev_parse_percentage(q, strlen(q), &t.value.pct, NULL);
    } else {
        kp_quantity_parse(q, strlen(q), &t.value.q, NULL);
    }
    if (mr) {
        t.has_min_reclaim = true;
        if (mr[strlen(mr) - 1] == '%') {
            t.min_reclaim.is_pct = true;
            kp__ev_parse_percentage(mr, strlen(mr), &t.min_reclaim.pct, NULL);
        } else {
            kp_quantity_parse(mr, strlen(mr), &t.min_reclaim.q, NULL);
        }
    }
    return t;
}

/* R11 */
KT_TEST(thresholds_met) {
    kp__ev_threshold th[2];
    uint32_t idx[2] = {0, 1}, out[2];
    kp_evict_observation obs[KP_EVSIG_COUNT];
    memset(obs, 0, sizeof obs);
    th[0] = th_q(KP_EVSIG_MEMORY_AVAILABLE, "1Gi", "500Mi");
    obs[0].present = true;
    obs[0].capacity = 8192 * MI;
    obs[0].available = 500 * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, false, out), 1);
    obs[0].available = 2048 * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, false, out), 0);
    obs[0].available = (int64_t)(1.05 * 1024) * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, true, out), 1);
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, false, out), 0);
    obs[0].available = 2048 * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, true, out), 0);
    /* equality is not met */
    obs[0].available = 1024 * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, false, out), 0);
    /* percentages: memory 20% (min reclaim 5%), nodefs 30% */
    th[0] = th_q(KP_EVSIG_MEMORY_AVAILABLE, "20%", "5%");
    th[1] = th_q(KP_EVSIG_NODEFS_AVAILABLE, "30%", NULL);
    obs[KP_EVSIG_MEMORY_AVAILABLE].capacity = 1000 * MI;
    obs[KP_EVSIG_NODEFS_AVAILABLE].present = true;
    obs[KP_EVSIG_NODEFS_AVAILABLE].capacity = 1000 * 1024 * MI;
    const int64_t cases[4][3] = {{100, 100, 2}, {300, 400, 0}, {300, 100, 1}, {100, 400, 1}};
    for (int i = 0; i < 4; i++) {
        obs[KP_EVSIG_MEMORY_AVAILABLE].available = cases[i][0] * MI;
        obs[KP_EVSIG_NODEFS_AVAILABLE].available = cases[i][1] * 1024 * MI;
        KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 2, obs, false, out), cases[i][2]);
    }
    obs[KP_EVSIG_MEMORY_AVAILABLE].available = 225 * MI;
    obs[KP_EVSIG_NODEFS_AVAILABLE].available = 400 * 1024 * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, true, out), 1);
    obs[KP_EVSIG_MEMORY_AVAILABLE].available = 300 * MI;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, true, out), 0);
    /* an absent observation never meets */
    obs[KP_EVSIG_MEMORY_AVAILABLE].present = false;
    obs[KP_EVSIG_MEMORY_AVAILABLE].available = 0;
    KT_CHECK_INT(kp__ev_thresholds_met(th, idx, 1, obs, false, out), 0);
}

KT_TEST(fractional_threshold_compares_exactly) {
    kp__ev_threshold t = th_q(KP_EVSIG_PID_AVAILABLE, "100.5", NULL);
    uint32_t idx[1] = {0}, out[1];
    kp_evict_observation obs[KP_EVSIG_COUNT];
    memset(obs, 0, sizeof obs);
    obs[KP_EVSIG_PID_AVAILABLE].present = true;
    obs[KP_EVSIG_PID_AVAILABLE].available = 100;
    KT_CHECK_INT(kp__ev_thresholds_met(&t, idx, 1, obs, false, out), 1);
    obs[KP_EVSIG_PID_AVAILABLE].available = 101;
    KT_CHECK_INT(kp__ev_thresholds_met(&t, idx, 1, obs, false, out), 0);
}

/* More than one insertion-sort run: the merge keeps the order total and stable. */
KT_TEST(large_rank_is_stable) {
    const uint32_t n = 37;
    kp__ev_rank_key keys[80];
    kp__ev_rank_pod tmp[40];
    for (uint32_t i = 0; i < n; i++) {
        rp[i].pod = i;
        rp[i].priority = (int32_t)((i * 7919u) % 5);
        rp[i].st = NULL; /* no stats: priority decides, ties keep input order */
    }
    kp__ev_rank_fn fn = kp__ev_rank_fn_for(KP_EVSIG_MEMORY_AVAILABLE, false, false);
    kp__ev_rank(NULL, NULL, &fn, rp, n, keys, tmp, NULL);
    for (uint32_t i = 1; i < n; i++) {
        KT_CHECK(rp[i - 1].priority <= rp[i].priority);
        if (rp[i - 1].priority == rp[i].priority) KT_CHECK(rp[i - 1].pod < rp[i].pod);
    }
    bool seen[40] = {false};
    for (uint32_t i = 0; i < n; i++) seen[rp[i].pod] = true;
    for (uint32_t i = 0; i < n; i++) KT_CHECK(seen[i]);
}


/* ---------------------------------------------------------------- why: kp_evict_explain */

static kp__ev_rank_pod orig[16];

/* Ranks a copy of orig[0..n) with the engine; the pod evicted (the first non-critical one of the
 * ranking), its entries in ent[0..n). */
static uint32_t evicted_of(kp_cluster *cl, kp_evict_signal sig, uint32_t n,
                           kp_evict_rank_entry *ent) {
    kp__ev_rank_key keys[32];
    kp__ev_rank_pod tmp[16];
    memcpy(rp, orig, n * sizeof *rp);
    kp__ev_rank_fn fn = kp__ev_rank_fn_for(sig, false, false);
    kp__ev_rank(cl, &sum, &fn, rp, n, keys, tmp, ent);
    for (uint32_t i = 0; i < n; i++)
        if (!ent[i].critical) return (uint32_t)ent[i].pod;
    return UINT32_MAX;
}

static void set_usage(kp_evict_signal sig, uint32_t i, int64_t v) {
    if (sig == KP_EVSIG_MEMORY_AVAILABLE) set_ws(i, v);
    else if (sig == KP_EVSIG_PID_AVAILABLE) st[i].procs = (uint64_t)v;
    else set_fs(i, v, 0);
}

static int64_t request_of(kp_evict_signal sig, uint32_t i) {
    return sig == KP_EVSIG_MEMORY_AVAILABLE ? orig[i].mem_req : orig[i].eph_req;
}
static void set_request(kp_evict_signal sig, uint32_t i, int64_t v) {
    if (sig == KP_EVSIG_MEMORY_AVAILABLE) orig[i].mem_req = v;
    else orig[i].eph_req = v;
}

/* Explains the eviction of the ranking of orig[0..n), then checks every bound by re-ranking with
 * the engine: at the bound the pod is spared (another is evicted), one step short it is not. */
static kp_evict_spare explain_and_verify(kp_cluster *cl, kp_evict_signal sig, uint32_t n,
                                         int64_t usage_now) {
    kp_evict_rank_entry ent[32];
    kp_evict_rank_key dec[16];
    kp_evict_spare sp;
    memset(&sp, 0, sizeof sp);
    uint32_t e = evicted_of(cl, sig, n, ent);
    size_t pos = 0;
    while (ent[pos].pod != (kp_index)e) pos++;
    kp__ev_rank_fn fn = kp__ev_rank_fn_for(sig, false, false);
    KT_CHECK_INT(kp_evict_explain(kp__ev_rank_public_kind(&fn), ent, n, pos, dec, &sp, NULL),
                 KP_OK);
    if (sp.by_request) {
        int64_t was = request_of(sig, e);
        set_request(sig, e, sp.min_request);
        KT_CHECK(evicted_of(cl, sig, n, ent) != e);
        set_request(sig, e, sp.min_request - 1);
        KT_CHECK(evicted_of(cl, sig, n, ent) == e);
        set_request(sig, e, was);
    }
    if (!sp.priority_critical) {
        int32_t was = orig[e].priority;
        orig[e].priority = sp.min_priority;
        KT_CHECK(evicted_of(cl, sig, n, ent) != e);
        orig[e].priority = sp.min_priority - 1;
        KT_CHECK(evicted_of(cl, sig, n, ent) == e);
        orig[e].priority = was;
    }
    if (sp.by_usage) {
        set_usage(sig, e, sp.max_usage);
        KT_CHECK(evicted_of(cl, sig, n, ent) != e);
        set_usage(sig, e, sp.max_usage + 1);
        KT_CHECK(evicted_of(cl, sig, n, ent) == e);
        set_usage(sig, e, usage_now);
    }
    KT_CHECK(evicted_of(cl, sig, n, ent) == e); /* restored */
    return sp;
}

/* Memory: the evicted pod exceeds its request; the runner-up exceeds too with a higher
 * priority. Spared by a request of its usage (then within), a priority equal to the runner-up's
 * (then usage - request decides), a usage at its request. */
KT_TEST(explain_memory_spared_by) {
    pod("evicted", 0, 100, -1, NULL);
    pod("runner", 1, 0, -1, NULL);
    pod("guaranteed", -1, 1024, -1, NULL);
    pod("below", 0, 100, -1, NULL);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    setup(cl, 4);
    set_ws(0, 400 * MI);
    set_ws(1, 400 * MI);
    set_ws(2, 900 * MI);
    set_ws(3, 50 * MI);
    memcpy(orig, rp, 4 * sizeof *rp);
    kp_evict_rank_entry ent[8];
    KT_CHECK_INT(evicted_of(cl, KP_EVSIG_MEMORY_AVAILABLE, 4, ent), 0);
    kp_evict_rank_key dec[4];
    kp_evict_spare sp;
    KT_CHECK_INT(kp_evict_explain(KP_EVRANK_MEMORY, ent, 4, 0, dec, &sp, NULL), KP_OK);
    KT_CHECK_INT(dec[1], KP_EVKEY_PRIORITY); /* runner: 0 < 1 */
    KT_CHECK_INT(dec[2], KP_EVKEY_EXCEEDS); /* guaranteed: within its request */
    KT_CHECK_INT(dec[3], KP_EVKEY_EXCEEDS);
    KT_CHECK_INT((int64_t)sp.runner_up, 1);
    sp = explain_and_verify(cl, KP_EVSIG_MEMORY_AVAILABLE, 4, 400 * MI);
    KT_CHECK(sp.by_request && sp.by_usage && !sp.priority_critical);
    KT_CHECK_INT(sp.min_request, 400 * MI);
    KT_CHECK_INT(sp.min_priority, 1);
    KT_CHECK_INT(sp.max_usage, 100 * MI);
    kp_cluster_free(cl);
}

/* Memory, same priority, both above their request: usage - request decides, and the bounds sit
 * on the runner-up's excess (ties go by the pod list's order: the evicted pod comes first). */
KT_TEST(explain_memory_usage_decides) {
    pod("evicted", 5, 100, -1, NULL);
    pod("runner", 5, 100, -1, NULL);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    setup(cl, 2);
    set_ws(0, 300 * MI);
    set_ws(1, 200 * MI + 7);
    memcpy(orig, rp, 2 * sizeof *rp);
    kp_evict_rank_entry ent[4];
    kp_evict_rank_key dec[2];
    kp_evict_spare sp;
    KT_CHECK_INT(evicted_of(cl, KP_EVSIG_MEMORY_AVAILABLE, 2, ent), 0);
    KT_CHECK_INT(kp_evict_explain(KP_EVRANK_MEMORY, ent, 2, 0, dec, &sp, NULL), KP_OK);
    KT_CHECK_INT(dec[1], KP_EVKEY_USAGE);
    sp = explain_and_verify(cl, KP_EVSIG_MEMORY_AVAILABLE, 2, 300 * MI);
    KT_CHECK_INT(sp.max_usage, 200 * MI + 6); /* a tie keeps it first: one byte less */
    KT_CHECK_INT(sp.min_request, 200 * MI - 6);
    KT_CHECK_INT(sp.min_priority, 6);
    kp_cluster_free(cl);
}

/* Disk (nodefs): the ephemeral-storage request and the disk usage, verified the same way. */
KT_TEST(explain_disk_spared_by) {
    pod("evicted", 0, -1, 10, NULL);
    pod("runner", 0, -1, 50, NULL);
    pod("high", 100, -1, 0, NULL);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    setup(cl, 3);
    set_fs(0, 90 * MI, 0);
    set_fs(1, 70 * MI, 0);
    set_fs(2, 500 * MI, 0);
    memcpy(orig, rp, 3 * sizeof *rp);
    kp_evict_spare sp = explain_and_verify(cl, KP_EVSIG_NODEFS_AVAILABLE, 3, 90 * MI);
    KT_CHECK(sp.by_request && sp.by_usage);
    KT_CHECK_INT(sp.min_request, 70 * MI + 1); /* 90 - R < 20Mi */
    KT_CHECK_INT(sp.max_usage, 30 * MI - 1); /* usage - 10Mi < 20Mi */
    KT_CHECK_INT(sp.min_priority, 1);
    kp_cluster_free(cl);
}

/* PID: priority first, then the process count; no request. */
KT_TEST(explain_pid_spared_by) {
    pod("evicted", 0, -1, -1, NULL);
    pod("runner", 0, -1, -1, NULL);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    setup(cl, 2);
    st[0].has |= KP__EVP_PROCS;
    st[0].procs = 40;
    st[1].has |= KP__EVP_PROCS;
    st[1].procs = 12;
    memcpy(orig, rp, 2 * sizeof *rp);
    kp_evict_spare sp = explain_and_verify(cl, KP_EVSIG_PID_AVAILABLE, 2, 40);
    KT_CHECK(!sp.by_request);
    KT_CHECK(sp.by_usage);
    KT_CHECK_INT(sp.max_usage, 11);
    KT_CHECK_INT(sp.min_priority, 1);
    kp_cluster_free(cl);
}

/* A critical pod ranked first is skipped; the only other pod can be spared only by becoming
 * critical; a pod without stats cannot be spared by its request or usage. */
KT_TEST(explain_critical_and_no_stats) {
    pod("critical", 2000000000, 0, -1, NULL);
    pod("nostats", 0, 0, -1, NULL);
    kp_cluster *cl = load();
    KT_CHECK(cl != NULL);
    if (!cl) return;
    setup(cl, 2);
    set_ws(0, 10 * MI);
    rp[1].st = NULL;
    memcpy(orig, rp, 2 * sizeof *rp);
    kp_evict_rank_entry ent[4];
    kp_evict_rank_key dec[2];
    kp_evict_spare sp;
    KT_CHECK_INT(evicted_of(cl, KP_EVSIG_MEMORY_AVAILABLE, 2, ent), 1);
    KT_CHECK_INT(ent[0].pod, 1); /* no stats: first */
    KT_CHECK_INT(kp_evict_explain(KP_EVRANK_MEMORY, ent, 2, 0, dec, &sp, NULL), KP_OK);
    KT_CHECK_INT(dec[1], KP_EVKEY_STATS);
    KT_CHECK_INT((int64_t)sp.runner_up, 2); /* the other is critical: nobody else */
    KT_CHECK(sp.priority_critical && !sp.by_request && !sp.by_usage);
    KT_CHECK_INT(sp.min_priority, 2000000000);
    KT_CHECK_INT(kp_evict_explain(KP_EVRANK_MEMORY, ent, 2, 1, dec, &sp, NULL), KP_EINVAL);
    /* the comparator the manager sorts with: a tie on every key goes by the pod list's order */
    kp_evict_rank_entry a = ent[0], b = ent[0];
    b.order++;
    kp_evict_rank_key d = KP_EVKEY_USAGE;
    KT_CHECK(kp_evict_rank_compare(KP_EVRANK_MEMORY, &a, &b, &d) < 0);
    KT_CHECK_INT(d, KP_EVKEY_ORDER);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(exceed_memory_requests_first), KT_CASE(large_rank_is_stable),
        KT_CASE(exceed_disk_requests_first), KT_CASE(priority_orders_ascending),
        KT_CASE(disk_usage_minus_request), KT_CASE(inodes_rank), KT_CASE(full_disk_and_memory_rank),
        KT_CASE(memory_usage_minus_request), KT_CASE(pid_rank), KT_CASE(no_stats_first),
        KT_CASE(rank_tables_per_layout), KT_CASE(thresholds_met),
        KT_CASE(fractional_threshold_compares_exactly), KT_CASE(explain_memory_spared_by),
        KT_CASE(explain_memory_usage_decides), KT_CASE(explain_disk_spared_by),
        KT_CASE(explain_pid_spared_by), KT_CASE(explain_critical_and_no_stats))
