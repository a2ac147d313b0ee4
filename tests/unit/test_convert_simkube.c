/* kp_convert_simkube (src/io/convert_simkube.c, simkube_scan.c): SimKube traces packed here
 * with msgpack-c's own packer in the shapes sk-core's Trace takes (rmp_serde's named form, and
 * the positional form it also reads), converted, and the trace directory's files checked. */
#include <math.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kprio/convert.h"

#define T0 1767225600 /* 2026-01-01T00:00:00Z */

static char path[64];

static void s(msgpack_packer *pk, const char *v) {
    msgpack_pack_str(pk, strlen(v));
    msgpack_pack_str_body(pk, v, strlen(v));
}

/* a Deployment (namespace shop) with its replicas and its container's cpu request */
static void deployment(msgpack_packer *pk, const char *name, int replicas, const char *cpu) {
    msgpack_pack_map(pk, 4);
    s(pk, "apiVersion"), s(pk, "apps/v1"), s(pk, "kind"), s(pk, "Deployment");
    s(pk, "metadata"), msgpack_pack_map(pk, 2), s(pk, "name"), s(pk, name), s(pk, "namespace"),
        s(pk, "shop");
    s(pk, "spec"), msgpack_pack_map(pk, 3), s(pk, "replicas"), msgpack_pack_int(pk, replicas);
    s(pk, "selector"), msgpack_pack_map(pk, 1), s(pk, "matchLabels"), msgpack_pack_map(pk, 1),
        s(pk, "app"), s(pk, name);
    s(pk, "template"), msgpack_pack_map(pk, 2), s(pk, "metadata"), msgpack_pack_map(pk, 1),
        s(pk, "labels"), msgpack_pack_map(pk, 1), s(pk, "app"), s(pk, name);
    s(pk, "spec"), msgpack_pack_map(pk, 1), s(pk, "containers"), msgpack_pack_array(pk, 1),
        msgpack_pack_map(pk, 3), s(pk, "name"), s(pk, "c"), s(pk, "image"), s(pk, "i"),
        s(pk, "resources"), msgpack_pack_map(pk, 1), s(pk, "requests"), msgpack_pack_map(pk, 1),
        s(pk, "cpu"), s(pk, cpu);
}

static void bare_pod(msgpack_packer *pk, const char *name) {
    msgpack_pack_map(pk, 4);
    s(pk, "apiVersion"), s(pk, "v1"), s(pk, "kind"), s(pk, "Pod");
    s(pk, "metadata"), msgpack_pack_map(pk, 2), s(pk, "name"), s(pk, name), s(pk, "namespace"),
        s(pk, "batch");
    s(pk, "spec"), msgpack_pack_map(pk, 1), s(pk, "containers"), msgpack_pack_array(pk, 1),
        msgpack_pack_map(pk, 2), s(pk, "name"), s(pk, "c"), s(pk, "image"), s(pk, "i");
}

/* The start of a trace in the named form: version, config, then "events" and n events. */
static void begin(msgpack_packer *pk, int version, uint32_t n_events) {
    msgpack_pack_map(pk, 5);
    s(pk, "version"), msgpack_pack_int(pk, version);
    s(pk, "config"), msgpack_pack_map(pk, 1), s(pk, "trackedObjects"), msgpack_pack_map(pk, 1),
        s(pk, "apps/v1.Deployment"), msgpack_pack_map(pk, 0);
    s(pk, "index"), msgpack_pack_map(pk, 0);
    s(pk, "events"), msgpack_pack_array(pk, n_events);
}

static void event(msgpack_packer *pk, int64_t ts, uint32_t n_applied) {
    msgpack_pack_map(pk, 3);
    s(pk, "ts"), msgpack_pack_int64(pk, ts);
    s(pk, "deleted_objs"), msgpack_pack_array(pk, 0);
    s(pk, "applied_objs"), msgpack_pack_array(pk, n_applied);
}

/* Writes sb to the test's file and converts it: the status, *out (NULL on error), err. */
static kp_status convert(msgpack_sbuffer *sb, kp_converted **out, kp_error *err) {
    if (!path[0]) snprintf(path, sizeof path, "/tmp/kprio-test-simkube.%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (sb->size) fwrite(sb->data, 1, sb->size, f);
    fclose(f);
    kp_error_clear(err);
    kp_status st = kp_convert_simkube(path, out, err);
    unlink(path);
    msgpack_sbuffer_destroy(sb);
    return st;
}

static const char *file(const kp_converted *c, const char *want, size_t *len) {
    const char *name, *text;
    for (size_t i = 0; (text = kp_converted_file(c, i, &name, len)); i++)
        if (strcmp(name, want) == 0) return text;
    return NULL;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* The snapshot is the state at the start: a change later in the trace is a watch event, not
 * the snapshot's (a converter keeping the last state would start the replay from the end). */
KT_TEST(snapshot_is_the_start_state) {
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    begin(&pk, 2, 3);
    event(&pk, T0, 2), deployment(&pk, "web", 2, "500m"), deployment(&pk, "gone", 1, "1");
    /* deleted at the start: not in the snapshot */
    msgpack_pack_map(&pk, 3), s(&pk, "ts"), msgpack_pack_int64(&pk, T0), s(&pk, "applied_objs"),
        msgpack_pack_array(&pk, 0), s(&pk, "deleted_objs"), msgpack_pack_array(&pk, 1),
        deployment(&pk, "gone", 1, "1");
    event(&pk, T0 + 60, 1), deployment(&pk, "web", 5, "500m");
    s(&pk, "pod_lifecycles"), msgpack_pack_map(&pk, 0);
    kp_converted *c = NULL;
    kp_error err;
    KT_CHECK_INT(convert(&sb, &c, &err), KP_OK);
    if (!c) return;
    size_t n;
    const char *snap = file(c, "snapshot/cluster.json", &n), *w = file(c, "watch/simkube.json", &n);
    KT_CHECK_CONTAINS(snap, "\"replicas\":2");
    KT_CHECK(!strstr(snap, "\"replicas\":5"));
    KT_CHECK(!strstr(snap, "\"gone\""));
    KT_CHECK_INT(count(w, "\"type\":\"ADDED\""), 2);
    KT_CHECK_INT(count(w, "\"type\":\"DELETED\""), 1);
    KT_CHECK_CONTAINS(w, "{\"recorded\":\"2026-01-01T00:01:00Z\",\"type\":\"MODIFIED\"");
    KT_CHECK_CONTAINS(file(c, "manifest.json", &n), "\"end\":\"2026-01-01T00:01:00Z\"");
    kp_converted_stats st;
    kp_converted_stats_get(c, &st);
    KT_CHECK_INT(st.objects, 1);
    KT_CHECK_INT(st.events, 4);
    kp_converted_free(c);
}

/* rmp_serde reads a struct from an array of its fields in order too: [version, config,
 * events, index, pod_lifecycles] and [ts, applied_objs, deleted_objs]. A bare pod's Finished
 * lifecycle is its deletion at the end; a lifecycle ending after the trace is not. */
KT_TEST(positional_form_and_lifecycles) {
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_array(&pk, 5);
    msgpack_pack_int(&pk, 2);
    msgpack_pack_nil(&pk); /* config */
    msgpack_pack_array(&pk, 2);
    msgpack_pack_array(&pk, 3), msgpack_pack_int64(&pk, T0), msgpack_pack_array(&pk, 2);
    bare_pod(&pk, "short"), bare_pod(&pk, "long");
    msgpack_pack_array(&pk, 0);
    msgpack_pack_array(&pk, 3), msgpack_pack_int64(&pk, T0 + 100), msgpack_pack_array(&pk, 0),
        msgpack_pack_array(&pk, 0);
    msgpack_pack_map(&pk, 0); /* index */
    msgpack_pack_map(&pk, 2);
    msgpack_pack_array(&pk, 2), s(&pk, "v1.Pod"), s(&pk, "batch/short");
    msgpack_pack_map(&pk, 1), msgpack_pack_uint64(&pk, 18000000000000000000ULL),
        msgpack_pack_array(&pk, 2), s(&pk, "Empty"), msgpack_pack_map(&pk, 1), s(&pk, "Finished"),
        msgpack_pack_array(&pk, 2), msgpack_pack_int64(&pk, T0 + 1),
        msgpack_pack_int64(&pk, T0 + 30);
    msgpack_pack_array(&pk, 2), s(&pk, "v1.Pod"), s(&pk, "batch/long");
    msgpack_pack_map(&pk, 1), msgpack_pack_int(&pk, 7), msgpack_pack_array(&pk, 1),
        msgpack_pack_map(&pk, 1), s(&pk, "Finished"), msgpack_pack_array(&pk, 2),
        msgpack_pack_int64(&pk, T0 + 1), msgpack_pack_int64(&pk, T0 + 500);
    kp_converted *c = NULL;
    kp_error err;
    KT_CHECK_INT(convert(&sb, &c, &err), KP_OK);
    if (!c) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    size_t n;
    const char *w = file(c, "watch/simkube.json", &n);
    KT_CHECK_CONTAINS(w,
                      "{\"recorded\":\"2026-01-01T00:00:30Z\",\"type\":\"DELETED\",\"object\":"
                      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"short\"");
    KT_CHECK_INT(count(w, "DELETED"), 1);
    kp_converted_free(c);
}

/* One failing trace per case: the message names the place. */
static void fails_with(void (*pack)(msgpack_packer *), const char *want) {
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    pack(&pk);
    kp_converted *c = NULL;
    kp_error err;
    KT_CHECK(convert(&sb, &c, &err) != KP_OK);
    KT_CHECK(c == NULL);
    KT_CHECK_CONTAINS(err.msg, want);
    KT_CHECK(strchr(err.msg, '\n') == NULL);
    KT_CHECK_STR(err.source, path);
}

static void version_3(msgpack_packer *pk) {
    begin(pk, 3, 0);
    s(pk, "pod_lifecycles"), msgpack_pack_nil(pk);
}
static void no_events(msgpack_packer *pk) {
    begin(pk, 2, 0);
    s(pk, "pod_lifecycles"), msgpack_pack_nil(pk);
}
/* nesting: 31 containers deep is read, 32 is over the limit (msgpack-c's 32 levels) */
static void nested(msgpack_packer *pk, int depth) {
    for (int i = 0; i < depth; i++) msgpack_pack_array(pk, 1);
    msgpack_pack_int(pk, 1);
}
static void depth_32(msgpack_packer *pk) { nested(pk, 32); }
static void depth_31(msgpack_packer *pk) { nested(pk, 31); }
static void nan_value(msgpack_packer *pk) {
    begin(pk, 2, 1);
    event(pk, T0, 1);
    msgpack_pack_map(pk, 4);
    s(pk, "apiVersion"), s(pk, "v1"), s(pk, "kind"), s(pk, "Pod");
    s(pk, "metadata"), msgpack_pack_map(pk, 1), s(pk, "name"), s(pk, "p");
    s(pk, "spec"), msgpack_pack_map(pk, 1), s(pk, "weight"), msgpack_pack_double(pk, NAN);
    s(pk, "pod_lifecycles"), msgpack_pack_nil(pk);
}
static void bad_namespace(msgpack_packer *pk) {
    begin(pk, 2, 1);
    event(pk, T0, 1);
    msgpack_pack_map(pk, 3);
    s(pk, "apiVersion"), s(pk, "v1"), s(pk, "kind"), s(pk, "Pod");
    s(pk, "metadata"), msgpack_pack_map(pk, 2), s(pk, "name"), s(pk, "p"), s(pk, "namespace"),
        s(pk, "Shop.Prod");
    s(pk, "pod_lifecycles"), msgpack_pack_nil(pk);
}
/* a map in an object that declares 2^32-1 entries: refused before anything is allocated */
static void absurd_map(msgpack_packer *pk) {
    begin(pk, 2, 1);
    event(pk, T0, 1);
    msgpack_pack_map(pk, 3);
    s(pk, "apiVersion"), s(pk, "v1"), s(pk, "kind"), s(pk, "Pod");
    s(pk, "metadata"), msgpack_pack_map(pk, UINT32_MAX);
}

KT_TEST(errors_name_the_place) {
    fails_with(version_3, "version: SimKube trace format version 3 is not supported (kprio reads "
                          "version 2");
    fails_with(no_events, "events: no events");
    fails_with(depth_32, "nested deeper than 31 maps and arrays (the reader's limit)");
    fails_with(depth_31, "version: expected an integer, got an array"); /* read, not a trace */
    fails_with(nan_value, "events[0].applied_objs[0] (Pod p): spec.weight: a float that is not "
                          "a number");
    fails_with(bad_namespace, "events[0].applied_objs[0].metadata.namespace: \"Shop.Prod\" is not "
                              "a namespace name");
    fails_with(absurd_map, "events[0].applied_objs[0].metadata: byte ");
    fails_with(absurd_map, "a map of 4294967295 entries, more than the 0 bytes left hold");
}

KT_MAIN(KT_CASE(snapshot_is_the_start_state), KT_CASE(positional_form_and_lifecycles),
        KT_CASE(errors_name_the_place))
