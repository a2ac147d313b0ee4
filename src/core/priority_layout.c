/* Priority-class layouts applied to a cluster (core/priority_layout.h): which assignment a pod
 * or a workload's pod template matches, the snapshot's classes replaced by the layout's, and a
 * matched pod's class set before finalize resolves its priority. The resolution itself is
 * finalize's (resolve_priority, the Priority admission plugin's): a layout only names the class
 * and clears what the admission plugin would compute again. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/pod.h"
#include "core/pod_state.h"
#include "core/priority_layout.h"
#include "core/workload.h"

kp_status kp_cluster_set_priority_layout(kp_cluster *cl, const struct kp_priority_layout *layout) {
    if (cl->finalized) return KP_EINVAL;
    cl->layout = layout;
    return KP_OK;
}

int32_t kp_cluster_priority_class_value(const kp_cluster *cl, kp_index pc) {
    return pc >= 0 && (size_t)pc < cl->n_classes ? cl->classes[pc].value : 0;
}

/* ---------------------------------------------------------------- matching */

static kp_workload_kind kind_of(const kp_cluster *cl, kp_str kind) {
    const char *k = kp__s(cl, kind);
    for (int i = KP_WL_RC; i < KP_WL_KINDS; i++)
        if (strcmp(k, kp__workload_kind_name((kp_workload_kind)i)) == 0) return (kp_workload_kind)i;
    return KP_WL_KINDS;
}

/* the pod's controller (its controller ownerReference, same namespace), -1 when none loaded */
static long controller_of(const kp_cluster *cl, const kp_pod *p) {
    for (uint16_t i = 0; i < p->n_owners; i++)
        if (p->owners[i].controller && p->owners[i].kind)
            return kp__cluster_find_workload(cl, kind_of(cl, p->owners[i].kind), p->ns,
                                             p->owners[i].name);
    return -1;
}

/* workload w or one of its controllers up the chain (as kp_cluster_workload_top walks it) is of
 * the assignment's kind and, when it names one, name */
static bool chain_matches(const kp_cluster *cl, long w, const kp_layout_assignment *a) {
    for (int hop = 0; w >= 0 && hop < 8; hop++) { /* the bound stops a cycle of references */
        const kp_workload *x = &cl->workloads[w];
        if (!x->deleted && strcmp(kp__workload_kind_name(x->kind), a->wl_kind) == 0 &&
            (!a->wl_name || strcmp(kp__s(cl, x->name), a->wl_name) == 0))
            return true;
        if (!x->owner_kind || !x->owner_name) break;
        long up = kp__cluster_find_workload(cl, kind_of(cl, x->owner_kind), x->ns, x->owner_name);
        if (up == w) break;
        w = up;
    }
    return false;
}

/* the first assignment whose every criterion holds for (namespace, controller w, labels) */
static long first_match(const kp_cluster *cl, const kp_priority_layout *layout, kp_str ns, long w,
                        const kp_labels *labels) {
    for (size_t i = 0; i < layout->n_assignments; i++) {
        const kp_layout_assignment *a = &layout->assignments[i];
        if (a->ns && strcmp(kp__s(cl, ns), a->ns) != 0) continue;
        if (a->wl_kind && !chain_matches(cl, w, a)) continue;
        if (a->n_reqs && !kp__cluster_labels_match(cl, labels, a->reqs, a->n_reqs)) continue;
        return (long)i;
    }
    return -1;
}

long kp__layout_match_pod(const kp_cluster *cl, const kp_priority_layout *layout, const kp_pod *p) {
    return first_match(cl, layout, p->ns, controller_of(cl, p), &p->labels);
}

long kp_priority_layout_match_pod(const kp_priority_layout *layout, const kp_cluster *cl,
                                  kp_index pod) {
    if (!layout || pod < 0 || (size_t)pod >= cl->n_pods) return -1;
    return kp__layout_match_pod(cl, layout, &cl->pods[pod]);
}

/* ---------------------------------------------------------------- applying */

static bool in_layout(const kp_cluster *cl, const kp_priority_layout *layout, kp_str name) {
    const char *n = kp__s(cl, name);
    for (size_t i = 0; i < layout->n_classes; i++)
        if (strcmp(layout->classes[i].name, n) == 0) return true;
    return false;
}

/* The class of a pod (or template) as the layout makes it: a matched one gets the assignment's
 * class (interned when the layout's classes were created). Then a pod of a class the layout
 * creates, or one just assigned (a system- class), is one the admission plugin resolves anew:
 * spec.priority and spec.preemptionPolicy are cleared for finalize's resolve_priority. */
static void assign(kp_cluster *cl, kp_pod *p, long a) {
    const kp_priority_layout *layout = cl->layout;
    if (a >= 0) {
        const char *name = layout->assignments[a].class_name;
        kp_str id = kp__intern_find(&cl->strs, name, strlen(name));
        if (id != UINT32_MAX) p->priority_class = id; /* (interned by kp__layout_apply_classes) */
    }
    if (a < 0 && !(p->priority_class && in_layout(cl, layout, p->priority_class))) return;
    p->has_priority = p->has_spec_priority = p->has_preemption_policy = false;
    p->class_missing = false;
    p->priority = 0;
}

void kp__layout_apply_pod(kp_cluster *cl, kp_pod *p) {
    if (!cl->layout || p->is_static) return;
    assign(cl, p, kp__layout_match_pod(cl, cl->layout, p));
}

static void apply_template(kp_cluster *cl, uint32_t w) {
    kp_workload *x = &cl->workloads[w];
    kp_pod *t[2] = {x->template, x->cur_template};
    for (int k = 0; k < 2; k++)
        if (t[k]) assign(cl, t[k], first_match(cl, cl->layout, x->ns, (long)w, &t[k]->labels));
}

void kp__layout_apply_templates(kp_cluster *cl, uint32_t from) {
    if (!cl->layout) return;
    for (uint32_t w = from; w < cl->n_workloads; w++)
        if (!cl->workloads[w].deleted) apply_template(cl, w);
}

static bool is_static(const kp_cluster *cl, const kp_pod *p) {
    static const char key[] = "kubernetes.io/config.source";
    kp_str k = kp__intern_find(&cl->strs, key, sizeof key - 1), v;
    return k != UINT32_MAX && kp__labels_get(&p->annotations, k, &v) &&
           strcmp(kp__s(cl, v), "api") != 0;
}

/* A pod or template no assignment matches keeps its class: one the layout deleted leaves it
 * without one (a template's controller could not create pods), so that is an error. */
static bool class_gone(const kp_cluster *cl, kp_str name) {
    if (!name) return false;
    for (uint32_t i = 0; i < cl->n_classes; i++)
        if (cl->classes[i].name == name && !cl->classes[i].deleted) return false;
    return true;
}

static kp_status gone_error(const kp_cluster *cl, const char *what, kp_str ns, kp_str name,
                            const char *field, kp_str cls, kp_error *err) {
    const kp_priority_layout *layout = cl->layout;
    kp_status st = kp_error_set(err, KP_EINVAL,
                                "%s %s/%s: %s: PriorityClass %s is not in the layout, and no "
                                "assignment matches the %s (add the class or an assignment)",
                                what, kp__s(cl, ns), kp__s(cl, name), field, kp__s(cl, cls),
                                strcmp(what, "Pod") == 0 ? "pod" : "workload");
    if (err) snprintf(err->source, sizeof err->source, "%s", layout->source);
    return st;
}

/* the workloads whose template makes pods (an old ReplicaSet scaled to 0, a finished Job: none) */
static bool makes_pods(const kp_workload *w) {
    if (w->deleted || !w->template) return false;
    if (w->kind == KP_WL_RS || w->kind == KP_WL_RC) return w->replicas > 0;
    if (w->kind == KP_WL_JOB) return !w->job.finished;
    return true;
}

static kp_status check_kept_classes(kp_cluster *cl, kp_error *err) {
    for (uint32_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (p->deleted || kp__pod_is_terminal(p) || is_static(cl, p) ||
            kp__layout_match_pod(cl, cl->layout, p) >= 0 || !class_gone(cl, p->priority_class))
            continue;
        return gone_error(cl, "Pod", p->ns, p->name, "spec.priorityClassName", p->priority_class,
                          err);
    }
    for (uint32_t w = 0; w < cl->n_workloads; w++) {
        const kp_workload *x = &cl->workloads[w];
        if (!makes_pods(x) ||
            first_match(cl, cl->layout, x->ns, (long)w, &x->template->labels) >= 0 ||
            !class_gone(cl, x->template->priority_class))
            continue;
        return gone_error(cl, kp__workload_kind_name(x->kind), x->ns, x->name,
                          "spec.template.spec.priorityClassName", x->template->priority_class, err);
    }
    return KP_OK;
}

static kp_status nomem(kp_error *err) {
    return kp_error_set(err, KP_ENOMEM, "priority layout: out of memory");
}

kp_status kp__layout_apply_classes(kp_cluster *cl, kp_error *err) {
    const kp_priority_layout *layout = cl->layout;
    if (!layout) return KP_OK;
    for (uint32_t i = 0; i < cl->n_classes; i++) {
        kp_priority_class *pc = &cl->classes[i];
        if (pc->builtin || pc->deleted) continue;
        pc->deleted = true; /* as kp_cluster_delete_priority_class: not found, name free */
        kp__cluster_forget_identity(cl, "PriorityClass", 0, pc->name);
    }
    for (size_t i = 0; i < layout->n_classes; i++) {
        const kp_layout_class *lc = &layout->classes[i];
        kp_str name = kp__intern(&cl->strs, lc->name, strlen(lc->name));
        kp_str desc = kp__intern(&cl->strs, lc->description, strlen(lc->description));
        kp_priority_class *pc =
            name != UINT32_MAX && desc != UINT32_MAX ? kp__cluster_new_class(cl, name) : NULL;
        if (!pc) return nomem(err);
        pc->value = lc->value;
        pc->global_default = lc->global_default;
        pc->has_preemption_policy = lc->has_preemption_policy;
        pc->preemption_policy = lc->preempt_never ? KP_PREEMPT_NEVER : KP_PREEMPT_LOWER;
        pc->description = desc;
        pc->origin = (kp_origin){layout->source, lc->object};
    }
    /* the assignments' system- classes, so that assign() finds every class name interned */
    for (size_t i = 0; i < layout->n_assignments; i++) {
        const char *n = layout->assignments[i].class_name;
        if (kp__intern(&cl->strs, n, strlen(n)) == UINT32_MAX) return nomem(err);
    }
    kp_status st = check_kept_classes(cl, err);
    if (st == KP_OK) kp__layout_apply_templates(cl, 0);
    return st;
}
