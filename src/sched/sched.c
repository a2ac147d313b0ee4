/* The scheduler object: node order (node_tree), nominator, PRNG, queue and the run loop
 * (mirrors the parts of pkg/scheduler that drive ScheduleOne over a fixed snapshot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/labels.h"
#include "core/meta.h"
#include "core/node.h"
#include "core/pod.h"
#include "core/resources.h"
#include "core/sched_config.h"
#include "sched/compat.h"
#include "sched/framework.h"
#include "sched/hot.h"
#include "sched/memo.h"
#include "sched/nominator.h"
#include "sched/plugins/dynamic_resources.h"
#include "sched/plugins/dynamic_resources_enqueue.h"
#include "sched/plugins/inter_pod_affinity.h"
#include "sched/plugins/pod_topology_spread_default.h"
#include "sched/plugins/scheduling_gates.h"
#include "sched/preempt/preempt.h"
#include "sched/reasons.h"
#include "sched/registry.h"
#include "sched/schedule_one.h"


static bool labels_get_str(const kp_cluster *cl, const kp_labels *l, const char *key, kp_str *v) {
    kp_str k = kp__intern_find(&cl->strs, key, strlen(key));
    if (k == UINT32_MAX) return false;
    return kp__labels_get(l, k, v);
}

/* mirrors utilnode.GetZoneKey: region and zone labels (GA, then beta) */
static uint64_t zone_key(const kp_cluster *cl, const kp_node *n) {
    kp_str region = 0, zone = 0;
    if (!labels_get_str(cl, &n->labels, "topology.kubernetes.io/region", &region))
        labels_get_str(cl, &n->labels, "failure-domain.beta.kubernetes.io/region", &region);
    if (!labels_get_str(cl, &n->labels, "topology.kubernetes.io/zone", &zone))
        labels_get_str(cl, &n->labels, "failure-domain.beta.kubernetes.io/zone", &zone);
    return kp__pair(region, zone);
}

/* mirrors nodeTree.list: zones in first-seen order, round-robin over them; a deleted node is
 * not in the tree (nodeTree.removeNode) */
static kp_status build_order(kp_sched *s) {
    kp_cluster *cl = s->cl;
    uint32_t n = cl->n_nodes;
    s->order = kp__malloc((n ? n : 1) * sizeof *s->order);
    uint32_t *zone_of = kp__malloc((n ? n : 1) * sizeof *zone_of);
    uint32_t *zone_cnt = kp__calloc(n ? n : 1, sizeof *zone_cnt);
    uint32_t *zone_start = kp__calloc(n + 1, sizeof *zone_start);
    uint32_t *by_zone = kp__malloc((n ? n : 1) * sizeof *by_zone);
    kp_pairmap zmap;
    kp__pairmap_init(&zmap, true);
    kp_status st = KP_OK;
    if (!s->order || !zone_of || !zone_cnt || !zone_start || !by_zone) {
        st = KP_ENOMEM;
        goto out;
    }
    uint32_t n_zones = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (cl->nodes[i].deleted) continue;
        uint64_t k = zone_key(cl, &cl->nodes[i]);
        int64_t z = kp__pairmap_get(&zmap, k);
        if (z == 0) {
            z = ++n_zones;
            if ((st = kp__pairmap_add(&zmap, k, z)) != KP_OK) goto out;
        }
        zone_of[i] = (uint32_t)(z - 1);
        zone_cnt[z - 1]++;
    }
    for (uint32_t z = 0; z < n_zones; z++) zone_start[z + 1] = zone_start[z] + zone_cnt[z];
    memset(zone_cnt, 0, n * sizeof *zone_cnt);
    for (uint32_t i = 0; i < n; i++)
        if (!cl->nodes[i].deleted) by_zone[zone_start[zone_of[i]] + zone_cnt[zone_of[i]]++] = i;
    n = kp__cluster_live_nodes(cl);
    uint32_t k = 0;
    for (uint32_t idx = 0; k < n; idx++) {
        for (uint32_t z = 0; z < n_zones; z++) {
            if (idx < zone_cnt[z]) s->order[k++] = by_zone[zone_start[z] + idx];
        }
    }
    s->n_order = n;
out:
    kp__free(zone_of);
    kp__free(zone_cnt);
    kp__free(zone_start);
    kp__free(by_zone);
    kp__pairmap_fini(&zmap);
    return st;
}

/* ================================================================ create / free */

void kp_sched_options_init(kp_sched_options *o) {
    memset(o, 0, sizeof *o);
    o->protect_pod = -1;
    o->settle_pod = o->settle_after = -1;
}

static int find_res(kp_cluster *cl, const char *name) {
    kp_str id = kp__intern_find(&cl->strs, name, strlen(name));
    if (id == UINT32_MAX) return -1;
    for (uint32_t r = 0; r < cl->n_res; r++)
        if (cl->res_names[r] == id) return (int)r;
    return -1;
}

/* The profile's resource indices against the cluster (scoring args, ignored resources). */
static void profile_resolve(kp_cluster *cl, kp_sched_profile *p) {
    const kp_sched_config *c = &p->cfg;
    for (uint8_t i = 0; i < c->n_fit_res; i++) p->fit_res_idx[i] = find_res(cl, c->fit_res[i].name);
    for (uint8_t i = 0; i < c->n_bal_res; i++) p->bal_res_idx[i] = find_res(cl, c->bal_res[i].name);
    for (uint8_t i = 0; i < c->n_ignored; i++) {
        int r = find_res(cl, c->ignored[i]);
        if (r >= 0) p->ignored_res[r] = true;
    }
    for (uint32_t r = KP_RES_FIXED; r < cl->n_res; r++) {
        const char *rn = kp__s(cl, cl->res_names[r]);
        const char *slash = strchr(rn, '/');
        for (uint8_t g = 0; slash && g < c->n_ignored_groups; g++) {
            size_t gl = strlen(c->ignored_groups[g]);
            if ((size_t)(slash - rn) == gl && memcmp(rn, c->ignored_groups[g], gl) == 0)
                p->ignored_res[r] = true;
        }
    }
}

/* The profiles served (mirrors profile.NewMap: one framework per schedulerName; the decoder has
 * rejected duplicate names and differing queue sorts). cfg NULL: the default profile. name
 * (kp_sched_options.scheduler_name) keeps only the profile of that name, or renames the only
 * profile. */
static kp_status profiles_new(kp_sched *s, const kp_sched_config *cfg, const char *name,
                              kp_error *err) {
    kp_sched_config def;
    if (!cfg) {
        kp__sched_config_defaults(&def);
        cfg = &def;
    }
    uint32_t n = 1 + cfg->n_more;
    const kp_sched_config *pick = NULL;
    for (uint32_t i = 0; name && n > 1 && i < n; i++) {
        const kp_sched_config *c = i ? &cfg->more[i - 1] : cfg;
        if (!pick && strcmp(c->scheduler_name, name) == 0) pick = c;
    }
    if (name && n > 1 && !pick)
        return kp_error_set(err, KP_EINVAL, "scheduler: no profile has schedulerName \"%s\"", name);
    if (pick) n = 1;
    s->prof = kp__calloc(n, sizeof *s->prof);
    if (!s->prof) return kp_error_set(err, KP_ENOMEM, "out of memory");
    s->n_prof = n;
    for (uint32_t i = 0; i < n; i++) {
        kp_sched_profile *p = &s->prof[i];
        p->cfg = pick ? *pick : i ? cfg->more[i - 1] : *cfg;
        p->cfg.more = NULL;
        p->cfg.n_more = 0;
        if (name && strlen(name) >= sizeof p->cfg.scheduler_name)
            return kp_error_set(err, KP_ELIMIT,
                                "scheduler: scheduler name longer than %zu characters (kprio's "
                                "limit)",
                                sizeof p->cfg.scheduler_name - 1);
        if (name) snprintf(p->cfg.scheduler_name, sizeof p->cfg.scheduler_name, "%s", name);
        p->name =
            kp__intern_find(&s->cl->strs, p->cfg.scheduler_name, strlen(p->cfg.scheduler_name));
        /* DynamicResources leaves the default profile with its gate off (default_plugins.go
         * applyFeatureGates); the cluster's gate when set, else the --compat line's default */
        const kp_feature_gates *g = &s->cl->gates;
        bool dra = g->set[KP_GATE_DYNAMIC_RESOURCE_ALLOCATION]
                       ? g->on[KP_GATE_DYNAMIC_RESOURCE_ALLOCATION]
                       : kp__compat_dra_default(s->compat);
        p->postfilter_dra = p->cfg.postfilter_dra && dra;
        profile_resolve(s->cl, p);
    }
    return KP_OK;
}

kp_status kp_sched_new(kp_cluster *cl, const kp_sched_config *cfg, const kp_sched_options *opt,
                       kp_sched **out, kp_error *err) {
    *out = NULL;
    if (!cl || !cl->finalized)
        return kp_error_set(err, KP_EINVAL, "scheduler: cluster is not finalized");
    kp_sched *s = kp__calloc(1, sizeof *s);
    if (!s) return kp_error_set(err, KP_ENOMEM, "out of memory");
    s->cl = cl;
    s->plugins = kp__plugin_registry;
    kp_sched_options o;
    if (opt) o = *opt;
    else kp_sched_options_init(&o);
    kp__prng_seed(&s->prng, o.seed);
    kp__prng_seed(&s->ext_prng, o.seed ^ UINT64_C(0x5852455344524145)); /* "EARDSERX" */
    s->until_settled = o.until_settled;
    /* --compat is parsed once, here; every preemption attempt reads s->preempt_compat */
    s->preempt_compat = KP_PREEMPT_COMPAT_NEWEST;
    s->compat = KP_COMPAT_NEWEST;
    if (o.compat && *o.compat &&
        (!kp__preempt_compat_parse(o.compat, &s->preempt_compat) ||
         !kp__compat_parse(o.compat, &s->compat))) {
        kp__free(s);
        return kp_error_set(err, KP_EINVAL,
                            "--compat: \"%s\" is not a Kubernetes version (expected e.g. 1.35)",
                            o.compat);
    }
    if (o.protect_pod >= (kp_index)cl->n_pods) {
        kp__free(s);
        return kp_error_set(err, KP_EINVAL, "scheduler: protect_pod %ld out of range",
                            o.protect_pod);
    }
    s->protect_pod = o.protect_pod < 0 ? -1 : (int32_t)o.protect_pod;
    /* SchedulerAsyncPreemption: the cluster's gate when set, else the --compat line's default */
    const kp_feature_gates *g = &cl->gates;
    s->async_preemption = g->set[KP_GATE_SCHEDULER_ASYNC_PREEMPTION]
                              ? g->on[KP_GATE_SCHEDULER_ASYNC_PREEMPTION]
                              : s->compat >= 33;
    /* SchedulerQueueingHints: on by default from v1.32, locked on from v1.34 */
    s->queueing_hints = g->set[KP_GATE_SCHEDULER_QUEUEING_HINTS]
                            ? g->on[KP_GATE_SCHEDULER_QUEUEING_HINTS]
                            : s->compat >= 32;
    s->now = KP_TIME_NONE;
    s->dra_deallocated = -1;
    s->n_pods_seen = cl->n_pods;
    s->n_nodes_seen = cl->n_nodes;
    s->seen_changed = cl->n_changed_log;
    s->gen = cl->gen_struct;
    s->seen_gen_nodes = cl->gen_nodes;
    s->seen_gen_pods = cl->gen_pods;
    s->seen_nodes_deleted = cl->n_nodes_deleted;
    s->seen_n_res = cl->n_res;
    kp__cluster_mark_get(cl, &s->seen_mark);
    if (o.stop_when_settled && !o.until_settled) {
        if (o.settle_pod < 0 || o.settle_pod >= (kp_index)cl->n_pods ||
            o.settle_after >= (kp_index)cl->n_pods) {
            kp__free(s);
            return kp_error_set(err, KP_EINVAL, "scheduler: settle_pod %ld out of range",
                                o.settle_pod);
        }
        s->settle_pod = (int32_t)o.settle_pod;
        s->settle_after = o.settle_after < 0 ? -1 : (int32_t)o.settle_after;
    } else {
        s->settle_pod = s->settle_after = -1;
    }

    uint32_t nn = cl->n_nodes, np = cl->n_pods;
    s->nom_pods = kp__calloc(nn + 1, sizeof *s->nom_pods);
    s->nom_n = kp__calloc(nn + 1, sizeof *s->nom_n);
    s->nom_cap = kp__calloc(nn + 1, sizeof *s->nom_cap);
    s->nom_of = kp__malloc((np + 1) * sizeof *s->nom_of);
    s->statuses = kp__malloc((nn + 1) * sizeof *s->statuses);
    s->has_status = kp__calloc(nn + 1, sizeof *s->has_status);
    s->feasible = kp__malloc((nn + 1) * sizeof *s->feasible);
    s->scores = kp__malloc((nn + 1) * sizeof *s->scores);
    s->plug_scores = kp__malloc((nn + 1) * sizeof *s->plug_scores);
    s->ignored_nodes = kp__calloc(nn + 1, 1);
    s->res_of_pod = kp__malloc((np + 1) * sizeof *s->res_of_pod);
    kp__pairmap_init(&s->image_nodes, true);
    kp__pairmap_init(&s->ns_index, true);
    kp_status st = profiles_new(s, cfg, o.scheduler_name, err);
    if (st != KP_OK) {
        kp_sched_free(s);
        return st;
    }
    if (!s->nom_pods || !s->nom_n || !s->nom_cap || !s->nom_of || !s->statuses || !s->has_status ||
        !s->feasible || !s->scores || !s->plug_scores || !s->ignored_nodes || !s->res_of_pod) {
        st = KP_ENOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < np; i++) s->nom_of[i] = -1, s->res_of_pod[i] = -1;
    if ((st = build_order(s)) != KP_OK) goto fail;

    /* ImageStateSummary.NumNodes: distinct nodes per image name */
    for (uint32_t i = 0; i < nn; i++) {
        const kp_node *n = &cl->nodes[i];
        for (uint32_t j = 0; j < n->n_images && !n->deleted; j++) {
            bool dup = false;
            for (uint32_t k = 0; k < j && !dup; k++) dup = n->images[k].name == n->images[j].name;
            if (!dup && (st = kp__pairmap_add(&s->image_nodes, n->images[j].name, 1)) != KP_OK)
                goto fail;
        }
    }
    for (uint32_t k = 0; k < s->n_prof; k++) {
        kp_sched_profile *pr = &s->prof[k];
        s->cfg = pr->cfg; /* kp__spread_defaults_init reads the profile being set up */
        s->def = NULL;
        st = kp__spread_defaults_init(s);
        pr->def = s->def;
        if (st != KP_OK) goto fail;
    }
    s->cur = UINT32_MAX;
    kp__sched_activate(s, 0);
    if ((st = kp__reasons_init(s)) != KP_OK) goto fail;
    for (uint32_t i = 0; i < cl->n_namespaces; i++)
        if ((st = kp__pairmap_add(&s->ns_index, cl->namespaces[i].name, (int64_t)i + 1)) != KP_OK)
            goto fail;
    for (uint32_t i = 0; i < np; i++) {
        if (cl->pods[i].node >= 0 && kp__pod_has_required_anti(&cl->pods[i])) s->n_anti_pods++;
        if (cl->pods[i].node >= 0 && (cl->pods[i].pod_affinity || cl->pods[i].pod_anti_affinity) &&
            (st = kp__sched_track_affinity_pod(s, i)) != KP_OK)
            goto fail;
    }

    /* nominator: pending pods carrying status.nominatedNodeName, in load order */
    for (uint32_t i = 0; i < np; i++) {
        kp_pod *p = &cl->pods[i];
        if (!p->nominated_node || p->node >= 0 || p->node_name || kp__pod_is_terminal(p)) continue;
        if (kp__sched_profile_of(s, p) < 0) continue; /* not in this scheduler's queue */
        long nd = kp_cluster_find_node(cl, kp__s(cl, p->nominated_node));
        if (nd >= 0 && (st = kp__sched_nominate(s, i, (int32_t)nd)) != KP_OK) goto fail;
    }
    *out = s;
    return KP_OK;
fail:
    kp_sched_free(s);
    return kp_error_set(err, st, "scheduler: out of memory");
}

static void explain_free(kp_explain *e) {
    if (!e) return;
    if (e->has_preempt) kp__preempt_result_fini(&e->preempt);
    kp__free(e->text.buf);
    kp__free(e->nodes);
    kp__free(e);
}

void kp_sched_free(kp_sched *s) {
    if (!s) return;
    if (s->nom_pods)
        for (uint32_t i = 0; i < s->n_nodes_seen; i++) kp__free(s->nom_pods[i]);
    kp__free(s->nom_pods);
    kp__free(s->nom_n);
    kp__free(s->nom_cap);
    kp__free(s->nom_of);
    kp__free(s->nom_scratch);
    kp__free(s->cleared_nom);
    kp__sched_nominator_free(s);
    kp__reasons_free(s);
    kp__free(s->order);
    kp__free(s->aff_pods);
    kp__preempt_cache_free(s->preempt_cache);
    kp__dra_sched_free(s);
    kp__memo_free(s);
    kp__podindex_fini(&s->ix);
    kp__sched_hot_free(s);
    kp__free(s->ix_count);
    for (uint32_t k = 0; s->prof && k < s->n_prof; k++) {
        s->def = s->prof[k].def;
        kp__spread_defaults_free(s);
    }
    kp__free(s->prof);
    kp__free(s->statuses);
    kp__free(s->has_status);
    kp__free(s->feasible);
    kp__free(s->scores);
    kp__free(s->plug_scores);
    kp__free(s->ignored_nodes);
    kp__free(s->res_of_pod);
    kp__pairmap_fini(&s->image_nodes);
    kp__pairmap_fini(&s->ns_index);
    for (uint32_t i = 0; i < s->n_res; i++) {
        kp__free(s->res[i].victims);
        kp__free(s->res[i].victim_nodes);
        kp__free(s->res[i].message);
    }
    kp__free(s->res);
    explain_free(s->explain);
    kp__free(s);
}

kp_status kp_sched_explain(kp_sched *s, kp_index pod, kp_error *err) {
    if (pod < 0 || (size_t)pod >= s->cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "explain: pod index %ld out of range", pod);
    explain_free(s->explain);
    s->explain = kp__calloc(1, sizeof *s->explain);
    if (!s->explain) return kp_error_set(err, KP_ENOMEM, "out of memory");
    s->explain->pod = (uint32_t)pod;
    s->explain->selected = -1;
    s->explain->prefilter_msg = s->explain->pre_enqueue_msg = KP_TEXT_NONE;
    s->explain->nodes = kp__calloc(s->cl->n_nodes + 1, sizeof *s->explain->nodes);
    if (!s->explain->nodes) return kp_error_set(err, KP_ENOMEM, "out of memory");
    s->explain->n_nodes = s->cl->n_nodes;
    return KP_OK;
}

/* ================================================================ queue and run */

/* Pending for one of the profiles (upstream's responsibleForPod): no nodeName, not terminal,
 * not being deleted. */
static bool is_pending(const kp_sched *s, const kp_pod *p) {
    return !p->node_name && p->node < 0 && !kp__pod_is_terminal(p) &&
           p->deletion_ts == KP_TIME_NONE && kp__sched_profile_of(s, p) >= 0;
}

typedef struct {
    int32_t prio;
    int64_t ts;
    uint32_t src, idx;
} qkey;

/* mirrors PrioritySort.Less (priority desc, then enqueue time); enqueue time is the
 * creationTimestamp, then load order */
static int queue_cmp(const void *a, const void *b) {
    const qkey *x = a, *y = b;
    if (x->prio != y->prio) return x->prio > y->prio ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The PreEnqueue plugins (runPreEnqueuePlugins): SchedulingGates, then DynamicResources. */
static kp_status pre_enqueue_rejects(kp_sched *s, const kp_pod *p, bool *rejected) {
    *rejected = !kp__pre_enqueue_gates(s, p);
    if (*rejected) return KP_OK;
    char *msg = NULL;
    kp_status st = kp__pre_enqueue_dra(s, p, &msg);
    *rejected = msg != NULL;
    kp__free(msg);
    return st;
}

kp_status kp_sched_schedule_one(kp_sched *s, kp_index pod, kp_error *err) {
    if (pod < 0 || (size_t)pod >= s->cl->n_pods)
        return kp_error_set(err, KP_EINVAL, "pod index %ld out of range", pod);
    kp_status sy = kp_sched_sync(s, err); /* the cluster may have changed since (mutate.c) */
    if (sy != KP_OK) return sy;
    kp__sched_use_profile(s, (uint32_t)pod);
    bool gated = false;
    if ((sy = pre_enqueue_rejects(s, &s->cl->pods[pod], &gated)) != KP_OK)
        return kp_error_set(err, sy, "out of memory");
    if (gated) {
        kp_status st = kp__sched_record_gated(s, (uint32_t)pod);
        return st == KP_OK ? KP_OK : kp_error_set(err, st, "out of memory");
    }
    bool changed = false;
    return kp__sched_attempt(s, (uint32_t)pod, &changed, err);
}

/* stop_when_settled, before pod's attempt: no pod from here on can preempt settle_pod (the queue
 * is in priority order and a victim's priority is below its preemptor's), and settle_after (if
 * any) was attempted. */
static bool settled_before(const kp_sched *s, uint32_t pod) {
    const kp_pod *pods = s->cl->pods;
    return s->settle_after_done && pods[pod].priority <= pods[s->settle_pod].priority;
}

/* stop_when_settled, after pod's attempt (results from n_res on are its): settle_pod is a victim
 * (of this attempt or an earlier one) and settle_after was attempted. */
static bool settled_after(kp_sched *s, uint32_t pod, size_t n_res) {
    if (s->settle_after == (int32_t)pod) s->settle_after_done = true;
    for (size_t i = n_res; i < s->n_res && !s->settle_victim; i++)
        for (size_t j = 0; j < s->res[i].pub.n_victims; j++)
            if (s->res[i].victims[j] == (kp_index)s->settle_pod) s->settle_victim = true;
    return s->settle_victim && s->settle_after_done;
}

bool kp_sched_run_stats(const kp_sched *s, size_t *attempted, size_t *queued) {
    if (attempted) *attempted = s->run_attempted;
    if (queued) *queued = s->run_queued;
    return s->stopped_early;
}

kp_status kp_sched_run(kp_sched *s, kp_error *err) {
    kp_status sy = kp_sched_sync(s, err);
    if (sy != KP_OK) return sy;
    kp_cluster *cl = s->cl;
    uint32_t *q = kp__malloc((cl->n_pods + 1) * sizeof *q), n = 0;
    qkey *keys = kp__malloc((cl->n_pods + 1) * sizeof *keys);
    if (!q || !keys) {
        kp__free(q);
        kp__free(keys);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    /* gated pods (PreEnqueue rejected them) fill the key array from its end: they are
     * reported after the run, in queue order, and never attempted */
    uint32_t n_gated = 0;
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (!is_pending(s, p)) continue;
        kp__sched_use_profile(s, i); /* PreEnqueue is the pod's profile's */
        bool gated = false;
        if ((sy = pre_enqueue_rejects(s, p, &gated)) != KP_OK) {
            kp__free(q);
            kp__free(keys);
            return kp_error_set(err, sy, "out of memory");
        }
        qkey *k = gated ? &keys[cl->n_pods - 1 - n_gated++] : &keys[n++];
        k->prio = p->priority;
        k->ts = p->creation_ts;
        k->src = p->src_index;
        k->idx = i;
    }
    qsort(keys, n, sizeof *keys, queue_cmp);
    for (uint32_t i = 0; i < n; i++) q[i] = keys[i].idx;
    qkey *gated = keys + cl->n_pods - n_gated;
    qsort(gated, n_gated, sizeof *gated, queue_cmp);
    kp_status st = KP_OK;
    uint32_t max_rounds = s->until_settled ? n + 2 : 1;
    s->stopped_early = s->settle_victim = false;
    s->settle_after_done = s->settle_after < 0;
    s->run_attempted = 0;
    s->run_queued = n;
    for (uint32_t round = 0; round < max_rounds; round++) {
        bool changed = false;
        for (uint32_t i = 0; i < n; i++) {
            if (cl->pods[q[i]].node >= 0) continue; /* bound in an earlier round */
            if (s->settle_pod >= 0 && settled_before(s, q[i])) {
                s->stopped_early = true; /* the rest (gated pods too) would change nothing */
                goto out;
            }
            bool ch = false;
            size_t n_res = s->n_res;
            if ((st = kp__sched_attempt(s, q[i], &ch, err)) != KP_OK) goto out;
            s->run_attempted++;
            changed |= ch;
            if (s->settle_pod >= 0 && i + 1 < n && settled_after(s, q[i], n_res)) {
                s->stopped_early = true;
                goto out;
            }
        }
        if (!changed) break;
    }
    for (uint32_t i = 0; i < n_gated; i++) {
        kp__sched_use_profile(s, gated[i].idx);
        if ((st = kp__sched_record_gated(s, gated[i].idx)) != KP_OK) {
            kp_error_set(err, st, "out of memory");
            goto out;
        }
    }
out:
    kp__free(q);
    kp__free(keys);
    return st;
}

/* ================================================================ results */

size_t kp_sched_result_count(const kp_sched *s) { return s->n_res; }

const kp_sched_pod_result *kp_sched_result(const kp_sched *s, size_t i) {
    return i < s->n_res ? &s->res[i].pub : NULL;
}


kp_status kp_sched_result_find_preemptor(const kp_sched *s, kp_index pod, size_t *result) {
    for (uint32_t i = 0; i < s->n_res; i++) {
        const kp_result_int *r = &s->res[i];
        for (size_t j = 0; j < r->pub.n_victims; j++) {
            if (r->victims[j] != pod) continue;
            *result = i;
            return KP_OK;
        }
    }
    return KP_ENOTFOUND;
}

/* ================================================================ a changing cluster */

/* kp_sched_sync (kprio/sched.h): catching up with the cluster's changes as upstream's informers
 * keep the cache and the queue in step (eventhandlers.go: deletePodFromCache and the
 * nominator's delete on a pod delete; addNodeToCache / updateNodeInCache on node events). A
 * deleted pod leaves the nominator (its node dropped it already); created pending pods and
 * cordoned or tainted nodes are caught up with in place (kp__sched_catch_up, mutate.c); a
 * created or deleted node or any other object added rebuilds every structure derived from the
 * cluster (node order, indexes, reasons, per-node caches) as a fresh scheduler with the same
 * profiles and options, and the running state moves across: the PRNG, the round-robin start of the
 * node search (nextStartNodeIndex), the virtual time and the results. */

/* A fresh scheduler with s's profiles and options (configuration order; every profile kept). */
static kp_status rebuild(kp_sched *s, kp_sched **out, kp_error *err) {
    kp_sched_config cfg = s->prof[0].cfg;
    kp_sched_config *more = NULL;
    if (s->n_prof > 1) {
        more = kp__malloc((s->n_prof - 1) * sizeof *more);
        if (!more) return kp_error_set(err, KP_ENOMEM, "scheduler: out of memory");
        for (uint32_t k = 1; k < s->n_prof; k++) more[k - 1] = s->prof[k].cfg;
    }
    cfg.more = more;
    cfg.n_more = s->n_prof - 1;
    kp_sched_options o;
    kp_sched_options_init(&o);
    o.until_settled = s->until_settled;
    o.protect_pod = s->protect_pod;
    char compat[16];
    if (s->compat != KP_COMPAT_NEWEST) {
        snprintf(compat, sizeof compat, "1.%u", (unsigned)s->compat);
        o.compat = compat;
    }
    kp_status st = kp_sched_new(s->cl, &cfg, &o, out, err);
    kp__free(more);
    return st;
}

/* Moves s's running state into n (the results, the PRNG, the node-search start, time). */
static kp_status carry_over(kp_sched *s, kp_sched *n) {
    n->prng = s->prng;
    n->ext_prng = s->ext_prng;
    n->now = s->now;
    n->no_memo = s->no_memo;
    n->memo_hits = s->memo_hits;
    n->n_rebuilds = s->n_rebuilds + 1;
    n->has_node_old = s->has_node_old; /* kp_sched_node_before's old object */
    n->node_old = s->node_old;
    n->node_old_idx = s->node_old_idx;
    n->has_pod_old = s->has_pod_old; /* kp_sched_pod_before's */
    n->pod_old_idx = s->pod_old_idx;
    n->pod_old_labels = s->pod_old_labels;
    memcpy(n->pod_old_req, s->pod_old_req, sizeof n->pod_old_req);
    memcpy(n->n_rejected_by, s->n_rejected_by, sizeof n->n_rejected_by); /* the results move */
    n->next_start = n->n_order ? s->next_start % n->n_order : 0;
    n->seen_changed = s->cl->n_changed_log;
    n->gen = s->cl->gen_struct;
    for (uint32_t i = 0; i < n->n_res; i++) { /* kp_sched_new made none; be safe */
        kp__free(n->res[i].victims);
        kp__free(n->res[i].victim_nodes);
        kp__free(n->res[i].message);
    }
    kp__free(n->res);
    n->res = s->res;
    n->n_res = s->n_res;
    n->cap_res = s->cap_res;
    s->res = NULL;
    s->n_res = s->cap_res = 0;
    for (uint32_t i = 0; i < s->n_pods_seen && i < n->n_pods_seen; i++)
        n->res_of_pod[i] = s->res_of_pod[i];
    return KP_OK;
}

kp_status kp_sched_sync(kp_sched *s, kp_error *err) {
    kp_cluster *cl = s->cl;
    /* deletions: deletePodFromCache has moved the pod off its node (kp_cluster_delete_pod);
     * the nominator forgets it */
    for (; s->seen_changed < cl->n_changed_log; s->seen_changed++) {
        uint32_t pod = cl->changed_log[s->seen_changed];
        if (pod >= s->n_pods_seen) continue; /* a pod the catch-up or rebuild below sees */
        const kp_pod *p = &cl->pods[pod];
        if (s->nom_of[pod] >= 0 && (p->deleted || kp__pod_is_terminal(p)))
            kp__sched_nominate(s, pod, -1);
        kp__sched_hot_update(s, pod); /* its node or deletionTimestamp changed */
    }
    if (s->gen == cl->gen_struct) return KP_OK;
    bool done = false;
    kp_status st = kp__sched_catch_up(s, &done);
    if (st != KP_OK) return kp_error_set(err, st, "scheduler: out of memory");
    if (done) return KP_OK;
    kp_sched *n = NULL;
    st = rebuild(s, &n, err);
    if (st != KP_OK) return st;
    carry_over(s, n);
    /* swap the contents: s keeps its address (callers hold it), the old state is freed */
    kp_sched tmp = *s;
    *s = *n;
    *n = tmp;
    kp_sched_free(n);
    return KP_OK;
}
