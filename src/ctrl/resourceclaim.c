/* The resourceclaim controller (pkg/controller/resourceclaim/controller.go): a pod's claims from
 * its ResourceClaimTemplates (syncPod / handleClaim), and the release of claims whose pods are
 * gone or done (syncClaim): reservations dropped, the allocation cleared when the last one went,
 * generated claims deleted. Its work queue takes no time: a pod change is served at once
 * (kp_ctrl_resourceclaim_pod). Changes go through core (core/dra.h, core/dra_claims.c). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/prng.h"
#include "core/cluster.h"
#include "core/dra.h"
#include "core/meta.h"
#include "core/pod.h"
#include "core/workload_ctrl.h"
#include "ctrl/ctrl_internal.h"

/* ResourceClaimReservedForMaxSize (k8s.io/api/resource/v1). rule 8: upstream's own API limit;
 * a claim already reserved by that many consumers is not reserved again, as upstream's
 * CanBeReserved decides, so the limit is part of the answer, not a limit of kprio's */
#define KP_DRA_RESERVED_MAX 256

static kp_status nomem(kp_error *err) { return kp__ctrl_nomem(err); }

static kp_status changed(const kp_ctrl_sink *sink, uint32_t claim, kp_ctrl_claim_change what,
                         kp_index pod, kp_error *err) {
    if (!sink || !sink->claim_changed) return KP_OK;
    return sink->claim_changed(sink->ctx, (kp_index)claim, (int)what, pod, err);
}

/* mirrors isPodDone: terminal, or deleted before it was scheduled */
static bool pod_done(const kp_pod *p) {
    return kp__pod_is_terminal(p) || (p->deletion_ts != KP_TIME_NONE && p->node < 0);
}

/* mirrors podNeedsClaims (the deleted case: a tombstone) */
static bool needs_claims(const kp_pod *p) { return !p->deleted && !pod_done(p); }

/* The live pod of that namespace and name, -1 */
static long find_pod(const kp_cluster *cl, kp_str ns, kp_str name) {
    char ref[600];
    snprintf(ref, sizeof ref, "%s/%s", kp__s(cl, ns), kp__s(cl, name));
    return kp_cluster_find_pod(cl, ref);
}

/* mirrors resourceclaim.IsForPod: the claim's controller reference is the pod (its uid; and its
 * name: a snapshot's pods may come without uids) */
static bool is_for_pod(const kp_cluster *cl, const kp_dra_claim *c, const kp_pod *p) {
    return c->owner_uid == p->uid && c->owner_name == p->name && c->owner_kind &&
           strcmp(kp__s(cl, c->owner_kind), "Pod") == 0;
}

/* ---------------------------------------------------------------- syncClaim */

/* mirrors Controller.syncClaim for claim: the reservedFor entries of pods that are gone, replaced
 * (another uid under the name) or done are dropped (entries of other consumers are kept: kprio
 * follows pods only); a claim whose last reservation went has its allocation cleared (the
 * transition only: a claim allocated and never reserved keeps it); a claim no longer reserved
 * and generated for a pod that is done or replaced is deleted, and one whose pod is gone is
 * deleted by the garbage collector (attemptToDeleteItem: its owner does not exist). */
static kp_status sync_claim(kp_ctrl *c, uint32_t claim, const kp_ctrl_sink *sink, kp_error *err) {
    kp_cluster *cl = c->cl;
    if (claim >= cl->dra.n_claims || cl->dra.claims[claim].deleted) return KP_OK;
    kp_dra_claim *cd = &cl->dra.claims[claim];
    uint16_t before = cd->n_reserved;
    kp_index first_gone = -1;
    for (uint16_t i = 0; i < cd->n_reserved;) {
        const kp_dra_consumer *r = &cd->reserved[i];
        if (r->resource && strcmp(kp__s(cl, r->resource), "pods") != 0) {
            i++;
            continue;
        }
        long p = find_pod(cl, cd->ns, r->name);
        bool keep = p >= 0 && cl->pods[p].uid == r->uid && !pod_done(&cl->pods[p]);
        if (keep) {
            i++;
            continue;
        }
        if (first_gone < 0) first_gone = (kp_index)p;
        if (kp__dra_claim_drop_reservation(cl, claim, i) != KP_OK) return KP_OK;
        cd = &cl->dra.claims[claim];
    }
    kp_status st = KP_OK;
    if (cd->n_reserved < before) {
        bool freed = cd->n_reserved == 0 && cd->allocated;
        if (freed && kp__dra_claim_deallocate(cl, claim) != KP_OK) freed = false;
        st = changed(sink, claim, freed ? KP_CTRL_CLAIM_DEALLOCATED : KP_CTRL_CLAIM_UNRESERVED,
                     first_gone, err);
        if (st != KP_OK) return st;
    }
    cd = &cl->dra.claims[claim];
    if (cd->n_reserved || !cd->owner_kind || strcmp(kp__s(cl, cd->owner_kind), "Pod") != 0)
        return KP_OK;
    long p = find_pod(cl, cd->ns, cd->owner_name);
    if (p >= 0 && cl->pods[p].uid == cd->owner_uid && !pod_done(&cl->pods[p]))
        return KP_OK; /* its pod may still run */
    bool allocated = cd->allocated;
    if (kp__dra_claim_delete(cl, claim) != KP_OK) return KP_OK;
    if (allocated && (st = changed(sink, claim, KP_CTRL_CLAIM_DEALLOCATED, p, err)) != KP_OK)
        return st;
    return changed(sink, claim, KP_CTRL_CLAIM_DELETED, p, err);
}

/* ---------------------------------------------------------------- syncPod */

/* The pod's claim for template entry pc made earlier, found by owner and annotation (mirrors
 * findPodResourceClaim; the name of Kubernetes <= 1.27, "<pod>-<podClaim>", for a claim without
 * the annotation), -1 */
static long find_owned(const kp_cluster *cl, const kp_pod *p, const kp_pod_claim *pc) {
    char old[600];
    snprintf(old, sizeof old, "%s-%s", kp__s(cl, p->name), kp__s(cl, pc->name));
    for (uint32_t i = 0; i < cl->dra.n_claims; i++) {
        const kp_dra_claim *cd = &cl->dra.claims[i];
        if (cd->deleted || cd->ns != p->ns || !is_for_pod(cl, cd, p)) continue;
        if (cd->pod_claim_name ? cd->pod_claim_name == pc->name
                               : strcmp(kp__s(cl, cd->name), old) == 0)
            return i;
    }
    return -1;
}

/* the name the API server gives the claim: generateName plus 5 characters of utilrand.String's
 * alphabet, drawn again when the name is taken (the API server's retries of a generated name) */
static kp_status claim_name(kp_ctrl *c, const kp_pod *p, const kp_pod_claim *pc, char *out,
                            size_t cap) {
    char base[128];
    kp__dra_claim_generate_base(kp__s(c->cl, p->name), kp__s(c->cl, pc->name), base, sizeof base);
    for (;;) {
        char sfx[KP_NAME_SUFFIX_LEN + 1];
        for (int i = 0; i < KP_NAME_SUFFIX_LEN; i++)
            sfx[i] = KP_NAME_ALPHABET[kp__prng_below(&c->claim_prng, 27)];
        sfx[KP_NAME_SUFFIX_LEN] = 0;
        snprintf(out, cap, "%s%s", base, sfx);
        kp_str id = kp__intern_find(&c->cl->strs, out, strlen(out));
        if (id == UINT32_MAX || kp__cluster_find_dra(c->cl, KP_DK_CLAIM, p->ns, id) < 0)
            return KP_OK;
    }
}

/* The work queue's rate limiter for a pod whose sync failed (mirrors
 * ItemExponentialFailureRateLimiter of DefaultTypedControllerRateLimiter: 5 ms * 2^failures, at
 * most 1000 s; its token bucket, 10 per second after a burst of 100, never waits longer for one
 * pod): the retry asked of the sink. The failures are kept per pod until a sync succeeds
 * (Forget). */
static kp_status retry_later(kp_ctrl *c, uint32_t pod, const kp_ctrl_sink *sink, kp_error *err) {
    if (pod >= c->n_claim_fails) {
        size_t cap = c->n_claim_fails;
        void *p = c->claim_fails;
        if (!kp__grow(&p, &cap, (size_t)pod + 1, sizeof *c->claim_fails, 16)) return nomem(err);
        c->claim_fails = p;
        memset(c->claim_fails + c->n_claim_fails, 0,
               (cap - c->n_claim_fails) * sizeof *c->claim_fails);
        c->n_claim_fails = cap;
    }
    uint32_t n = c->claim_fails[pod]++;
    int64_t delay = n >= 18 ? 1000000 : (int64_t)5 << n; /* 5 ms * 2^18 > 1000 s */
    if (delay > 1000000) delay = 1000000;
    if (!sink || !sink->resync_at) return KP_OK;
    return sink->resync_at(sink->ctx, KP_CTRL_RESYNC_CLAIMS, (kp_index)pod, c->now + delay, err);
}

/* FailedResourceClaimCreation on the pod (syncPod's recorder.Event); a retry's identical event
 * is aggregated into the first by the event recorder: not reported again */
static kp_status failed(kp_ctrl *c, uint32_t pod, const char *msg, const kp_ctrl_sink *sink,
                        kp_error *err) {
    bool again = pod < c->n_claim_fails && c->claim_fails[pod] > 0;
    kp_status st = retry_later(c, pod, sink, err);
    if (st != KP_OK || again || !sink || !sink->event) return st;
    const kp_pod *p = &c->cl->pods[pod];
    kp_ctrl_event ev = {true,
                        "FailedResourceClaimCreation",
                        "Pod",
                        kp__s(c->cl, p->ns),
                        kp__s(c->cl, p->name),
                        msg,
                        (kp_index)pod,
                        -1,
                        -1};
    return sink->event(sink->ctx, &ev, err);
}

/* mirrors Controller.handleClaim for pod's entry pc; *stop: a failure ended the pod's sync */
static kp_status handle_claim(kp_ctrl *c, uint32_t pod, uint16_t pc, bool scan,
                              const kp_ctrl_sink *sink, bool *stop, kp_error *err) {
    kp_cluster *cl = c->cl;
    const kp_pod *p = &cl->pods[pod];
    const kp_pod_claim *e = &p->claims[pc];
    if (e->claim_name || !e->template_name) return KP_OK; /* a claim the user makes */
    if (e->has_status && !e->status_claim) return KP_OK; /* no claim needed */
    if (e->status_claim) {
        long have = kp__cluster_find_dra(cl, KP_DK_CLAIM, p->ns, e->status_claim);
        if (have >= 0 && !cl->dra.claims[have].deleted && is_for_pod(cl, &cl->dra.claims[have], p))
            return KP_OK; /* created already */
    }
    /* a pod the manager saw created owns no claim yet: the scan is for a snapshot's pods */
    long have = scan ? find_owned(cl, p, e) : -1;
    uint32_t made = 0;
    bool created = have < 0;
    if (created) {
        char name[160];
        kp_status st = claim_name(c, p, e, name, sizeof name);
        if (st == KP_OK)
            st = kp__dra_claim_create(cl, pod, pc, name,
                                      c->epoch ? c->epoch + c->now / 1000 : KP_TIME_NONE, &made);
        if (st == KP_ENOTFOUND) {
            char msg[700];
            const char *t = kp__s(cl, cl->pods[pod].claims[pc].template_name);
            snprintf(msg, sizeof msg,
                     "PodResourceClaim %s: resource claim template \"%s\": "
                     "resourceclaimtemplate.resource.k8s.io \"%s\" not found",
                     kp__s(cl, cl->pods[pod].claims[pc].name), t, t);
            *stop = true;
            return failed(c, pod, msg, sink, err);
        }
        if (st != KP_OK) return nomem(err);
        have = made;
    }
    if (kp__dra_pod_set_claim_status(cl, pod, pc, cl->dra.claims[have].name) != KP_OK)
        return nomem(err);
    return created ? changed(sink, made, KP_CTRL_CLAIM_CREATED, (kp_index)pod, err) : KP_OK;
}

/* mirrors Controller.syncPod: nothing for a pod being deleted; each entry handled in order, the
 * first failure ending the sync (FailedResourceClaimCreation; upstream retries with backoff,
 * kprio leaves the pod without the claim: the scheduler reports it waiting) */
static kp_status sync_pod(kp_ctrl *c, uint32_t pod, bool scan, const kp_ctrl_sink *sink,
                          kp_error *err) {
    const kp_pod *p = &c->cl->pods[pod];
    /* a terminal pod needs no claim: upstream makes one and syncClaim deletes it at once */
    if (p->deleted || p->deletion_ts != KP_TIME_NONE || kp__pod_is_terminal(p)) return KP_OK;
    bool stop = false;
    for (uint16_t i = 0; i < c->cl->pods[pod].n_claims && !stop; i++) {
        kp_status st = handle_claim(c, pod, i, scan, sink, &stop, err);
        if (st != KP_OK) return st;
    }
    if (!stop && pod < c->n_claim_fails) c->claim_fails[pod] = 0; /* Forget */
    if (stop || c->cl->pods[pod].node < 0) return KP_OK; /* the scheduler reserves */
    /* a pod bound without the scheduler (spec.nodeName): its allocated claims are reserved for
     * it (reserveForPod) while they can be (CanBeReserved: fewer than
     * ResourceClaimReservedForMaxSize entries) */
    for (uint16_t i = 0; i < c->cl->pods[pod].n_claims; i++) {
        long claim = kp__dra_pod_claim(c->cl, pod, i);
        if (claim < 0) continue;
        const kp_dra_claim *cd = &c->cl->dra.claims[claim];
        if (cd->deleted || !cd->allocated || cd->n_reserved >= KP_DRA_RESERVED_MAX) continue;
        if (kp__dra_claim_reserve(c->cl, (uint32_t)claim, pod) != KP_OK) return nomem(err);
    }
    return KP_OK;
}

/* mirrors Controller.enqueuePod and the syncs it queues */
static kp_status pod_changed(kp_ctrl *c, uint32_t pod, bool scan, const kp_ctrl_sink *sink,
                             kp_error *err) {
    kp_cluster *cl = c->cl;
    if (pod >= cl->n_pods || (!cl->pods[pod].n_claims && !cl->pods[pod].ext_claim)) return KP_OK;
    if (!needs_claims(&cl->pods[pod])) {
        for (uint16_t i = 0; i < cl->pods[pod].n_claims; i++) {
            long claim = kp__dra_pod_claim(cl, pod, i);
            kp_status st = claim >= 0 ? sync_claim(c, (uint32_t)claim, sink, err) : KP_OK;
            if (st != KP_OK) return st;
        }
        /* the claim the scheduler made for its DRA-backed extended resources: released and
         * deleted as a generated claim (its owner is the pod) */
        long ext = cl->pods[pod].ext_claim ? kp__dra_pod_ext_claim(cl, pod) : -1;
        return ext >= 0 ? sync_claim(c, (uint32_t)ext, sink, err) : KP_OK;
    }
    return sync_pod(c, pod, scan, sink, err);
}

kp_status kp_ctrl_resourceclaim_pod(kp_ctrl *c, kp_index pod, int64_t now_ms,
                                    const kp_ctrl_sink *sink, kp_error *err) {
    if (pod < 0) return KP_OK;
    c->now = now_ms;
    return pod_changed(c, (uint32_t)pod, (size_t)pod < c->claim_pods_known, sink, err);
}

kp_status kp_ctrl_resourceclaim_start(kp_ctrl *c, int64_t now_ms, const kp_ctrl_sink *sink,
                                      kp_error *err) {
    kp_cluster *cl = c->cl;
    c->now = now_ms;
    c->claim_pods_known = cl->n_pods;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        kp_status st = pod_changed(c, i, true, sink, err);
        if (st != KP_OK) return st;
    }
    for (uint32_t i = 0; i < cl->dra.n_claims; i++) {
        kp_status st = sync_claim(c, i, sink, err);
        if (st != KP_OK) return st;
    }
    return KP_OK;
}

static kp_status count_created(void *ctx, kp_index claim, int change, kp_index pod, kp_error *err) {
    (void)claim, (void)pod, (void)err;
    if (change == KP_CTRL_CLAIM_CREATED) ++*(size_t *)ctx;
    return KP_OK;
}

kp_status kp_ctrl_resourceclaim_create_all(kp_cluster *cl, uint64_t seed, int64_t now_s,
                                           size_t *created, kp_error *err) {
    size_t n = 0;
    if (created) *created = 0;
    if (!cl->dra.n_templates) return KP_OK;
    kp_ctrl *c = kp_ctrl_new(cl);
    if (!c) return nomem(err);
    kp_ctrl_set_seed(c, seed);
    c->epoch = now_s;
    kp_ctrl_sink sink = {.ctx = &n, .claim_changed = count_created};
    kp_status st = KP_OK;
    for (uint32_t i = 0; i < cl->n_pods && st == KP_OK; i++)
        if (cl->pods[i].node < 0) st = sync_pod(c, i, true, &sink, err);
    kp_ctrl_free(c);
    if (created) *created = n;
    return st;
}
