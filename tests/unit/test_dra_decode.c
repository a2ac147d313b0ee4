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

KT_MAIN(KT_CASE(slice_v1_decoded), KT_CASE(claim_v1_decoded_with_defaults),
        KT_CASE(older_versions_map_onto_the_model), KT_CASE(replace_and_rollback))
