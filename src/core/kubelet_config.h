/* The decoded kubelet eviction settings (internal): what src/io fills from a KubeletConfiguration
 * document and kubelet flags, and the kubelet's eviction engine reads (src/kubelet/evict_config.c
 * turns it into thresholds: ParseThresholdConfig).
 *
 * Upstream: pkg/kubelet/apis/config (KubeletConfiguration's eviction fields), their defaults
 * (pkg/kubelet/apis/config/v1beta1/defaults.go, defaults_linux.go) and
 * mergeDefaultEvictionSettings. The maps keep the order in which entries were written (file order,
 * flag order); Go maps have none, so this is one of the orders upstream may use. */
#ifndef KP_CORE_KUBELET_CONFIG_H
#define KP_CORE_KUBELET_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/eviction.h"

#ifndef KP__NS_PER_SEC
#define KP__NS_PER_SEC INT64_C(1000000000)
/* Keeps a copy of text as a configuration warning. KP_ENOMEM on allocation failure. */
kp_status kp__kcfg_warn(kp_evict_config *c, const char *text, kp_error *err);
/* "default", "config file", ... for an entry origin (kp__kcfg_origin). */
const char *kp__kcfg_origin_name(uint8_t origin);

#endif

/* Where an entry of an eviction map came from (evict --explain). */
typedef enum {
    KP__KCFG_DEFAULT = 0, /* the kubelet's DefaultEvictionHard (no file, or the file omits it) */
    KP__KCFG_FILE, /* the KubeletConfiguration file */
    KP__KCFG_MERGED, /* a default merged into the file's map (mergeDefaultEvictionSettings) */
    KP__KCFG_CONFIGZ, /* the effective configuration served by /configz */
    KP__KCFG_FLAG /* a kubelet flag on the command line */
} kp__kcfg_origin;

/* One entry of a map[string]string field. */
typedef struct {
    char *key;
    char *val;
    uint8_t origin; /* kp__kcfg_origin */
} kp__kcfg_kv;

/* An ordered map[string]string (evictionHard, evictionSoft, ...). */
typedef struct {
    kp__kcfg_kv *items;
    uint32_t n, cap;
    bool is_set; /* non-nil map (config field present or flag given) */
    bool flag_set; /* a flag already replaced the map (later flags add) */
    uint8_t origin; /* kp__kcfg_origin stamped on entries kp__kcfg_map_put adds */
} kp__kcfg_map;

struct kp__ev_threshold; /* the parsed thresholds: src/kubelet/evict_threshold.h */

/* The eviction settings (decoded fields, then the thresholds the kubelet derives from them). */
struct kp_evict_config {
    /* decoded (src/io/decode_kubelet_config.c) */
    kp__kcfg_map hard, soft, grace, minreclaim;
    int64_t transition_ns;
    int64_t max_pod_grace;
    bool enforce_pods;
    bool merge_defaults;
    bool local_storage_isolation;
    kp_feature_gates gates; /* featureGates over the defaults */
    kp_evict_fs_layout layout;
    bool has_reclaimable[KP_EVSIG_COUNT];
    int64_t reclaimable[KP_EVSIG_COUNT];
    char source[256]; /* KubeletConfiguration file, for errors ("" = none) */
    bool configz; /* the file was a /configz document ({"kubeletconfig": {...}}) */
    char **warnings; /* lenient decoding of the file (unknown or duplicate fields) */
    uint32_t n_warn, cap_warn;
    /* derived by kp_evict_config_finish (src/kubelet/evict_config.c) */
    struct kp__ev_threshold *th;
    uint32_t n_th;
    uint32_t th_go_cap; /* cap() of upstream's []Threshold for th (Go's append growth) */
    bool finished;
};

/* Empties m (keeps its storage). */
void kp__kcfg_map_clear(kp__kcfg_map *m);
/* The value of key, NULL when absent. */
const char *kp__kcfg_map_get(const kp__kcfg_map *m, const char *key);
/* Sets k[0..klen) to v[0..vlen) (a later write wins and keeps the first position).
 * KP_ENOMEM on allocation failure (m unchanged). */
kp_status kp__kcfg_map_put(kp__kcfg_map *m, const char *k, size_t klen, const char *v, size_t vlen,
                           kp_error *err);
/* mergeDefaultEvictionSettings as loadConfigFile (cmd/kubelet/app/server.go) applies it to a
 * freshly loaded file, before the command line is re-applied: the default evictionHard entries
 * missing from a set map are added. KP_ENOMEM on allocation failure. */
kp_status kp__kcfg_merge_default_hard(kp_evict_config *c, kp_error *err);

/* Keeps a copy of text as a configuration warning. KP_ENOMEM on allocation failure. */
kp_status kp__kcfg_warn(kp_evict_config *c, const char *text, kp_error *err);
/* "default", "config file", ... for an entry origin (kp__kcfg_origin). */
const char *kp__kcfg_origin_name(uint8_t origin);

#endif
