/* The kubelets of a simulation (docs/simulate.md "Kubelets"): one eviction manager per node,
 * driven through kprio/eviction.h exactly as `kprio evict` drives it. Every
 * evictionMonitoringPeriod a node's kubelet observes its pods' usage (the Scenario's usage
 * models, else each pod's memory request) as a Summary API document, built as JSON text and
 * parsed with kp_evict_summary_load_buffer (the only public way into a summary), runs one
 * synchronize step and applies its decision: the evicted pod goes Failed with reason Evicted and
 * the engine's message, and the node's pressure conditions become the node lifecycle
 * controller's NoSchedule taints.
 *
 * Upstream: pkg/kubelet/eviction/eviction_manager.go (managerImpl.Start: synchronize every
 * monitoringInterval; after an eviction, waitForPodsCleanup polls every podCleanupPollFreq = 1s
 * for at most podCleanupTimeout = 30s before the next synchronize), pkg/kubelet/nodestatus/
 * setters.go (MemoryPressureCondition & co.: the NodeHas... events), pkg/controller/nodelifecycle
 * (doNoScheduleTaintingPass: node.kubernetes.io/memory-pressure:NoSchedule & co.). */
#include <stdio.h>
#include <string.h>

#include "kprio/eviction.h"
#include "sim/sim_internal.h"

#define KUBELET_PERIOD_MS 10000 /* evictionMonitoringPeriod */
#define CLEANUP_POLL_MS 1000 /* podCleanupPollFreq */
#define CLEANUP_TIMEOUT_MS 30000 /* podCleanupTimeout */

typedef struct {
    kp_evict_manager *m;
    uint64_t pods_sig, obs_sig; /* the active pods, and what they use, at the last step */
    bool has_step;
    bool idle; /* the last step met no threshold and reported no condition */
    bool live; /* at the last observation a pod's usage could still change by itself */
    uint64_t ids_sig; /* the node's pod list at the last observation */
    unsigned tainted; /* KP_NODE_COND_* bits whose taint is on */
    int64_t wait_pod; /* evicted pod whose cleanup the next step waits for, -1 */
    int64_t wait_since, wait_kill_at; /* ms: the eviction; when its grace period ends */
} sim_kub_node;

struct sim_kubelets {
    kp_evict_config *own_cfg; /* the default configuration, when none was given */
    const kp_evict_config *cfg;
    sim_kub_node *nodes;
    size_t n_nodes;
    int32_t *model; /* per pod: its usage entry (memory), -1 none, -2 not looked up yet */
    size_t n_model;
    char *buf; /* the summary being written */
    size_t len, cap;
    bool oom;
    int64_t *shares; /* per container of the pod being written */
    size_t n_shares;
    uint64_t sched_seen; /* s->c.scheduled at the latest pass */
};

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory");
}

/* ---------------------------------------------------------------- usage */

static int32_t model_of(kp_sim *s, kp_index pod) {
    sim_kubelets *k = s->kub;
    if ((size_t)pod >= k->n_model) {
        size_t n = k->n_model ? k->n_model : 64;
        while (n <= (size_t)pod) n *= 2;
        int32_t *nm = kp_realloc(k->model, n * sizeof *nm);
        if (nm) { /* else no cache: the pod is looked up again next time, same answer */
            for (size_t i = k->n_model; i < n; i++) nm[i] = -2;
            k->model = nm;
            k->n_model = n;
        }
    }
    bool cached = (size_t)pod < k->n_model;
    if (cached && k->model[pod] != -2) return k->model[pod];
    int32_t found = -1;
    const char *ns = kp_cluster_pod_namespace(s->cl, pod);
    for (size_t i = 0; s->sc && i < s->sc->n_usage && found < 0; i++) {
        const kp_scenario_usage *u = &s->sc->usage[i];
        if (strcmp(u->resource, "memory") != 0) continue;
        if (u->ns[0] && strcmp(u->ns, ns) != 0) continue;
        if (kp_cluster_pod_matches(s->cl, pod, u->reqs, u->n_reqs)) found = (int32_t)i;
    }
    if (cached) k->model[pod] = found;
    return found;
}

/* The pod's memory working set now; *live: it may still change (a ramp below its cap, a step
 * not reached). */
static int64_t pod_memory(kp_sim *s, kp_index pod, bool *live) {
    int32_t mi = model_of(s, pod);
    if (mi < 0) return kp_cluster_pod_memory_request(s->cl, pod);
    const kp_scenario_usage *u = &s->sc->usage[mi];
    int64_t bound = s->pods[pod].pub.bound_ms;
    int64_t age = s->now - (bound > 0 ? bound : 0);
    int64_t v = kp_scenario_usage_at(u, age);
    if (u->model == KP_USAGE_RAMP && u->per_minute > 0 && (!u->has_cap || v < u->cap)) *live = true;
    if (u->model == KP_USAGE_STEP && age < u->at_ms && u->before != u->after) *live = true;
    return v;
}

/* ---------------------------------------------------------------- the summary */

static void put(sim_kubelets *k, const char *p, size_t n) {
    if (k->oom) return;
    if (k->len + n + 1 > k->cap) {
        size_t c = k->cap ? k->cap : 4096;
        while (c < k->len + n + 1) c *= 2;
        char *nb = kp_realloc(k->buf, c);
        if (!nb) {
            k->oom = true;
            return;
        }
        k->buf = nb;
        k->cap = c;
    }
    memcpy(k->buf + k->len, p, n);
    k->len += n;
    k->buf[k->len] = 0;
}

static void puts_(sim_kubelets *k, const char *p) { put(k, p, strlen(p)); }

/* a JSON string */
static void put_str(sim_kubelets *k, const char *v) {
    put(k, "\"", 1);
    for (; *v; v++) {
        char e[8];
        unsigned char c = (unsigned char)*v;
        if (c == '"' || c == '\\') {
            e[0] = '\\';
            e[1] = (char)c;
            put(k, e, 2);
        } else if (c < 0x20) {
            snprintf(e, sizeof e, "\\u%04x", c);
            put(k, e, 6);
        } else {
            put(k, v, 1);
        }
    }
    put(k, "\"", 1);
}

/* RFC 3339 of unix seconds (UTC), civil from days (proleptic Gregorian) */
static void put_time(sim_kubelets *k, int64_t unix_s) {
    int64_t days = unix_s / 86400, rem = unix_s % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    char b[64];
    snprintf(b, sizeof b, "\"%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ\"", (long long)y,
             (long long)m, (long long)d, (long long)(rem / 3600), (long long)(rem / 60 % 60),
             (long long)(rem % 60));
    puts_(k, b);
}

static void put_mem(sim_kubelets *k, int64_t unix_s, int64_t avail, int64_t ws) {
    char b[96];
    puts_(k, "{\"time\":");
    put_time(k, unix_s);
    snprintf(b, sizeof b, ",\"availableBytes\":%lld,\"workingSetBytes\":%lld}",
             (long long)(avail > 0 ? avail : 0), (long long)(ws > 0 ? ws : 0));
    puts_(k, b);
}

/* The pod's working set split over its app containers in proportion to their memory requests
 * (the first takes the rounding; all of it when nothing is requested), as the containers' stats
 * whose usage over request the eviction message reports (evictionMessage). */
static void put_containers(kp_sim *s, kp_index pod, int64_t ws) {
    sim_kubelets *k = s->kub;
    size_t n = kp_cluster_pod_container_count(s->cl, pod);
    if (!n || k->oom) return;
    if (n > k->n_shares) {
        int64_t *ns = kp_realloc(k->shares, n * sizeof *ns);
        if (!ns) {
            k->oom = true;
            return;
        }
        k->shares = ns;
        k->n_shares = n;
    }
    double total = 0;
    for (size_t c = 0; c < n; c++)
        total += (double)kp_cluster_pod_container_memory_request(s->cl, pod, c);
    int64_t rest = ws;
    for (size_t c = n; c-- > 1;) { /* the others first: the first container's share is the rest */
        double req = (double)kp_cluster_pod_container_memory_request(s->cl, pod, c);
        int64_t share = total > 0 ? (int64_t)((double)ws * (req / total)) : 0;
        if (share > rest) share = rest;
        rest -= share;
        k->shares[c] = share;
    }
    k->shares[0] = rest;
    puts_(k, ",\"containers\":[");
    for (size_t c = 0; c < n; c++) {
        char b[64];
        puts_(k, c ? ",{\"name\":" : "{\"name\":");
        put_str(k, kp_cluster_pod_container_name(s->cl, pod, c));
        snprintf(b, sizeof b, ",\"memory\":{\"workingSetBytes\":%lld}}", (long long)k->shares[c]);
        puts_(k, b);
    }
    puts_(k, "]");
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/* One pass over the node's pods: their usage, the signatures, and (write) the summary. */
static void observe(kp_sim *s, kp_index node, bool write, uint64_t *pods_sig, uint64_t *obs_sig,
                    bool *live) {
    sim_kubelets *k = s->kub;
    int64_t cap, alloc, pods_ws = 0;
    kp_cluster_node_memory(s->cl, node, &cap, &alloc);
    int64_t unix_s = s->epoch + s->now / 1000;
    uint64_t ps = 0x1234, os = 0x5678;
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    if (write) {
        k->len = 0;
        k->oom = false;
        puts_(k, "{\"pods\":[");
    }
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        kp_index p = kp_cluster_node_pod(s->cl, node, i);
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, p, &pi);
        if (pi.deleted || pi.terminal) continue;
        int64_t ws = pod_memory(s, p, live);
        pods_ws += ws;
        ps = mix(ps, (uint64_t)p);
        os = mix(os, (uint64_t)ws);
        if (!write) continue;
        char b[64];
        puts_(k, first ? "{\"podRef\":{\"name\":" : ",{\"podRef\":{\"name\":");
        first = false;
        put_str(k, pi.name);
        puts_(k, ",\"namespace\":");
        put_str(k, pi.ns);
        if (pi.uid[0]) {
            puts_(k, ",\"uid\":");
            put_str(k, pi.uid);
        }
        snprintf(b, sizeof b, "},\"memory\":{\"workingSetBytes\":%lld}", (long long)ws);
        puts_(k, b);
        put_containers(s, p, ws);
        puts_(k, "}");
    }
    *pods_sig = ps;
    *obs_sig = mix(os, (uint64_t)n);
    if (!write) return;
    /* the node's working set: its pods plus the system's reservation (capacity - allocatable);
     * the pods cgroup is limited to allocatable (enforceNodeAllocatable: pods) */
    int64_t node_ws = pods_ws + (cap - alloc);
    puts_(k, "],\"node\":{\"nodeName\":");
    put_str(k, kp_cluster_node_name(s->cl, node));
    puts_(k, ",\"memory\":");
    put_mem(k, unix_s, cap - node_ws, node_ws);
    puts_(k, ",\"systemContainers\":[{\"name\":\"pods\",\"memory\":");
    put_mem(k, unix_s, alloc - pods_ws, pods_ws);
    puts_(k, "}]}}");
}

/* ---------------------------------------------------------------- decisions */

static const struct {
    unsigned bit;
    const char *taint, *on, *off;
} PRESSURE[] = {
    {KP_NODE_COND_MEMORY_PRESSURE, "node.kubernetes.io/memory-pressure",
     "NodeHasInsufficientMemory", "NodeHasSufficientMemory"},
    {KP_NODE_COND_DISK_PRESSURE, "node.kubernetes.io/disk-pressure", "NodeHasDiskPressure",
     "NodeHasNoDiskPressure"},
    {KP_NODE_COND_PID_PRESSURE, "node.kubernetes.io/pid-pressure", "NodeHasInsufficientPID",
     "NodeHasSufficientPID"},
};

/* The kubelet reports the conditions (recordNodeStatusEvent); the node lifecycle controller
 * taints the node after them (doNoScheduleTaintingPass). */
static kp_status follow_conditions(kp_sim *s, kp_index node, sim_kub_node *kn, unsigned cond,
                                   kp_error *err) {
    bool untainted = false;
    const char *nn = kp_cluster_node_name(s->cl, node);
    for (size_t i = 0; i < sizeof PRESSURE / sizeof PRESSURE[0]; i++) {
        unsigned b = PRESSURE[i].bit;
        bool on = (cond & b) != 0, was = (kn->tainted & b) != 0;
        if (on == was) continue;
        const char *what = on ? PRESSURE[i].on : PRESSURE[i].off;
        if (kp__sim_logf(s, KP_SIM_NORMAL, what, -1, node, -1, "Node %s status is now: %s", nn,
                         what) < 0)
            return nomem(err);
        kp_status st;
        if (on) {
            st = kp_cluster_node_taint(s->cl, node, PRESSURE[i].taint, "", "NoSchedule", err);
            if (st == KP_OK && kp__sim_logf(s, KP_SIM_NORMAL, "TaintAdded", -1, node, -1,
                                            "taint %s=:NoSchedule added", PRESSURE[i].taint) < 0)
                return nomem(err);
            kn->tainted |= b;
        } else {
            size_t removed = 0;
            st = kp_cluster_node_untaint(s->cl, node, PRESSURE[i].taint, "NoSchedule", &removed,
                                         err);
            if (st == KP_OK &&
                kp__sim_logf(s, KP_SIM_NORMAL, "TaintRemoved", -1, node, -1,
                             "%zu taint(s) %s removed", removed, PRESSURE[i].taint) < 0)
                return nomem(err);
            kn->tainted &= ~b;
            untainted = true;
        }
        if (st != KP_OK) return st;
    }
    if (untainted && kp__sim_move_all(s, "NodeUpdate") != KP_OK) return nomem(err);
    return KP_OK;
}

/* mirrors managerImpl.evictPod: the pod is killed with the grace period override, then its
 * status is Failed, reason Evicted, the engine's message (an event of reason Evicted). */
static kp_status evict(kp_sim *s, kp_index node, sim_kub_node *kn, const kp_evict_eviction *e,
                       kp_error *err) {
    long ev = kp__sim_logf(s, KP_SIM_WARNING, "Evicted", e->pod, node, -1, "%s", e->message);
    if (ev < 0) return nomem(err);
    sim_pod *sp = &s->pods[e->pod];
    if (sp->lost_ev < 0) sp->lost_ev = ev;
    kn->wait_pod = e->pod;
    kn->wait_since = s->now;
    kn->wait_kill_at = s->now + e->grace_seconds * 1000;
    s->c.kubelet_evictions++;
    if (e->grace_seconds > 0) {
        sp->pub.state = KP_SIM_POD_TERMINATING;
        sp->pub.terminating_ms = s->now;
        return KP_OK; /* killed when the grace period ends (the cleanup polls) */
    }
    return KP_OK;
}

/* The evicted pod's containers are stopped: Failed, Evicted; its controller replaces it. */
static kp_status finish_evicted(kp_sim *s, kp_index pod, kp_error *err) {
    kp_status st = kp__sim_pod_finished(s, (uint32_t)pod, KP_POD_PHASE_FAILED, "Evicted", err);
    if (st == KP_OK) s->pods[pod].pub.cause = "evicted";
    return st;
}

/* ---------------------------------------------------------------- the pass */

static kp_status step(kp_sim *s, kp_index node, sim_kub_node *kn, uint64_t pods_sig,
                      kp_error *err) {
    sim_kubelets *k = s->kub;
    kp_status st;
    if (!kn->m) {
        const kp_evict_config *cfg = kp__sim_kubelet_config(s, node, k->cfg); /* its pool's */
        if ((st = kp_evict_manager_new(s->cl, node, cfg, &kn->m, err)) != KP_OK) return st;
    } else if (pods_sig != kn->pods_sig) {
        if ((st = kp_evict_manager_sync_pods(kn->m, err)) != KP_OK) return st;
    }
    if (k->oom) return nomem(err);
    kp_evict_summary *sum = NULL;
    if ((st = kp_evict_summary_load_buffer("simulated summary", k->buf, k->len, &sum, err)) !=
        KP_OK)
        return st;
    kp_evict_result res;
    st = kp_evict_manager_step(kn->m, sum, &res, err);
    kp_evict_summary_free(sum);
    if (st != KP_OK) return st;
    s->c.kubelet_steps++;
    kn->idle = res.n_met == 0 && res.conditions == 0;
    if ((st = follow_conditions(s, node, kn, res.conditions, err)) != KP_OK) return st;
    /* one eviction per pass (the manager returns after the first pod it kills) */
    if (res.n_evicted) {
        if ((st = evict(s, node, kn, &res.evicted[0], err)) != KP_OK) return st;
        if (res.evicted[0].grace_seconds <= 0) st = finish_evicted(s, res.evicted[0].pod, err);
    }
    return st;
}

/* The node's pod list (bound, not terminal: finished and deleted pods leave it). */
static uint64_t ids_sig(const kp_sim *s, kp_index node) {
    uint64_t h = 0x9abc;
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    for (size_t i = 0; i < n; i++) h = mix(h, (uint64_t)kp_cluster_node_pod(s->cl, node, i));
    return mix(h, (uint64_t)n);
}

/* The evicted pod is cleaned up (podCleanedUpFunc): gone, or ended. */
static bool cleaned_up(kp_sim *s, kp_index pod) {
    kp_pod_info pi;
    kp_cluster_pod_info(s->cl, pod, &pi);
    return pi.deleted || pi.terminal;
}

static kp_status pass(kp_sim *s, kp_index node, kp_error *err) {
    sim_kubelets *k = s->kub;
    if (!k || (size_t)node >= k->n_nodes || kp_cluster_node_deleted(s->cl, node)) return KP_OK;
    sim_kub_node *kn = &k->nodes[node];
    kp_status st = KP_OK;
    k->sched_seen = s->c.scheduled;
    if (kn->wait_pod >= 0) { /* waitForPodsCleanup */
        if (!cleaned_up(s, kn->wait_pod) && s->now >= kn->wait_kill_at &&
            (st = finish_evicted(s, kn->wait_pod, err)) != KP_OK)
            return st;
        if (!cleaned_up(s, kn->wait_pod) && s->now - kn->wait_since < CLEANUP_TIMEOUT_MS)
            return kp__sim_timer_add(s, s->now + CLEANUP_POLL_MS, SIM_EV_KUBELET, node, 0) == KP_OK
                       ? KP_OK
                       : nomem(err);
        kn->wait_pod = -1;
    }
    bool live = false;
    uint64_t ps = 0, os = 0, ids = ids_sig(s, node);
    /* a node whose pods and usage did not change since a step that met nothing needs no step:
     * the manager would decide the same (no allocation, no parse). Without a pod whose usage
     * moves by itself, the same pod list is the same observation. */
    bool skip = kn->has_step && kn->idle && !kn->live && ids == kn->ids_sig;
    if (!skip) {
        observe(s, node, false, &ps, &os, &live);
        skip = kn->has_step && kn->idle && ps == kn->pods_sig && os == kn->obs_sig;
        kn->live = live;
        kn->ids_sig = ids;
    }
    if (!skip && kp_cluster_node_pod_count(s->cl, node) == 0 && !kn->m) skip = true;
    if (!skip) {
        observe(s, node, true, &ps, &os, &live);
        if ((st = step(s, node, kn, ps, err)) != KP_OK) return st;
        kn->has_step = true;
        kn->pods_sig = ps;
        kn->obs_sig = os;
    } else {
        s->c.kubelet_quiet_passes++;
    }
    int64_t next = s->now + (kn->wait_pod >= 0 ? CLEANUP_POLL_MS : KUBELET_PERIOD_MS);
    bool busy = kn->live || !kn->idle || kn->wait_pod >= 0;
    return kp__sim_timer_add(s, next, busy ? SIM_EV_KUBELET : SIM_EV_KUBELET_IDLE, node, 0) == KP_OK
               ? KP_OK
               : nomem(err);
}

/* Nodes that appeared since the last look get a kubelet (a pass now). */
static kp_status add_nodes(kp_sim *s, kp_error *err) {
    sim_kubelets *k = s->kub;
    size_t n = kp_cluster_node_count(s->cl);
    if (n <= k->n_nodes) return KP_OK;
    sim_kub_node *nn = kp_realloc(k->nodes, n * sizeof *nn);
    if (!nn) return nomem(err);
    k->nodes = nn;
    for (size_t i = k->n_nodes; i < n; i++) {
        memset(&nn[i], 0, sizeof nn[i]);
        nn[i].wait_pod = -1;
        if (kp__sim_timer_add(s, s->now, SIM_EV_KUBELET_IDLE, (int64_t)i, 0) != KP_OK)
            return nomem(err);
    }
    k->n_nodes = n;
    return KP_OK;
}

kp_status kp__sim_kubelet_timer(kp_sim *s, kp_index node, kp_error *err) {
    kp_status st = add_nodes(s, err);
    return st == KP_OK ? pass(s, node, err) : st;
}

kp_status kp__sim_kubelets_start(kp_sim *s, kp_error *err) {
    bool on =
        s->o.kubelets || s->o.kubelet_config || s->o.n_kubelet_pools || (s->sc && s->sc->n_usage);
    if (!on) return KP_OK;
    sim_kubelets *k = kp_calloc(1, sizeof *k);
    if (!k) return nomem(err);
    s->kub = k;
    k->cfg = s->o.kubelet_config;
    if (!k->cfg) {
        k->own_cfg = kp_evict_config_new();
        if (!k->own_cfg) return nomem(err);
        kp_status st = kp_evict_config_finish(k->own_cfg, err);
        if (st != KP_OK) return st;
        k->cfg = k->own_cfg;
    }
    return add_nodes(s, err);
}

unsigned kp__sim_kubelet_conditions(const kp_sim *s, kp_index node) {
    const sim_kubelets *k = s->kub;
    return k && node >= 0 && (size_t)node < k->n_nodes ? k->nodes[node].tainted : 0;
}

bool kp__sim_kubelets_settled(const kp_sim *s) {
    return !s->kub || s->kub->sched_seen == s->c.scheduled;
}

void kp__sim_kubelets_free(kp_sim *s) {
    sim_kubelets *k = s->kub;
    if (!k) return;
    for (size_t i = 0; i < k->n_nodes; i++) kp_evict_manager_free(k->nodes[i].m);
    kp_free(k->nodes);
    kp_free(k->model);
    kp_free(k->buf);
    kp_free(k->shares);
    kp_evict_config_free(k->own_cfg);
    kp_free(k);
    s->kub = NULL;
}
