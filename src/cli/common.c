/* Shared CLI plumbing: option parsing, loading with progress, error printing. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "cli/cli.h"
#include "kprio/ctrl.h"
#include "render/emit.h"
#include "render/view.h"

bool kp_cli_is_opt(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

const char *kp_cli_optval(int argc, char **argv, int *i, const char *cmd) {
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    if (arg[0] == '-' && arg[1] == '-' && eq) return eq + 1;
    if (*i + 1 >= argc) {
        kp_cli_usage_hint(cmd, "option %s needs a value", arg);
        return NULL;
    }
    return argv[++*i];
}

void kp_cli_common_init(kp_cli_common *c) {
    memset(c, 0, sizeof *c);
    c->files = c->files_inline;
    c->cap_files = (int)(sizeof c->files_inline / sizeof c->files_inline[0]);
    kp_feature_gates_init(&c->gates);
}

int kp_cli_gates_arg(kp_cli_common *c, int argc, char **argv, int *i, const char *cmd) {
    if (!kp_cli_is_opt(argv[*i], "--feature-gates")) return 0;
    const char *v = kp_cli_optval(argc, argv, i, cmd);
    if (!v) return -1;
    kp_error err;
    kp_error_clear(&err);
    /* kube-scheduler's flag is featuregate.Set; the kubelet's is cliflag.MapStringBool */
    bool kubelet = strcmp(cmd, "admit") == 0 || strcmp(cmd, "evict") == 0;
    kp_status st = kubelet ? kp_feature_gates_parse_kubelet(&c->gates, v, &err)
                           : kp_feature_gates_parse(&c->gates, v, &err);
    if (st != KP_OK) {
        kp_cli_usage_hint(cmd, "--feature-gates: %s", err.msg);
        return -1;
    }
    return 1;
}

int kp_cli_compat_arg(kp_cli_common *c, int argc, char **argv, const char *cmd,
                      const char **compat) {
    *compat = NULL;
    for (int i = 1; i < argc; i++) {
        if (!kp_cli_is_opt(argv[i], "--compat")) continue;
        if (!(*compat = kp_cli_optval(argc, argv, &i, cmd))) return KP_EXIT_USAGE;
        if (!kp_cli_compat_ok(*compat))
            return kp_cli_usage_hint(
                cmd, "--compat: \"%s\" is not a Kubernetes version (expected e.g. 1.35)", *compat);
    }
    kp_error err;
    kp_error_clear(&err);
    /* the line's gate defaults and locks, before any --feature-gates is applied */
    if (kp_feature_gates_init_compat(&c->gates, *compat, &err) != KP_OK)
        return kp_cli_usage_hint(cmd, "%s", err.msg);
    return 0;
}

void kp_cli_common_free(kp_cli_common *c) {
    if (c->files != c->files_inline) kp_free((void *)c->files);
    kp_selector_free(c->sel);
    kp_view_set(NULL);
    kp_table_set_sort_by(NULL);
    kp_cli_common_init(c);
}

/* Appends a -f value, growing the list (zeroed structs start on files_inline). */
bool kp_cli_add_file(kp_cli_common *c, const char *val) {
    if (!c->files) {
        c->files = c->files_inline;
        c->cap_files = (int)(sizeof c->files_inline / sizeof c->files_inline[0]);
    }
    if (c->n_files == c->cap_files) {
        /* from the inline array to the heap (a fresh block), or grown on the heap */
        bool is_inline = c->files == c->files_inline;
        void *nf = is_inline ? NULL : (void *)c->files;
        size_t cap = is_inline ? 0 : (size_t)c->cap_files;
        if (c->cap_files > (1 << 28) || !kp__grow(&nf, &cap, (size_t)c->n_files + 1,
                                                  sizeof *c->files, (size_t)c->cap_files * 2))
            return false;
        if (is_inline) memcpy(nf, c->files_inline, (size_t)c->n_files * sizeof *c->files);
        c->files = nf;
        c->cap_files = (int)cap;
    }
    c->files[c->n_files++] = val;
    return true;
}

bool kp_cli_parse_bytes(const char *s, uint64_t *out) {
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    static const char *const suffix[] = {"", "Ki", "Mi", "Gi", "Ti"};
    for (int k = 0; k < 5; k++) {
        if (strcmp(p, suffix[k]) != 0) continue;
        int shift = 10 * k;
        if (shift && v > (UINT64_MAX >> shift)) return false;
        *out = v << shift;
        return *out > 0;
    }
    return false;
}

bool kp_cli_expand_arg(kp_cli_common *c, const char *arg) {
    if (strcmp(arg, "--expand-workloads") == 0) c->expand |= KP_EXPAND_WORKLOADS;
    else if (strcmp(arg, "--expand-cronjobs") == 0)
        c->expand |= KP_EXPAND_WORKLOADS | KP_EXPAND_CRONJOBS;
    else return false;
    return true;
}

int kp_cli_common_arg(kp_cli_common *c, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    const char *val = NULL;
    if (kp_cli_is_opt(a, "--max-input-bytes")) {
        val = kp_cli_optval(argc, argv, i, argv[0]);
        if (!val) return -1;
        if (!kp_cli_parse_bytes(val, &c->max_input_bytes)) {
            fprintf(stderr,
                    "kprio %s: invalid --max-input-bytes \"%s\" (a number of bytes >= 1, "
                    "optionally with Ki, Mi, Gi or Ti)\nRun 'kprio %s --help' for usage.\n",
                    argv[0], val, argv[0]);
            return -1;
        }
        return 1;
    }
    if (strcmp(a, "-R") == 0 || strcmp(a, "--recursive") == 0) {
        c->recursive = true;
        return 1;
    }
    if (strcmp(a, "--no-headers") == 0) { /* kubectl's: tables without their header row */
        c->no_headers = true;
        kp_table_set_no_headers(true);
        return 1;
    }
    if (strcmp(a, "-f") == 0 || strcmp(a, "-o") == 0 || kp_cli_is_opt(a, "--filename") ||
        kp_cli_is_opt(a, "--output")) {
        val = kp_cli_optval(argc, argv, i, argv[0]);
        if (!val) return -1;
    } else if ((strncmp(a, "-f", 2) == 0 || strncmp(a, "-o", 2) == 0) && a[2]) {
        val = a + 2;
        if (*val == '=') val++;
    } else {
        return 0;
    }
    bool is_file = a[1] == 'f' || strncmp(a, "--filename", 10) == 0;
    if (is_file) {
        if (!kp_cli_add_file(c, val)) {
            kp_cli_print_status(KP_ENOMEM);
            return -1;
        }
        return 1;
    }
    c->wide = strcmp(val, "wide") == 0; /* a table; more columns where a command has them */
    if (!kp_outfmt_parse(val, &c->out)) {
        kp_cli_usage_hint(argv[0], "unknown output format \"%s\" (use table, json or yaml)", val);
        return -1;
    }
    return 1;
}

int kp_cli_print_error(const kp_error *err) {
    if (err->code == KP_ENOMEM) return kp_cli_print_status(KP_ENOMEM);
    if (err->source[0]) kp_cli_eprintf("kprio: %s: %s", err->source, err->msg);
    else kp_cli_eprintf("kprio: %s", err->msg);
    return KP_EXIT_ERROR;
}

int kp_cli_print_status(kp_status st) {
    fprintf(stderr, "kprio: %s\n", kp_status_str(st));
    return KP_EXIT_ERROR;
}

int kp_cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) {
    (void)usage; /* one line and a hint, not the whole help */
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return kp_cli_usage_hint(cmd, "%s", buf);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    double t0;
    bool tty, shown;
    int file, n_files;
    uint64_t before; /* bytes of earlier files */
} load_progress;

/* The backstop for a mapped file cut short by another process between two of the library's
 * checks (it checks the file's size at every 16 MB window and after each progress report): the
 * next page read raises SIGBUS. While kp_cli_load runs, that prints the one line the library
 * would have returned and exits 1, instead of a bus error. The library installs no handler. */
static char bus_source[4096 * 6]; /* the file name escaped (the handler may not format) */
static volatile sig_atomic_t bus_armed;
static void escape_to(char *dst, size_t cap, const char *s);

static void put_err(const char *s) {
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_sigbus(int sig) {
    if (bus_armed) {
        put_err("kprio: ");
        put_err(bus_source);
        put_err(": file changed while it was read\n");
        _exit(KP_EXIT_ERROR);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void set_bus_source(const char *source) {
    bus_armed = 0;
    escape_to(bus_source, sizeof bus_source, source);
    bus_armed = 1;
}

/* Progress line on a terminal once loading has taken over a second. */
static void on_progress(void *ctx, const char *source, uint64_t done, uint64_t total) {
    load_progress *lp = ctx;
    set_bus_source(source);
    if (!lp->tty || now_s() - lp->t0 <= 1.0) return;
    char name[1024];
    escape_to(name, sizeof name, source);
    fprintf(stderr, "\rkprio: loading %s (file %d/%d): %.0f of %.0f MB, %.0f MB in all...", name,
            lp->file + 1, lp->n_files, (double)done / 1e6, (double)total / 1e6,
            (double)(lp->before + done) / 1e6);
    lp->shown = true;
}

static int not_rereadable(const char *path, const char *who) {
    kp_cli_eprintf("kprio: %s: %s reads it twice, and standard input or a pipe reads only once: "
                   "save it to a file first",
                   path, who);
    return KP_EXIT_USAGE;
}

int kp_cli_require_rereadable(const kp_cli_common *c, const char *const *paths, size_t n,
                              const char *who) {
    for (int i = 0; i < c->n_files; i++)
        if (!kp__file_rereadable(c->files[i])) return not_rereadable(c->files[i], who);
    for (size_t i = 0; i < n; i++)
        if (paths[i] && !kp__file_rereadable(paths[i])) return not_rereadable(paths[i], who);
    return KP_EXIT_OK;
}

int kp_cli_stdin_once(const char *const *paths, const char *const *names, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && paths[i] && strcmp(paths[i], "-") == 0; j++)
            if (paths[j] && strcmp(paths[j], "-") == 0) {
                kp_cli_eprintf("kprio: -: standard input is given to both %s and %s: it reads "
                               "only once",
                               names[i], names[j]);
                return KP_EXIT_USAGE;
            }
    return KP_EXIT_OK;
}

/* kp_cli_load and kp_cli_load_again: warn false leaves the load's warnings unprinted. */
static kp_cluster *load(const kp_cli_common *c, bool warn);

kp_cluster *kp_cli_load(const kp_cli_common *c) { return load(c, true); }

kp_cluster *kp_cli_load_again(const kp_cli_common *c) { return load(c, false); }

static kp_cluster *load(const kp_cli_common *c, bool warn) {
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        kp_cli_print_status(KP_ENOMEM);
        return NULL;
    }
    kp_error err;
    kp_error_clear(&err);
    load_progress lp = {now_s(), isatty(2) != 0, false, 0, c->n_files, 0};
    kp_cluster_set_progress(cl, on_progress, &lp);
    kp_cluster_set_max_input_bytes(cl, c->max_input_bytes);
    (void)kp_cluster_set_expand(cl, c->expand); /* (a new cluster: cannot fail) */
    (void)kp_cluster_set_feature_gates(cl, &c->gates); /* (not finalized: cannot fail) */
    (void)kp_cluster_set_priority_layout(cl, c->layout); /* (the same) */
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old_sa);
    for (int i = 0; i < c->n_files; i++) {
        lp.file = i;
        lp.before = kp_cluster_bytes_loaded(cl);
        set_bus_source(c->files[i]);
        kp_status st = kp_cluster_load_path(cl, c->files[i], c->recursive, &err);
        bus_armed = 0;
        if (st != KP_OK) {
            sigaction(SIGBUS, &old_sa, NULL);
            if (lp.shown) fputc('\n', stderr);
            if (!err.source[0]) snprintf(err.source, sizeof err.source, "%s", c->files[i]);
            kp_cli_print_error(&err);
            kp_cluster_free(cl);
            return NULL;
        }
    }
    sigaction(SIGBUS, &old_sa, NULL);
    kp_cluster_set_progress(cl, NULL, NULL);
    /* --expand-workloads: the controllers' sync at t = 0 over the finalized snapshot */
    if (kp_cluster_finalize(cl, &err) != KP_OK || kp_ctrl_expand(cl, &err) != KP_OK) {
        if (lp.shown) fputc('\n', stderr);
        kp_cli_print_error(&err);
        kp_cluster_free(cl);
        return NULL;
    }
    if (lp.shown || (lp.tty && now_s() - lp.t0 > 1.0))
        fprintf(stderr, "\rkprio: loaded %.0f MB, %zu nodes, %zu pods in %.1f s\033[K\n",
                (double)kp_cluster_bytes_loaded(cl) / 1e6, kp_cluster_node_count(cl),
                kp_cluster_pod_count(cl), now_s() - lp.t0);
    for (size_t i = 0; warn && i < kp_cluster_warning_count(cl); i++)
        kp_cli_eprintf("kprio: warning: %s", kp_cluster_warning(cl, i));
    return cl;
}

/* ---- one-line messages, stdout's fate, flag values (issue 17) ---- */

/* One unit of s (a byte or a UTF-8 sequence) with every control character escaped as Go's %q
 * does (\n, \t, \r, \x1b, \x7f; C1 controls \u0080-\u009f; bytes that are not UTF-8 as \xNN),
 * so a message is one line and input cannot drive the terminal. Printable text, UTF-8 included,
 * is kept. Writes at most 6 bytes to out (no NUL); returns their count, *used the bytes of s. */
static size_t escape_unit(const unsigned char *p, char out[6], size_t *used) {
    return kp_escape_unit(p, out, used); /* the tables' rule too (render/emit.c) */
}

static void put_escaped(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        char out[6];
        size_t used, n = escape_unit(p, out, &used);
        fwrite(out, 1, n, stderr);
        p += used;
    }
}

/* s escaped as put_escaped does, into dst (cut, whole units only, and NUL-terminated). */
static void escape_to(char *dst, size_t cap, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0;
    while (*p) {
        char out[6];
        size_t used, n = escape_unit(p, out, &used);
        if (len + n + 1 > cap) break;
        memcpy(dst + len, out, n);
        len += n;
        p += used;
    }
    dst[len] = 0;
}

void kp_cli_eprintf(const char *fmt, ...) {
    char buf[8192]; /* no allocation: a message is printed even when memory ran out */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= 0) put_escaped(buf);
    if (n >= (int)sizeof buf) fputs("...", stderr);
    fputc('\n', stderr);
}

int kp_cli_usage_hint(const char *cmd, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kp_cli_eprintf("kprio %s: %s", cmd, msg);
    kp_cli_eprintf("Run 'kprio %s --help' for usage.", cmd);
    return KP_EXIT_USAGE;
}

int kp_cli_close_stdout(int rc) {
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (!bad) return rc;
    kp_cli_eprintf("kprio: write error: %s", strerror(e ? e : EIO));
    return KP_EXIT_ERROR;
}

bool kp_cli_compat_ok(const char *v) {
    /* the syntax the library accepts (kp_sched_options.compat): [v]1.MINOR[.PATCH] */
    if (*v == 'v') v++;
    if (strncmp(v, "1.", 2) != 0 || !isdigit((unsigned char)v[2])) return false;
    v += 2;
    int digits = 0;
    while (isdigit((unsigned char)*v)) v++, digits++;
    return digits <= 3 && (*v == 0 || *v == '.');
}

/* ---------------------------------------------------------------- a pod by name */

/* Levenshtein distance of a and b, or more than `cap` (then cap + 1) without finishing. */
static size_t edit_distance(const char *a, const char *b, size_t cap, size_t *row) {
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > cap) return cap + 1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v) v = up + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best) best = v;
        }
        if (best > cap) return cap + 1;
    }
    return row[lb];
}

/* The pod to suggest for a NAMESPACE/NAME that is not in the input: the same name in another
 * namespace (first in load order), else the closest NAMESPACE/NAME by edit distance (at most a
 * third of its length, at least 2; ties: first in load order). -1 when none is close. */
static kp_index closest_pod(const kp_cluster *cl, const char *ref, const char *name) {
    size_t n = kp_cluster_pod_count(cl);
    for (size_t i = 0; i < n; i++)
        if (strcmp(kp_cluster_pod_name(cl, (kp_index)i), name) == 0) return (kp_index)i;
    size_t len = strlen(ref), cap = len / 3 > 2 ? len / 3 : 2;
    size_t *row = kp_malloc((len + cap + 2) * sizeof *row);
    char *buf = kp_malloc(len + cap + 2);
    kp_index best = -1;
    for (size_t i = 0; row && buf && i < n; i++) {
        const char *ns = kp_cluster_pod_namespace(cl, (kp_index)i);
        const char *pn = kp_cluster_pod_name(cl, (kp_index)i);
        size_t nl = strlen(ns), pl = strlen(pn);
        if (nl + 1 + pl > len + cap) continue; /* too far by length alone */
        snprintf(buf, len + cap + 2, "%s/%s", ns, pn);
        size_t d = edit_distance(ref, buf, cap, row);
        if (d <= cap) best = (kp_index)i, cap = d ? d - 1 : 0;
        if (d == 0) break;
    }
    kp_free(row);
    kp_free(buf);
    return best;
}

kp_index kp_cli_find_pod_or_hint(const kp_cluster *cl, const char *target, const char *cmd) {
    size_t len = strlen(target) + sizeof "default/";
    char *ref = kp_malloc(len);
    if (!ref) {
        kp_cli_print_status(KP_ENOMEM);
        return -1;
    }
    snprintf(ref, len, "%s%s", strchr(target, '/') ? "" : "default/", target);
    kp_index pod = kp_cluster_find_pod(cl, ref);
    if (pod < 0) {
        kp_index near = closest_pod(cl, ref, strchr(ref, '/') + 1);
        if (near < 0) kp_cli_eprintf("kprio: %s: no pod %s in the input", cmd, ref);
        else
            kp_cli_eprintf("kprio: %s: no pod %s in the input; did you mean %s/%s?", cmd, ref,
                           kp_cluster_pod_namespace(cl, near), kp_cluster_pod_name(cl, near));
    }
    kp_free(ref);
    return pod;
}

/* ---- kubectl's habits on output: -n, -A, -l, --sort-by (render/view.h) ---- */

/* "-xVAL" or "-x VAL" for a short option x, "--long VAL" / "--long=VAL": the value, NULL when argv
 * is not this option; *bad after a usage error (missing value). */
static const char *short_or_long(int argc, char **argv, int *i, const char *cmd, char x,
                                 const char *lng, bool *bad) {
    const char *a = argv[*i];
    *bad = false;
    if (a[0] == '-' && a[1] == x && a[2]) return a + 2 + (a[2] == '=');
    if ((a[0] == '-' && a[1] == x && !a[2]) || kp_cli_is_opt(a, lng)) {
        const char *v = kp_cli_optval(argc, argv, i, cmd);
        *bad = !v;
        return v;
    }
    return NULL;
}

int kp_cli_view_arg(kp_cli_common *c, int argc, char **argv, int *i, const char *cmd) {
    const char *a = argv[*i], *v;
    bool bad;
    if (strcmp(a, "-A") == 0 || strcmp(a, "--all-namespaces") == 0) {
        c->all_ns = true;
        return 1;
    }
    if ((v = short_or_long(argc, argv, i, cmd, 'n', "--namespace", &bad)) || bad) {
        if (bad) return -1;
        if (!*v) return kp_cli_usage_hint(cmd, "-n: the namespace is empty"), -1;
        c->ns = v;
        return 1;
    }
    if ((v = short_or_long(argc, argv, i, cmd, 'l', "--selector", &bad)) || bad) {
        if (bad) return -1;
        c->selector = v;
        return 1;
    }
    if (kp_cli_is_opt(a, "--sort-by")) {
        if (!(v = kp_cli_optval(argc, argv, i, cmd))) return -1;
        c->sort_by = v;
        return 1;
    }
    return 0;
}

/* kubectl's --sort-by takes a JSONPath ("{.metadata.name}", ".spec.priority"); the tables here
 * are not objects, so the paths users type most are read as the column that shows them. */
static const struct {
    const char *path, *columns[4];
} sort_paths[] = {
    {".metadata.name", {"POD", "NAME", "OBJECT", "NODE"}},
    {".metadata.namespace", {"NAMESPACE", "POD", "PDB"}},
    {".spec.priority", {"PRIORITY", "VALUE"}},
    {".spec.nodeName", {"NODE"}},
    {".status.phase", {"OUTCOME"}},
    {".lastTimestamp", {"TIME"}},
    {".metadata.creationTimestamp", {"TIME"}},
    {".reason", {"REASON"}},
    {".type", {"TYPE"}},
};

static const char *find_column(const char *key, const char *const *columns, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(key, columns[i]) == 0) return columns[i];
    return NULL;
}

int kp_cli_view_check(kp_cli_common *c, const char *cmd, const char *const *columns, size_t n) {
    if (c->all_ns) c->ns = NULL; /* -A wins, as kubectl's */
    if (c->selector) {
        kp_error err;
        kp_error_clear(&err);
        kp_status st = kp_selector_parse(c->selector, &c->sel, &err);
        if (st == KP_ENOMEM) return kp_cli_print_status(st);
        if (st != KP_OK) {
            kp_cli_eprintf("kprio %s: -l: %s", cmd, err.msg);
            return KP_EXIT_USAGE;
        }
    }
    if (!c->sort_by) return KP_EXIT_OK;
    char key[128];
    const char *k = c->sort_by;
    size_t len = strlen(k);
    if (len >= 2 && k[0] == '{' && k[len - 1] == '}') k++, len -= 2; /* {.metadata.name} */
    snprintf(key, sizeof key, "%.*s", (int)len, k);
    const char *col = key[0] == '.' ? NULL : find_column(key, columns, n);
    for (size_t i = 0; !col && key[0] == '.' && i < sizeof sort_paths / sizeof sort_paths[0]; i++)
        for (size_t j = 0; !col && strcmp(key, sort_paths[i].path) == 0 && j < 4; j++)
            if (sort_paths[i].columns[j]) col = find_column(sort_paths[i].columns[j], columns, n);
    if (col) {
        c->sort_by = col;
        return KP_EXIT_OK;
    }
    char list[512];
    size_t off = 0;
    list[0] = 0;
    for (size_t i = 0; i < n && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", columns[i]);
    kp_cli_eprintf("kprio %s: --sort-by: no column \"%s\" in the tables of %s (columns: %s)", cmd,
                   c->sort_by, cmd, list);
    return KP_EXIT_USAGE;
}

void kp_cli_view_begin(const kp_cli_common *c, const kp_cluster *cl, bool absolute) {
    kp_view v = {c->ns, c->sel, cl, absolute};
    kp_view_set(&v);
    kp_table_set_sort_by(c->sort_by);
}
