/* Shared CLI plumbing: option parsing, loading with progress, error printing. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

bool kp_cli_is_opt(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

const char *kp_cli_optval(int argc, char **argv, int *i, const char *cmd) {
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    if (arg[0] == '-' && arg[1] == '-' && eq) return eq + 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "kprio %s: option %s needs a value\nRun 'kprio %s --help' for usage.\n",
                cmd, arg, cmd);
        return NULL;
    }
    return argv[++*i];
}

void kp_cli_common_init(kp_cli_common *c) {
    memset(c, 0, sizeof *c);
    c->files = c->files_inline;
    c->cap_files = (int)(sizeof c->files_inline / sizeof c->files_inline[0]);
}

void kp_cli_common_free(kp_cli_common *c) {
    if (c->files != c->files_inline) kp_free((void *)c->files);
    kp_cli_common_init(c);
}

/* Appends a -f value, growing the list (zeroed structs start on files_inline). */
static bool add_file(kp_cli_common *c, const char *val) {
    if (!c->files) {
        c->files = c->files_inline;
        c->cap_files = (int)(sizeof c->files_inline / sizeof c->files_inline[0]);
    }
    if (c->n_files == c->cap_files) {
        if (c->cap_files > (1 << 28)) return false;
        int cap = c->cap_files * 2;
        const char **nf = kp_malloc((size_t)cap * sizeof *nf);
        if (!nf) return false;
        memcpy(nf, c->files, (size_t)c->n_files * sizeof *nf);
        if (c->files != c->files_inline) kp_free((void *)c->files);
        c->files = nf;
        c->cap_files = cap;
    }
    c->files[c->n_files++] = val;
    return true;
}

int kp_cli_common_arg(kp_cli_common *c, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    const char *val = NULL;
    if (strcmp(a, "-R") == 0 || strcmp(a, "--recursive") == 0) {
        c->recursive = true;
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
        if (!add_file(c, val)) {
            kp_cli_print_status(KP_ENOMEM);
            return -1;
        }
        return 1;
    }
    if (!kp_outfmt_parse(val, &c->out)) {
        fprintf(stderr, "kprio %s: unknown output format \"%s\" (use table, json or yaml)\n",
                argv[0], val);
        return -1;
    }
    return 1;
}

int kp_cli_print_error(const kp_error *err) {
    if (err->code == KP_ENOMEM) return kp_cli_print_status(KP_ENOMEM);
    if (err->source[0]) fprintf(stderr, "kprio: %s: %s\n", err->source, err->msg);
    else fprintf(stderr, "kprio: %s\n", err->msg);
    return KP_EXIT_ERROR;
}

int kp_cli_print_status(kp_status st) {
    fprintf(stderr, "kprio: %s\n", kp_status_str(st));
    return KP_EXIT_ERROR;
}

int kp_cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kprio %s: %s\nusage: %s\n", cmd, buf, usage);
    return KP_EXIT_USAGE;
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

/* Progress line on a terminal once loading has taken over a second. */
static void on_progress(void *ctx, const char *source, uint64_t done, uint64_t total) {
    load_progress *lp = ctx;
    if (!lp->tty || now_s() - lp->t0 <= 1.0) return;
    fprintf(stderr, "\rkprio: loading %s (file %d/%d): %.0f of %.0f MB, %.0f MB in all...", source,
            lp->file + 1, lp->n_files, (double)done / 1e6, (double)total / 1e6,
            (double)(lp->before + done) / 1e6);
    lp->shown = true;
}

kp_cluster *kp_cli_load(const kp_cli_common *c) {
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        kp_cli_print_status(KP_ENOMEM);
        return NULL;
    }
    kp_error err;
    kp_error_clear(&err);
    load_progress lp = {now_s(), isatty(2) != 0, false, 0, c->n_files, 0};
    kp_cluster_set_progress(cl, on_progress, &lp);
    for (int i = 0; i < c->n_files; i++) {
        lp.file = i;
        lp.before = kp_cluster_bytes_loaded(cl);
        if (kp_cluster_load_path(cl, c->files[i], c->recursive, &err) != KP_OK) {
            if (lp.shown) fputc('\n', stderr);
            if (!err.source[0]) snprintf(err.source, sizeof err.source, "%s", c->files[i]);
            kp_cli_print_error(&err);
            kp_cluster_free(cl);
            return NULL;
        }
    }
    kp_cluster_set_progress(cl, NULL, NULL);
    if (kp_cluster_finalize(cl, &err) != KP_OK) {
        if (lp.shown) fputc('\n', stderr);
        kp_cli_print_error(&err);
        kp_cluster_free(cl);
        return NULL;
    }
    if (lp.shown || (lp.tty && now_s() - lp.t0 > 1.0))
        fprintf(stderr, "\rkprio: loaded %.0f MB, %zu nodes, %zu pods in %.1f s\033[K\n",
                (double)kp_cluster_bytes_loaded(cl) / 1e6, kp_cluster_node_count(cl),
                kp_cluster_pod_count(cl), now_s() - lp.t0);
    for (size_t i = 0; i < kp_cluster_warning_count(cl); i++)
        fprintf(stderr, "kprio: warning: %s\n", kp_cluster_warning(cl, i));
    return cl;
}
