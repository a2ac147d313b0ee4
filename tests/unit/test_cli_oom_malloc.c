/* Allocation-failure sweep with REAL allocation failures (issue 30 item 2). test_cli_oom.c fails
 * allocations through kprio's own allocator (kp__alloc_fail_after); what kprio does not allocate
 * itself (simdjson's parser buffers, the C++ runtime, glibc's thread-local destructor list, stdio)
 * was never failed, and out of memory there aborted or crashed the process. Here the C
 * allocator itself fails: this binary defines malloc, calloc, realloc, free, aligned_alloc,
 * posix_memalign and memalign (the C++ runtime's operator new calls malloc), which every library
 * of the process then calls, and the Nth call after the command starts returns NULL (one-shot,
 * and sticky: every call from the Nth on).
 *
 * Each run is a child process (fork): a fresh process meets every first-use path (simdjson's
 * kernel choice, lazily built runtime state), and an abort or a crash is seen as a signal instead
 * of ending the test. A run must either answer exactly as the normal run did (stdout, stderr, the
 * output files), or exit 1 with "kprio: ... out of memory" as its last stderr line, nothing on
 * stdout, no output file other than whole (as the normal run wrote it) and no temporary
 * file left beside one; and it must free every
 * block it allocated (the interposer counts live blocks; LeakSanitizer does in the ASan build).
 *
 * Command lines: `simulate` with simulated kubelets (usage, a --kubelet-config, kubelets[] of a
 * scenario) and every output flag (--final-snapshot, --metrics, --report, --dump-summaries), and
 * `evict` with several JSON summaries.
 *
 * Builds: malloc cannot be interposed under AddressSanitizer (its runtime owns malloc; a second
 * definition would either clash or take the blocks away from ASan's checks). So the ASan build
 * runs the same forked sweep with the failures injected at kprio's layer (kp__alloc_fail_after,
 * which the JSON shim also consults right before each place simdjson allocates, so its three
 * out-of-memory paths are met) and LeakSanitizer checks each child. Valgrind replaces malloc in
 * the executable as well, so under `make test-valgrind` the failures are injected at kprio's
 * layer too, and valgrind checks each child's memory and leaks. The plain build fails the real
 * calls.
 *
 * Run time: the N of a command line are sampled with a stride (every N up to 24, then 40 more
 * spread over the run, then the last ones): about 2 x 70 runs per line, a few seconds for the
 * whole file on the plain build (ASan: every N up to 8, then 16 more). KP_OOM_SWEEP_ALL=1 tries
 * every N (minutes). Under valgrind only 12 N per line. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "base/alloc.h"
#include "harness.h"

#define USAGE evict_USAGE
#include "cli/cmd_evict.c"
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

#if defined(__SANITIZE_ADDRESS__)
#define KT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KT_ASAN 1
#endif
#endif
#ifndef KT_ASAN
#define KT_ASAN 0
#endif

#if KT_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#define G "tests/golden/"

typedef int (*cmd_fn)(int, char **);

/* ---------------------------------------------------------------- the interposed allocator */

/* Failures injected at kprio's layer (kp__alloc_fail_after) instead of the C allocator's: under
 * AddressSanitizer (no interposer compiled) and under valgrind, which replaces malloc in the
 * executable too (the interposer would count nothing). */
static bool kp_layer(void) { return KT_ASAN || RUNNING_ON_VALGRIND; }

/* What a child reports back (a shared page): calls counted, blocks left allocated. */
typedef struct {
    unsigned long calls;
    long live;
} child_report;

static long fail_at = -1; /* the call that fails (0-based), -1: none */
static bool fail_sticky; /* and every call after it */
static bool armed; /* counting: only while the command runs */
static unsigned long n_calls;
static long n_live;

#if !KT_ASAN
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);
void __libc_free(void *p);

void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);
void *aligned_alloc(size_t align, size_t n);
int posix_memalign(void **out, size_t align, size_t n);
void *memalign(size_t align, size_t n);

/* true when this call is to fail */
static bool failing(void) {
    if (!armed) return false;
    unsigned long c = n_calls++;
    if (fail_at < 0 || c < (unsigned long)fail_at) return false;
    if (c > (unsigned long)fail_at && !fail_sticky) return false;
    errno = ENOMEM;
    return true;
}

static void *counted(void *p) {
    if (p && armed) n_live++;
    return p;
}

void *malloc(size_t n) { return failing() ? NULL : counted(__libc_malloc(n)); }
void *calloc(size_t n, size_t size) { return failing() ? NULL : counted(__libc_calloc(n, size)); }
void *aligned_alloc(size_t align, size_t n) {
    return failing() ? NULL : counted(__libc_memalign(align, n));
}
void *memalign(size_t align, size_t n) {
    return failing() ? NULL : counted(__libc_memalign(align, n));
}
int posix_memalign(void **out, size_t align, size_t n) {
    if (failing()) return ENOMEM;
    void *p = counted(__libc_memalign(align, n));
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
void *realloc(void *p, size_t n) {
    if (failing()) return NULL;
    if (!p) return counted(__libc_realloc(p, n));
    void *q = __libc_realloc(p, n);
    if (!q && n == 0 && armed) n_live--; /* glibc's realloc(p, 0) frees p */
    return q;
}
void free(void *p) {
    if (p && armed) n_live--;
    __libc_free(p);
}
#endif

/* ---------------------------------------------------------------- runs in child processes */

/* One command line: its argv, the scratch directory its output paths point into, and the
 * output files (relative to the directory) a run writes. */
typedef struct {
    cmd_fn fn;
    char **argv;
    const char *dir;
    const char *const *outputs;
} cmdline;

typedef struct {
    int rc; /* exit status, or 128 + signal */
    char out[1 << 16], err[1 << 14];
    child_report rep;
} run_result;

static child_report *shared;

static void read_file(const char *path, char *buf, size_t cap) {
    buf[0] = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
    close(fd);
}

/* Empties dir (one level of subdirectories: the summaries' directory). */
static void clear_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0) {
            clear_dir(p);
            rmdir(p);
        }
    }
    closedir(d);
}

/* A temporary file of kprio's output writer left in dir or one level below. */
static bool temp_left(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return false;
    struct dirent *e;
    bool found = false;
    char p[512];
    while (!found && (e = readdir(d))) {
        if (strstr(e->d_name, ".kprio-")) found = true;
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) found = temp_left(p);
    }
    closedir(d);
    return found;
}

/* Runs the command in a child with the fail_at-th allocation failing (-1: none). */
static void run_child(const cmdline *c, long at, bool sticky, run_result *r) {
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s.stdout", c->dir);
    snprintf(err_path, sizeof err_path, "%s.stderr", c->dir);
    clear_dir(c->dir);
    memset(shared, 0, sizeof *shared);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0) _exit(120);
        dup2(fo, 1);
        dup2(fe, 2);
        close(fo);
        close(fe);
        /* glibc caches the time zone on first use (render's dates) and keeps it to the end:
         * read now, not counted as the command's blocks */
        time_t t0 = 0;
        struct tm tm0;
        localtime_r(&t0, &tm0);
        gmtime_r(&t0, &tm0);
        /* stdout's buffer allocated now, not counted as the command's */
        static char obuf[BUFSIZ];
        setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
        int argc = 0;
        while (c->argv[argc]) argc++;
        int rc;
        if (kp_layer()) {
            kp__alloc_fail_after(at, sticky);
            unsigned long before = kp__alloc_count();
            rc = c->fn(argc, c->argv);
            kp__alloc_fail_after(-1, false);
            shared->calls = kp__alloc_count() - before;
        } else {
            fail_at = at;
            fail_sticky = sticky;
            n_calls = 0;
            n_live = 0;
            armed = true;
            rc = c->fn(argc, c->argv);
            armed = false;
            shared->calls = n_calls;
            shared->live = n_live;
        }
        fflush(stdout);
#if KT_ASAN
        /* LeakSanitizer at the child's end (_exit skips the one at exit) */
        if (__lsan_do_recoverable_leak_check()) _exit(121);
#endif
        _exit(rc);
    }
    int status = 0;
    r->rc = -1;
    if (pid > 0 && waitpid(pid, &status, 0) == pid)
        r->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->rep = *shared;
    read_file(out_path, r->out, sizeof r->out);
    read_file(err_path, r->err, sizeof r->err);
}

static run_result normal, got;
static char want_file[4][1 << 16], got_file[1 << 16];

/* A failed run's stderr: the normal run's warnings (the input was read before memory ran out),
 * then one line "kprio: ... out of memory" (the file it was reading may be named). */
static bool oom_message(const char *e) {
    size_t n = strlen(e), w = strlen(normal.err);
    if (n <= w || strncmp(e, normal.err, w) != 0) return false;
    const char *line = e + w;
    const char *nl = strchr(line, '\n');
    return strncmp(line, "kprio: ", 7) == 0 && nl && nl[1] == 0 && nl - line >= 13 &&
           strncmp(nl - 13, "out of memory", 13) == 0;
}

/* Checks one run against the normal one; returns false (and says why) when it is wrong. */
static bool judge(const cmdline *c, long at, bool sticky) {
    const char *why = NULL;
    char p[512];
    if (got.rc == 0) {
        if (strcmp(got.out, normal.out) != 0 || strcmp(got.err, normal.err) != 0)
            why = "answered differently";
        for (int i = 0; !why && c->outputs && c->outputs[i]; i++) {
            snprintf(p, sizeof p, "%s/%s", c->dir, c->outputs[i]);
            read_file(p, got_file, sizeof got_file);
            if (strcmp(got_file, want_file[i]) != 0) why = "an output file differs";
        }
    } else if (got.rc == 1) {
        if (got.out[0]) why = "output on stdout";
        else if (!oom_message(got.err)) why = "not out of memory";
        for (int i = 0; !why && c->outputs && c->outputs[i]; i++) {
            snprintf(p, sizeof p, "%s/%s", c->dir, c->outputs[i]);
            /* outputs are committed one by one after the run (each whole: a temporary file
             * renamed): one written before memory ran out must be the normal run's */
            if (access(p, F_OK) != 0) continue;
            read_file(p, got_file, sizeof got_file);
            if (strcmp(got_file, want_file[i]) != 0) why = "an output file cut off or different";
        }
    } else if (got.rc == 121) {
        why = "leaked (LeakSanitizer)";
    } else {
        why = got.rc > 128 ? "killed by a signal (abort or crash)" : "wrong exit status";
    }
    if (!why && temp_left(c->dir)) why = "a temporary file left";
    if (!why && !kp_layer() && got.rep.live != 0) why = "blocks left allocated";
    if (!why) return true;
    fprintf(stderr, "  %s, failing allocation %ld%s: %s (exit %d, %ld blocks left)\n  %s",
            c->argv[0], at, sticky ? " (sticky)" : "", why, got.rc, got.rep.live, got.err);
    kt_failed_checks++;
    return false;
}

/* The sweep for one command line. Returns the number of runs that ended out of memory. */
static int sweep(const cmdline *c) {
    run_child(c, -1, false, &normal);
    KT_CHECK_INT(normal.rc, 0);
    if (!kp_layer()) KT_CHECK_INT(normal.rep.live, 0); /* the normal run frees everything too */
    if (normal.rc != 0) {
        fprintf(stderr, "  %s: %s", c->argv[0], normal.err);
        return 0;
    }
    char p[512];
    for (int i = 0; c->outputs && c->outputs[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", c->dir, c->outputs[i]);
        read_file(p, want_file[i], sizeof want_file[i]);
        KT_CHECK(want_file[i][0] != 0);
    }
    unsigned long total = normal.rep.calls;
    /* fewer under valgrind and ASan, where a run (and ASan's fork) costs 10-50 times more */
    unsigned long first = 24, spread = 40;
    if (RUNNING_ON_VALGRIND) first = 2, spread = 8;
    else if (KT_ASAN) first = 8, spread = 16;
    unsigned long step =
        total > first + spread && !getenv("KP_OOM_SWEEP_ALL") ? (total - first) / spread : 1;
    if (getenv("KP_TEST_VERBOSE"))
        fprintf(stderr, "  %s: %lu allocations, stride %lu\n", c->argv[0], total, step);
    int oom = 0;
    for (unsigned long n = 0; n <= total + 1; n = n < first || n + 2 > total ? n + 1 : n + step) {
        for (int sticky = 0; sticky < 2; sticky++) {
            run_child(c, (long)n, sticky != 0, &got);
            if (!judge(c, (long)n, sticky != 0)) return oom;
            if (got.rc) oom++;
        }
    }
    return oom;
}

static char scratch[64];
static void setup(void);

/* scratch/<name> as a fresh directory, for a command line's outputs */
static const char *out_dir(const char *name) {
    if (!scratch[0]) setup();
    static char dirs[4][128];
    static int k;
    char *d = dirs[k++ & 3];
    snprintf(d, sizeof dirs[0], "%s/%s", scratch, name);
    mkdir(d, 0700);
    return d;
}

/* The simulated kubelets under real allocation failures: a memory leak (usage), a kubelet
 * configuration, every output of a run. */
KT_TEST(simulate_kubelets_every_output) {
    const char *dir = out_dir("sim");
    char fs[160], me[160], re[160], du[160];
    snprintf(fs, sizeof fs, "%s/final.json", dir);
    snprintf(me, sizeof me, "%s/metrics.prom", dir);
    snprintf(re, sizeof re, "%s/report.html", dir);
    snprintf(du, sizeof du, "%s/summaries", dir);
    char *argv[] = {"simulate",
                    "-f",
                    G "simulate-metrics-kubelet-evictions/cluster.json",
                    "--scenario",
                    G "simulate-metrics-kubelet-evictions/scenario.yaml",
                    "--kubelet-config",
                    G "simulate-admit-kubelet-pools-scenario/kubelet.yaml",
                    "--final-snapshot",
                    fs,
                    "--metrics",
                    me,
                    "--report",
                    re,
                    "--dump-summaries",
                    du,
                    NULL};
    static const char *const outputs[] = {"final.json", "metrics.prom", "report.html", NULL};
    cmdline c = {kp_cmd_simulate, argv, dir, outputs};
    KT_CHECK(sweep(&c) > 10);
}

/* kubelets[] of a scenario (a pool's configuration file read by the scenario), JSON output */
KT_TEST(simulate_scenario_kubelet_pools) {
    const char *dir = out_dir("pools");
    char *argv[] = {"simulate",
                    "-f",
                    G "simulate-admit-kubelet-pools-scenario/cluster.yaml",
                    "--scenario",
                    G "simulate-admit-kubelet-pools-scenario/pools/scenario.yaml",
                    "--kubelet-config",
                    G "simulate-admit-kubelet-pools-scenario/kubelet.yaml",
                    "-ojson",
                    NULL};
    cmdline c = {kp_cmd_simulate, argv, dir, NULL};
    KT_CHECK(sweep(&c) > 10);
}

/* `kprio evict` with several Summary API documents (JSON, each parsed by the JSON shim) */
KT_TEST(evict_several_summaries) {
    const char *dir = out_dir("evict");
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
                    "-ojson",
                    NULL};
    cmdline c = {kp_cmd_evict, argv, dir, NULL};
    KT_CHECK(sweep(&c) > 10);
}

static void teardown(void);

static void setup(void) {
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) abort();
    snprintf(scratch, sizeof scratch, "%s/kprio-oom.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(scratch)) abort();
    atexit(teardown);
}

static void teardown(void) {
    char p[160];
    const char *names[] = {"sim", "pools", "evict"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch, names[i]);
        clear_dir(p);
        rmdir(p);
        snprintf(p, sizeof p, "%s/%s.stdout", scratch, names[i]);
        unlink(p);
        snprintf(p, sizeof p, "%s/%s.stderr", scratch, names[i]);
        unlink(p);
    }
    rmdir(scratch);
}

KT_MAIN(KT_CASE(simulate_kubelets_every_output), KT_CASE(simulate_scenario_kubelet_pools),
        KT_CASE(evict_several_summaries))
