/* kp_cluster lifecycle, object registry with identity maps, NodeInfo-style aggregates. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/dra_store.h"
#include "core/meta.h"
#include "core/namespace.h"
#include "core/node.h"
#include "core/pdb.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "core/resources.h"
#include "core/workload.h"
#include "kprio/cluster.h"

/* ---- identity map: (kind, ns, name) -> index ---- */
typedef struct {
    uint64_t *keys; /* 0 = empty */
    uint32_t *vals;
    uint32_t cap, n;
} idmap;


#define SHARE_CACHE 2048
enum {
    MAP_POD,
    MAP_NODE,
    MAP_CLASS,
    MAP_PDB,
    MAP_NS,
    MAP_WL,
    MAP_VOL = MAP_WL + KP_WL_KINDS,
    MAP_DRA = MAP_VOL + KP_VK_KINDS,
    MAP_COUNT = MAP_DRA + KP_DK_KINDS
};

typedef struct kp_cluster_ext {
    kp_cluster base;
    idmap maps[MAP_COUNT];
    kp__cluster_mark final; /* at the end of the last kp_cluster_finalize */
    /* recently stored distinct read-only arrays (resource lists, label maps), for sharing */
    const void *share_cache[SHARE_CACHE];
    size_t share_cache_len[SHARE_CACHE];
} kp_cluster_ext;

static uint64_t idkey(kp_str ns, kp_str name) { return ((uint64_t)ns << 32 | name) + 1; }

static uint32_t idmap_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (uint32_t)k;
}

static long idmap_get(const idmap *m, uint64_t key) {
    if (!m->cap) return -1;
    uint32_t i = idmap_hash(key) & (m->cap - 1);
    while (m->keys[i]) {
        if (m->keys[i] == key) return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

static bool idmap_put(idmap *m, uint64_t key, uint32_t val) {
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t ncap = m->cap ? m->cap * 2 : 1024;
        uint64_t *nk = kp__calloc(ncap, sizeof *nk);
        uint32_t *nv = kp__calloc(ncap, sizeof *nv);
        if (!nk || !nv) {
            kp__free(nk);
            kp__free(nv);
            return false;
        }
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->keys[i]) continue;
            uint32_t j = idmap_hash(m->keys[i]) & (ncap - 1);
            while (nk[j]) j = (j + 1) & (ncap - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        kp__free(m->keys);
        kp__free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = ncap;
    }
    uint32_t i = idmap_hash(key) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
    return true;
}

/* Removes key (backward-shift deletion: the probe chains stay whole without tombstones). */
static void idmap_del(idmap *m, uint64_t key) {
    if (!m->cap) return;
    uint32_t mask = m->cap - 1, i = idmap_hash(key) & mask;
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
    if (!m->keys[i]) return;
    m->keys[i] = 0;
    m->n--;
    for (uint32_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
        uint32_t h = idmap_hash(m->keys[j]) & mask;
        /* an entry stays when its home slot lies cyclically in (i, j] */
        if (i <= j ? (i < h && h <= j) : (i < h || h <= j)) continue;
        m->keys[i] = m->keys[j];
        m->vals[i] = m->vals[j];
        m->keys[j] = 0;
        i = j;
    }
}

static idmap *map_of(kp_cluster *cl, int which) { return &((kp_cluster_ext *)cl)->maps[which]; }

/* Grows an array of elements of size sz; returns pointer to a new zeroed slot. */
static void *grow(void **arr, uint32_t *n, uint32_t *cap, size_t sz) {
    if (!kp__grow32(arr, cap, (size_t)*n + 1, sz, 64)) return NULL;
    void *slot = (char *)*arr + (size_t)(*n) * sz;
    memset(slot, 0, sz);
    (*n)++;
    return slot;
}

/* Returns the slot for (ns,name) in the array: a fresh one, or the old one reset (replace). */
static void *upsert(kp_cluster *cl, int which, void **arr, uint32_t *n, uint32_t *cap, size_t sz,
                    kp_str ns, kp_str name, const char *kind) {
    idmap *m = map_of(cl, which);
    uint64_t key = idkey(ns, name);
    long old = idmap_get(m, key);
    /* a deleted pod (kp_cluster_delete_pod) is a tombstone: a new pod of its name gets a new
     * index and the map points at the newest */
    if (old >= 0 && which == MAP_POD && cl->pods[old].deleted) old = -1;
    if (old >= 0) {
        if (cl->finalized) return NULL; /* a create never replaces (load.c checks first) */
        if (kp__cluster_warn(
                cl, "%s %s%s%s appears more than once; the later definition replaces the earlier",
                kind, ns ? kp__s(cl, ns) : "", ns ? "/" : "", kp__s(cl, name)) != KP_OK)
            return NULL;
        void *slot = (char *)*arr + (size_t)old * sz;
        memset(slot, 0, sz);
        return slot;
    }
    void *slot = grow(arr, n, cap, sz);
    if (!slot) return NULL;
    if (!idmap_put(m, key, *n - 1)) return NULL;
    return slot;
}

kp_pod *kp__cluster_new_pod(kp_cluster *cl, kp_str ns, kp_str name) {
    kp_pod *p = upsert(cl, MAP_POD, (void **)&cl->pods, &cl->n_pods, &cl->cap_pods, sizeof *p, ns,
                       name, "Pod");
    if (!p) return NULL;
    p->ns = ns;
    p->name = name;
    p->creation_ts = p->deletion_ts = p->start_time = p->ready_ts = KP_TIME_NONE;
    p->node = -1;
    p->termination_grace = 30;
    p->src_index = (uint32_t)(p - cl->pods);
    return p;
}

kp_node *kp__cluster_new_node(kp_cluster *cl, kp_str name) {
    kp_node *n = upsert(cl, MAP_NODE, (void **)&cl->nodes, &cl->n_nodes, &cl->cap_nodes, sizeof *n,
                        0, name, "Node");
    if (!n) return NULL;
    n->name = name;
    n->creation_ts = KP_TIME_NONE;
    n->src_index = (uint32_t)(n - cl->nodes);
    return n;
}

kp_priority_class *kp__cluster_new_class(kp_cluster *cl, kp_str name) {
    idmap *m = map_of(cl, MAP_CLASS);
    long old = idmap_get(m, idkey(0, name));
    if (old >= 0 && cl->finalized) return NULL;
    if (old >= 0 && cl->classes[old].builtin) {
        /* kubectl get priorityclass lists the built-in classes too: accept them silently;
         * finalize checks they still carry the built-in values. */
        memset(&cl->classes[old], 0, sizeof cl->classes[old]);
        cl->classes[old].name = name;
        cl->classes[old].builtin = true;
        return &cl->classes[old];
    }
    kp_priority_class *pc = upsert(cl, MAP_CLASS, (void **)&cl->classes, &cl->n_classes,
                                   &cl->cap_classes, sizeof *pc, 0, name, "PriorityClass");
    if (pc) pc->name = name;
    return pc;
}

kp_pdb *kp__cluster_new_pdb(kp_cluster *cl, kp_str ns, kp_str name) {
    kp_pdb *b = upsert(cl, MAP_PDB, (void **)&cl->pdbs, &cl->n_pdbs, &cl->cap_pdbs, sizeof *b, ns,
                       name, "PodDisruptionBudget");
    if (b) {
        b->ns = ns;
        b->name = name;
    }
    return b;
}

static void **volume_array(kp_cluster *cl, kp_volume_kind kind, size_t *sz) {
    kp_volumes *v = &cl->vol;
    switch (kind) {
    case KP_VK_PV: *sz = sizeof *v->pvs; return (void **)&v->pvs;
    case KP_VK_PVC: *sz = sizeof *v->pvcs; return (void **)&v->pvcs;
    case KP_VK_SC: *sz = sizeof *v->classes; return (void **)&v->classes;
    case KP_VK_CSINODE: *sz = sizeof *v->csinodes; return (void **)&v->csinodes;
    case KP_VK_CSIDRIVER: *sz = sizeof *v->drivers; return (void **)&v->drivers;
    case KP_VK_CSISC: *sz = sizeof *v->capacities; return (void **)&v->capacities;
    default: *sz = sizeof *v->attachments; return (void **)&v->attachments;
    }
}

void *kp__cluster_new_volume(kp_cluster *cl, kp_volume_kind kind, kp_str ns, kp_str name) {
    size_t sz;
    void **arr = volume_array(cl, kind, &sz);
    void *o = upsert(cl, MAP_VOL + (int)kind, arr, &cl->vol.n[kind], &cl->vol.cap[kind], sz, ns,
                     name, kp__volume_kind_name(kind));
    if (!o) return NULL;
    /* every kind starts with its name (namespaced kinds: namespace, then name) */
    if (kp__volume_kind_namespaced(kind)) {
        ((kp_str *)o)[0] = ns;
        ((kp_str *)o)[1] = name;
    } else {
        *(kp_str *)o = name;
    }
    if (kind == KP_VK_CSIDRIVER) ((kp_csidriver *)o)->attach_required = true;
    return o;
}

const void *kp__cluster_find_volume(const kp_cluster *cl, kp_volume_kind kind, kp_str ns,
                                    kp_str name) {
    long i = idmap_get(&((const kp_cluster_ext *)cl)->maps[MAP_VOL + (int)kind], idkey(ns, name));
    if (i < 0) return NULL;
    size_t sz;
    void **arr = volume_array((kp_cluster *)cl, kind, &sz);
    return (const char *)*arr + (size_t)i * sz;
}

/* ---- DRA objects' identities (core/dra_store.h; the arrays are dra.c's) ---- */

void *kp__cluster_dra_upsert(kp_cluster *cl, kp_dra_kind kind, void **arr, uint32_t *n,
                             uint32_t *cap, size_t sz, kp_str ns, kp_str name) {
    return upsert(cl, MAP_DRA + (int)kind, arr, n, cap, sz, ns, name, kp__dra_kind_name(kind));
}

long kp__cluster_dra_map_get(const kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name) {
    return idmap_get(&((const kp_cluster_ext *)cl)->maps[MAP_DRA + (int)kind], idkey(ns, name));
}

void kp__cluster_dra_map_del(kp_cluster *cl, kp_dra_kind kind, kp_str ns, kp_str name) {
    idmap_del(map_of(cl, MAP_DRA + (int)kind), idkey(ns, name));
}

kp_namespace *kp__cluster_new_namespace(kp_cluster *cl, kp_str name) {
    kp_namespace *ns = upsert(cl, MAP_NS, (void **)&cl->namespaces, &cl->n_namespaces,
                              &cl->cap_namespaces, sizeof *ns, 0, name, "Namespace");
    if (ns) ns->name = name;
    return ns;
}

kp_workload *kp__cluster_new_workload(kp_cluster *cl, kp_workload_kind kind, kp_str ns,
                                      kp_str name) {
    kp_workload *w = upsert(cl, MAP_WL + (int)kind, (void **)&cl->workloads, &cl->n_workloads,
                            &cl->cap_workloads, sizeof *w, ns, name, kp__workload_kind_name(kind));
    if (w) {
        w->kind = kind;
        w->ns = ns;
        w->name = name;
    }
    return w;
}

kp_status kp__cluster_note_skipped(kp_cluster *cl, const char *kind) {
    cl->n_skipped_kinds++;
    size_t kl = strlen(kind), used = cl->skipped_len;
    if (kl == 0)
        return KP_OK; /* (an empty kind is rejected by the loader; strstr would not advance) */
    /* keep the list of distinct kinds for the summary warning */
    const char *p = cl->skipped_kinds;
    while (p && (p = strstr(p, kind))) {
        if ((p == cl->skipped_kinds || p[-1] == ' ') && (p[kl] == ',' || p[kl] == 0)) return KP_OK;
        p += kl;
    }
    size_t need = used + (used ? 2 : 0) + kl + 1;
    if (!kp__grow((void **)&cl->skipped_kinds, &cl->skipped_cap, need, 1, 256)) return KP_ENOMEM;
    snprintf(cl->skipped_kinds + used, cl->skipped_cap - used, "%s%s", used ? ", " : "", kind);
    cl->skipped_len = need - 1;
    return KP_OK;
}

kp_status kp__cluster_warn(kp_cluster *cl, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return KP_EINVAL;
    if (!kp__grow((void **)&cl->warnings, &cl->cap_warnings, (size_t)cl->n_warnings + 1,
                  sizeof *cl->warnings, 16))
        return KP_ENOMEM;
    char *w = kp__malloc((size_t)n + 1);
    if (!w) return KP_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(w, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cl->warnings[cl->n_warnings++] = w;
    return KP_OK;
}

/* The cache slot for an array's bytes; *hit = an identical array stored there. */
static uint32_t share_slot(const kp_cluster_ext *ext, const void *data, size_t bytes,
                           const void **hit) {
    uint64_t h = bytes, w;
    const unsigned char *b = data;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15u;
        h ^= h >> 29;
    }
    for (; i < bytes; i++) h = (h ^ b[i]) * 0x100000001B3u;
    uint32_t slot = (uint32_t)(h >> 40) & (SHARE_CACHE - 1);
    const void *c = ext->share_cache[slot];
    *hit = c && ext->share_cache_len[slot] == bytes && memcmp(c, data, bytes) == 0 ? c : NULL;
    return slot;
}

void *kp__cluster_store_shared(kp_cluster *cl, const void *data, size_t bytes) {
    if (!bytes) return NULL;
    kp_cluster_ext *ext = (kp_cluster_ext *)cl;
    const void *hit;
    uint32_t slot = share_slot(ext, data, bytes, &hit);
    if (hit) return (void *)hit; /* shared and read-only from here on */
    void *copy = kp__arena_alloc(&cl->arena, bytes);
    if (!copy) return NULL;
    memcpy(copy, data, bytes);
    ext->share_cache[slot] = copy;
    ext->share_cache_len[slot] = bytes;
    return copy;
}

void *kp__cluster_share_stored(kp_cluster *cl, void *stored, size_t bytes) {
    if (!bytes) return stored;
    kp_cluster_ext *ext = (kp_cluster_ext *)cl;
    const void *hit;
    uint32_t slot = share_slot(ext, stored, bytes, &hit);
    if (hit) {
        kp__arena_unalloc(&cl->arena, stored, bytes); /* reclaimed if it was the last allocation */
        return (void *)hit;
    }
    ext->share_cache[slot] = stored;
    ext->share_cache_len[slot] = bytes;
    return stored;
}

kp_cluster *kp_cluster_new(void) {
    kp_cluster_ext *ext = kp__calloc(1, sizeof *ext);
    if (!ext) return NULL;
    kp_cluster *cl = &ext->base;
    kp__arena_init(&cl->arena);
    kp_feature_gates_init(&cl->gates);
    if (!kp__intern_init(&cl->strs, &cl->arena)) {
        kp__intern_fini(&cl->strs); /* (a failed init may have allocated part of the table) */
        kp__arena_fini(&cl->arena);
        kp__free(ext);
        return NULL;
    }
    /* Every string and resource the model refers to by a fixed id; the first allocation that
     * fails makes the whole cluster NULL (the documented out-of-memory answer). */
    static const char *fixed[] = {"cpu", "memory", "ephemeral-storage", "pods"};
    bool ok = true;
    for (int i = 0; i < KP_RES_FIXED; i++)
        ok = ok && kp__res_index(cl, fixed[i], strlen(fixed[i])) == i;
    kp_str *const wk[] = {&cl->s_default_scheduler, &cl->s_tcp, &cl->s_any_ip, &cl->s_hostname_key};
    static const char *wk_text[] = {"default-scheduler", "TCP", "0.0.0.0",
                                    "kubernetes.io/hostname"};
    for (int i = 0; i < 4; i++)
        ok = ok && (*wk[i] = kp__intern(&cl->strs, wk_text[i], strlen(wk_text[i]))) != UINT32_MAX;
    /* Built-in classes the API server creates at bootstrap (SystemPriorityClasses). */
    static const struct {
        const char *name;
        int32_t value;
        const char *desc;
    } builtin[] = {
        {"system-node-critical", 2000001000,
         "Used for system critical pods that must not be moved from their current node."},
        {"system-cluster-critical", 2000000000,
         "Used for system critical pods that must run in the cluster, but can be moved to another "
         "node if necessary."},
    };
    for (int i = 0; i < 2 && ok; i++) {
        kp_str name = kp__intern(&cl->strs, builtin[i].name, strlen(builtin[i].name));
        kp_str desc = kp__intern(&cl->strs, builtin[i].desc, strlen(builtin[i].desc));
        kp_priority_class *pc =
            name != UINT32_MAX && desc != UINT32_MAX ? kp__cluster_new_class(cl, name) : NULL;
        if (!pc) {
            ok = false;
            break;
        }
        pc->value = builtin[i].value;
        pc->builtin = true;
        pc->description = desc;
    }
    if (!ok) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

void kp_cluster_free(kp_cluster *cl) {
    if (!cl) return;
    kp_cluster_ext *ext = (kp_cluster_ext *)cl;
    for (int i = 0; i < MAP_COUNT; i++) {
        kp__free(ext->maps[i].keys);
        kp__free(ext->maps[i].vals);
    }
    for (uint32_t i = 0; i < cl->n_nodes; i++) kp__free(cl->nodes[i].pods);
    for (uint32_t i = 0; i < cl->n_warnings; i++) kp__free(cl->warnings[i]);
    kp__free(cl->warnings);
    kp__free(cl->skipped_kinds);
    kp__free(cl->changed_log);
    kp__free(cl->pods);
    kp__free(cl->nodes);
    kp__free(cl->classes);
    kp__free(cl->pdbs);
    kp__free(cl->namespaces);
    kp__free(cl->workloads);
    for (int k = 0; k < KP_VK_KINDS; k++) {
        size_t sz;
        kp__free(*volume_array(cl, (kp_volume_kind)k, &sz));
    }
    kp__dra_free(cl);
    kp__intern_fini(&cl->strs);
    kp__arena_fini(&cl->arena);

    kp__free(ext);
}

/* ---- public accessors ---- */

size_t kp_cluster_node_count(const kp_cluster *cl) { return cl->n_nodes; }
size_t kp_cluster_pod_count(const kp_cluster *cl) { return cl->n_pods; }
uint64_t kp_cluster_bytes_loaded(const kp_cluster *cl) { return cl->bytes_loaded; }
void kp_cluster_set_progress(kp_cluster *cl, kp_progress_fn fn, void *ctx) {
    cl->progress_fn = fn;
    cl->progress_ctx = ctx;
}
size_t kp_cluster_model_bytes(const kp_cluster *cl) {
    size_t b = cl->arena.reserved + (size_t)cl->cap_pods * sizeof(kp_pod) +
               (size_t)cl->cap_nodes * sizeof(kp_node);
    b += (size_t)cl->strs.cap * (sizeof(char *) + sizeof(uint32_t)) +
         (size_t)cl->strs.table_cap * sizeof(uint32_t);
    for (uint32_t i = 0; i < cl->n_nodes; i++) b += cl->nodes[i].cap_pods * sizeof(uint32_t);
    const kp_cluster_ext *ext = (const kp_cluster_ext *)cl;
    for (int i = 0; i < MAP_COUNT; i++)
        b += ext->maps[i].cap * (sizeof(uint64_t) + sizeof(uint32_t));
    return b;
}
size_t kp_cluster_warning_count(const kp_cluster *cl) { return cl->n_warnings; }
const char *kp_cluster_warning(const kp_cluster *cl, size_t i) {
    return i < cl->n_warnings ? cl->warnings[i] : NULL;
}

const char *kp_cluster_pod_namespace(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods ? kp__s(cl, cl->pods[pod].ns) : "";
}
const char *kp_cluster_pod_name(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods ? kp__s(cl, cl->pods[pod].name) : "";
}
int32_t kp_cluster_pod_priority(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods ? cl->pods[pod].priority : 0;
}
kp_index kp_cluster_pod_node(const kp_cluster *cl, kp_index pod) {
    return pod >= 0 && (size_t)pod < cl->n_pods ? cl->pods[pod].node : -1;
}
const char *kp_cluster_node_name(const kp_cluster *cl, kp_index node) {
    return node >= 0 && (size_t)node < cl->n_nodes ? kp__s(cl, cl->nodes[node].name) : "";
}

kp_index kp_cluster_find_pod(const kp_cluster *cl, const char *ref) {
    const char *slash = strchr(ref, '/');
    const char *ns = "default", *name = ref;
    size_t ns_len = 7;
    if (slash) {
        ns = ref;
        ns_len = (size_t)(slash - ref);
        name = slash + 1;
    }
    kp_str nsid = kp__intern_find(&cl->strs, ns, ns_len);
    kp_str nid = kp__intern_find(&cl->strs, name, strlen(name));
    if (nsid == UINT32_MAX || nid == UINT32_MAX) return -1;
    long i = idmap_get(&((const kp_cluster_ext *)cl)->maps[MAP_POD], idkey(nsid, nid));
    return i >= 0 && cl->pods[i].deleted ? -1 : i; /* a tombstone is no pod of that name */
}

kp_index kp_cluster_find_node(const kp_cluster *cl, const char *name) {
    kp_str nid = kp__intern_find(&cl->strs, name, strlen(name));
    if (nid == UINT32_MAX) return -1;
    long i = idmap_get(&((const kp_cluster_ext *)cl)->maps[MAP_NODE], idkey(0, nid));
    return i >= 0 && cl->nodes[i].deleted ? -1 : i;
}

long kp__cluster_find_workload(const kp_cluster *cl, kp_workload_kind kind, kp_str ns,
                               kp_str name) {
    if (kind >= KP_WL_KINDS) return -1;
    return idmap_get(&((const kp_cluster_ext *)cl)->maps[MAP_WL + (int)kind], idkey(ns, name));
}

kp_index kp_cluster_find_priority_class(const kp_cluster *cl, const char *name) {
    kp_str nid = kp__intern_find(&cl->strs, name, strlen(name));
    if (nid == UINT32_MAX) return -1;
    return idmap_get(&((const kp_cluster_ext *)cl)->maps[MAP_CLASS], idkey(0, nid));
}

/* ---- loads into a finalized cluster: identities, marks, rollback ---- */

/* The identity map of a kind as the API spells it, -1 for a kind kprio does not keep. */
static int map_of_kind(const char *kind) {
    if (strcmp(kind, "Pod") == 0) return MAP_POD;
    if (strcmp(kind, "Node") == 0) return MAP_NODE;
    if (strcmp(kind, "PriorityClass") == 0) return MAP_CLASS;
    if (strcmp(kind, "PodDisruptionBudget") == 0) return MAP_PDB;
    if (strcmp(kind, "Namespace") == 0) return MAP_NS;
    for (int k = 0; k < KP_WL_KINDS; k++)
        if (strcmp(kind, kp__workload_kind_name((kp_workload_kind)k)) == 0) return MAP_WL + k;
    for (int k = 0; k < KP_VK_KINDS; k++)
        if (strcmp(kind, kp__volume_kind_name((kp_volume_kind)k)) == 0) return MAP_VOL + k;
    kp_dra_kind dk;
    if (kp__dra_kind_of(kind, &dk)) return MAP_DRA + (int)dk;
    return -1;
}

long kp__cluster_find_object(const kp_cluster *cl, const char *kind, kp_str ns, kp_str name) {
    int which = map_of_kind(kind);
    if (which < 0) return -1;
    return idmap_get(&((const kp_cluster_ext *)cl)->maps[which], idkey(ns, name));
}

void kp__cluster_forget_identity(kp_cluster *cl, const char *kind, kp_str ns, kp_str name) {
    int which = map_of_kind(kind);
    if (which >= 0) idmap_del(map_of(cl, which), idkey(ns, name));
}

size_t kp_cluster_object_count(const kp_cluster *cl, const char *kind) {
    int which = kind ? map_of_kind(kind) : -1;
    return which < 0 ? 0 : ((const kp_cluster_ext *)cl)->maps[which].n;
}

void kp__cluster_mark_get(const kp_cluster *cl, kp__cluster_mark *m) {
    memset(m, 0, sizeof *m);
    m->n_pods = cl->n_pods;
    m->n_nodes = cl->n_nodes;
    m->n_classes = cl->n_classes;
    m->n_pdbs = cl->n_pdbs;
    m->n_namespaces = cl->n_namespaces;
    m->n_workloads = cl->n_workloads;
    for (int k = 0; k < KP_VK_KINDS; k++) m->n_vol[k] = cl->vol.n[k];
    kp__dra_counts(cl, m->n_dra);
    m->n_warnings = cl->n_warnings;
    m->n_skipped_kinds = cl->n_skipped_kinds;
    m->n_objects = cl->n_objects;
    m->skipped_len = cl->skipped_len;
    m->bytes_loaded = cl->bytes_loaded;
}

kp__cluster_mark *kp__cluster_final_mark(kp_cluster *cl) { return &((kp_cluster_ext *)cl)->final; }

void kp__cluster_rollback(kp_cluster *cl, const kp__cluster_mark *m) {
    for (uint32_t i = m->n_pods; i < cl->n_pods; i++)
        idmap_del(map_of(cl, MAP_POD), idkey(cl->pods[i].ns, cl->pods[i].name));
    for (uint32_t i = m->n_nodes; i < cl->n_nodes; i++) {
        idmap_del(map_of(cl, MAP_NODE), idkey(0, cl->nodes[i].name));
        kp__free(cl->nodes[i].pods);
    }
    for (uint32_t i = m->n_classes; i < cl->n_classes; i++)
        idmap_del(map_of(cl, MAP_CLASS), idkey(0, cl->classes[i].name));
    for (uint32_t i = m->n_pdbs; i < cl->n_pdbs; i++)
        idmap_del(map_of(cl, MAP_PDB), idkey(cl->pdbs[i].ns, cl->pdbs[i].name));
    for (uint32_t i = m->n_namespaces; i < cl->n_namespaces; i++)
        idmap_del(map_of(cl, MAP_NS), idkey(0, cl->namespaces[i].name));
    for (uint32_t i = m->n_workloads; i < cl->n_workloads; i++) {
        const kp_workload *w = &cl->workloads[i];
        idmap_del(map_of(cl, MAP_WL + (int)w->kind), idkey(w->ns, w->name));
    }
    for (int k = 0; k < KP_VK_KINDS; k++) {
        size_t sz;
        char *arr = *volume_array(cl, (kp_volume_kind)k, &sz);
        for (uint32_t i = m->n_vol[k]; i < cl->vol.n[k]; i++) {
            const kp_str *o = (const kp_str *)(arr + (size_t)i * sz); /* (namespace,) name */
            uint64_t key =
                kp__volume_kind_namespaced((kp_volume_kind)k) ? idkey(o[0], o[1]) : idkey(0, o[0]);
            idmap_del(map_of(cl, MAP_VOL + k), key);
        }
        cl->vol.n[k] = m->n_vol[k];
    }
    kp__dra_rollback(cl, m->n_dra);
    cl->n_pods = m->n_pods;
    cl->n_nodes = m->n_nodes;
    cl->n_classes = m->n_classes;
    cl->n_pdbs = m->n_pdbs;
    cl->n_namespaces = m->n_namespaces;
    cl->n_workloads = m->n_workloads;
    for (uint32_t i = m->n_warnings; i < cl->n_warnings; i++) kp__free(cl->warnings[i]);
    cl->n_warnings = m->n_warnings;
    cl->n_skipped_kinds = m->n_skipped_kinds;
    cl->n_objects = m->n_objects;
    cl->skipped_len = m->skipped_len;
    if (cl->skipped_kinds) cl->skipped_kinds[m->skipped_len] = 0;
    cl->bytes_loaded = m->bytes_loaded;
}
