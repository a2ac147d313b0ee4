/* DRA objects: storage in the cluster (identities, replace rule, rollback of a load into a
 * finalized cluster), the decoders of DeviceClass, ResourceSlice, ResourceClaim and
 * ResourceClaimTemplate (v1, v1beta2, v1beta1) and a pod's claims, and their errors. The error
 * rows come from upstream's validation tests, each naming its source. */
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "core/dra.h"
#include "core/pod.h"
#include "harness.h"
#include "kprio/cluster.h"
#include "kprio/encode.h"

static kp_cluster *load(const char *text, kp_error *err) {
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    if (kp_cluster_load_buffer(cl, "in.yaml", text, strlen(text), err) != KP_OK ||
        kp_cluster_finalize(cl, err) != KP_OK) {
        kp_cluster_free(cl);
        return NULL;
    }
    return cl;
}

static kp_str id(const kp_cluster *cl, const char *s) {
    kp_str i = kp__intern_find(&cl->strs, s, strlen(s));
    return i == UINT32_MAX ? 0 : i;
}

static const char SLICE[] = "apiVersion: resource.k8s.io/v1\n"
                            "kind: ResourceSlice\n"
                            "metadata: {name: s1}\n"
                            "spec:\n"
                            "  driver: gpu.example.com\n"
                            "  nodeName: n1\n"
                            "  pool: {name: n1, generation: 2, resourceSliceCount: 1}\n"
                            "  devices:\n"
                            "  - name: gpu-0\n"
                            "    attributes:\n"
                            "      model: {string: A100}\n"
                            "      other.example.com/index: {int: 7}\n"
                            "      ok: {bool: true}\n"
                            "      driverVersion: {version: 1.2.3-rc.1+build.5}\n"
                            "    capacity:\n"
                            "      memory: {value: 40Gi}\n";

KT_TEST(slice_v1_decoded) {
    kp_error err;
    kp_cluster *cl = load(SLICE, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    long i = kp__cluster_find_dra(cl, KP_DK_SLICE, 0, id(cl, "s1"));
    KT_CHECK_INT(i, 0);
    const kp_dra_slice *s = &cl->dra.slices[0];
    KT_CHECK_STR(kp__s(cl, s->driver), "gpu.example.com");
    KT_CHECK_STR(kp__s(cl, s->pool), "n1");
    KT_CHECK_INT(s->generation, 2);
    KT_CHECK_INT(s->slice_count, 1);
    KT_CHECK_STR(kp__s(cl, s->nodes.node_name), "n1");
    KT_CHECK_INT(s->n_devices, 1);
    const kp_dra_device *dv = &s->devices[0];
    KT_CHECK_INT(dv->n_attrs, 4);
    KT_CHECK_INT(dv->n_caps, 1);
    /* unqualified names take the driver's domain */
    int found = 0;
    for (uint16_t a = 0; a < dv->n_attrs; a++) {
        const kp_dra_attr *at = &dv->attrs[a];
        if (at->name == id(cl, "model")) {
            KT_CHECK_STR(kp__s(cl, at->domain), "gpu.example.com");
            KT_CHECK_INT(at->type, KP_DRA_ATTR_STRING);
            KT_CHECK_STR(kp__s(cl, at->s), "A100");
            found++;
        }
        if (at->name == id(cl, "index")) {
            KT_CHECK_STR(kp__s(cl, at->domain), "other.example.com");
            KT_CHECK_INT(at->i, 7);
            found++;
        }
        if (a) KT_CHECK(dv->attrs[a - 1].domain <= at->domain);
    }
    KT_CHECK_INT(found, 2);
    KT_CHECK_STR(kp__s(cl, dv->caps[0].domain), "gpu.example.com");
    KT_CHECK_INT(dv->caps[0].value.mant * 1, dv->caps[0].value.mant); /* parsed */
    kp_cluster_free(cl);
}

static const char CLAIM[] = "apiVersion: resource.k8s.io/v1\n"
                            "kind: ResourceClaim\n"
                            "metadata: {name: c1, namespace: ml, uid: u1}\n"
                            "spec:\n"
                            "  devices:\n"
                            "    requests:\n"
                            "    - name: gpu\n"
                            "      exactly: {deviceClassName: gpu.example.com}\n"
                            "    - name: alt\n"
                            "      firstAvailable:\n"
                            "      - {name: big, deviceClassName: big.example.com}\n"
                            "      - {name: two, deviceClassName: small.example.com, count: 2}\n"
                            "    - name: all\n"
                            "      exactly: {deviceClassName: nic.example.com, allocationMode: "
                            "All}\n"
                            "    constraints:\n"
                            "    - {requests: [gpu, alt/big], matchAttribute: "
                            "gpu.example.com/model}\n"
                            "status:\n"
                            "  allocation:\n"
                            "    devices:\n"
                            "      results:\n"
                            "      - {request: gpu, driver: gpu.example.com, pool: n1, device: "
                            "gpu-0}\n"
                            "      - {request: alt/big, driver: gpu.example.com, pool: n1, device: "
                            "gpu-1}\n"
                            "    nodeSelector:\n"
                            "      nodeSelectorTerms:\n"
                            "      - matchFields: [{key: metadata.name, operator: In, values: "
                            "[n1]}]\n"
                            "  reservedFor:\n"
                            "  - {resource: pods, name: p1, uid: pu1}\n";

KT_TEST(claim_v1_decoded_with_defaults) {
    kp_error err;
    kp_cluster *cl = load(CLAIM, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    long i = kp__cluster_find_dra(cl, KP_DK_CLAIM, id(cl, "ml"), id(cl, "c1"));
    KT_CHECK_INT(i, 0);
    KT_CHECK_INT(kp__cluster_find_dra(cl, KP_DK_CLAIM, id(cl, "default"), id(cl, "c1")), -1);
    KT_CHECK_INT(kp__cluster_find_object(cl, "ResourceClaim", id(cl, "ml"), id(cl, "c1")), 0);
    KT_CHECK_INT(kp_cluster_object_count(cl, "ResourceClaim"), 1);
    const kp_dra_claim *c = &cl->dra.claims[0];
    KT_CHECK_INT(c->spec.n_requests, 3);
    /* SetDefaults_ExactDeviceRequest: ExactCount, count 1 */
    KT_CHECK_INT(c->spec.requests[0].exactly.mode, KP_DRA_MODE_EXACT);
    KT_CHECK_INT(c->spec.requests[0].exactly.count, 1);
    KT_CHECK(c->spec.requests[1].first_available);
    KT_CHECK_INT(c->spec.requests[1].n_subs, 2);
    KT_CHECK_INT(c->spec.requests[1].subs[1].count, 2);
    KT_CHECK_STR(kp__s(cl, c->spec.requests[1].subs[0].name), "big");
    KT_CHECK_INT(c->spec.requests[2].exactly.mode, KP_DRA_MODE_ALL);
    KT_CHECK_INT(c->spec.requests[2].exactly.count, 0);
    KT_CHECK_INT(c->spec.n_constraints, 1);
    KT_CHECK_STR(kp__s(cl, c->spec.constraints[0].match_attribute), "gpu.example.com/model");
    KT_CHECK_INT(c->spec.constraints[0].n_requests, 2);
    KT_CHECK(c->allocated);
    KT_CHECK_INT(c->n_results, 2);
    KT_CHECK_STR(kp__s(cl, c->results[1].request), "alt/big");
    KT_CHECK(c->alloc_has_nodes);
    KT_CHECK_INT(c->n_reserved, 1);
    KT_CHECK_STR(kp__s(cl, c->reserved[0].name), "p1");
    kp_cluster_free(cl);
}

/* v1beta1 (flat requests) and v1beta2 (as v1) decode into the model v1 gives */
KT_TEST(older_versions_map_onto_the_model) {
    static const char beta1[] =
        "apiVersion: resource.k8s.io/v1beta1\n"
        "kind: ResourceClaimTemplate\n"
        "metadata: {name: t1, namespace: ml}\n"
        "spec:\n"
        "  spec:\n"
        "    devices:\n"
        "      requests:\n"
        "      - {name: gpu, deviceClassName: gpu.example.com, count: 3}\n"
        "      - name: alt\n"
        "        firstAvailable: [{name: a, deviceClassName: x.example.com}]\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1beta1\n"
        "kind: ResourceSlice\n"
        "metadata: {name: s1}\n"
        "spec:\n"
        "  driver: gpu.example.com\n"
        "  allNodes: true\n"
        "  pool: {name: p, generation: 0, resourceSliceCount: 1}\n"
        "  devices:\n"
        "  - name: d0\n"
        "    basic:\n"
        "      attributes: {model: {string: A100}}\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1beta2\n"
        "kind: ResourceClaimTemplate\n"
        "metadata: {name: t2, namespace: ml}\n"
        "spec:\n"
        "  spec:\n"
        "    devices:\n"
        "      requests:\n"
        "      - {name: gpu, exactly: {deviceClassName: gpu.example.com, count: 3}}\n";
    kp_error err;
    kp_cluster *cl = load(beta1, &err);
    KT_CHECK(cl != NULL);
    if (!cl) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    KT_CHECK_INT(cl->dra.n_templates, 2);
    for (int t = 0; t < 2; t++) {
        const kp_dra_request *r = &cl->dra.templates[t].spec.requests[0];
        KT_CHECK(!r->first_available);
        KT_CHECK_STR(kp__s(cl, r->exactly.class_name), "gpu.example.com");
        KT_CHECK_INT(r->exactly.count, 3);
    }
    KT_CHECK(cl->dra.templates[0].spec.requests[1].first_available);
    KT_CHECK(cl->dra.slices[0].nodes.all_nodes);
    KT_CHECK_INT(cl->dra.slices[0].devices[0].n_attrs, 1);
    kp_cluster_free(cl);
}

/* a later definition replaces an earlier one (with a warning); a load into a finalized cluster
 * that fails leaves no DRA object behind (kp__cluster_rollback) */
KT_TEST(replace_and_rollback) {
    kp_error err;
    char two[4096];
    snprintf(two, sizeof two, "%s---\n%s", SLICE, SLICE);
    kp_cluster *cl = load(two, &err);
    KT_CHECK(cl != NULL);
    if (!cl) return;
    KT_CHECK_INT(cl->dra.n_slices, 1);
    KT_CHECK(kp_cluster_warning_count(cl) >= 1);
    static const char more[] = "apiVersion: resource.k8s.io/v1\n"
                               "kind: DeviceClass\n"
                               "metadata: {name: c2}\n"
                               "---\n"
                               "apiVersion: resource.k8s.io/v1\n"
                               "kind: DeviceClass\n"
                               "metadata: {name: c3}\n"
                               "spec: {selectors: [{cel: {}}]}\n";
    KT_CHECK(kp_cluster_load_buffer(cl, "more.yaml", more, strlen(more), &err) != KP_OK);
    KT_CHECK_INT(cl->dra.n_classes, 0);
    KT_CHECK_INT(kp__cluster_find_dra(cl, KP_DK_CLASS, 0, id(cl, "c2")), -1);
    /* an identity that exists is refused after finalize */
    KT_CHECK(kp_cluster_load_buffer(cl, "again.yaml", SLICE, strlen(SLICE), &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "already exists");
    KT_CHECK_INT(cl->dra.n_slices, 1);
    kp_cluster_free(cl);
}

typedef struct {
    char *p;
    size_t n;
} sink;

static kp_status sink_write(void *ctx, const char *b, size_t n) {
    sink *s = ctx;
    char *q = realloc(s->p, s->n + n + 1);
    if (!q) return KP_ENOMEM;
    memcpy(q + s->n, b, n);
    s->n += n;
    q[s->n] = 0;
    s->p = q;
    return KP_OK;
}

static char *encode(const kp_cluster *cl) {
    sink s = {NULL, 0};
    kp_error err;
    if (kp_cluster_encode_json(cl, NULL, sink_write, &s, &err) != KP_OK) {
        free(s.p);
        return NULL;
    }
    return s.p;
}

/* decode -> encode -> decode gives the same model: the second encoding is the first, byte for
 * byte, and the DRA objects are all there (v1beta1 input comes back as v1) */
KT_TEST(round_trip) {
    static const char pod[] =
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata: {name: p1, namespace: ml, uid: pu1}\n"
        "spec:\n"
        "  containers: [{name: c, image: i, resources: {claims: [{name: "
        "gpu}]}}]\n"
        "  resourceClaims:\n"
        "  - {name: gpu, resourceClaimName: c1}\n"
        "  - {name: tmp, resourceClaimTemplateName: t1}\n"
        "status:\n"
        "  resourceClaimStatuses: [{name: tmp, resourceClaimName: p1-tmp-abcde}]\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\n"
        "kind: DeviceClass\n"
        "metadata: {name: gpu.example.com}\n"
        "spec:\n"
        "  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n"
        "  extendedResourceName: example.com/gpu\n"
        "---\n"
        "apiVersion: resource.k8s.io/v1\n"
        "kind: ResourceSlice\n"
        "metadata: {name: s2}\n"
        "spec:\n"
        "  driver: gpu.example.com\n"
        "  perDeviceNodeSelection: true\n"
        "  pool: {name: p/q, generation: 0, resourceSliceCount: 2}\n"
        "  devices:\n"
        "  - name: d0\n"
        "    nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: "
        "zone, operator: In, values: [a]}]}]}\n"
        "    allowMultipleAllocations: true\n"
        "    capacity:\n"
        "      mem: {value: 8Gi, requestPolicy: {default: 1Gi, validRange: "
        "{min: 1Gi, step: 1Gi}}}\n"
        "    taints: [{key: example.com/broken, effect: NoSchedule}]\n";
    char text[16384];
    snprintf(text, sizeof text, "%s---\n%s---\n%s", SLICE, CLAIM, pod);
    kp_error err;
    kp_cluster *a = load(text, &err);
    KT_CHECK(a != NULL);
    if (!a) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    char *e1 = encode(a);
    KT_CHECK(e1 != NULL);
    kp_cluster *b = e1 ? load(e1, &err) : NULL;
    KT_CHECK(b != NULL);
    if (!b) fprintf(stderr, "  %s\n", err.msg);
    char *e2 = b ? encode(b) : NULL;
    KT_CHECK(e2 != NULL && strcmp(e1, e2) == 0);
    if (b) {
        KT_CHECK_INT(b->dra.n_classes, 1);
        KT_CHECK_INT(b->dra.n_slices, 2);
        KT_CHECK_INT(b->dra.n_claims, 1);
        KT_CHECK_INT(b->dra.claims[0].n_reserved, 1);
        KT_CHECK_INT(b->dra.slices[1].devices[0].n_taints, 1);
        KT_CHECK(b->dra.slices[1].devices[0].caps[0].policy != NULL);
        const kp_pod *p = &b->pods[0];
        KT_CHECK_INT(p->n_claims, 2);
        KT_CHECK(p->claims[1].has_status);
        KT_CHECK_STR(kp__s(b, p->claims[1].status_claim), "p1-tmp-abcde");
        KT_CHECK_STR(kp__s(b, b->dra.classes[0].extended_resource), "example.com/gpu");
    }
    free(e1);
    free(e2);
    kp_cluster_free(a);
    kp_cluster_free(b);
}

/* rows of upstream's validation tests: the object (after a common head) and the error kprio
 * must give (file, object and field named, upstream's words) */
static const struct {
    const char *src, *text, *want;
} BAD[] = {
    /* validation_resourceclaim_test.go */
    {"resourceclaim bad-request-both",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "
     "devices:\n    requests:\n    - name: r\n      exactly: {deviceClassName: g}\n      "
     "firstAvailable: [{name: s, deviceClassName: g}]\n",
     "ResourceClaim default/c: spec.devices.requests[0]: Invalid value: null: exactly one "
     "of `exactly` or `firstAvailable` is required, but multiple fields are set"},
    {"resourceclaim missing-exactly",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "
     "devices:\n    requests: [{name: r}]\n",
     "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is "
     "required"},
    {"resourceclaim all-with-count",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "
     "devices:\n    requests: [{name: r, exactly: {deviceClassName: g, allocationMode: All, "
     "count: 2}}]\n",
     "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when "
     "allocationMode is 'All'"},
    {"resourceclaim negative-count",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "
     "devices:\n    requests: [{name: r, exactly: {deviceClassName: g, count: -1}}]\n",
     "exactly.count: Invalid value: -1: must be greater than zero"},
    {"resourceclaim bad-mode",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n"
     "    requests: [{name: r, exactly: {deviceClassName: g, allocationMode: Some}}]\n",
     "exactly.allocationMode: Unsupported value: \"Some\": supported values: \"All\", "
     "\"ExactCount\""},
    {"resourceclaim duplicate-request",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "
     "devices:\n    requests:\n    - {name: r, exactly: {deviceClassName: g}}\n    - {name: r, "
     "exactly: {deviceClassName: g}}\n",
     "spec.devices.requests[1]: Duplicate value: \"r\""},
    {"resourceclaim bad-constraint-ref",
     "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "
     "devices:\n    requests: [{name: r, exactly: {deviceClassName: g}}]\n    constraints: "
     "[{requests: [x], matchAttribute: a.example.com/m}]\n",
     "constraints[0].requests[0]: Invalid value: \"x\": must be the name of a request in the "
     "claim"},
    {"resourceclaim matchattribute-not-qualified",
     "kind: ResourceClaim\nmetadata: {name: "
     "c}\nspec:\n  devices:\n    requests: [{name: r, exactly: {deviceClassName: g}}]\n    "
     "constraints: [{matchAttribute: model}]\n",
     "matchAttribute: Invalid value: \"model\": a fully qualified name must be a domain and a "
     "name separated by a slash"},
    {"resourceclaim reserved-without-allocation",
     "kind: ResourceClaim\nmetadata: {name: "
     "c}\nspec: {}\nstatus:\n  reservedFor: [{resource: pods, name: p, uid: u}]\n",
     "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"},
    {"resourceclaim too-many-requests", NULL, "Too many: 33: must have at most 32 items"},
    /* validation_resourceslice_test.go */
    {"resourceslice no-node-selection",
     "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  "
     "driver: d.example.com\n  pool: {name: p, resourceSliceCount: 1}\n",
     "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
     "`perDeviceNodeSelection` is required"},
    {"resourceslice multiple-node-selection",
     "kind: ResourceSlice\nmetadata: {name: "
     "s}\nspec:\n  driver: d.example.com\n  nodeName: n\n  allNodes: true\n  pool: {name: p, "
     "resourceSliceCount: 1}\n",
     "spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, "
     "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are "
     "set"},
    {"resourceslice bad-slice-count",
     "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  "
     "driver: d.example.com\n  allNodes: true\n  pool: {name: p, resourceSliceCount: 0}\n",
     "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"},
    {"resourceslice attribute-two-values",
     "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
     "  driver: d.example.com\n  allNodes: true\n  pool: {name: p, resourceSliceCount: 1}\n  "
     "devices: [{name: d, attributes: {a: {int: 1, bool: true}}}]\n",
     "spec.devices[0].attributes.a: Invalid value: multiple values: exactly one value must be "
     "specified"},
    {"resourceslice version-not-semver",
     "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  "
     "driver: d.example.com\n  allNodes: true\n  pool: {name: p, resourceSliceCount: 1}\n  "
     "devices: [{name: d, attributes: {v: {version: 1.01.0}}}]\n",
     "attributes.v.version: Invalid value: \"1.01.0\": must be a string compatible with "
     "semver.org spec 2.0.0"},
    {"resourceslice bad-device-name",
     "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  "
     "driver: d.example.com\n  allNodes: true\n  pool: {name: p, resourceSliceCount: 1}\n  "
     "devices: [{name: Dev_0}]\n",
     "spec.devices[0].name: Invalid value: \"Dev_0\": a lowercase RFC 1123 label"},
    {"resourceslice bad-capacity",
     "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: "
     "d.example.com\n  allNodes: true\n  pool: {name: p, resourceSliceCount: 1}\n  devices: "
     "[{name: d, capacity: {mem: {value: 1x}}}]\n",
     "spec.devices[0].capacity.mem.value: invalid quantity \"1x\""},
    {"resourceslice per-device-without-flag",
     "kind: ResourceSlice\nmetadata: {name: "
     "s}\nspec:\n  driver: d.example.com\n  allNodes: true\n  pool: {name: p, "
     "resourceSliceCount: 1}\n  devices: [{name: d, nodeName: n}]\n",
     "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is "
     "set to true"},
    /* validation_deviceclass_test.go */
    {"deviceclass selector-without-cel",
     "kind: DeviceClass\nmetadata: {name: g}\nspec: "
     "{selectors: [{}]}\n",
     "DeviceClass g: spec.selectors[0].cel: Required value"},
    {"deviceclass bad-extended-resource",
     "kind: DeviceClass\nmetadata: {name: g}\nspec: "
     "{extendedResourceName: cpu}\n",
     "spec.extendedResourceName: Invalid value: \"cpu\": must be a valid extended resource "
     "name"},
    {"deviceclass config-without-opaque",
     "kind: DeviceClass\nmetadata: {name: g}\nspec: "
     "{config: [{}]}\n",
     "spec.config[0].opaque: Required value"},
    /* pkg/apis/core/validation/validation_test.go (TestValidatePodSpec, resourceClaims) */
    {"pod claim-without-source",
     "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec:\n  "
     "containers: [{name: c, image: i}]\n  resourceClaims: [{name: a}]\n",
     "spec.resourceClaims[0]: Invalid value: \"a\": must specify one of: `resourceClaimName`, "
     "`resourceClaimTemplateName`"},
    {"pod container-claim-not-found",
     "kind: Pod\napiVersion: v1\nmetadata: {name: "
     "p}\nspec:\n  containers: [{name: c, image: i, resources: {claims: [{name: x}]}}]\n",
     "spec.containers[0].resources.claims[0]: Not found: \"x\": must be one of the names in "
     "pod.spec.resourceClaims which is empty"},
};

KT_TEST(upstream_validation_rows) {
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char text[8192];
        if (BAD[i].text) {
            snprintf(text, sizeof text, "%s%s",
                     strncmp(BAD[i].text, "kind: Pod", 9) == 0 ? ""
                                                               : "apiVersion: resource.k8s.io/v1\n",
                     BAD[i].text);
        } else { /* 33 requests */
            size_t n = (size_t)snprintf(text, sizeof text,
                                        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                                        "metadata: {name: c}\nspec:\n  devices:\n    requests:\n");
            for (int r = 0; r < 33; r++)
                n += (size_t)snprintf(text + n, sizeof text - n,
                                      "    - {name: r%d, exactly: {deviceClassName: g}}\n", r);
        }
        kp_error err;
        kp_cluster *cl = load(text, &err);
        KT_CHECK(cl == NULL);
        if (cl) {
            fprintf(stderr, "  %s: loaded\n", BAD[i].src);
            kp_cluster_free(cl);
            continue;
        }
        if (!strstr(err.msg, BAD[i].want)) fprintf(stderr, "  %s: %s\n", BAD[i].src, err.msg);
        KT_CHECK_CONTAINS(err.msg, BAD[i].want);
    }
}

/* a --compat line that does not serve a version refuses it */
KT_TEST(versions_per_line) {
    static const char v1[] = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                             "metadata: {name: g}\n";
    kp_feature_gates g;
    kp_error err;
    KT_CHECK(kp_feature_gates_init_compat(&g, "1.33", &err) == KP_OK);
    kp_cluster *cl = kp_cluster_new();
    kp_cluster_set_feature_gates(cl, &g);
    KT_CHECK(kp_cluster_load_buffer(cl, "in.yaml", v1, strlen(v1), &err) != KP_OK);
    KT_CHECK_CONTAINS(err.msg, "apiVersion: unsupported apiVersion \"resource.k8s.io/v1\" for "
                               "kind DeviceClass: not served before v1.34");
    kp_cluster_free(cl);
    KT_CHECK(kp_feature_gates_init_compat(&g, "1.34", &err) == KP_OK);
    cl = kp_cluster_new();
    kp_cluster_set_feature_gates(cl, &g);
    KT_CHECK(kp_cluster_load_buffer(cl, "in.yaml", v1, strlen(v1), &err) == KP_OK);
    kp_cluster_free(cl);
}

KT_MAIN(KT_CASE(upstream_validation_rows), KT_CASE(versions_per_line), KT_CASE(round_trip),
        KT_CASE(slice_v1_decoded), KT_CASE(claim_v1_decoded_with_defaults),
        KT_CASE(older_versions_map_onto_the_model), KT_CASE(replace_and_rollback))
