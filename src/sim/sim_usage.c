/* What the simulated kubelets observe (docs/scenario.md "Usage", docs/simulate.md "Kubelets"):
 * the Scenario's usage models evaluated at each pod's age (or the defaults), written as the
 * Summary API document a kubelet serves (/stats/summary), and OOM kills at containers' memory
 * limits.
 *
 * Upstream: pkg/kubelet/server/stats/summary.go and the cadvisor / CRI stats providers (the
 * document's shape: node.memory, node.fs, runtime.imageFs / containerFs, rlimit, per pod its
 * containers' memory, rootfs and logs, its volumes, ephemeral-storage = rootfs + logs + local
 * volumes as calcEphemeralStorage sums them, process_stats), pkg/kubelet/oom/oom_watcher_linux.go
 * (realWatcher.Start: a SystemOOM event on the node, "System OOM encountered, victim process:
 * NAME, pid: N"), pkg/kubelet/events/event.go (StartedContainer "Started container NAME" when the
 * kubelet restarts it). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim_kubelet.h"

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

static sim_use_pod *upod(kp_sim *s, kp_index pod) {
    sim_kubelets *k = s->kub;
    if ((size_t)pod >= k->n_upods) {
        size_t n = k->n_upods ? k->n_upods : 64;
        while (n <= (size_t)pod) n *= 2;
        sim_use_pod *nu = kp_realloc(k->upods, n * sizeof *nu);
        if (!nu) {
            k->oom = true;
            return NULL;
        }
        memset(nu + k->n_upods, 0, (n - k->n_upods) * sizeof *nu);
        k->upods = nu;
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
        if (k->n_pool == k->cap_pool) {
            size_t c = k->cap_pool ? k->cap_pool * 2 : 64;
            int32_t *np = kp_realloc(k->pool, c * sizeof *np);
            if (!np) {
                k->oom = true;
                k->n_pool = up->off;
                return NULL;
            }
            k->pool = np;
            k->cap_pool = c;
        }
        k->pool[k->n_pool++] = (int32_t)i;
        up->n++;
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
    if (n <= k->n_shares) return true;
    int64_t *ns = kp_realloc(k->shares, n * sizeof *ns);
    if (!ns) {
        k->oom = true;
        return false;
    }
    k->shares = ns;
    k->n_shares = n;
    return true;
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

/* ---------------------------------------------------------------- the summary text */

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

static void putf(sim_kubelets *k, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void putf(sim_kubelets *k, const char *fmt, ...) {
    char t[200];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    put(k, t, n > 0 ? (size_t)n : 0);
}

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

static long long pos(int64_t v) { return v > 0 ? (long long)v : 0; }

static void put_mem(sim_kubelets *k, int64_t unix_s, int64_t avail, int64_t ws) {
    puts_(k, "{\"time\":");
    put_time(k, unix_s);
    putf(k, ",\"availableBytes\":%lld,\"workingSetBytes\":%lld}", pos(avail), pos(ws));
}

/* a filesystem's stats (FsStats) */
typedef struct {
    int64_t cap, used, inodes, iused;
} fs_use;

static void put_fs(sim_kubelets *k, int64_t unix_s, const fs_use *f, int64_t used) {
    puts_(k, "{\"time\":");
    put_time(k, unix_s);
    putf(k, ",\"availableBytes\":%lld,\"capacityBytes\":%lld", pos(f->cap - f->used),
         (long long)f->cap);
    putf(k, ",\"usedBytes\":%lld,\"inodesFree\":%lld", pos(used), pos(f->inodes - f->iused));
    putf(k, ",\"inodes\":%lld,\"inodesUsed\":%lld}", (long long)f->inodes, pos(f->iused));
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

/* The pod's usage; with write, its PodStats. */
static pod_use one_pod(kp_sim *s, kp_index pod, const kp_pod_info *pi, bool write, bool *live) {
    sim_kubelets *k = s->kub;
    pod_use r;
    memset(&r, 0, sizeof r);
    sim_use_pod *up = upod(s, pod);
    if (!up) return r;
    ages a = ages_of(s, up, pod, live);
    r.ws = pod_memory(s, pod, up, &a);
    if (k->oom) return r;
    r.sig = mix(0x5678, (uint64_t)r.ws);
    size_t n = kp_cluster_pod_container_count(s->cl, pod);
    if (write) {
        puts_(k, "{\"podRef\":{\"name\":");
        put_str(k, pi->name);
        puts_(k, ",\"namespace\":");
        put_str(k, pi->ns);
        if (pi->uid[0]) {
            puts_(k, ",\"uid\":");
            put_str(k, pi->uid);
        }
        putf(k, "},\"memory\":{\"workingSetBytes\":%lld}", (long long)r.ws);
        if (n) puts_(k, ",\"containers\":[");
    }
    for (size_t c = 0; c < n; c++) {
        const char *name = kp_cluster_pod_container_name(s->cl, pod, c);
        const kp_scenario_usage *u;
        int64_t root =
            (u = entry(s, up, KP_USE_ROOTFS, name)) ? value(u, a.cont_age, live) : DEF_ROOTFS_BYTES;
        int64_t rino = (u = entry(s, up, KP_USE_INODES, name)) ? value(u, a.cont_age, live)
                                                               : DEF_ROOTFS_INODES;
        int64_t logs =
            (u = entry(s, up, KP_USE_LOGS, name)) ? value(u, a.pod_age, live) : DEF_LOGS_BYTES;
        r.eph += root + logs;
        r.rootfs += root;
        r.rootfs_inodes += rino;
        r.eph_inodes += rino + DEF_LOGS_INODES;
        r.sig = mix(mix(mix(mix(r.sig, (uint64_t)k->shares[c]), (uint64_t)root), (uint64_t)rino),
                    (uint64_t)logs);
        if (!write) continue;
        puts_(k, c ? ",{\"name\":" : "{\"name\":");
        put_str(k, name);
        putf(k, ",\"memory\":{\"workingSetBytes\":%lld},\"rootfs\":{\"usedBytes\":%lld",
             (long long)k->shares[c], (long long)root);
        putf(k, ",\"inodesUsed\":%lld},\"logs\":{\"usedBytes\":%lld", (long long)rino,
             (long long)logs);
        putf(k, ",\"inodesUsed\":%lld}}", (long long)DEF_LOGS_INODES);
    }
    if (write && n) puts_(k, "]");
    size_t nv = kp_cluster_pod_empty_dir_count(s->cl, pod);
    if (write && nv) puts_(k, ",\"volume\":[");
    for (size_t v = 0; v < nv; v++) {
        const char *name = kp_cluster_pod_empty_dir_name(s->cl, pod, v);
        const kp_scenario_usage *u = entry(s, up, KP_USE_EMPTYDIR, name);
        int64_t used = u ? value(u, a.pod_age, live) : DEF_EMPTYDIR_BYTES;
        r.eph += used;
        r.eph_inodes += DEF_EMPTYDIR_INODES;
        r.sig = mix(r.sig, (uint64_t)used);
        if (!write) continue;
        puts_(k, v ? ",{\"name\":" : "{\"name\":");
        put_str(k, name);
        putf(k, ",\"usedBytes\":%lld,\"inodesUsed\":%lld}", (long long)used,
             (long long)DEF_EMPTYDIR_INODES);
    }
    if (write && nv) puts_(k, "]");
    const kp_scenario_usage *u = entry(s, up, KP_USE_PIDS, NULL);
    r.procs = u ? value(u, a.cont_age, live) : (int64_t)n;
    r.sig = mix(r.sig, (uint64_t)r.procs);
    if (write) {
        putf(k, ",\"ephemeral-storage\":{\"usedBytes\":%lld,\"inodesUsed\":%lld}", (long long)r.eph,
             (long long)r.eph_inodes);
        putf(k, ",\"process_stats\":{\"process_count\":%lld}}", (long long)r.procs);
    }
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
static void put_filesystems(kp_sim *s, int64_t unix_s, int64_t ecap, const pod_use *pods,
                            int64_t sys_disk, int64_t images, int64_t sys_inodes) {
    sim_kubelets *k = s->kub;
    fs_use node, img;
    node.cap = img.cap = ecap > 0 ? ecap : DEF_FS_CAPACITY;
    node.inodes = img.inodes = node.cap / BYTES_PER_INODE;
    /* shared: one disk; split: the writable layers on the node's disk, images apart */
    node.used = sys_disk + pods->eph;
    node.iused = sys_inodes + pods->eph_inodes;
    img.used = images;
    img.iused = 0;
    switch (s->o.fs_layout) {
    case KP_EVFS_DEDICATED: /* the writable layers with the images */
        node.used -= pods->rootfs;
        node.iused -= pods->rootfs_inodes;
        img.used += pods->rootfs;
        img.iused += pods->rootfs_inodes;
        break;
    case KP_EVFS_SPLIT: break;
    case KP_EVFS_AUTO:
    case KP_EVFS_SHARED:
        node.used += images;
        img = node;
        break;
    }
    bool shared = s->o.fs_layout == KP_EVFS_AUTO || s->o.fs_layout == KP_EVFS_SHARED;
    puts_(k, ",\"fs\":");
    put_fs(k, unix_s, &node, node.used);
    puts_(k, ",\"runtime\":{\"imageFs\":");
    put_fs(k, unix_s, &img, shared ? images : img.used);
    puts_(k, ",\"containerFs\":");
    if (s->o.fs_layout == KP_EVFS_SPLIT) put_fs(k, unix_s, &node, pods->rootfs);
    else put_fs(k, unix_s, &img, shared ? images : img.used);
    puts_(k, "}");
}

void kp__sim_observe(kp_sim *s, kp_index node, bool write, uint64_t *pods_sig, uint64_t *obs_sig,
                     bool *live) {
    sim_kubelets *k = s->kub;
    const char *nn = kp_cluster_node_name(s->cl, node);
    int64_t cap, alloc, ecap, ealloc;
    kp_cluster_node_memory(s->cl, node, &cap, &alloc);
    kp_cluster_node_ephemeral_storage(s->cl, node, &ecap, &ealloc);
    int64_t unix_s = s->epoch + s->now / 1000;
    uint64_t ps = 0x1234, os = 0x5678;
    size_t n = kp_cluster_node_pod_count(s->cl, node);
    pod_use all;
    memset(&all, 0, sizeof all);
    if (write) {
        k->len = 0;
        puts_(k, "{\"pods\":[");
    }
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        kp_index p = kp_cluster_node_pod(s->cl, node, i);
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, p, &pi);
        if (pi.deleted || pi.terminal) continue;
        if (write && !first) puts_(k, ",");
        first = false;
        pod_use u = one_pod(s, p, &pi, write, live);
        all.ws += u.ws;
        all.eph += u.eph;
        all.eph_inodes += u.eph_inodes;
        all.rootfs += u.rootfs;
        all.rootfs_inodes += u.rootfs_inodes;
        all.procs += u.procs;
        ps = mix(ps, (uint64_t)p);
        os = mix(os, u.sig);
    }
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
    if (!write) return;
    /* the node's working set: its pods plus the system's; the pods cgroup is limited to
     * allocatable (enforceNodeAllocatable: pods) */
    int64_t node_ws = all.ws + sys_ws;
    puts_(k, "],\"node\":{\"nodeName\":");
    put_str(k, nn);
    puts_(k, ",\"memory\":");
    put_mem(k, unix_s, cap - node_ws, node_ws);
    put_filesystems(s, unix_s, ecap, &all, sys_disk, images, sys_inodes);
    puts_(k, ",\"rlimit\":{\"time\":");
    put_time(k, unix_s);
    putf(k, ",\"maxpid\":%lld,\"curproc\":%lld}", (long long)MAXPID, pos(sys_procs + all.procs));
    puts_(k, ",\"systemContainers\":[{\"name\":\"pods\",\"memory\":");
    put_mem(k, unix_s, alloc - all.ws, all.ws);
    puts_(k, "}]}}");
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
        kp_pod_info pi;
        kp_cluster_pod_info(s->cl, p, &pi);
        if (pi.deleted || pi.terminal) continue;
        size_t nc = kp_cluster_pod_container_count(s->cl, p);
        bool any_limit = false;
        for (size_t c = 0; c < nc && !any_limit; c++)
            any_limit = kp_cluster_pod_container_memory_limit(s->cl, p, c) > 0;
        if (!any_limit) continue;
        sim_use_pod *up = upod(s, p);
        if (!up) break;
        bool live = false;
        ages a = ages_of(s, up, p, &live);
        pod_memory(s, p, up, &a);
        if (k->oom) break;
        bool restart = false;
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
            restart = true;
            ++*killed;
            s->c.oom_kills++;
        }
        if (restart) {
            up->restarted = true;
            up->origin_ms = s->now;
            up->restarts++;
            s->pods[p].pub.restarts++;
        }
    }
    return k->oom ? kp_error_set(err, KP_ENOMEM, "simulate: kubelet: out of memory") : KP_OK;
}

void kp__sim_usage_free(sim_kubelets *k) {
    kp_free(k->upods);
    kp_free(k->pool);
    kp_free(k->buf);
    kp_free(k->shares);
}
