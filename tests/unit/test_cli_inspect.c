/* The CLI shell (src/cli/common.c) and `kprio inspect` (src/cli/cmd_inspect.c), compiled into the
 * test: any number of -f inputs, and out of memory printed as exactly "kprio: out of memory" with
 * exit status 1 and nothing on stdout. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "cli_capture.h"
#include "harness.h"

#include "cli/cmd_inspect.c"
#include "cli/common.c"

/* Runs kp_cmd_inspect with stdout and stderr captured into out / errbuf. */
static int run_inspect(int argc, char **argv, char *out, size_t out_cap, char *errbuf,
                       size_t err_cap) {
    return kt_run_captured(kp_cmd_inspect, argc, argv, out, out_cap, errbuf, err_cap);
}

static char dir[] = "/tmp/kprio-test-cli-XXXXXX";

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* 300 -f inputs, one node each: all are read (the list grows past its inline part). */
KT_TEST(three_hundred_inputs) {
    enum { N = 300 };
    char *argv[1 + 2 * N + 2];
    char *paths[N];
    int argc = 0;
    argv[argc++] = (char *)"inspect";
    for (int i = 0; i < N; i++) {
        paths[i] = malloc(strlen(dir) + 32);
        sprintf(paths[i], "%s/node-%03d.yaml", dir, i);
        char text[256];
        snprintf(text, sizeof text,
                 "apiVersion: v1\nkind: Node\nmetadata: {name: node-%03d}\n"
                 "status: {allocatable: {cpu: \"1\", memory: 1Gi, pods: \"10\"}}\n",
                 i);
        write_file(paths[i], text);
        argv[argc++] = (char *)"-f";
        argv[argc++] = paths[i];
    }
    argv[argc++] = (char *)"-ojson";
    argv[argc] = NULL;

    kp_cli_common c;
    kp_cli_common_init(&c);
    for (int i = 1; i < argc; i++) KT_CHECK_INT(kp_cli_common_arg(&c, argc, argv, &i), 1);
    KT_CHECK_INT(c.n_files, N);
    KT_CHECK_STR(c.files[0], paths[0]);
    KT_CHECK_STR(c.files[N - 1], paths[N - 1]);
    KT_CHECK(c.out == KP_OUT_JSON);
    kp_cli_common_free(&c);
    KT_CHECK_INT(c.n_files, 0);

    /* a zeroed struct (as commands not yet on kp_cli_common_init use) works as well */
    memset(&c, 0, sizeof c);
    for (int i = 1; i < argc; i++) kp_cli_common_arg(&c, argc, argv, &i);
    KT_CHECK_INT(c.n_files, N);
    kp_cli_common_free(&c);

    static char out[1 << 20], err[1 << 16];
    KT_CHECK_INT(run_inspect(argc, argv, out, sizeof out, err, sizeof err), 0);
    KT_CHECK_CONTAINS(out, "\"nodes\": 300,");
    KT_CHECK_CONTAINS(out, "\"name\": \"node-299\"");
    for (int i = 0; i < N; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
}

/* Failing each allocation in turn (until a run needs no more): either the normal answer, or exit 1
 * with exactly "kprio: out of memory" on stderr and nothing on stdout. */
KT_TEST(out_of_memory_prints_one_line) {
    char path[64];
    snprintf(path, sizeof path, "%s/cluster.yaml", dir);
    write_file(
        path,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"2\", "
        "memory: 2Gi, pods: \"9\"}}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a, deletionTimestamp: "
        "\"2024-01-01T00:00:00Z\"}\n"
        "spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 1}}}]}\nstatus: "
        "{phase: Running}\n"
        "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {namespace: a, name: b}\n"
        "spec: {minAvailable: 1, selector: {}}\n");
    const char *formats[] = {"-otable", "-ojson", "-oyaml"};
    static char want[1 << 16], out[1 << 16], err[1 << 16];
    for (int k = 0; k < 3; k++) {
        char *argv[] = {(char *)"inspect", (char *)"-f", path, (char *)formats[k], NULL};
        KT_CHECK_INT(run_inspect(4, argv, want, sizeof want, err, sizeof err), 0);
        KT_CHECK(strlen(want) > 100);
        bool done = false;
        int failures = 0;
        for (long n = 0; n < 100000 && !done; n++) {
            unsigned long before = kp__alloc_count();
            kp__alloc_fail_after(n, false);
            int rc = run_inspect(4, argv, out, sizeof out, err, sizeof err);
            kp__alloc_fail_after(-1, false);
            done = kp__alloc_count() - before <= (unsigned long)n; /* no allocation failed */
            if (rc == 0) {
                KT_CHECK_STR(out, want); /* a failure the library absorbed changes nothing */
            } else {
                failures++;
                KT_CHECK_INT(rc, 1);
                KT_CHECK_STR(out, "");
                KT_CHECK_STR(err, "kprio: out of memory\n");
                if (strcmp(err, "kprio: out of memory\n") != 0)
                    fprintf(stderr, "  (failing allocation %ld)\n", n);
            }
        }
        KT_CHECK(done);
        KT_CHECK(failures > 10);
    }
    unlink(path);
}

static void setup(void) {
    if (!mkdtemp(dir)) perror("mkdtemp");
}
static void teardown(void) { rmdir(dir); }

KT_MAIN(KT_CASE(setup), KT_CASE(three_hundred_inputs), KT_CASE(out_of_memory_prints_one_line),
        KT_CASE(teardown))
