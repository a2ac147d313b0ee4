/* Allocation-failure sweep through the CLI (issue 17 item 5): every command (inspect, schedule,
 * why, evict, admit) runs in-process on a golden case, once normally and then with the Nth
 * allocation failing, for N spread over the whole run (one-shot and sticky failures). For each
 * N: exit 0 with exactly the normal output (a failure the library absorbed changes nothing), or
 * exit 1 with exactly "kprio: out of memory" on stderr and nothing on stdout. Never a crash (the
 * ASan build runs it too), never another message, never a partial document.
 *
 * The command files are compiled into the test; their USAGE / HELP texts are renamed apart. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "base/alloc.h"
#include "cli_capture.h"
#include "harness.h"

#define USAGE admit_USAGE
#include "cli/cmd_admit.c"
#undef USAGE
#define USAGE evict_USAGE
#include "cli/cmd_evict.c"
#undef USAGE
#define USAGE inspect_USAGE
#define HELP inspect_HELP
#include "cli/cmd_inspect.c"
#undef USAGE
#undef HELP
#define USAGE schedule_USAGE
#define HELP schedule_HELP
#include "cli/cmd_schedule.c"
#undef USAGE
#undef HELP
#include "cli/cmd_why.c"
#define USAGE obfuscate_USAGE
#include "cli/cmd_obfuscate.c"
#undef USAGE
#define USAGE simulate_USAGE
#define HELP simulate_HELP
#include "cli/cmd_simulate.c"
#undef USAGE
#undef HELP
#include "cli/cmd_simulate_compare.c"
#include "cli/cmd_simulate_trace.c"
#include "cli/common.c"
#include "cli/snapshot_dir.c"

#define G "tests/golden/"

typedef int (*cmd_fn)(int, char **);

static char out[1 << 20], err[1 << 16], want[1 << 20], want_err[1 << 16];

/* Out of memory: "kprio: out of memory" is the last and only error line; before it only the
 * warnings the normal run printed (the input was loaded before memory ran out). */
static bool oom_message(const char *e) {
    static const char line[] = "kprio: out of memory\n";
    size_t n = strlen(e), k = sizeof line - 1;
    return n >= k && strcmp(e + n - k, line) == 0 && strncmp(e, want_err, n - k) == 0;
}

/* Runs fn with stdout and stderr captured into out / err. */
static int run_cmd(cmd_fn fn, int argc, char **argv) {
    return kt_run_captured(fn, argc, argv, out, sizeof out, err, sizeof err);
}

/* The sweep for one command line. Returns the number of runs that failed with out of memory. */
static int sweep(cmd_fn fn, char **argv) {
    int argc = 0;
    while (argv[argc]) argc++;
    unsigned long before = kp__alloc_count();
    int rc = run_cmd(fn, argc, argv);
    unsigned long total = kp__alloc_count() - before;
    KT_CHECK_INT(rc, 0);
    if (rc != 0) {
        fprintf(stderr, "  %s: %s", argv[0], err);
        return 0;
    }
    KT_CHECK(strlen(out) > 20);
    memcpy(want, out, strlen(out) + 1);
    memcpy(want_err, err, strlen(err) + 1); /* warnings of the input, if any */
    /* every N up to 40, then about 300 more spread evenly over the run, then the last ones */
    /* KP_OOM_SWEEP_ALL=1: every N (minutes under ASan) */
    /* under valgrind (a run costs 20-50 times more; ASan and the plain pass sweep densely) every
     * N up to 10, then about 60 more */
    unsigned long dense = RUNNING_ON_VALGRIND ? 10 : 40, spread = RUNNING_ON_VALGRIND ? 60 : 300;
    unsigned long step =
        total > dense + spread && !getenv("KP_OOM_SWEEP_ALL") ? (total - dense) / spread : 1;
    if (getenv("KP_TEST_VERBOSE"))
        fprintf(stderr, "  %s %s: %lu allocations\n", argv[0], argv[argc - 1], total);
    int oom = 0;
    for (unsigned long n = 0; n <= total + 2; n = n < dense || n + 4 > total ? n + 1 : n + step) {
        for (int sticky = 0; sticky < 2; sticky++) {
            kp__alloc_fail_after((long)n, sticky != 0);
            rc = run_cmd(fn, argc, argv);
            kp__alloc_fail_after(-1, false);
            bool ok = rc == 0 ? strcmp(out, want) == 0 && strcmp(err, want_err) == 0
                              : rc == 1 && out[0] == 0 && oom_message(err);
            if (!ok) {
                fprintf(stderr, "  %s, failing allocation %lu%s: exit %d, stderr \"%s\", %s\n",
                        argv[0], n, sticky ? " (sticky)" : "", rc, err,
                        out[0] ? (rc ? "output written" : "output differs") : "no output");
                if (getenv("KP_TEST_VERBOSE"))
                    fprintf(stderr, "--- got\n%s--- want\n%s", out, want);
                kt_failed_checks++;
                return oom;
            }
            if (rc) oom++;
        }
    }
    return oom;
}

KT_TEST(inspect_all_formats) {
    const char *fmts[] = {"-otable", "-ojson", "-oyaml"};
    for (int k = 0; k < 3; k++) {
        char *argv[] = {"inspect", "-f", G "inspect-workload-kinds/input.yaml", (char *)fmts[k],
                        NULL};
        KT_CHECK(sweep(kp_cmd_inspect, argv) > 10);
    }
}

KT_TEST(schedule_with_explain) {
    const char *fmts[] = {"-otable", "-ojson", "-oyaml"};
    for (int k = 0; k < 3; k++) {
        char *argv[] = {"schedule",
                        "-f",
                        G "sched-explain/cluster.yaml",
                        "-f",
                        G "sched-explain/whatif-critical.yaml",
                        "--explain",
                        "batch/etl-4",
                        (char *)fmts[k],
                        NULL};
        KT_CHECK(sweep(kp_cmd_schedule, argv) > 10);
    }
}

KT_TEST(why_preempted) {
    const char *fmts[] = {"-otable", "-ojson"};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"why", "default/mid-pod3", "-f", G "preempt-why/cluster.yaml", "--seed",
                        "1",   (char *)fmts[k],    NULL};
        KT_CHECK(sweep(kp_cmd_why, argv) > 10);
    }
}

KT_TEST(evict_steps) {
    const char *fmts[] = {"-otable", "-ojson"};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"evict",
                        "-f",
                        G "evict-memory-pressure-json/cluster.yaml",
                        "--node",
                        "n1",
                        "--summary",
                        G "evict-memory-pressure-json/s2.json",
                        "--summary",
                        G "evict-memory-pressure-json/s3.json",
                        "--summary",
                        G "evict-memory-pressure-json/s5.json",
                        "--eviction-hard",
                        "memory.available<1Gi",
                        "--eviction-soft",
                        "memory.available<2Gi",
                        "--eviction-soft-grace-period",
                        "memory.available=2m",
                        "--eviction-max-pod-grace-period",
                        "5",
                        "--enforce-node-allocatable",
                        "",
                        (char *)fmts[k],
                        NULL};
        KT_CHECK(sweep(kp_cmd_evict, argv) > 10);
    }
}

KT_TEST(obfuscate_documents_and_map) {
    char *argv[] = {"obfuscate",
                    "-f",
                    G "evict-snapshot-dir/snap/cluster.json",
                    "-f",
                    G "evict-snapshot-dir/snap/kubelet/node-b1-summary.json",
                    "-f",
                    G "preempt-compat-pdb/cluster.yaml",
                    "--obfuscate-key",
                    "k",
                    NULL};
    KT_CHECK(sweep(kp_cmd_obfuscate, argv) > 10);
    char *argv2[] = {"obfuscate",         "--show-map", "-f", G "preempt-compat-pdb/cluster.yaml",
                     "--obfuscate-key=k", NULL};
    KT_CHECK(sweep(kp_cmd_obfuscate, argv2) > 10);
}

KT_TEST(admit_with_preemption) {
    const char *fmts[] = {"-otable", "-ojson", "-oyaml"};
    for (int k = 0; k < 3; k++) {
        char *argv[] = {
            "admit", "-f",    G "admit-preempt-qos-order/node.yaml",     "--node",
            "n1",    "--pod", G "admit-preempt-qos-order/critical.yaml", (char *)fmts[k],
            NULL};
        KT_CHECK(sweep(kp_cmd_admit, argv) > 10);
    }
}

/* More -f inputs than the list holds inline (16): every command frees the grown list (the ASan
 * build's LeakSanitizer and the valgrind run fail this test when one does not). */
KT_TEST(many_inputs_are_freed) {
    enum { N = 20 };
    char *argv[2 * N + 8];
    int argc = 0;
    argv[argc++] = "schedule";
    for (int i = 0; i < N; i++) {
        argv[argc++] = "-f";
        argv[argc++] = G "sched-explain/cluster.yaml";
    }
    argv[argc] = NULL;
    KT_CHECK_INT(run_cmd(kp_cmd_schedule, argc, argv), 0);
    argv[0] = "why";
    argv[argc++] = "batch/etl-4";
    argv[argc] = NULL;
    KT_CHECK(run_cmd(kp_cmd_why, argc, argv) != 2); /* answered (or not preempted): not usage */
    argv[0] = "admit";
    argc = 2 * N + 1;
    argv[argc++] = "--node";
    argv[argc++] = "n1";
    argv[argc++] = "--pod";
    argv[argc++] = G "admit-preempt-qos-order/critical.yaml";
    argv[argc] = NULL;
    for (int i = 0; i < N; i++) argv[2 + 2 * i] = G "admit-preempt-qos-order/node.yaml";
    KT_CHECK_INT(run_cmd(kp_cmd_admit, argc, argv), 0);
}

/* The simulation: every allocation of a run with a scenario (created pods, preemption,
 * replacements, PDB recounts) fails in turn; each answers or says out of memory. */
KT_TEST(simulate_with_scenario) {
    const char *fmts[] = {"-otable", "-ojson"};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"simulate",
                        "-f",
                        G "simulate-pdb-budget-second-preemptor/cluster.json",
                        "--scenario",
                        G "simulate-pdb-budget-second-preemptor/scenario.yaml",
                        (char *)fmts[k],
                        NULL};
        KT_CHECK(sweep(kp_cmd_simulate, argv) > 10);
    }
}

/* The kubelets' admission (issue 12): a critical pod preempting on its kubelet, then per-pool
 * kubelet configurations with a rejection under pressure. */
KT_TEST(simulate_with_admission) {
    char *argv[] = {"simulate",
                    "-f",
                    G "simulate-admit-critical-preempts/cluster.yaml",
                    "--scenario",
                    G "simulate-admit-critical-preempts/scenario.yaml",
                    "--kubelet-config",
                    G "simulate-admit-critical-preempts/kubelet.yaml",
                    NULL};
    KT_CHECK(sweep(kp_cmd_simulate, argv) > 10);
    char *argv2[] = {"simulate",
                     "-f",
                     G "simulate-admit-kubelet-pools/cluster.yaml",
                     "--scenario",
                     G "simulate-admit-kubelet-pools/scenario.yaml",
                     "--kubelet-config",
                     "pool=strict=" G "simulate-admit-kubelet-pools/strict.yaml",
                     "--kubelet-config",
                     G "simulate-admit-kubelet-pools/kubelet.yaml",
                     NULL};
    KT_CHECK(sweep(kp_cmd_simulate, argv2) > 10);
}

/* The what-if comparison: two runs, their findings, the comparison (both formats). */
KT_TEST(simulate_compare) {
    const char *fmts[] = {"-otable", "-ojson"};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"simulate",
                        "-f",
                        G "simulate-compare-scenarios/cluster.json",
                        "--compare",
                        G "simulate-compare-scenarios/a.yaml",
                        G "simulate-compare-scenarios/b.yaml",
                        (char *)fmts[k],
                        NULL};
        KT_CHECK(sweep(kp_cmd_simulate, argv) > 10);
    }
}

KT_MAIN(KT_CASE(inspect_all_formats), KT_CASE(schedule_with_explain), KT_CASE(why_preempted),
        KT_CASE(evict_steps), KT_CASE(admit_with_preemption), KT_CASE(many_inputs_are_freed),
        KT_CASE(obfuscate_documents_and_map), KT_CASE(simulate_with_scenario),
        KT_CASE(simulate_with_admission), KT_CASE(simulate_compare))
