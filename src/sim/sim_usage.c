/* What the simulated kubelets observe (docs/scenario.md "Usage", docs/simulate.md "Kubelets"):
 * the Scenario's usage models evaluated at each pod's age (or the defaults), filled into the
 * Summary a kubelet serves (/stats/summary) through kprio/summary_builder.h, and OOM kills at
 * containers' memory limits.
 *
 * Upstream: pkg/kubelet/server/stats/summary.go and the cadvisor / CRI stats providers (the
 * document's shape: node.memory, node.fs, runtime.imageFs / containerFs, rlimit, per pod its
 * containers' memory, rootfs and logs, its volumes, ephemeral-storage = rootfs + logs + local
 * volumes as calcEphemeralStorage sums them, process_stats), pkg/kubelet/oom/oom_watcher_linux.go
 * (realWatcher.Start: a SystemOOM event on the node, "System OOM encountered, victim process:
 * NAME, pid: N"), pkg/kubelet/events/event.go (StartedContainer "Started container NAME" when the
 * kubelet restarts it). */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_usage.h"

/* defaults when no entry covers a pod or a node (docs/scenario.md "Usage") */
#define DEF_ROOTFS_BYTES ((int64_t)1 << 20) /* a container's writable layer: 1Mi */
#define DEF_ROOTFS_INODES 64
#define DEF_LOGS_BYTES ((int64_t)64 << 10) /* a container's log: 64Ki */
#define DEF_LOGS_INODES 1
#define DEF_EMPTYDIR_BYTES 4096 /* an empty directory, as du counts it */
#define DEF_EMPTYDIR_INODES 1
#define DEF_FS_CAPACITY ((int64_t)100 << 30) /* a node that states no ephemeral-storage */
#define BYTES_PER_INODE 16384 /* mke2fs's default inode_ratio */
#define MAXPID 32768 /* the kernel's default pid_max (PID_MAX_DEFAULT) */

/* ---------------------------------------------------------------- the models */

/* Entry u matched pod (selector and namespace): its scope is met, and its container or volume
 * when the pod has one of that name (kp_sim_usage_unmatched). Once per pod, as upod looks. */
static void hit_pod(const kp_sim *s, kp_index pod, const kp_scenario_usage *u, uint8_t *hit) {
    *hit |= SIM_USAGE_HIT_SCOPE;
    if (*hit & SIM_USAGE_HIT_NAME) return;
    bool vol = u->volume[0] != 0;
    const char *want = vol ? u->volume : u->container;
    if (!want[0]) return;
    size_t n = vol ? kp_cluster_pod_empty_dir_count(s->cl, pod)
                   : kp_cluster_pod_container_count(s->cl, pod);
    for (size_t i = 0; i < n; i++) {
        const char *name = vol ? kp_cluster_pod_empty_dir_name(s->cl, pod, i)
                               : kp_cluster_pod_container_name(s->cl, pod, i);
        if (strcmp(name, want) == 0) {
            *hit |= SIM_USAGE_HIT_NAME;
            return;
        }
    }
}

static sim_use_pod *upod(kp_sim *s, kp_index pod) {
    sim_kubelets *k = s->kub;
    if ((size_t)pod >= k->n_upods) {
        size_t n = k->n_upods;
        if (!kp__grow((void **)&k->upods, &n, (size_t)pod + 1, sizeof *k->upods, 64)) {
            k->oom = true;
            return NULL;
        }
        memset(k->upods + k->n_upods, 0, (n - k->n_upods) * sizeof *k->upods);
        k->n_upods = n;
    }
    sim_use_pod *up = &k->upods[pod];
    if (up->looked) return up;
    /* the pod entries matching it, in file order */
    const char *ns = kp_cluster_pod_namespace(s->cl, pod);
    up->off = (uint32_t)k->n_pool;
    up->n = 0;
    for (size_t i = 0; s->sc && i < s->sc->n_usage; i++) {
        const kp_scenario_usage *u = &s->sc->usage[i];
        if (u->node[0] || (u->ns[0] && strcmp(u->ns, ns) != 0) ||
            !kp_cluster_pod_matches(s->cl, pod, u->reqs, u->n_reqs))
            continue;
        if (!kp__grow((void **)&k->pool, &k->cap_pool, k->n_pool + 1, sizeof *k->pool, 64)) {
            k->oom = true;
            k->n_pool = up->off;
            return NULL;
        }
        k->pool[k->n_pool++] = (int32_t)i;
        up->n++;
        if (k->usage_hit) hit_pod(s, pod, u, &k->usage_hit[i]);
    }
    up->looked = true;
    return up;
}

/* The entry for (resource, container or volume name): a named one first, else a general one. */
static const kp_scenario_usage *entry(const kp_sim *s, const sim_use_pod *up, kp_usage_resource r,
                                      const char *name) {
    const kp_scenario_usage *gen = NULL;
    for (uint32_t i = 0; i < up->n; i++) {
        const kp_scenario_usage *u = &s->sc->usage[s->kub->pool[up->off + i]];
        if (u->res != r) continue;
        const char *which = r == KP_USE_EMPTYDIR ? u->volume : u->container;
        if (!which[0]) {
            if (!gen) gen = u;
        } else if (name && strcmp(which, name) == 0) {
            return u;
        }
    }
    return gen;
}

typedef struct {
    int64_t pod_age, cont_age; /* since bound; since the containers (re)started */
    bool *live;
} ages;

static int64_t value(const kp_scenario_usage *u, int64_t age, bool *live) {
    if (kp_scenario_usage_moves(u, age)) *live = true;
    return kp_scenario_usage_at(u, age);
}

static ages ages_of(const kp_sim *s, const sim_use_pod *up, kp_index pod, bool *live) {
    int64_t bound = s->pods[pod].pub.bound_ms;
    ages a;
    a.pod_age = s->now - (bound > 0 ? bound : 0);
    a.cont_age = up->restarted ? s->now - up->origin_ms : a.pod_age;
    a.live = live;
    return a;
}

static bool shares_room(sim_kubelets *k, size_t n) {
    if (kp__grow((void **)&k->shares, &k->cap_shares, n, sizeof *k->shares, 8)) return true;
    k->oom = true;
    return false;
}

/* The pod's working set, and each app container's in k->shares: a container entry gives its
 * own; the pod's entry (else the pod's memory request) is split over the others in proportion
 * to their memory requests (the first takes the rounding; all of it when nothing is requested). */
static int64_t pod_memory(kp_sim *s, kp_index pod, const sim_use_pod *up, const ages *a) {
    sim_kubelets *k = s->kub;
    size_t n = kp_cluster_pod_container_count(s->cl, pod);
    const kp_scenario_usage *gen = entry(s, up, KP_USE_MEMORY, NULL);
    if (!shares_room(k, n ? n : 1)) return 0;
    int64_t own = 0, rest_req = 0;
    double total = 0;
    bool any_own = false;
    for (size_t c = 0; c < n; c++) {
        const kp_scenario_usage *u =
            entry(s, up, KP_USE_MEMORY, kp_cluster_pod_container_name(s->cl, pod, c));
        k->shares[c] = -1;
        if (u && u != gen) {
            k->shares[c] = value(u, a->cont_age, a->live);
            own += k->shares[c];
            any_own = true;
        } else {
            int64_t req = kp_cluster_pod_container_memory_request(s->cl, pod, c);
            rest_req += req;
            total += (double)req;
        }
    }
    int64_t ws = gen       ? value(gen, a->cont_age, a->live)
                 : any_own ? rest_req
                           : kp_cluster_pod_memory_request(s->cl, pod);
    int64_t rest = ws;
    size_t first = n;
    for (size_t c = n; c-- > 0;) { /* the others first: the first container's share is the rest */
        if (k->shares[c] >= 0) continue;
        if (first < n) {
            double req = (double)kp_cluster_pod_container_memory_request(s->cl, pod, first);
            int64_t share = total > 0 ? (int64_t)((double)ws * (req / total)) : 0;
            if (share > rest) share = rest;
            rest -= share;
            k->shares[first] = share;
        }
        first = c;
    }
    if (first < n) k->shares[first] = rest;
    return own + (first < n || !n ? ws : 0);
}

/* ---------------------------------------------------------------- the summary */

/* a + b saturated: usage models' values near INT64_MAX add up without overflow */
static int64_t sum(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

static int64_t pos(int64_t v) { return v > 0 ? v : 0; }

/* unix seconds as the builder's nanoseconds; past year 2262, -1: the builder refuses it */
static int64_t ns_of(int64_t unix_s) {
    return unix_s >= 0 && unix_s <= INT64_MAX / 1000000000 ? unix_s * 1000000000 : -1;
}

static kp_summary_memory mem_stats(int64_t t_ns, int64_t avail, int64_t ws) {
    kp_summary_memory m;
    memset(&m, 0, sizeof m);
    m.has = KP_SUMMARY_AVAILABLE | KP_SUMMARY_WORKING_SET;
    m.time_ns = t_ns;
    m.available = pos(avail);
    m.working_set = pos(ws);
    return m;
}

/* a filesystem's stats (FsStats) */
typedef struct {
    int64_t cap, used, inodes, iused;
} fs_use;

/* FsStats of f reporting `used` bytes used */
static kp_summary_fs fs_stats(int64_t t_ns, const fs_use *f, int64_t used) {
    kp_summary_fs r;
    r.has = KP_SUMMARY_AVAILABLE | KP_SUMMARY_CAPACITY | KP_SUMMARY_USED | KP_SUMMARY_INODES_FREE |
            KP_SUMMARY_INODES | KP_SUMMARY_INODES_USED;
    r.time_ns = t_ns;
    r.available = pos(f->cap - f->used);
    r.capacity = f->cap;
    r.used = pos(used);
    r.inodes_free = pos(f->inodes - f->iused);
    r.inodes = f->inodes;
    r.inodes_used = pos(f->iused);
    return r;
}

/* a pod-side usedBytes / inodesUsed pair */
static kp_summary_fs used_stats(int64_t used, int64_t iused) {
    kp_summary_fs r;
    memset(&r, 0, sizeof r);
    r.has = KP_SUMMARY_USED | KP_SUMMARY_INODES_USED;
    r.used = used;
    r.inodes_used = iused;
    return r;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

/* ---------------------------------------------------------------- one pod */

typedef struct {
    int64_t ws, eph, eph_inodes, rootfs, rootfs_inodes, procs;
    uint64_t sig;
} pod_use;

/* The pod's usage, and its PodStats in the builder. */
static pod_use one_pod(kp_sim *s, kp_index pod, const kp_pod_info *pi, bool *live) {
    sim_kubelets *k = s->kub;
    kp_summary_builder *sb = k->sb;
    pod_use r;
    memset(&r, 0, sizeof r);
    sim_use_pod *up = upod(s, pod);
    if (!up) return r;
    ages a = ages_of(s, up, pod, live);
    r.ws = pod_memory(s, pod, up, &a);
    if (k->oom) return r;
    r.sig = mix(0x5678, (uint64_t)r.ws);
    size_t n = kp_cluster_pod_container_count(s->cl, pod);
    kp_summary_builder_pod(sb, pi->ns, pi->name, pi->uid);
    for (size_t c = 0; c < n; c++) {
        const char *name = kp_cluster_pod_container_name(s->cl, pod, c);
        const kp_scenario_usage *u;
        int64_t root =
            (u = entry(s, up, KP_USE_ROOTFS, name)) ? value(u, a.cont_age, live) : DEF_ROOTFS_BYTES;
        int64_t rino = (u = entry(s, up, KP_USE_INODES, name)) ? value(u, a.cont_age, live)
                                                               : DEF_ROOTFS_INODES;
        int64_t logs =
            (u = entry(s, up, KP_USE_LOGS, name)) ? value(u, a.pod_age, live) : DEF_LOGS_BYTES;
        r.eph = sum(r.eph, sum(root, logs));
        r.rootfs = sum(r.rootfs, root);
        r.rootfs_inodes = sum(r.rootfs_inodes, rino);
        r.eph_inodes = sum(r.eph_inodes, sum(rino, DEF_LOGS_INODES));
        r.sig = mix(mix(mix(mix(r.sig, (uint64_t)k->shares[c]), (uint64_t)root), (uint64_t)rino),
                    (uint64_t)logs);
        kp_summary_container cs;
        memset(&cs.memory, 0, sizeof cs.memory);
        cs.memory.has = KP_SUMMARY_WORKING_SET;
        cs.memory.working_set = k->shares[c];
        cs.rootfs = used_stats(root, rino);
        cs.logs = used_stats(logs, DEF_LOGS_INODES);
        kp_summary_builder_container(sb, name, &cs);
    }
    size_t nv = kp_cluster_pod_empty_dir_count(s->cl, pod);
    for (size_t v = 0; v < nv; v++) {
        const char *name = kp_cluster_pod_empty_dir_name(s->cl, pod, v);
        const kp_scenario_usage *u = entry(s, up, KP_USE_EMPTYDIR, name);
        int64_t used = u ? value(u, a.pod_age, live) : DEF_EMPTYDIR_BYTES;
        r.eph = sum(r.eph, used);
        r.eph_inodes = sum(r.eph_inodes, DEF_EMPTYDIR_INODES);
        r.sig = mix(r.sig, (uint64_t)used);
        kp_summary_fs vs = used_stats(used, DEF_EMPTYDIR_INODES);
        kp_summary_builder_volume(sb, name, &vs);
    }
    const kp_scenario_usage *u = entry(s, up, KP_USE_PIDS, NULL);
    r.procs = u ? value(u, a.cont_age, live) : (int64_t)n;
    r.sig = mix(r.sig, (uint64_t)r.procs);
    /* ephemeral-storage: rootfs + logs + local volumes, as calcEphemeralStorage sums them */
    kp_summary_pod ps;
    memset(&ps.memory, 0, sizeof ps.memory);
    ps.memory.has = KP_SUMMARY_WORKING_SET;
    ps.memory.working_set = r.ws;
    ps.ephemeral_storage = used_stats(r.eph, r.eph_inodes);
    ps.has_processes = true;
    ps.processes = r.procs;
    kp_summary_builder_pod_stats(sb, &ps);
    return r;
}

/* ---------------------------------------------------------------- the node */

/* The node entry for resource r (its name, else "*"), NULL when none. */
static const kp_scenario_usage *node_entry(const kp_sim *s, const char *node, kp_usage_resource r) {
    for (size_t i = 0; s->sc && i < s->sc->n_usage; i++) {
        const kp_scenario_usage *u = &s->sc->usage[i];
        if (u->res == r && u->node[0] && (strcmp(u->node, node) == 0 || strcmp(u->node, "*") == 0))
            return u;
    }
    return NULL;
}

static int64_t node_value(const kp_sim *s, const char *node, kp_usage_resource r, int64_t def,
                          bool *live) {
    const kp_scenario_usage *u = node_entry(s, node, r);
    return u ? value(u, s->now, live) : def;
}

/* The node's filesystems from what its pods and system use (summary.go: node.fs is the root
 * filesystem, runtime.imageFs the images' and runtime.containerFs the writable layers'). */
static void node_filesystems(kp_sim *s, int64_t t_ns, int64_t ecap, const pod_use *pods,
                             int64_t sys_disk, int64_t images, int64_t sys_inodes) {
    kp_summary_builder *sb = s->kub->sb;
    fs_use node, img;
    node.cap = img.cap = ecap > 0 ? ecap : DEF_FS_CAPACITY;
    node.inodes = img.inodes = node.cap / BYTES_PER_INODE;
    /* shared: one disk; split: the writable layers on the node's disk, images apart */
    node.used = sum(sys_disk, pods->eph);
    node.iused = sum(sys_inodes, pods->eph_inodes);
    img.used = images;
    img.iused = 0;
    switch (s->o.fs_layout) {
    case KP_EVFS_DEDICATED: /* the writable layers with the images */
        node.used -= pods->rootfs;
        node.iused -= pods->rootfs_inodes;
        img.used = sum(img.used, pods->rootfs);
        img.iused = sum(img.iused, pods->rootfs_inodes);
        break;
    case KP_EVFS_SPLIT: break;
    case KP_EVFS_AUTO:
    case KP_EVFS_SHARED:
        node.used = sum(node.used, images);
        img = node;
        break;
    }
    bool shared = s->o.fs_layout == KP_EVFS_AUTO || s->o.fs_layout == KP_EVFS_SHARED;
    kp_summary_fs f = fs_stats(t_ns, &node, node.used);
    kp_summary_builder_node_fs(sb, KP_SUMMARY_NODE_FS, &f);
    f = fs_stats(t_ns, &img, shared ? images : img.used);
    kp_summary_builder_node_fs(sb, KP_SUMMARY_IMAGE_FS, &f);
    if (s->o.fs_layout == KP_EVFS_SPLIT) f = fs_stats(t_ns, &node, pods->rootfs);
    kp_summary_builder_node_fs(sb, KP_SUMMARY_CONTAINER_FS, &f);
}

void kp__sim_observe(kp_sim *s, kp_index node, uint64_t *pods_sig, uint64_t *obs_sig, bool *live) {
    sim_kubelets *k = s->kub;
    const char *nn = kp_cluster_node_name(s->cl, node);
    int64_t cap, alloc, ecap, ealloc;
    kp_cluster_node_memory(s->cl, node, &cap, &alloc);
    kp_cluster_node_ephemeral_storage(s->cl, node, &ecap, &ealloc);
    int64_t t_ns = ns_of(s->epoch + s->now / 1000); /* the document's times are whole seconds */
    uint64_t ps = 0x1234, os = 0x5678;
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    pod_use all;
    memset(&all, 0, sizeof all);
    if (!k->sb && !(k->sb = kp_summary_builder_new())) {
        k->oom = true;
        return;
    }
    kp_summary_builder_reset(k->sb);
    for (size_t i = 0; i < n; i++) {
        kp_index p = kp_cluster_node_pod(s->cl, node, i);
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, p, &pi);
        if (pi.deleted || pi.terminal) continue;
        pod_use u = one_pod(s, p, &pi, live);
        all.ws = sum(all.ws, u.ws);
        all.eph = sum(all.eph, u.eph);
        all.eph_inodes = sum(all.eph_inodes, u.eph_inodes);
        all.rootfs = sum(all.rootfs, u.rootfs);
        all.rootfs_inodes = sum(all.rootfs_inodes, u.rootfs_inodes);
        all.procs = sum(all.procs, u.procs);
        ps = mix(ps, (uint64_t)p);
        os = mix(os, u.sig);
    }
    /* the node entries naming it are met (kp_sim_usage_unmatched) */
    for (size_t i = 0; k->usage_hit && i < s->sc->n_usage; i++)
        if (!k->usage_hit[i] && s->sc->usage[i].node[0] && strcmp(s->sc->usage[i].node, nn) == 0)
            k->usage_hit[i] = SIM_USAGE_HIT_SCOPE;
    /* the node's system (its overhead): capacity - allocatable unless a node entry says */
    int64_t sys_ws = node_value(s, nn, KP_USE_MEMORY, cap - alloc, live);
    int64_t sys_disk = node_value(s, nn, KP_USE_NODEFS, ecap - ealloc, live);
    int64_t images = node_value(s, nn, KP_USE_IMAGEFS, 0, live);
    int64_t sys_inodes = node_value(s, nn, KP_USE_INODES, 0, live);
    int64_t sys_procs = node_value(s, nn, KP_USE_PIDS, 0, live);
    os = mix(mix(mix(mix(mix(os, (uint64_t)sys_ws), (uint64_t)sys_disk), (uint64_t)images),
                 (uint64_t)sys_inodes),
             (uint64_t)sys_procs);
    *pods_sig = ps;
    *obs_sig = mix(os, (uint64_t)n);
    /* the node's working set: its pods plus the system's; the pods cgroup is limited to
     * allocatable (enforceNodeAllocatable: pods) */
    kp_summary_builder *sb = k->sb;
    int64_t node_ws = sum(all.ws, sys_ws);
    kp_summary_builder_node(sb, nn);
    kp_summary_memory m = mem_stats(t_ns, cap - node_ws, node_ws);
    kp_summary_builder_node_memory(sb, &m);
    node_filesystems(s, t_ns, ecap, &all, sys_disk, images, sys_inodes);
    kp_summary_builder_rlimit(sb, t_ns, true, MAXPID, true, pos(sum(sys_procs, all.procs)));
    m = mem_stats(t_ns, alloc - all.ws, all.ws);
    kp_summary_builder_pods_memory(sb, &m);
}

/* ---------------------------------------------------------------- OOM kills */

/* mirrors realWatcher.Start (a SystemOOM event per OOM the kernel reports) and the kubelet's
 * restart of the container (StartedContainer); the restart waits for no CrashLoopBackOff. */
kp_status kp__sim_oom_kills(kp_sim *s, kp_index node, size_t *killed, kp_error *err) {
    sim_kubelets *k = s->kub;
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    *killed = 0;
    for (size_t i = 0; i < n; i++) {
        kp_index p = kp_cluster_node_pod(s->cl, node, i);
        /* the limits first: most pods have none, and the pod's record is not read then */
        size_t nc = kp_cluster_pod_container_count(s->cl, p);
        bool any_limit = false;
        for (size_t c = 0; c < nc && !any_limit; c++)
            any_limit = kp_cluster_pod_container_memory_limit(s->cl, p, c) > 0;
        if (!any_limit) continue;
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, p, &pi);
        if (pi.deleted || pi.terminal) continue;
        sim_use_pod *up = upod(s, p);
        if (!up) break;
        bool live = false;
        ages a = ages_of(s, up, p, &live);
        pod_memory(s, p, up, &a);
        if (k->oom) break;
        const char *restarted = NULL;
        for (size_t c = 0; c < nc; c++) {
            int64_t lim = kp_cluster_pod_container_memory_limit(s->cl, p, c);
            if (lim <= 0 || k->shares[c] <= lim) continue;
            const char *cn = kp_cluster_pod_container_name(s->cl, p, c);
            long ev = kp__sim_logf(s, KP_SIM_WARNING, "SystemOOM", -1, node, -1,
                                   "System OOM encountered, victim process: %s, pid: %llu", cn,
                                   (unsigned long long)(1000 + ++k->next_pid));
            if (ev < 0 || kp__sim_logf(s, KP_SIM_NORMAL, "Started", p, node, ev,
                                       "Started container %s", cn) < 0)
                return kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory");
            if (!restarted) restarted = cn;
            ++*killed;
            s->c.oom_kills++;
        }
        if (restarted) {
            up->restarted = true;
            up->origin_ms = s->now;
            up->restarts++;
            s->pods[p].pub.restarts++;
            /* not Ready until the restarted container is ready again */
            kp_status st = kp__sim_ready_restart(s, (uint32_t)p, restarted, err);
            if (st != KP_OK) return st;
        }
    }
    return k->oom ? kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory") : KP_OK;
}

const char *kp_sim_usage_unmatched(const kp_sim *s, size_t i) {
    if (!s->sc || i >= s->sc->n_usage) return NULL;
    const kp_scenario_usage *u = &s->sc->usage[i];
    uint8_t hit = s->kub && s->kub->usage_hit ? s->kub->usage_hit[i] : 0;
    if (u->node[0]) return strcmp(u->node, "*") != 0 && !hit ? "node" : NULL;
    if (!(hit & SIM_USAGE_HIT_SCOPE)) return "selector";
    if ((u->container[0] || u->volume[0]) && !(hit & SIM_USAGE_HIT_NAME))
        return u->volume[0] ? "volume" : "container";
    return NULL;
}

void kp__sim_usage_free(sim_kubelets *k) {
    kp__free(k->usage_hit);
    kp__free(k->upods);
    kp__free(k->pool);
    kp_summary_builder_free(k->sb);
    kp__free(k->json);
    kp__free(k->shares);
}
