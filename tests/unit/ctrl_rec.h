/* Shared by the tests of the Job, CronJob, disruption, taint-eviction, node lifecycle and pod GC
 * controllers (test_ctrl_*.c; the workload controllers' use ctrl_case.h): a cluster loaded from
 * YAML text with its workloads' templates kept, and a recording kp_ctrl_sink (events as "Reason:
 * message", pods created, deleting and deleted, resyncs) in the order the controller reported them.
 * A recorded deletion is not played: the pod stays marked terminating (pod_deleting) or is deleted
 * by core (pod_deleted), as a runner with no grace period left would. Header-only, static. */
#ifndef KP_TEST_CTRL_REC_H
#define KP_TEST_CTRL_REC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/ctrl.h"

#define REC_MAX 64

typedef struct {
    kp_cluster *cl;
    char events[REC_MAX][400]; /* "Reason: message" (Warning events "!Reason: message") */
    size_t n_events;
    char created[REC_MAX][200]; /* pod names */
    kp_index created_idx[REC_MAX], replaces[REC_MAX];
    size_t n_created;
    kp_index deleting[REC_MAX], deleted[REC_MAX];
    char deleting_ev[REC_MAX][400]; /* the event that came with the deletion ("" when none) */
    size_t n_deleting, n_deleted;
    int resync_kind[REC_MAX];
    kp_index resync_obj[REC_MAX];
    int64_t resync_t[REC_MAX];
    size_t n_resync;
} rec;

static inline void rec_event_text(const kp_ctrl_event *ev, char *out, size_t cap) {
    snprintf(out, cap, "%s%s: %s", ev->warning ? "!" : "", ev->reason, ev->message);
}

static inline kp_status rec_event(void *ctx, const kp_ctrl_event *ev, kp_error *err) {
    (void)err;
    rec *r = ctx;
    if (r->n_events < REC_MAX) rec_event_text(ev, r->events[r->n_events++], sizeof r->events[0]);
    return KP_OK;
}

static inline kp_status rec_created(void *ctx, kp_index pod, kp_index replaces,
                                    const kp_ctrl_event *ev, kp_error *err) {
    rec *r = ctx;
    if (ev) rec_event(ctx, ev, err);
    if (r->n_created < REC_MAX) {
        snprintf(r->created[r->n_created], sizeof r->created[0], "%s",
                 kp_cluster_pod_name(r->cl, pod));
        r->created_idx[r->n_created] = pod;
        r->replaces[r->n_created++] = replaces;
    }
    return KP_OK;
}

static inline kp_status rec_deleting(void *ctx, kp_index pod, const char *cause,
                                     const kp_ctrl_event *ev, kp_error *err) {
    (void)cause;
    rec *r = ctx;
    if (ev) rec_event(ctx, ev, err);
    if (r->n_deleting < REC_MAX) {
        r->deleting_ev[r->n_deleting][0] = 0;
        if (ev) rec_event_text(ev, r->deleting_ev[r->n_deleting], sizeof r->deleting_ev[0]);
        r->deleting[r->n_deleting++] = pod;
    }
    /* a pod on no node: the API server deletes it at once */
    if (kp_cluster_pod_node(r->cl, pod) < 0) return kp_cluster_delete_pod(r->cl, pod, err);
    return KP_OK;
}

static inline kp_status rec_deleted(void *ctx, kp_index pod, const kp_ctrl_event *ev,
                                    kp_error *err) {
    rec *r = ctx;
    if (ev) rec_event(ctx, ev, err);
    if (r->n_deleted < REC_MAX) r->deleted[r->n_deleted++] = pod;
    return kp_cluster_delete_pod(r->cl, pod, err);
}

static inline kp_status rec_resync(void *ctx, int kind, kp_index obj, int64_t t_ms, kp_error *err) {
    (void)err;
    rec *r = ctx;
    if (r->n_resync < REC_MAX) {
        r->resync_kind[r->n_resync] = kind;
        r->resync_obj[r->n_resync] = obj;
        r->resync_t[r->n_resync++] = t_ms;
    }
    return KP_OK;
}

/* a fresh recording over cl */
static inline kp_ctrl_sink rec_sink(rec *r, kp_cluster *cl) {
    memset(r, 0, sizeof *r);
    r->cl = cl;
    return (kp_ctrl_sink){r, rec_event, rec_created, rec_deleting, rec_deleted, rec_resync, NULL};
}

static kp_cluster *ctrl_load(const char *text) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), &err) != KP_OK ||
        kp_cluster_finalize(cl, &err) != KP_OK) {
        fprintf(stderr, "  load: %s\n", err.msg);
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static inline kp_index ctrl_workload(const kp_cluster *cl, const char *kind, const char *name) {
    for (size_t i = 0; i < kp_cluster_workload_count(cl); i++) {
        kp_workload_info w;
        if (kp_cluster_workload_info(cl, (kp_index)i, &w) == KP_OK && strcmp(w.kind, kind) == 0 &&
            strcmp(w.name, name) == 0 && !w.deleted)
            return (kp_index)i;
    }
    return -1;
}

static inline kp_index ctrl_pod(const kp_cluster *cl, const char *ns_name) {
    return kp_cluster_find_pod(cl, ns_name);
}

/* whether the recording holds an event with exactly this text */
static inline bool rec_has(const rec *r, const char *text) {
    for (size_t i = 0; i < r->n_events; i++)
        if (strcmp(r->events[i], text) == 0) return true;
    return false;
}

#endif
