/* DRA objects back to resource.k8s.io/v1 JSON (kp_cluster_encode_json, --final-snapshot): the
 * fields decode_dra*.c keeps, so a snapshot written and read again gives the same model; a pod's
 * resourceClaims and resourceClaimStatuses. Opaque device configuration is counted, not kept,
 * and is not written. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/meta.h"
#include "io/encode_json.h"
#include "kprio/quantity.h"

static const char *effect(kp_effect x) {
    return x == KP_EFFECT_NOEXECUTE    ? "NoExecute"
           : x == KP_EFFECT_NOSCHEDULE ? "NoSchedule"
                                       : "None";
}

static void quantity(kp__enc *e, const char *key, const kp_quantity *q) {
    kp__enc_str(e, key, kp_quantity_string(q).s);
}

/* a qualified name as written: unqualified when its domain is the driver's */
static void qname(kp__enc *e, char *buf, size_t cap, kp_str driver, kp_str dom, kp_str name) {
    const kp_cluster *cl = e->cl;
    if (dom && dom != driver) snprintf(buf, cap, "%s/%s", kp__s(cl, dom), kp__s(cl, name));
    else snprintf(buf, cap, "%s", kp__s(cl, name));
}

static void selectors(kp__enc *e, uint16_t n, const kp_str *s) {
    if (!n) return;
    kp__enc_arr(e, "selectors");
    for (uint16_t i = 0; i < n; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_obj(e, "cel");
        kp__enc_sid(e, "expression", s[i]);
        kp__enc_end_obj(e);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void node_selection(kp__enc *e, const kp_dra_nodes *n) {
    kp__enc_sid(e, "nodeName", n->node_name);
    if (n->has_selector) {
        kp__enc_obj(e, "nodeSelector");
        kp__enc_arr(e, "nodeSelectorTerms");
        kp__enc_nsterm(e, NULL, &n->selector);
        kp__enc_end_arr(e);
        kp__enc_end_obj(e);
    }
    if (n->all_nodes) kp__enc_bool(e, "allNodes", true);
}

static void counter_sets(kp__enc *e, const char *key, const char *name_key, uint16_t n,
                         const kp_dra_counter_set *cs) {
    if (!n) return;
    kp__enc_arr(e, key);
    for (uint16_t i = 0; i < n; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, name_key, cs[i].name);
        kp__enc_obj(e, "counters");
        for (uint16_t k = 0; k < cs[i].n_counters; k++) {
            kp__enc_obj(e, kp__s(e->cl, cs[i].counters[k].name));
            quantity(e, "value", &cs[i].counters[k].value);
            kp__enc_end_obj(e);
        }
        kp__enc_end_obj(e);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void policy(kp__enc *e, const kp_dra_cap_policy *p) {
    kp__enc_obj(e, "requestPolicy");
    if (p->has_default) quantity(e, "default", &p->def);
    if (p->n_valid) {
        kp__enc_arr(e, "validValues");
        for (uint16_t i = 0; i < p->n_valid; i++)
            kp__enc_str(e, NULL, kp_quantity_string(&p->valid[i]).s);
        kp__enc_end_arr(e);
    }
    if (p->has_range) {
        kp__enc_obj(e, "validRange");
        quantity(e, "min", &p->min);
        if (p->has_max) quantity(e, "max", &p->max);
        if (p->has_step) quantity(e, "step", &p->step);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
}

static void device(kp__enc *e, kp_str driver, const kp_dra_device *d) {
    char k[320];
    kp__enc_obj(e, NULL);
    kp__enc_sid(e, "name", d->name);
    if (d->n_attrs) {
        kp__enc_obj(e, "attributes");
        for (uint16_t i = 0; i < d->n_attrs; i++) {
            const kp_dra_attr *a = &d->attrs[i];
            qname(e, k, sizeof k, driver, a->domain, a->name);
            kp__enc_obj(e, k);
            switch ((kp_dra_attr_type)a->type) {
            case KP_DRA_ATTR_INT: kp__enc_int(e, "int", a->i); break;
            case KP_DRA_ATTR_BOOL: kp__enc_bool(e, "bool", a->b); break;
            case KP_DRA_ATTR_STRING: kp__enc_str(e, "string", kp__s(e->cl, a->s)); break;
            case KP_DRA_ATTR_VERSION: kp__enc_str(e, "version", kp__s(e->cl, a->s)); break;
            }
            kp__enc_end_obj(e);
        }
        kp__enc_end_obj(e);
    }
    if (d->n_caps) {
        kp__enc_obj(e, "capacity");
        for (uint16_t i = 0; i < d->n_caps; i++) {
            qname(e, k, sizeof k, driver, d->caps[i].domain, d->caps[i].name);
            kp__enc_obj(e, k);
            quantity(e, "value", &d->caps[i].value);
            if (d->caps[i].policy) policy(e, d->caps[i].policy);
            kp__enc_end_obj(e);
        }
        kp__enc_end_obj(e);
    }
    counter_sets(e, "consumesCounters", "counterSet", d->n_consumes, d->consumes);
    if (d->has_nodes) node_selection(e, &d->nodes);
    if (d->n_taints) {
        kp__enc_arr(e, "taints");
        for (uint16_t i = 0; i < d->n_taints; i++) {
            const kp_dra_taint *t = &d->taints[i];
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "key", t->key);
            kp__enc_sid(e, "value", t->value);
            kp__enc_str(e, "effect", effect(t->effect));
            if (t->time_added) kp__enc_time(e, "timeAdded", t->time_added);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    if (d->allow_multiple) kp__enc_bool(e, "allowMultipleAllocations", true);
    if (d->binds_to_node) kp__enc_bool(e, "bindsToNode", true);
    kp__enc_strs(e, "bindingConditions", d->n_binding_conditions, d->binding_conditions);
    kp__enc_strs(e, "bindingFailureConditions", d->n_binding_failure_conditions,
                 d->binding_failure_conditions);
    kp__enc_end_obj(e);
}

static void slice_obj(kp__enc *e, const kp_dra_slice *s) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "resource.k8s.io/v1", "ResourceSlice", 0, s->name);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    kp__enc_sid(e, "driver", s->driver);
    kp__enc_obj(e, "pool");
    kp__enc_sid(e, "name", s->pool);
    kp__enc_int(e, "generation", s->generation);
    kp__enc_int(e, "resourceSliceCount", s->slice_count);
    kp__enc_end_obj(e);
    if (s->per_device_nodes) kp__enc_bool(e, "perDeviceNodeSelection", true);
    else node_selection(e, &s->nodes);
    if (s->n_devices) {
        kp__enc_arr(e, "devices");
        for (uint32_t i = 0; i < s->n_devices; i++) device(e, s->driver, &s->devices[i]);
        kp__enc_end_arr(e);
    }
    counter_sets(e, "sharedCounters", "name", s->n_counter_sets, s->counter_sets);
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
}

static void class_obj(kp__enc *e, const kp_dra_class *c) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "resource.k8s.io/v1", "DeviceClass", 0, c->name);
    if (c->creation_ts) kp__enc_time(e, "creationTimestamp", c->creation_ts);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    selectors(e, c->n_selectors, c->selectors);
    kp__enc_sid(e, "extendedResourceName", c->extended_resource);
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
}

static void exact(kp__enc *e, const kp_dra_exact *x, bool sub) {
    if (sub) kp__enc_sid(e, "name", x->name);
    kp__enc_sid(e, "deviceClassName", x->class_name);
    selectors(e, x->n_selectors, x->selectors);
    kp__enc_str(e, "allocationMode", x->mode == KP_DRA_MODE_ALL ? "All" : "ExactCount");
    if (x->mode == KP_DRA_MODE_EXACT) kp__enc_int(e, "count", x->count);
    if (x->admin_access) kp__enc_bool(e, "adminAccess", true);
    if (x->n_tolerations) {
        kp__enc_arr(e, "tolerations");
        for (uint16_t i = 0; i < x->n_tolerations; i++) {
            const kp_toleration *t = &x->tolerations[i];
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "key", t->key);
            kp__enc_str(e, "operator", t->op == KP_TOL_EXISTS ? "Exists" : "Equal");
            kp__enc_sid(e, "value", t->value);
            if (t->effect != KP_EFFECT_NONE) kp__enc_str(e, "effect", effect(t->effect));
            if (t->has_seconds) kp__enc_int(e, "tolerationSeconds", t->seconds);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    if (x->n_cap_requests) {
        char k[320];
        kp__enc_obj(e, "capacity");
        kp__enc_obj(e, "requests");
        for (uint16_t i = 0; i < x->n_cap_requests; i++) {
            qname(e, k, sizeof k, 0, x->cap_requests[i].domain, x->cap_requests[i].name);
            quantity(e, k, &x->cap_requests[i].value);
        }
        kp__enc_end_obj(e);
        kp__enc_end_obj(e);
    }
}

static void claim_spec(kp__enc *e, const char *key, const kp_dra_claim_spec *sp) {
    kp__enc_obj(e, key);
    kp__enc_obj(e, "devices");
    if (sp->n_requests) {
        kp__enc_arr(e, "requests");
        for (uint16_t i = 0; i < sp->n_requests; i++) {
            const kp_dra_request *r = &sp->requests[i];
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "name", r->name);
            if (r->first_available) {
                kp__enc_arr(e, "firstAvailable");
                for (uint16_t s = 0; s < r->n_subs; s++) {
                    kp__enc_obj(e, NULL);
                    exact(e, &r->subs[s], true);
                    kp__enc_end_obj(e);
                }
                kp__enc_end_arr(e);
            } else {
                kp__enc_obj(e, "exactly");
                exact(e, &r->exactly, false);
                kp__enc_end_obj(e);
            }
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    if (sp->n_constraints) {
        kp__enc_arr(e, "constraints");
        for (uint16_t i = 0; i < sp->n_constraints; i++) {
            const kp_dra_constraint *c = &sp->constraints[i];
            kp__enc_obj(e, NULL);
            kp__enc_strs(e, "requests", c->n_requests, c->requests);
            kp__enc_sid(e, "matchAttribute", c->match_attribute);
            kp__enc_sid(e, "distinctAttribute", c->distinct_attribute);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
}

/* status.devices (DRAResourceClaimDeviceStatus): the conditions drivers set */
static void device_status(kp__enc *e, const kp_dra_claim *c) {
    if (!c->n_device_status) return;
    kp__enc_arr(e, "devices");
    for (uint16_t i = 0; i < c->n_device_status; i++) {
        const kp_dra_device_status *d = &c->device_status[i];
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "driver", d->driver);
        kp__enc_sid(e, "pool", d->pool);
        kp__enc_sid(e, "device", d->device);
        kp__enc_sid(e, "shareID", d->share_id);
        if (d->n_conditions) kp__enc_arr(e, "conditions");
        for (uint16_t k = 0; k < d->n_conditions; k++) {
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "type", d->conditions[k].type);
            kp__enc_sid(e, "status", d->conditions[k].status);
            kp__enc_sid(e, "reason", d->conditions[k].reason);
            kp__enc_sid(e, "message", d->conditions[k].message);
            kp__enc_end_obj(e);
        }
        if (d->n_conditions) kp__enc_end_arr(e);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void claim_status(kp__enc *e, const kp_dra_claim *c) {
    if (!c->allocated && !c->n_reserved) return;
    kp__enc_obj(e, "status");
    if (c->allocated) {
        kp__enc_obj(e, "allocation");
        kp__enc_obj(e, "devices");
        kp__enc_arr(e, "results");
        for (uint16_t i = 0; i < c->n_results; i++) {
            const kp_dra_result *r = &c->results[i];
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "request", r->request);
            kp__enc_sid(e, "driver", r->driver);
            kp__enc_sid(e, "pool", r->pool);
            kp__enc_sid(e, "device", r->device);
            if (r->admin_access) kp__enc_bool(e, "adminAccess", true);
            kp__enc_sid(e, "shareID", r->share_id);
            kp__enc_strs(e, "bindingConditions", r->n_binding_conditions, r->binding_conditions);
            kp__enc_strs(e, "bindingFailureConditions", r->n_binding_failure_conditions,
                         r->binding_failure_conditions);
            if (r->n_consumed) {
                char k[320];
                kp__enc_obj(e, "consumedCapacity");
                for (uint16_t q = 0; q < r->n_consumed; q++) {
                    qname(e, k, sizeof k, r->driver, r->consumed[q].domain, r->consumed[q].name);
                    quantity(e, k, &r->consumed[q].value);
                }
                kp__enc_end_obj(e);
            }
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
        kp__enc_end_obj(e);
        if (c->alloc_has_nodes) {
            kp__enc_obj(e, "nodeSelector");
            kp__enc_arr(e, "nodeSelectorTerms");
            if (c->alloc_nodes.node_name) { /* a node-local allocation (createNodeSelector) */
                kp__enc_obj(e, NULL);
                kp__enc_arr(e, "matchFields");
                kp__enc_obj(e, NULL);
                kp__enc_str(e, "key", "metadata.name");
                kp__enc_str(e, "operator", "In");
                kp__enc_arr(e, "values");
                kp__enc_str(e, NULL, kp__s(e->cl, c->alloc_nodes.node_name));
                kp__enc_end_arr(e);
                kp__enc_end_obj(e);
                kp__enc_end_arr(e);
                kp__enc_end_obj(e);
            } else {
                kp__enc_nsterm(e, NULL, &c->alloc_nodes.selector);
            }
            kp__enc_end_arr(e);
            kp__enc_end_obj(e);
        }
        kp__enc_time(e, "allocationTimestamp", c->alloc_ts);
        kp__enc_end_obj(e);
    }
    if (c->n_reserved) {
        kp__enc_arr(e, "reservedFor");
        for (uint16_t i = 0; i < c->n_reserved; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "resource", c->reserved[i].resource);
            kp__enc_sid(e, "name", c->reserved[i].name);
            kp__enc_sid(e, "uid", c->reserved[i].uid);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    device_status(e, c);
    kp__enc_end_obj(e);
}

static void claim_obj(kp__enc *e, const kp_dra_claim *c) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "resource.k8s.io/v1", "ResourceClaim", c->ns, c->name);
    kp__enc_sid(e, "uid", c->uid);
    kp__enc_time(e, "creationTimestamp", c->creation_ts);
    kp__enc_time(e, "deletionTimestamp", c->deletion_ts);
    kp__enc_labels(e, "labels", &c->labels, false);
    kp_label extra[2];
    kp_labels ann = c->annotations;
    size_t n_extra = 0;
    kp_str k1 = kp__intern_find(&e->cl->strs, "resource.kubernetes.io/pod-claim-name", 37);
    if (c->pod_claim_name && k1 != UINT32_MAX) extra[n_extra++] = (kp_label){k1, c->pod_claim_name};
    /* the annotation of a claim for DRA-backed extended resources (decoded into c->extended) */
    kp_str k2 = kp__intern_find(&e->cl->strs, "resource.kubernetes.io/extended-resource-claim", 46);
    kp_str yes = kp__intern_find(&e->cl->strs, "true", 4);
    if (c->extended && !n_extra && k2 != UINT32_MAX && yes != UINT32_MAX)
        extra[n_extra++] = (kp_label){k2, yes}; /* (a claim has one or the other) */
    kp__enc_labels_plus(e, "annotations", &ann, n_extra ? &extra[0] : NULL, false);
    if (c->owner_name) {
        kp__enc_arr(e, "ownerReferences");
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "apiVersion", "v1");
        kp__enc_sid(e, "kind", c->owner_kind);
        kp__enc_sid(e, "name", c->owner_name);
        kp__enc_sid(e, "uid", c->owner_uid);
        kp__enc_bool(e, "controller", true);
        kp__enc_end_obj(e);
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
    claim_spec(e, "spec", &c->spec);
    claim_status(e, c);
    kp__enc_end_obj(e);
}

static void template_obj(kp__enc *e, const kp_dra_template *t) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "resource.k8s.io/v1", "ResourceClaimTemplate", t->ns, t->name);
    kp__enc_end_obj(e);
    kp__enc_obj(e, "spec");
    if (t->labels.n || t->annotations.n) {
        kp__enc_obj(e, "metadata");
        kp__enc_labels(e, "labels", &t->labels, false);
        kp__enc_labels(e, "annotations", &t->annotations, false);
        kp__enc_end_obj(e);
    }
    claim_spec(e, "spec", &t->spec);
    kp__enc_end_obj(e);
    kp__enc_end_obj(e);
}

void kp__enc_dra(kp__enc *e) {
    const kp_dra *d = &e->cl->dra;
    for (uint32_t i = 0; i < d->n_classes && e->j.st == KP_OK; i++)
        if (!d->classes[i].deleted) class_obj(e, &d->classes[i]);
    for (uint32_t i = 0; i < d->n_slices && e->j.st == KP_OK; i++)
        if (!d->slices[i].deleted) slice_obj(e, &d->slices[i]);
    for (uint32_t i = 0; i < d->n_templates && e->j.st == KP_OK; i++)
        if (!d->templates[i].deleted) template_obj(e, &d->templates[i]);
    for (uint32_t i = 0; i < d->n_claims && e->j.st == KP_OK; i++)
        if (!d->claims[i].deleted) claim_obj(e, &d->claims[i]);
}

void kp__enc_pod_claims(kp__enc *e, const kp_pod *p) {
    if (!p->n_claims) return;
    kp__enc_arr(e, "resourceClaims");
    for (uint16_t i = 0; i < p->n_claims; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "name", p->claims[i].name);
        kp__enc_sid(e, "resourceClaimName", p->claims[i].claim_name);
        kp__enc_sid(e, "resourceClaimTemplateName", p->claims[i].template_name);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

/* status.extendedResourceClaimStatus (DRAExtendedResource) */
static void pod_ext_status(kp__enc *e, const kp_pod *p) {
    const kp_pod_ext_claim *x = p->ext_claim;
    if (!x) return;
    kp__enc_obj(e, "extendedResourceClaimStatus");
    kp__enc_arr(e, "requestMappings");
    for (uint16_t i = 0; i < x->n_mappings; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "containerName", x->mappings[i].container);
        kp__enc_sid(e, "resourceName", x->mappings[i].resource);
        kp__enc_sid(e, "requestName", x->mappings[i].request);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
    kp__enc_sid(e, "resourceClaimName", x->claim);
    kp__enc_end_obj(e);
}

void kp__enc_pod_claim_statuses(kp__enc *e, const kp_pod *p) {
    pod_ext_status(e, p);
    bool any = false;
    for (uint16_t i = 0; i < p->n_claims; i++) any |= p->claims[i].has_status;
    if (!any) return;
    kp__enc_arr(e, "resourceClaimStatuses");
    for (uint16_t i = 0; i < p->n_claims; i++) {
        if (!p->claims[i].has_status) continue;
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "name", p->claims[i].name);
        kp__enc_sid(e, "resourceClaimName", p->claims[i].status_claim);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}
