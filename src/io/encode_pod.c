/* Pods and pod templates back to v1 JSON (kp_cluster_encode_json): the fields decode_pod.c,
 * decode_pod_resize.c and decode_pod_gates.c keep, in the order the API server prints them
 * (PodSpec's, Container's, PodStatus' field order). What the model drops on load is not written:
 * ports without a hostPort, volumes no decision reads (secrets, projected tokens), conditions other
 * than DisruptionTarget, annotations other than kubernetes.io/config.*, ... (docs/api.md).
 * status.reason and status.message are kept (an eviction's, a kubelet rejection's). */
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "core/priority_class.h"
#include "io/encode_json.h"

static void owner_refs(kp__enc *e, const kp_pod *p) {
    if (!p->n_owners) return;
    kp__enc_arr(e, "ownerReferences");
    for (uint16_t i = 0; i < p->n_owners; i++) {
        const kp_owner_ref *o = &p->owners[i];
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "apiVersion", o->api_version);
        kp__enc_str(e, "kind", kp__s(e->cl, o->kind));
        kp__enc_str(e, "name", kp__s(e->cl, o->name));
        kp__enc_sid(e, "uid", o->uid);
        if (o->controller) kp__enc_bool(e, "controller", true);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void container(kp__enc *e, const kp_container *c) {
    kp__enc_obj(e, NULL);
    kp__enc_str(e, "name", kp__s(e->cl, c->name));
    kp__enc_sid(e, "image", c->image);
    if (c->n_ports) {
        kp__enc_arr(e, "ports");
        for (uint16_t i = 0; i < c->n_ports; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_int(e, "hostPort", c->ports[i].host_port);
            kp__enc_int(e, "containerPort", c->ports[i].container_port);
            kp__enc_sid(e, "protocol", c->ports[i].protocol);
            kp__enc_sid(e, "hostIP", c->ports[i].host_ip);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    if (c->req.n || c->lim.n) {
        kp__enc_obj(e, "resources");
        kp__enc_resv(e, "limits", &c->lim, false);
        kp__enc_resv(e, "requests", &c->req, false);
        kp__enc_end_obj(e);
    }
    if (c->is_sidecar) kp__enc_str(e, "restartPolicy", "Always");
    /* of a probe only its initialDelaySeconds is kept (the readiness model) */
    if (c->has_readiness_probe) {
        kp__enc_obj(e, "readinessProbe");
        kp__enc_int(e, "initialDelaySeconds", c->readiness_delay);
        kp__enc_end_obj(e);
    }
    if (c->has_startup_probe) {
        kp__enc_obj(e, "startupProbe");
        kp__enc_int(e, "initialDelaySeconds", c->startup_delay);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
}

static void volumes(kp__enc *e, const kp_pod *p) {
    static const char *const src_key[] = {NULL,
                                          "persistentVolumeClaim",
                                          "ephemeral",
                                          "gcePersistentDisk",
                                          "awsElasticBlockStore",
                                          "iscsi",
                                          "rbd",
                                          "azureDisk",
                                          "cinder",
                                          "portworxVolume",
                                          "azureFile"};
    /* KP_VS_MIGRATABLE: azureFile or vsphereVolume, one thing to the model (written as an empty
     * azureFile: no field of it is kept) */
    static const char *const id_key[] = {NULL,       "claimName", NULL,    "pdName",
                                         "volumeID", "iqn",       "image", "diskURI",
                                         "volumeID", "volumeID",  NULL};
    _Static_assert(sizeof src_key / sizeof *src_key == KP_VS_MIGRATABLE + 1 &&
                       sizeof id_key / sizeof *id_key == KP_VS_MIGRATABLE + 1,
                   "a volume source the encoder does not write");
    if (!p->n_volumes && !p->n_image_volumes) return;
    kp__enc_arr(e, "volumes");
    for (uint16_t i = 0; i < p->n_volumes; i++) {
        const kp_volume *v = &p->volumes[i];
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "name", kp__s(e->cl, v->name));
        if (v->is_empty_dir) {
            kp__enc_obj(e, "emptyDir");
            if (v->memory_medium) kp__enc_str(e, "medium", "Memory");
            else if (v->hugepages_medium) kp__enc_str(e, "medium", "HugePages");
            if (v->has_size_limit)
                kp__enc_quantity(e, "sizeLimit", -1, v->size_limit_text, v->size_limit);
            kp__enc_end_obj(e);
        } else if (v->source != KP_VS_OTHER && v->source < sizeof src_key / sizeof *src_key) {
            kp__enc_obj(e, src_key[v->source]);
            if (id_key[v->source]) {
                kp__enc_sid(e, id_key[v->source], v->source == KP_VS_PVC ? v->claim : v->disk);
                if (v->source == KP_VS_RBD) {
                    kp__enc_strs(e, "monitors", v->n_monitors, v->monitors);
                    kp__enc_sid(e, "pool", v->pool);
                }
                if (v->read_only) kp__enc_bool(e, "readOnly", true);
            }
            kp__enc_end_obj(e);
        } else if (v->is_local) {
            /* hostPath, gitRepo and configMap are one thing to the model (node-local storage) */
            kp__enc_obj(e, "configMap");
            kp__enc_str(e, "name", kp__s(e->cl, v->name));
            kp__enc_end_obj(e);
        }
        kp__enc_end_obj(e);
    }
    /* image volumes: only their references are kept (ImageLocality), not their names */
    for (uint16_t i = 0; i < p->n_image_volumes; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "name", "");
        kp__enc_obj(e, "image");
        kp__enc_sid(e, "reference", p->image_volumes[i]);
        kp__enc_end_obj(e);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void node_affinity(kp__enc *e, const kp_node_affinity *a) {
    kp__enc_obj(e, "nodeAffinity");
    if (a->has_required) {
        kp__enc_obj(e, "requiredDuringSchedulingIgnoredDuringExecution");
        kp__enc_arr(e, "nodeSelectorTerms");
        for (uint16_t i = 0; i < a->n_required; i++) kp__enc_nsterm(e, NULL, &a->required[i]);
        kp__enc_end_arr(e);
        kp__enc_end_obj(e);
    }
    if (a->n_preferred) {
        kp__enc_arr(e, "preferredDuringSchedulingIgnoredDuringExecution");
        for (uint16_t i = 0; i < a->n_preferred; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_int(e, "weight", a->preferred[i].weight);
            kp__enc_nsterm(e, "preference", &a->preferred[i].term);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
}

static void affinity_term(kp__enc *e, const char *key, const kp_pod_affinity_term *t) {
    kp__enc_obj(e, key);
    kp__enc_selector(e, "labelSelector", &t->selector);
    kp__enc_strs(e, "namespaces", t->n_namespaces, t->namespaces);
    kp__enc_sid(e, "topologyKey", t->topology_key);
    kp__enc_selector(e, "namespaceSelector", &t->ns_selector);
    kp__enc_strs(e, "matchLabelKeys", t->n_match_label_keys, t->match_label_keys);
    kp__enc_strs(e, "mismatchLabelKeys", t->n_mismatch_label_keys, t->mismatch_label_keys);
    kp__enc_end_obj(e);
}

static void pod_affinity(kp__enc *e, const char *key, const kp_pod_affinity *a) {
    kp__enc_obj(e, key);
    if (a->n_required) {
        kp__enc_arr(e, "requiredDuringSchedulingIgnoredDuringExecution");
        for (uint16_t i = 0; i < a->n_required; i++) affinity_term(e, NULL, &a->required[i]);
        kp__enc_end_arr(e);
    }
    if (a->n_preferred) {
        kp__enc_arr(e, "preferredDuringSchedulingIgnoredDuringExecution");
        for (uint16_t i = 0; i < a->n_preferred; i++) {
            kp__enc_obj(e, NULL);
            kp__enc_int(e, "weight", a->preferred[i].weight);
            affinity_term(e, "podAffinityTerm", &a->preferred[i].term);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_end_obj(e);
}

static void affinity(kp__enc *e, const kp_pod *p) {
    if (!p->node_affinity && !p->pod_affinity && !p->pod_anti_affinity) return;
    kp__enc_obj(e, "affinity");
    if (p->node_affinity) node_affinity(e, p->node_affinity);
    if (p->pod_affinity) pod_affinity(e, "podAffinity", p->pod_affinity);
    if (p->pod_anti_affinity) pod_affinity(e, "podAntiAffinity", p->pod_anti_affinity);
    kp__enc_end_obj(e);
}

static const char *effect_name(kp_effect x) {
    return x == KP_EFFECT_NOSCHEDULE         ? "NoSchedule"
           : x == KP_EFFECT_PREFERNOSCHEDULE ? "PreferNoSchedule"
           : x == KP_EFFECT_NOEXECUTE        ? "NoExecute"
                                             : "";
}

const char *kp__enc_effect(kp_effect x) { return effect_name(x); }

static void tolerations(kp__enc *e, const kp_pod *p) {
    if (!p->n_tolerations) return;
    kp__enc_arr(e, "tolerations");
    for (uint16_t i = 0; i < p->n_tolerations; i++) {
        const kp_toleration *t = &p->tolerations[i];
        kp__enc_obj(e, NULL);
        kp__enc_sid(e, "key", t->key);
        kp__enc_str(e, "operator", t->op == KP_TOL_EXISTS ? "Exists" : "Equal");
        kp__enc_sid(e, "value", t->value);
        if (t->effect != KP_EFFECT_NONE) kp__enc_str(e, "effect", effect_name(t->effect));
        if (t->has_seconds) kp__enc_int(e, "tolerationSeconds", t->seconds);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static void spread(kp__enc *e, const kp_pod *p) {
    if (!p->n_spread) return;
    kp__enc_arr(e, "topologySpreadConstraints");
    for (uint16_t i = 0; i < p->n_spread; i++) {
        const kp_spread *s = &p->spread[i];
        kp__enc_obj(e, NULL);
        kp__enc_int(e, "maxSkew", s->max_skew);
        kp__enc_sid(e, "topologyKey", s->topology_key);
        kp__enc_str(e, "whenUnsatisfiable",
                    s->when == KP_WHEN_SCHEDULEANYWAY ? "ScheduleAnyway" : "DoNotSchedule");
        kp__enc_selector(e, "labelSelector", &s->selector);
        if (s->has_min_domains) kp__enc_int(e, "minDomains", s->min_domains);
        if (s->has_node_affinity_policy)
            kp__enc_str(e, "nodeAffinityPolicy",
                        s->node_affinity_policy == KP_POLICY_IGNORE ? "Ignore" : "Honor");
        if (s->has_node_taints_policy)
            kp__enc_str(e, "nodeTaintsPolicy",
                        s->node_taints_policy == KP_POLICY_IGNORE ? "Ignore" : "Honor");
        kp__enc_strs(e, "matchLabelKeys", s->n_match_label_keys, s->match_label_keys);
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

/* spec.schedulingGates from the text the model keeps, "[a b]": gate names are qualified names
 * (validated on load), so they hold no blank. */
static void gates(kp__enc *e, const kp_pod *p) {
    if (!p->gates) return;
    const char *t = kp__s(e->cl, p->gates);
    size_t len = strlen(t);
    if (len < 2) return;
    kp__enc_arr(e, "schedulingGates");
    char name[512];
    for (size_t i = 1; i < len - 1;) {
        size_t j = i;
        while (j < len - 1 && t[j] != ' ') j++;
        size_t n = j - i < sizeof name - 1 ? j - i : sizeof name - 1; /* names are <= 317 */
        memcpy(name, t + i, n);
        name[n] = 0;
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "name", name);
        kp__enc_end_obj(e);
        i = j + 1;
    }
    kp__enc_end_arr(e);
}

static void spec(kp__enc *e, const kp_pod *p) {
    kp__enc_obj(e, "spec");
    volumes(e, p);
    uint32_t nc = p->n_containers, ni = p->n_init;
    if (ni) {
        kp__enc_arr(e, "initContainers");
        for (uint32_t i = nc; i < nc + ni; i++) container(e, &p->containers[i]);
        kp__enc_end_arr(e);
    }
    kp__enc_arr(e, "containers");
    for (uint32_t i = 0; i < nc; i++) container(e, &p->containers[i]);
    kp__enc_end_arr(e);
    if (p->has_termination_grace)
        kp__enc_int(e, "terminationGracePeriodSeconds", p->termination_grace);
    kp__enc_labels(e, "nodeSelector", &p->node_selector, false);
    kp__enc_sid(e, "nodeName", p->node_name);
    affinity(e, p);
    kp__enc_sid(e, "schedulerName", p->scheduler_name);
    tolerations(e, p);
    kp__enc_pod_claims(e, p); /* encode_dra.c */
    kp__enc_sid(e, "priorityClassName", p->priority_class);
    if (p->has_priority) kp__enc_int(e, "priority", p->priority);
    if (p->has_preemption_policy)
        kp__enc_str(e, "preemptionPolicy",
                    p->preemption_policy == KP_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority");
    kp__enc_resv(e, "overhead", &p->overhead, false);
    spread(e, p);
    if (p->os_name) {
        kp__enc_obj(e, "os");
        kp__enc_sid(e, "name", p->os_name);
        kp__enc_end_obj(e);
    }
    /* a bound pod has no gates upstream (the API server refuses to bind a gated pod); kprio's
     * scheduler binds one when SchedulingGates is disabled, and a pod created with both does not
     * load (ValidatePodCreate): the gates of a bound pod are left out */
    if (!p->node_name) gates(e, p);
    /* finalize clears has_pod_resources when PodLevelResources is off; the spec still has them */
    if (p->has_pod_resources || p->pod_level_gated_off || p->pod_req.n || p->pod_lim.n) {
        kp__enc_obj(e, "resources");
        kp__enc_resv(e, "limits", &p->pod_lim, false);
        kp__enc_resv(e, "requests", &p->pod_req, false);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
}

/* status.initContainerStatuses or containerStatuses: the resize fields of containers [from, to) */
static void container_statuses(kp__enc *e, const char *key, const kp_pod *p, uint32_t from,
                               uint32_t to) {
    const kp_pod_resize *rz = p->resize;
    bool any = false;
    for (uint32_t k = from; k < to && rz && rz->c; k++)
        any = any || rz->c[k].has_req || rz->c[k].has_alloc;
    if (!any) return;
    kp__enc_arr(e, key);
    for (uint32_t k = from; k < to; k++) {
        const kp_container_status *cs = &rz->c[k];
        if (!cs->has_req && !cs->has_alloc) continue;
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "name", kp__s(e->cl, p->containers[k].name));
        if (cs->has_alloc) kp__enc_resv(e, "allocatedResources", &cs->alloc, true);
        if (cs->has_req) {
            kp__enc_obj(e, "resources");
            kp__enc_resv(e, "requests", &cs->req, true);
            kp__enc_end_obj(e);
        }
        kp__enc_end_obj(e);
    }
    kp__enc_end_arr(e);
}

static const char *const phase_names[] = {"Unknown", "Pending", "Running", "Succeeded", "Failed"};

/* Ready and ContainersReady (kept equal: no readiness gates), when the pod's status has them:
 * the input's or the ones the simulated kubelet wrote. An ended pod's are False with reason
 * PodCompleted, as the kubelet writes them (generatePodReadyCondition). */
static void ready_conditions(kp__enc *e, const kp_pod *p) {
    static const char *const types[] = {"Ready", "ContainersReady"};
    bool ended = kp__pod_is_terminal(p);
    for (int i = 0; i < 2; i++) {
        kp__enc_obj(e, NULL);
        kp__enc_str(e, "type", types[i]);
        kp__enc_str(e, "status", p->ready && !ended ? "True" : "False");
        if (ended) kp__enc_str(e, "reason", "PodCompleted");
        else kp__enc_time(e, "lastTransitionTime", p->ready_ts);
        kp__enc_end_obj(e);
    }
}

static void status(kp__enc *e, const kp_pod *p) {
    const kp_pod_resize *rz = p->resize;
    kp__enc_obj(e, "status");
    if (p->phase != KP_PHASE_UNKNOWN && p->phase <= KP_PHASE_FAILED)
        kp__enc_str(e, "phase", phase_names[p->phase]);
    kp__enc_sid(e, "reason", p->status_reason);
    kp__enc_sid(e, "message", p->status_message);
    kp__enc_pod_claim_statuses(e, p); /* encode_dra.c */
    bool pending = rz && (rz->infeasible || rz->deferred);
    if (p->n_conditions || pending || p->has_ready_cond) {
        kp__enc_arr(e, "conditions");
        if (p->has_ready_cond) ready_conditions(e, p);
        for (uint16_t i = 0; i < p->n_conditions; i++) {
            const kp_condition *c = &p->conditions[i];
            kp__enc_obj(e, NULL);
            kp__enc_sid(e, "type", c->type);
            kp__enc_sid(e, "status", c->status);
            kp__enc_sid(e, "reason", c->reason);
            kp__enc_sid(e, "message", c->message);
            kp__enc_end_obj(e);
        }
        if (pending) {
            kp__enc_obj(e, NULL);
            kp__enc_str(e, "type", "PodResizePending");
            kp__enc_str(e, "status", "True");
            kp__enc_str(e, "reason", rz->infeasible ? "Infeasible" : "Deferred");
            kp__enc_sid(e, "message", rz->pending_message);
            kp__enc_end_obj(e);
        }
        kp__enc_end_arr(e);
    }
    kp__enc_sid(e, "nominatedNodeName", p->nominated_node);
    kp__enc_time(e, "startTime", p->start_time);
    container_statuses(e, "initContainerStatuses", p, p->n_containers,
                       (uint32_t)p->n_containers + p->n_init);
    container_statuses(e, "containerStatuses", p, 0, p->n_containers);
    kp__enc_sid(e, "qosClass", p->status_qos);
    if (rz && rz->has_alloc) kp__enc_resv(e, "allocatedResources", &rz->alloc, true);
    if (rz && rz->has_res) {
        kp__enc_obj(e, "resources");
        if (rz->has_req) kp__enc_resv(e, "requests", &rz->req, true);
        kp__enc_end_obj(e);
    }
    kp__enc_end_obj(e);
}

void kp__enc_pod(kp__enc *e, const kp_pod *p) {
    kp__enc_obj(e, NULL);
    kp__enc_head(e, "v1", "Pod", p->ns, p->name);
    kp__enc_sid(e, "uid", p->uid);
    kp__enc_time(e, "creationTimestamp", p->creation_ts);
    kp__enc_time(e, "deletionTimestamp", p->deletion_ts);
    kp__enc_labels(e, "labels", &p->labels, false);
    kp__enc_labels(e, "annotations", &p->annotations, false);
    owner_refs(e, p);
    kp__enc_end_obj(e); /* metadata */
    spec(e, p);
    status(e, p);
    kp__enc_end_obj(e);
}

void kp__enc_pod_template(kp__enc *e, const char *key, const kp_pod *p, const kp_label *extra) {
    kp__enc_obj(e, key);
    kp__enc_obj(e, "metadata");
    kp__enc_labels_plus(e, "labels", &p->labels, extra, false);
    kp__enc_labels(e, "annotations", &p->annotations, false);
    kp__enc_end_obj(e);
    spec(e, p);
    kp__enc_end_obj(e);
}

/* ---------------------------------------------------------------- a template's identity */

typedef struct {
    uint64_t h64;
    uint32_t h32;
} fp_ctx;

static kp_status fp_write(void *ctx, const char *buf, size_t len) {
    fp_ctx *f = ctx;
    for (size_t i = 0; i < len; i++) {
        f->h64 = (f->h64 ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
        f->h32 = (f->h32 ^ (unsigned char)buf[i]) * 16777619u;
    }
    return KP_OK;
}

kp_status kp__enc_template_fp(const kp_cluster *cl, const kp_pod *t, uint64_t *fp, uint32_t *h32) {
    kp_pod copy = *t;
    kp_label *items = NULL;
    kp_str key = kp__intern_find(&cl->strs, "pod-template-hash", 17);
    for (uint32_t i = 0; key != UINT32_MAX && i < t->labels.n; i++) {
        if (t->labels.items[i].key != key) continue;
        /* EqualIgnoreHash: the label the deployment controller adds is not the template's */
        if (t->labels.n > 1 && !(items = kp__malloc((t->labels.n - 1) * sizeof *items)))
            return KP_ENOMEM;
        uint32_t n = 0;
        for (uint32_t j = 0; j < t->labels.n; j++)
            if (j != i) items[n++] = t->labels.items[j];
        copy.labels.items = items;
        copy.labels.n = n;
        break;
    }
    fp_ctx f = {0xcbf29ce484222325ULL, 2166136261u};
    kp__enc e;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp__enc_init(&e, cl, false, fp_write, &f, &err);
    if (st == KP_OK) kp__enc_pod_template(&e, NULL, &copy, NULL);
    kp_status st2 = kp__enc_finish(&e);
    kp__free(items);
    if (st == KP_OK) st = st2;
    *fp = f.h64 ? f.h64 : 1; /* 0 is "no template" */
    *h32 = f.h32;
    return st;
}
