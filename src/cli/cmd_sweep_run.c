/* One run of `kprio sweep` (cli/sweep.h): the run's inputs loaded, the simulation played as
 * `kprio simulate` plays it (kp_sim_new, kp_sim_run), and the figures `kprio simulate -o json`
 * reports read back from the library (counters, findings and their summary, the pending-time
 * percentiles of the what-if comparison): nothing is computed a second time here. */
#include <stdio.h>
#include <string.h>

#include "cli/sweep.h"
#include "kprio/cluster.h"
#include "kprio/eviction.h"
#include "kprio/insight.h"
#include "kprio/priority_layout.h"
#include "kprio/sched.h"
#include "kprio/sim.h"

typedef struct {
    kp_scenario *sc;
    kp_sched_config *cfg;
    kp_evict_config *kcfg;
    kp_evict_config **pool_cfg; /* the scenario's kubelets[] pools' configurations */
    kp_sim_kubelet_pool *pools;
    size_t n_pools;
    kp_priority_layout *layout; /* a priorityLayouts variable's: given to cl before finalize */
    kp_cluster *cl;
    kp_sim *sim;
    kp_insight *in;
    size_t *idx;
} run_state;

static void run_free(run_state *r) {
    kp_insight_free(r->in);
    kp_sim_free(r->sim);
    kp_cluster_free(r->cl);
    kp_priority_layout_free(r->layout); /* (after the cluster it was given to) */
    kp_scenario_free(r->sc);
    kp_sched_config_free(r->cfg);
    kp_evict_config_free(r->kcfg);
    for (size_t i = 0; i < r->n_pools; i++) kp_evict_config_free(r->pool_cfg[i]);
    kp_free(r->pool_cfg);
    kp_free(r->pools);
    kp_free(r->idx);
}

/* The run's file of a kind: the matrix's value, else the base's. */
static const char *file_of(const kp_sweep *sw, const size_t *idx, kp_sweep_var_kind kind,
                           const char *base) {
    for (size_t i = 0; i < sw->n_vars; i++)
        if (sw->vars[i].kind == kind) return sw->vars[i].paths[idx[i]];
    return base;
}

/* A KubeletConfiguration read and finished; the error names its file. */
static kp_status load_kubelet_config(const char *path, kp_evict_config **out, kp_error *err) {
    if (!(*out = kp_evict_config_new())) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp_evict_config_load_path(*out, path, err);
    if (st == KP_OK) st = kp_evict_config_finish(*out, err);
    if (st != KP_OK && !err->source[0]) snprintf(err->source, sizeof err->source, "%s", path);
    return st;
}

/* The scenario's kubelets[] pools, read as `kprio simulate` reads them (its load_pools: each
 * entry's config, the path the scenario loader joined to the scenario's directory). */
static kp_status load_pools(run_state *r, kp_error *err) {
    size_t n = r->sc->n_kubelets;
    if (!n) return KP_OK;
    if (!(r->pool_cfg = kp_calloc(n, sizeof *r->pool_cfg)) ||
        !(r->pools = kp_calloc(n, sizeof *r->pools)))
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const kp_scenario_kubelet *k = &r->sc->kubelets[i];
        r->n_pools = i + 1;
        kp_status st = load_kubelet_config(k->config, &r->pool_cfg[i], err);
        if (st != KP_OK) return st;
        r->pools[i].reqs = k->reqs;
        r->pools[i].n_reqs = k->n_reqs;
        r->pools[i].config = r->pool_cfg[i];
    }
    return KP_OK;
}

static kp_status load_inputs(const kp_sweep *sw, run_state *r, kp_error *err) {
    kp_status st = kp_sweep_scenario_load(sw, r->idx, &r->sc, err);
    if (st != KP_OK) return st;
    if (r->sc && (st = load_pools(r, err)) != KP_OK) return st;
    const char *cfg = file_of(sw, r->idx, KP_SWEEP_CONFIGS, sw->config);
    const char *kcfg = file_of(sw, r->idx, KP_SWEEP_KUBELET_CONFIGS, sw->kubelet_config);
    const char *lay = file_of(sw, r->idx, KP_SWEEP_PRIORITY_LAYOUTS, NULL);
    if (cfg && (st = kp_sched_config_load_path(cfg, NULL, &r->cfg, err)) != KP_OK) return st;
    if (lay && (st = kp_priority_layout_load_path(lay, &r->layout, err)) != KP_OK) return st;
    if (kcfg && (st = load_kubelet_config(kcfg, &r->kcfg, err)) != KP_OK) return st;
    /* the controllers make pods from their workloads' templates, as `kprio simulate` loads */
    if (!(r->cl = kp_cluster_new())) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if ((st = kp_cluster_set_expand(r->cl, KP_WORKLOAD_TEMPLATES)) != KP_OK)
        return kp_error_set(err, st, "out of memory");
    /* the layout as `simulate --compare-priorities` gives it: the same call, before finalize */
    if ((st = kp_cluster_set_priority_layout(r->cl, r->layout)) != KP_OK)
        return kp_error_set(err, st, "cannot apply the priority layout");
    for (size_t i = 0; i < sw->n_snapshot; i++)
        if ((st = kp_cluster_load_path(r->cl, sw->snapshot[i], false, err)) != KP_OK) return st;
    return kp_cluster_finalize(r->cl, err);
}

static void figures_of(const run_state *r, const int64_t pending[4], int64_t *f) {
    kp_sim_counters c;
    kp_sim_counters_get(r->sim, &c);
    const int64_t counters[] = {(int64_t)c.events,
                                (int64_t)c.attempts,
                                (int64_t)c.scheduled,
                                (int64_t)c.unschedulable,
                                (int64_t)c.preemption_attempts,
                                (int64_t)c.preemptions,
                                (int64_t)c.victims,
                                (int64_t)c.pods_created,
                                (int64_t)c.pods_deleted,
                                (int64_t)c.pods_succeeded,
                                (int64_t)c.pods_failed,
                                (int64_t)c.pending_at_end,
                                (int64_t)c.gated_at_end,
                                (int64_t)c.kubelet_evictions,
                                (int64_t)c.kubelet_rejections,
                                (int64_t)c.kubelet_preemptions,
                                (int64_t)c.oom_kills};
    memcpy(f, counters, sizeof counters); /* KP_FIG_EVENTS .. KP_FIG_OOM_KILLS */
    for (int i = 0; i < KP_SIM_N_DISRUPT; i++)
        f[KP_FIG_DISRUPTIONS + i] = (int64_t)c.disruptions[i];
    f[KP_FIG_LONGEST_WAIT] = c.longest_wait_pod >= 0 ? c.longest_wait_ms : 0;
    for (int i = 0; i < 4; i++) f[KP_FIG_PENDING_P50 + i] = pending[i];
    kp_insight_totals t;
    kp_insight_totals_get(r->in, &t);
    size_t n = kp_insight_finding_count(r->in);
    f[KP_FIG_FINDINGS] = (int64_t)n;
    f[KP_FIG_FINDINGS_CRITICAL] = t.critical;
    f[KP_FIG_FINDINGS_WARNING] = t.warning;
    f[KP_FIG_FINDINGS_INFO] = t.info;
    for (int k = 0; k < 5; k++) f[KP_FIG_FINDINGS_KIND + k] = 0;
    for (size_t i = 0; i < n; i++) {
        kp_finding_kind k = kp_insight_finding_get(r->in, i)->kind;
        if ((unsigned)k < 5) f[KP_FIG_FINDINGS_KIND + (int)k]++;
    }
    f[KP_FIG_PDBS_VIOLATED] = t.pdbs_violated;
    f[KP_FIG_PDBS_AT_ZERO] = t.pdbs_at_zero;
    f[KP_FIG_EVICTIONS_BLOCKED] = t.evictions_blocked;
    f[KP_FIG_STARVED_PODS] = t.starved_pods;
    f[KP_FIG_STARVED_NEVER_BOUND] = t.starved_never_bound;
    f[KP_FIG_STARVED_WORKLOADS] = t.starved_workloads;
    f[KP_FIG_PRESSURE_EVICTIONS] = t.hotspot_evictions;
}

bool kp_cli_sweep_run(const kp_sweep *sw, size_t run, int64_t *figs, char *msg, size_t cap) {
    run_state r;
    memset(&r, 0, sizeof r);
    kp_error err;
    kp_error_clear(&err);
    kp_status st = KP_OK;
    if (!(r.idx = kp_calloc(sw->n_vars + 1, sizeof *r.idx)))
        st = kp_error_set(&err, KP_ENOMEM, "out of memory");
    if (st == KP_OK) {
        kp_sweep_run_values(sw, run, r.idx);
        st = load_inputs(sw, &r, &err);
    }
    if (st == KP_OK) {
        kp_sim_options o;
        kp_sim_options_init(&o);
        o.duration_ms = sw->has_duration ? sw->duration_ms : 0; /* else the scenario's */
        o.seed = sw->seed;
        o.has_seed = sw->has_seed;
        for (size_t i = 0; i < sw->n_vars; i++)
            if (sw->vars[i].kind == KP_SWEEP_SEEDS) {
                o.seed = sw->vars[i].seeds[r.idx[i]];
                o.has_seed = true;
            }
        o.kubelet_config = r.kcfg;
        o.kubelet_pools = r.pools;
        o.n_kubelet_pools = r.n_pools;
        if ((st = kp_sim_new(r.cl, r.cfg, r.sc, &o, &r.sim, &err)) == KP_OK &&
            (st = kp_sim_run(r.sim, &err)) == KP_OK)
            st = kp_insight_new(r.sim, NULL, &r.in, &err);
    }
    int64_t pending[4] = {0, 0, 0, 0};
    if (st == KP_OK && (st = kp_insight_pending_times(r.sim, pending)) != KP_OK)
        kp_error_set(&err, st, "out of memory");
    if (st == KP_OK) figures_of(&r, pending, figs);
    else if (err.code == KP_ENOMEM || st == KP_ENOMEM) snprintf(msg, cap, "out of memory");
    else if (err.source[0]) snprintf(msg, cap, "%s: %s", err.source, err.msg);
    else snprintf(msg, cap, "%s", err.msg);
    run_free(&r);
    return st == KP_OK;
}
