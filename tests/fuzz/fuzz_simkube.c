/* libFuzzer harness for the SimKube trace reader (kp_convert_simkube, src/io/convert_simkube.c
 * and simkube_scan.c; docs/live.md "Importing SimKube traces"): the input is the trace file's
 * bytes (msgpack). Any input must end in KP_OK or a clean error with a message (crashes, leaks
 * and sanitizer reports are bugs). A conversion that succeeds writes its trace directory, whose
 * snapshot and watch file are valid JSON (a syntax error there is a bug of the converter): the
 * cluster loader reads the snapshot and the trace reader the directory, or refuse them with a
 * message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprio/cluster.h"
#include "kprio/convert.h"
#include "kprio/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char NODE[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
    "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\","
    "\"pods\":\"10\"}}}";

static char dir[64];
static const char *const FILES[] = {"in.sktrace", "manifest.json", "snapshot/cluster.json",
                                    "watch/simkube.json", "README"};

static void put(const char *name, const void *p, size_t n) {
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) abort();
}

static void cleanup(void) {
    char path[160];
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, FILES[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/snapshot", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/watch", dir);
    rmdir(path);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[160];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/kprio-fuzz-simkube.%ld", (long)getpid());
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/snapshot", dir);
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/watch", dir);
        mkdir(path, 0700);
        atexit(cleanup);
    }
    put("in.sktrace", data, size);
    snprintf(path, sizeof path, "%s/in.sktrace", dir);
    kp_error err;
    kp_error_clear(&err);
    kp_converted *c = NULL;
    if (kp_convert_simkube(path, &c, &err) != KP_OK) {
        if (c || !err.msg[0] || strchr(err.msg, '\n')) abort(); /* one line, always */
        return 0;
    }
    const char *name, *text;
    size_t n = 0, i;
    for (i = 0; (text = kp_converted_file(c, i, &name, &n)); i++) put(name, text, n);
    if (i != 4) abort();
    size_t n_snap = 0;
    const char *snap = kp_converted_cluster(c, &n_snap);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) abort();
    kp_cluster_set_expand(cl, KP_WORKLOAD_TEMPLATES);
    kp_error_clear(&err);
    kp_status st = kp_cluster_load_buffer(cl, "node", NODE, strlen(NODE), &err);
    if (st == KP_OK) st = kp_cluster_load_buffer(cl, "snapshot", snap, n_snap, &err);
    if (st == KP_ESYNTAX || (st != KP_OK && !err.msg[0])) abort();
    if (st == KP_OK && (st = kp_cluster_finalize(cl, &err)) != KP_OK && !err.msg[0]) abort();
    if (st == KP_OK) {
        kp_trace *tr = NULL;
        kp_error_clear(&err);
        st = kp_trace_load(dir, cl, &tr, &err);
        if (st == KP_ESYNTAX || (st != KP_OK && (tr || !err.msg[0]))) abort();
        kp_trace_free(tr);
    }
    kp_cluster_free(cl);
    kp_converted_free(c);
    return 0;
}
