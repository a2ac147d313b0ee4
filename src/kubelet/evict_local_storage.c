/* Local ephemeral storage eviction: localStorageEviction (emptyDirLimitEviction,
 * podEphemeralStorageLimitEviction, containerEphemeralStorageLimitEviction) and the pod's
 * ephemeral-storage limit (PodLimits, sidecar-aware). Upstream: eviction_manager.go. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_requests.h"
#include "core/resources.h"
#include "core/summary.h"
#include "kubelet/compat.h"
#include "kubelet/evict_local_storage.h"
#include "kubelet/evict_spec.h"
#include "kubelet/evict_state.h"
#include "kubelet/evict_thresholds.h"

/* printf into the step's arena (NULL when out of memory). */
static char *arena_printf(kp_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *arena_printf(kp_arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    char *buf = kp__arena_alloc(a, (size_t)n + 1);
    if (!buf) return NULL;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return buf;
}

/* The quantity PodLimits(pod)[ephemeral-storage] prints as (Quantity.String after the Add calls
 * of AggregateContainerLimits, sidecar-aware, and the overhead): the same walk as
 * kp__pod_aggregate_container, carried out on spec quantities so that the message spells the sum
 * as upstream does. The decision itself uses core's integer copy (kp__ev_pod_eph_limit). */
static bool eph_limit_quantity(const kp__ev_spec_src *src, uint32_t pod, int64_t *out,
                               kp__ev_qty *qout) {
    const kp_pod *p = &src->cl->pods[pod];
    bool has = false, has_init = false, has_restart = false;
    int64_t sum = 0, init_max = 0, restart = 0, v;
    kp__ev_qty qsum, qinit, qrestart, qv, quse;
    memset(&qsum, 0, sizeof qsum);
    qinit = qrestart = qv = quse = qsum;
    for (uint16_t i = 0; i < p->n_containers; i++) {
        const kp_container *c = &p->containers[i];
        if (!kp__ev_resv_find(&c->lim, KP_RES_EPH, &v)) continue;
        sum = kp__ev_sat_add(sum, v);
        if (qout) {
            kp__ev_spec_qty(src, pod, KP_EVSPEC_LIMIT, kp__s(src->cl, c->name), "ephemeral-storage",
                            v, &qv);
            kp__ev_qty_accumulate(&qsum, &has, &qv, sum);
        }
        has = true;
    }
    for (uint16_t i = 0; i < p->n_init; i++) {
        const kp_container *c = &p->containers[p->n_containers + i];
        bool hv = kp__ev_resv_find(&c->lim, KP_RES_EPH, &v);
        if (hv && qout)
            kp__ev_spec_qty(src, pod, KP_EVSPEC_LIMIT, kp__s(src->cl, c->name), "ephemeral-storage",
                            v, &qv);
        int64_t use;
        bool has_use;
        if (c->is_sidecar) {
            if (hv) {
                sum = kp__ev_sat_add(sum, v);
                restart = kp__ev_sat_add(restart, v);
                if (qout) {
                    kp__ev_qty_accumulate(&qsum, &has, &qv, sum);
                    kp__ev_qty_accumulate(&qrestart, &has_restart, &qv, restart);
                }
                has = has_restart = true;
            }
            use = restart;
            has_use = has_restart;
            quse = qrestart;
        } else {
            use = kp__ev_sat_add(hv ? v : 0, restart);
            has_use = hv || has_restart;
            if (qout && has_use) { /* tmp = copy(own limit) + restartable limits */
                bool h = false;
                if (hv) kp__ev_qty_accumulate(&quse, &h, &qv, use);
                if (has_restart) kp__ev_qty_accumulate(&quse, &h, &qrestart, use);
            }
        }
        if (has_use && (!has_init || use > init_max)) { /* maxResourceList: DeepCopy when larger */
            init_max = use;
            qinit = quse;
            has_init = true;
        }
    }
    if (has_init && (!has || init_max > sum)) {
        sum = init_max;
        qsum = qinit;
        has = true;
    }
    /* PodLimits adds the overhead to non-zero limits only */
    if (has && sum != 0 && kp__ev_resv_find(&p->overhead, KP_RES_EPH, &v)) {
        sum = kp__ev_sat_add(sum, v);
        if (qout) {
            kp__ev_spec_qty(src, pod, KP_EVSPEC_OVERHEAD, "", "ephemeral-storage", v, &qv);
            kp__ev_qty_add(&qsum, &qv, sum);
        }
    }
    *out = sum;
    if (qout) *qout = qsum;
    return has;
}

/* PodLimits(pod)[ephemeral-storage]: the sidecar-aware aggregate (core/pod_requests.c), plus
 * the overhead when the limit is non-zero (ephemeral-storage is no pod-level resource). */
bool kp__ev_pod_eph_limit(const kp__ev_spec_src *src, uint32_t pod, int64_t *out,
                          kp__ev_qty *qout) {
    if (qout) return eph_limit_quantity(src, pod, out, qout);
    const kp_pod *p = &src->cl->pods[pod];
    bool has = false;
    int64_t sum = kp__pod_aggregate_container(p, KP_RES_EPH, true, &has), v;
    if (has && sum != 0 && kp__ev_resv_find(&p->overhead, KP_RES_EPH, &v))
        sum = kp__ev_sat_add(sum, v);
    *out = sum;
    return has;
}

/* mirrors localStorageEviction (all three checks, in active order, unranked) */
kp_status kp__ev_local_storage_eviction(kp_evict_manager *m, const kp_evict_summary *s) {
    const kp_cluster *cl = m->cl;
    kp__ev_qty qt;
    for (uint32_t i = 0; i < m->n_pods_total; i++) {
        const kp__ev_active *a = &m->act[i];
        if (a->gone || !a->local_check) continue;
        const kp_pod *p = &cl->pods[a->pod];
        const kp__ev_pstats *st = m->stats_of[i];
        const char *why = NULL;
        char *msg = NULL;
        if (!st) continue;
        /* emptyDirLimitEviction */
        for (uint16_t v = 0; v < p->n_volumes && !msg; v++) {
            const kp_volume *vol = &p->volumes[v];
            if (!vol->is_empty_dir || !vol->has_size_limit || vol->size_limit <= 0) continue;
            const char *name = kp__s(cl, vol->name);
            size_t nl = cl->strs.len[vol->name];
            bool found = false;
            int64_t used = 0;
            const kp__ev_vstats *vols = kp__ev_pod_vols(s, st);
            for (uint32_t j = 0; j < st->n_volumes; j++) {
                const kp__ev_vstats *vs = &vols[j];
                if (vs->name_len == nl && (vs->has & KP__EVV_NAME) &&
                    memcmp(kp__ev_str(s, vs->name), name, nl) == 0 && (vs->has & KP__EVV_USED)) {
                    found = true;
                    used = kp__ev_u2i(vs->used);
                }
            }
            if (!found || used <= vol->size_limit) continue;
            if (a->critical) break; /* evictPod refuses; the other checks still run */
            kp__ev_spec_qty(&m->spec, a->pod, KP_EVSPEC_SIZE_LIMIT, name, "", vol->size_limit, &qt);
            msg = arena_printf(&m->arena,
                               "Usage of EmptyDir volume \"%s\" exceeds the limit \"%s\". ", name,
                               kp__ev_qty_str(&qt));
            if (!msg) return KP_ENOMEM;
            why = "emptydirfs.limit";
        }
        /* podEphemeralStorageLimitEviction */
        int64_t limit;
        if (!msg && kp__ev_pod_eph_limit(&m->spec, a->pod, &limit, NULL)) {
            int64_t used = (st->has & KP__EVP_EPH_USED) ? kp__ev_u2i(st->eph_used) : 0;
            if (used > limit && !a->critical) {
                kp__ev_pod_eph_limit(&m->spec, a->pod, &limit, &qt);
                msg = arena_printf(
                    &m->arena,
                    "Pod ephemeral local storage usage exceeds the total limit of containers %s. ",
                    kp__ev_qty_str(&qt));
                if (!msg) return KP_ENOMEM;
                why = "ephemeralpodfs.limit";
            }
        }
        /* containerEphemeralStorageLimitEviction */
        const kp__ev_cstats *conts = kp__ev_pod_conts(s, st);
        for (uint32_t j = 0; j < st->n_containers && !msg; j++) {
            const kp__ev_cstats *cs = &conts[j];
            const char *cs_name = kp__ev_str(s, cs->name);
            int64_t used = (cs->has & KP__EVC_LOGS_USED) ? kp__ev_u2i(cs->logs_used) : 0;
            if (!m->imagefs && (cs->has & KP__EVC_ROOT_USED))
                used = kp__ev_sat_add(used, kp__ev_u2i(cs->root_used));
            int64_t lim = 0;
            const char *lim_name = "";
            bool has_lim = false;
            /* the limits of the containers and, since v1.37 (PR #138462), of the restartable
             * init (sidecar) containers; other init containers have no per-container check
             * (--compat 1.36 and older: the regular containers only) */
            uint32_t n_all = (uint32_t)p->n_containers +
                             (kp__compat_sidecar_storage_limits(cl->gates.line) ? p->n_init : 0);
            for (uint32_t c = 0; c < n_all; c++) {
                const kp_container *ct = &p->containers[c];
                int64_t v;
                if (c >= p->n_containers && !ct->is_sidecar) continue;
                if ((cs->has & KP__EVC_NAME) && cl->strs.len[ct->name] == cs->name_len &&
                    memcmp(kp__s(cl, ct->name), cs_name, cs->name_len) == 0 &&
                    kp__ev_resv_find(&ct->lim, KP_RES_EPH, &v) && v != 0) {
                    lim = v;
                    lim_name = kp__s(cl, ct->name);
                    has_lim = true;
                }
            }
            if (!has_lim || lim >= used) continue;
            if (a->critical) break;
            kp__ev_spec_qty(&m->spec, a->pod, KP_EVSPEC_LIMIT, lim_name, "ephemeral-storage", lim,
                            &qt);
            msg = arena_printf(&m->arena,
                               "Container %.*s exceeded its local ephemeral storage limit \"%s\". ",
                               (int)cs->name_len, cs_name, kp__ev_qty_str(&qt));
            if (!msg) return KP_ENOMEM;
            why = "ephemeralcontainerfs.limit";
        }
        if (!msg) continue;
        kp__ev_add_eviction(m, a->pod, why, 1, msg, true);
        kp__ev_remove_active(m, a->pod);
    }
    return KP_OK;
}
