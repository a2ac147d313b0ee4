/* The failed-attempt memo: see memo.h (why a replay is exact). */
#include "sched/memo.h"

#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "sched/cycle.h"
#include "sched/framework.h"

/* Entries kept at once (distinct pod shapes failing in one unchanged state); a full memo drops
 * its oldest entry: not a limit on an answer, a miss only runs the attempt in full. */
#define KP_MEMO_ENTRIES 16

typedef struct {
    /* key */
    uint32_t cur; /* active profile */
    int32_t prio;
    uint8_t policy;
    uint8_t n_fit;
    uint8_t fit_res[KP_MAX_RES];
    int64_t fit_want[KP_MAX_RES];
    uint16_t n_req, n_tol;
    kp_resent *req; /* (res, v) of the pod's requests (text unused) */
    kp_toleration *tol;
    /* what the attempt did */
    char *message;
    uint32_t n_statuses, n_pot;
    uint32_t rejectors; /* the attempt's rejecting plugins (queueing_hints.c) */
} memo_entry;

struct kp_memo {
    uint64_t stamp[7]; /* the state the entries hold for */
    memo_entry e[KP_MEMO_ENTRIES];
    uint32_t n, next; /* entries in use; the one to replace when full */
};

static void stamp_of(const kp_sched *s, uint64_t out[7]) {
    const kp_cluster *cl = s->cl;
    out[0] = cl->gen_struct;
    out[1] = cl->n_changed_log;
    out[2] = cl->gen_pdb_status;
    out[3] = s->memo_mut;
    out[4] = (uint64_t)cl->n_pods << 32 | cl->n_nodes;
    out[5] = (uint64_t)s->now;
    out[6] = cl->n_nodes_deleted;
}

static void entry_clear(memo_entry *e) {
    kp__free(e->req);
    kp__free(e->tol);
    kp__free(e->message);
    memset(e, 0, sizeof *e);
}

static void drop_all(struct kp_memo *m) {
    for (uint32_t i = 0; i < m->n; i++) entry_clear(&m->e[i]);
    m->n = m->next = 0;
}

void kp__memo_free(kp_sched *s) {
    if (!s->memo) return;
    drop_all(s->memo);
    kp__free(s->memo);
    s->memo = NULL;
}

/* The shapes memo.h describes: only NodeUnschedulable, TaintToleration and NodeResourcesFit left
 * to run, nothing tied to a node or to other pods. */
static bool eligible(const kp_sched *s, const kp_cycle *c) {
    const kp_pod *p = c->p;
    if (s->no_memo || s->explain || p->node_name || p->nominated_node || s->nom_of[c->pod] >= 0 ||
        p->gates || p->n_volumes || c->allowed || c->ipa || c->n_spread || c->n_fit_dra)
        return false;
    for (uint8_t i = 0; i < c->n_active; i++) {
        kp_plugin pl = (kp_plugin)c->active[i];
        if (pl != KP_PL_NODE_UNSCHEDULABLE && pl != KP_PL_TAINT_TOLERATION && pl != KP_PL_FIT)
            return false;
    }
    return true;
}

static bool tol_equal(const kp_toleration *a, const kp_toleration *b) {
    return a->key == b->key && a->value == b->value && a->op == b->op && a->effect == b->effect &&
           a->has_seconds == b->has_seconds && a->seconds == b->seconds;
}

static bool matches(const memo_entry *e, const kp_sched *s, const kp_cycle *c) {
    const kp_pod *p = c->p;
    if (e->cur != s->cur || e->prio != p->priority || e->policy != p->preemption_policy ||
        e->n_fit != c->n_fit || e->n_req != p->req.n || e->n_tol != p->n_tolerations)
        return false;
    for (uint8_t i = 0; i < c->n_fit; i++)
        if (e->fit_res[i] != c->fit_res[i] || e->fit_want[i] != c->fit_want[i]) return false;
    for (uint16_t i = 0; i < p->req.n; i++)
        if (e->req[i].res != p->req.e[i].res || e->req[i].v != p->req.e[i].v) return false;
    for (uint16_t i = 0; i < p->n_tolerations; i++)
        if (!tol_equal(&e->tol[i], &p->tolerations[i])) return false;
    return true;
}

const char *kp__memo_begin(kp_sched *s, const kp_cycle *c, kp_memo_probe *pr, uint32_t *n_statuses,
                           uint32_t *n_pot, uint32_t *rejectors) {
    pr->eligible = eligible(s, c);
    stamp_of(s, pr->stamp);
    pr->prng = s->prng;
    pr->next_start = s->next_start;
    struct kp_memo *m = s->memo;
    if (!pr->eligible || !m || !m->n) return NULL;
    if (memcmp(m->stamp, pr->stamp, sizeof m->stamp) != 0) {
        drop_all(m); /* the state moved on: nothing recorded holds any more */
        return NULL;
    }
    for (uint32_t i = 0; i < m->n; i++) {
        if (!matches(&m->e[i], s, c)) continue;
        *n_statuses = m->e[i].n_statuses;
        *n_pot = m->e[i].n_pot;
        *rejectors = m->e[i].rejectors;
        s->memo_hits++;
        return m->e[i].message;
    }
    return NULL;
}

void kp__memo_record(kp_sched *s, const kp_cycle *c, const kp_memo_probe *pr, const char *message,
                     uint32_t n_statuses, uint32_t n_pot, uint32_t rejectors) {
    if (!pr->eligible) return;
    uint64_t now[7];
    stamp_of(s, now);
    if (memcmp(now, pr->stamp, sizeof now) != 0) return; /* the attempt changed something */
    kp_prng redo = pr->prng;
    if (n_pot) kp__prng_below(&redo, n_pot);
    if (memcmp(&redo, &s->prng, sizeof redo) != 0) return; /* other draws: not replayable */
    uint32_t nn = s->cl->n_nodes;
    if (nn && (uint32_t)(((uint64_t)pr->next_start + n_statuses) % nn) != s->next_start) return;
    if (!s->memo && !(s->memo = kp__calloc(1, sizeof *s->memo))) return; /* a miss later */
    struct kp_memo *m = s->memo;
    if (memcmp(m->stamp, now, sizeof now) != 0) {
        drop_all(m);
        memcpy(m->stamp, now, sizeof now);
    }
    memo_entry *e;
    if (m->n < KP_MEMO_ENTRIES) {
        e = &m->e[m->n++];
    } else {
        e = &m->e[m->next];
        m->next = (m->next + 1) % KP_MEMO_ENTRIES;
        entry_clear(e);
    }
    const kp_pod *p = c->p;
    size_t len = strlen(message ? message : "");
    e->message = kp__malloc(len + 1);
    e->req = kp__malloc((p->req.n ? p->req.n : 1) * sizeof *e->req);
    e->tol = kp__malloc((p->n_tolerations ? p->n_tolerations : 1) * sizeof *e->tol);
    if (!e->message || !e->req || !e->tol) {
        drop_all(m); /* a memo not kept is only a miss later: not an error */
        return;
    }
    memcpy(e->message, message ? message : "", len + 1);
    for (uint16_t i = 0; i < p->req.n; i++) e->req[i] = p->req.e[i];
    if (p->n_tolerations) memcpy(e->tol, p->tolerations, p->n_tolerations * sizeof *e->tol);
    e->cur = s->cur;
    e->prio = p->priority;
    e->policy = p->preemption_policy;
    e->n_fit = c->n_fit;
    memcpy(e->fit_res, c->fit_res, sizeof e->fit_res);
    memcpy(e->fit_want, c->fit_want, sizeof e->fit_want);
    e->n_req = p->req.n;
    e->n_tol = p->n_tolerations;
    e->n_statuses = n_statuses;
    e->n_pot = n_pot;
    e->rejectors = rejectors;
}
