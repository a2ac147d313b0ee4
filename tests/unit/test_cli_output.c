/* Write errors on stdout (issue 17 item 15): the kprio binary of this build (next to the tests
 * directory) runs every command, and --help, with stdout on /dev/full and on a pipe whose reader
 * is gone while SIGPIPE is ignored. Each must exit 1 with exactly one line
 * "kprio: write error: <strerror>" on stderr (after the input's warnings, if any), never 0. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define G "tests/golden/"

static char kprio[PATH_MAX];

/* The binary: BUILD/kprio for the test BUILD/tests/test_cli_output. */
static void find_kprio(void) {
    char self[PATH_MAX - 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return;
    *slash = 0;
    snprintf(kprio, sizeof kprio, "%s/../kprio", self);
}

enum { TO_DEV_FULL, TO_CLOSED_PIPE };

/* Runs kprio argv with stdout as `where` and SIGPIPE ignored; stderr into err. Exit status, or
 * -1 when it did not exit (a signal). */
static int run(char *const argv[], int where, char *err, size_t cap) {
    int epipe[2], opipe[2] = {-1, -1};
    if (pipe(epipe) != 0) return -2;
    if (where == TO_CLOSED_PIPE && pipe(opipe) != 0) return -2;
    if (where == TO_CLOSED_PIPE) close(opipe[0]); /* the reader is gone before the first write */
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN); /* kept across exec */
        int out = where == TO_DEV_FULL ? open("/dev/full", O_WRONLY) : opipe[1];
        dup2(out, 1);
        dup2(epipe[1], 2);
        close(epipe[0]);
        execv(kprio, argv);
        _exit(127);
    }
    close(epipe[1]);
    if (where == TO_CLOSED_PIPE) close(opipe[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(epipe[0], err + len, cap - 1 - len)) > 0) len += (size_t)r;
    err[len] = 0;
    close(epipe[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_all(int where, const char *reason) {
    char *const cmds[][32] = {
        {"kprio", "--help", NULL},
        {"kprio", "inspect", "--help", NULL},
        {"kprio", "--version", NULL},
        {"kprio", "inspect", "-f", G "inspect-json/cluster.yaml", NULL},
        {"kprio", "inspect", "-f", G "inspect-json/cluster.yaml", "-o", "json", NULL},
        {"kprio", "schedule", "-f", G "sched-explain/cluster.yaml", "-f",
         G "sched-explain/whatif-critical.yaml", "--explain", "batch/etl-4", NULL},
        {"kprio", "schedule", "-f", G "sched-explain/cluster.yaml", "-o", "yaml", NULL},
        {"kprio", "why", "default/mid-pod3", "-f", G "preempt-why/cluster.yaml", "--seed", "1",
         NULL},
        {"kprio", "evict", "-f", G "evict-memory-message/cluster.yaml", "--node", "n1", "--summary",
         G "evict-memory-message/s1.json", "--eviction-hard", "memory.available<2Gi", "-o", "yaml",
         NULL},
        {"kprio", "admit", "-f", G "admit-example/node.yaml", "--node", "n1", "--pod",
         G "admit-example/critical.yaml", NULL},
    };
    char want[128];
    snprintf(want, sizeof want, "kprio: write error: %s\n", reason);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        static char err[1 << 16];
        int rc = run(cmds[i], where, err, sizeof err);
        size_t n = strlen(err), k = strlen(want);
        bool ok = rc == 1 && n >= k && strcmp(err + n - k, want) == 0 &&
                  strstr(err, want) == err + n - k; /* one error line, the last */
        if (!ok) {
            fprintf(stderr, "  %s %s: exit %d, stderr \"%s\"\n", cmds[i][1], cmds[i][2], rc, err);
            kt_failed_checks++;
        }
    }
}

KT_TEST(dev_full) { check_all(TO_DEV_FULL, strerror(ENOSPC)); }
KT_TEST(closed_pipe_sigpipe_ignored) { check_all(TO_CLOSED_PIPE, strerror(EPIPE)); }

static void setup(void) {
    find_kprio();
    KT_CHECK(access(kprio, X_OK) == 0);
}

KT_MAIN(KT_CASE(setup), KT_CASE(dev_full), KT_CASE(closed_pipe_sigpipe_ignored))
