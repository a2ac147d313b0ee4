/* The decoded kubelet eviction settings: ordered string maps, the defaults of a new
 * configuration, mergeDefaultEvictionSettings and the eviction signal names (kubelet_config.h). */
#include <string.h>

#include "base/alloc.h"
#include "core/kubelet_config.h"

/* ---------------------------------------------------------------- eviction signals */

static const char *const sig_names[KP_EVSIG_COUNT] = {
    "memory.available",      "allocatableMemory.available", "nodefs.available",
    "nodefs.inodesFree",     "imagefs.available",           "imagefs.inodesFree",
    "containerfs.available", "containerfs.inodesFree",      "pid.available"};

const char *kp_evict_signal_name(kp_evict_signal s) {
    return (unsigned)s < KP_EVSIG_COUNT ? sig_names[s] : "";
}

bool kp_evict_signal_parse(const char *s, size_t len, kp_evict_signal *out) {
    for (int i = 0; i < KP_EVSIG_COUNT; i++) {
        if (strlen(sig_names[i]) == len && memcmp(sig_names[i], s, len) == 0) {
            *out = (kp_evict_signal)i;
            return true;
        }
    }
    return false;
}

/* ---------------------------------------------------------------- ordered string maps */

void kp__kcfg_map_clear(kp__kcfg_map *m) {
    for (uint32_t i = 0; i < m->n; i++) {
        kp__free(m->items[i].key);
        kp__free(m->items[i].val);
    }
    m->n = 0;
}

static void map_fini(kp__kcfg_map *m) {
    kp__kcfg_map_clear(m);
    kp__free(m->items);
    memset(m, 0, sizeof *m);
}

const char *kp__kcfg_map_get(const kp__kcfg_map *m, const char *key) {
    for (uint32_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0) return m->items[i].val;
    return NULL;
}

kp_status kp__kcfg_map_put(kp__kcfg_map *m, const char *k, size_t klen, const char *v, size_t vlen,
                           kp_error *err) {
    char *val = kp__strndup(v, vlen);
    if (!val) return kp_error_set(err, KP_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n; i++) {
        if (strlen(m->items[i].key) == klen && memcmp(m->items[i].key, k, klen) == 0) {
            kp__free(m->items[i].val);
            m->items[i].val = val;
            return KP_OK;
        }
    }
    if (!kp__grow32((void **)&m->items, &m->cap, (size_t)m->n + 1, sizeof *m->items, 8)) {
        kp__free(val);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    char *key = kp__strndup(k, klen);
    if (!key) {
        kp__free(val);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    m->items[m->n].key = key;
    m->items[m->n].val = val;
    m->items[m->n].origin = m->origin;
    m->n++;
    return KP_OK;
}

/* ---------------------------------------------------------------- defaults */

/* DefaultEvictionHard (defaults_linux.go) */
static const char *const default_hard[][2] = {{"memory.available", "100Mi"},
                                              {"nodefs.available", "10%"},
                                              {"nodefs.inodesFree", "5%"},
                                              {"imagefs.available", "15%"},
                                              {"imagefs.inodesFree", "5%"}};
#define N_DEFAULT_HARD (sizeof default_hard / sizeof default_hard[0])

kp_evict_config *kp_evict_config_new(void) {
    kp_evict_config *c = kp__calloc(1, sizeof *c);
    if (!c) return NULL;
    for (size_t i = 0; i < N_DEFAULT_HARD; i++) {
        if (kp__kcfg_map_put(&c->hard, default_hard[i][0], strlen(default_hard[i][0]),
                             default_hard[i][1], strlen(default_hard[i][1]), NULL) != KP_OK) {
            kp_evict_config_free(c);
            return NULL;
        }
    }
    c->hard.is_set = true;
    kp_feature_gates_init(&c->gates);
    c->transition_ns = 5 * 60 * KP__NS_PER_SEC;
    c->enforce_pods = true;
    c->local_storage_isolation = true;
    return c;
}

void kp_evict_config_free(kp_evict_config *c) {
    if (!c) return;
    map_fini(&c->hard);
    map_fini(&c->soft);
    map_fini(&c->grace);
    map_fini(&c->minreclaim);
    for (uint32_t i = 0; i < c->n_warn; i++) kp__free(c->warnings[i]);
    kp__free(c->warnings);
    kp__free(c->th);
    kp__free(c);
}

void kp_evict_config_set_fs_layout(kp_evict_config *c, kp_evict_fs_layout layout) {
    c->layout = layout;
}

kp_status kp__kcfg_merge_default_hard(kp_evict_config *c, kp_error *err) {
    if (!c->hard.is_set) return KP_OK;
    uint8_t saved = c->hard.origin;
    c->hard.origin = KP__KCFG_MERGED;
    kp_status st = KP_OK;
    for (size_t i = 0; i < N_DEFAULT_HARD && st == KP_OK; i++) {
        if (kp__kcfg_map_get(&c->hard, default_hard[i][0])) continue;
        st = kp__kcfg_map_put(&c->hard, default_hard[i][0], strlen(default_hard[i][0]),
                              default_hard[i][1], strlen(default_hard[i][1]), err);
    }
    c->hard.origin = saved;
    return st;
}

kp_status kp__kcfg_warn(kp_evict_config *c, const char *text, kp_error *err) {
    char *w = kp__strndup(text, strlen(text));
    if (!w || !kp__grow32((void **)&c->warnings, &c->cap_warn, (size_t)c->n_warn + 1,
                          sizeof *c->warnings, 4)) {
        kp__free(w);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    c->warnings[c->n_warn++] = w;
    return KP_OK;
}

const char *kp__kcfg_origin_name(uint8_t origin) {
    switch (origin) {
    case KP__KCFG_FILE: return "config file";
    case KP__KCFG_MERGED:
        return "default, merged into the config file (mergeDefaultEvictionSettings)";
    case KP__KCFG_CONFIGZ: return "configz";
    case KP__KCFG_FLAG: return "flag";
    default: return "default";
    }
}

const kp_feature_gates *kp_evict_config_feature_gates(const kp_evict_config *cfg) {
    return &cfg->gates;
}

kp_status kp_evict_config_set_compat(kp_evict_config *cfg, const char *version, kp_error *err) {
    return kp_feature_gates_init_compat(&cfg->gates, version, err);
}
