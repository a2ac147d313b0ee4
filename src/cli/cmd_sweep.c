/* kprio sweep: every run of a Sweep file's matrix (docs/reference.md "kprio sweep") on local
 * worker processes (base/workers.h), one shard of them (--shard I/N: a pod of the Indexed Job
 * --emit-job writes), or the shards merged (`kprio sweep merge`). Every way ends the same: the
 * runs' SweepShard document read back (kp_sweep_result_load_buffer) and rendered, so a local
 * sweep and the merge of its shards print the same bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/workers.h"
#include "cli/cli.h"
#include "cli/sweep.h"
#include "render/render_sweep.h"

static const char *USAGE =
    "kprio sweep -f SWEEP.yaml [-j N] [-o table|json|csv] [--html FILE] [--progress]\n"
    "            [--shard I/N | --shard-from-env N] [--shard-out FILE]\n"
    "       kprio sweep -f SWEEP.yaml --emit-job --image IMAGE [--shards N] [--parallelism P]\n"
    "            [--name NAME] [--inputs-claim PVC] [--results-claim PVC]\n"
    "       kprio sweep merge SHARD... [-o table|json|csv] [--html FILE]";

static const char *HELP =
    "Runs every combination of a Sweep file's variables (seeds, numbers substituted into a\n"
    "scenario template as ${NAME}, scenario files, scheduler and kubelet configurations) as\n"
    "`kprio simulate` runs one, on worker processes, and prints one row per run and the\n"
    "aggregates per variable value (mean, p50, p95). Same inputs, same output, whatever -j.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE     the Sweep file (kind: Sweep, apiVersion kprio/v1alpha1)\n"
    "  -j, --jobs N            worker processes (default: the machine's cores)\n"
    "  -o table|json|csv       output format (default table)\n"
    "  --html FILE             write an HTML page: each figure against each variable\n"
    "  --progress              a progress line on stderr (default: when stderr is a terminal)\n"
    "  --shard I/N             only the runs r with r % N == I; writes their SweepShard\n"
    "                          document (I may be $JOB_COMPLETION_INDEX, read from the\n"
    "                          environment)\n"
    "  --shard-from-env N      --shard $JOB_COMPLETION_INDEX/N\n"
    "  --shard-out FILE        where the shard goes (default: standard output)\n"
    "  --emit-job              write a ConfigMap with the inputs and an Indexed Job (batch/v1)\n"
    "                          whose pod I runs --shard I/N (YAML on standard output)\n"
    "  --image IMAGE           the Job's container image (built from the Containerfile)\n"
    "  --shards N              the Job's completions (default 4)\n"
    "  --parallelism P         pods at a time (default: the shards)\n"
    "  --name NAME             the Job's and the ConfigMap's name (default: the sweep's)\n"
    "  --inputs-claim PVC      mount the inputs from this PersistentVolumeClaim (the Sweep\n"
    "                          file's directory) instead of a ConfigMap\n"
    "  --results-claim PVC     each pod writes its shard to this claim (shard-I.json) instead\n"
    "                          of its log\n"
    "\n"
    "Exit status: 0 answered (a failed run is a row with its error), 1 bad input or a runtime\n"
    "error, 2 usage error.\n";

typedef struct {
    const char *file, *html, *shard_out;
    kp_sweep_outfmt out;
    unsigned jobs;
    bool progress, has_shard, emit_job;
    size_t shard, n_shards;
    kp_cli_sweep_job job;
} sweep_args;

static bool parse_count(const char *v, unsigned long max, unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-' || n < 1 || n > max) return false;
    *out = n;
    return true;
}

/* I/N, I a number or $JOB_COMPLETION_INDEX / $(JOB_COMPLETION_INDEX) (from the environment) */
static int shard_arg(sweep_args *a, const char *v) {
    const char *slash = strrchr(v, '/');
    char idx[64];
    unsigned long i = 0, n = 0;
    if (!slash || (size_t)(slash - v) >= sizeof idx || !parse_count(slash + 1, 1000000, &n))
        return kp_cli_usage_error("sweep", USAGE, "--shard: \"%s\" is not I/N (0 <= I < N)", v);
    memcpy(idx, v, (size_t)(slash - v));
    idx[slash - v] = '\0';
    const char *iv = idx;
    if (strcmp(idx, "$JOB_COMPLETION_INDEX") == 0 || strcmp(idx, "$(JOB_COMPLETION_INDEX)") == 0 ||
        strcmp(idx, "${JOB_COMPLETION_INDEX}") == 0) {
        iv = getenv("JOB_COMPLETION_INDEX");
        if (!iv)
            return kp_cli_usage_error("sweep", USAGE,
                                      "--shard: JOB_COMPLETION_INDEX is not set (an Indexed "
                                      "Job's pods have it)");
    }
    if (strcmp(iv, "0") == 0) i = 0;
    else if (!parse_count(iv, n - 1, &i))
        return kp_cli_usage_error(
            "sweep", USAGE, "--shard: index \"%s\" is not an integer from 0 to %lu", iv, n - 1);
    a->shard = i;
    a->n_shards = n;
    a->has_shard = true;
    return KP_EXIT_OK;
}

static int out_arg(sweep_args *a, const char *v) {
    if (strcmp(v, "table") == 0) a->out = KP_SWEEP_OUT_TABLE;
    else if (strcmp(v, "json") == 0) a->out = KP_SWEEP_OUT_JSON;
    else if (strcmp(v, "csv") == 0) a->out = KP_SWEEP_OUT_CSV;
    else return kp_cli_usage_error("sweep", USAGE, "-o must be table, json or csv, not \"%s\"", v);
    return KP_EXIT_OK;
}

/* -o V, -oV, --output V, --output=V */
static const char *sweep_opt(int argc, char **argv, int *i, const char *s, const char *l) {
    const char *arg = argv[*i];
    size_t sl = strlen(s);
    if (strncmp(arg, s, sl) == 0 && arg[sl]) return arg + sl;
    if (strcmp(arg, s) == 0 || kp_cli_is_opt(arg, l)) return kp_cli_optval(argc, argv, i, "sweep");
    return NULL;
}

static int parse_job_opt(sweep_args *a, int argc, char **argv, int *i) {
    const char *arg = argv[*i], *v;
    unsigned long n;
    static const char *const names[] = {"--image",         "--name",   "--inputs-claim",
                                        "--results-claim", "--shards", "--parallelism"};
    int k = 0;
    while (k < 6 && !kp_cli_is_opt(arg, names[k])) k++;
    if (k == 6) return 0;
    if (!(v = kp_cli_optval(argc, argv, i, "sweep"))) return -1;
    if (k < 4) {
        const char **dst[] = {&a->job.image, &a->job.name, &a->job.inputs_claim,
                              &a->job.results_claim};
        *dst[k] = v;
        return 1;
    }
    if (!parse_count(v, 1000000, &n))
        return kp_cli_usage_error("sweep", USAGE, "%s: \"%s\" is not a positive integer", names[k],
                                  v),
               -1;
    if (k == 4) a->job.shards = (unsigned)n;
    else a->job.parallelism = (unsigned)n;
    return 1;
}

static int parse_args(sweep_args *a, int argc, char **argv, int first, const char ***files,
                      size_t *n_files) {
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i], *v;
        unsigned long n;
        int r = parse_job_opt(a, argc, argv, &i);
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            printf("usage: %s\n\n%s", USAGE, HELP);
            return -1;
        } else if ((v = sweep_opt(argc, argv, &i, "-f", "--filename"))) {
            if (a->file) return kp_cli_usage_error("sweep", USAGE, "one Sweep file (-f) only");
            a->file = v;
        } else if ((v = sweep_opt(argc, argv, &i, "-o", "--output"))) {
            if (out_arg(a, v) != KP_EXIT_OK) return KP_EXIT_USAGE;
        } else if ((v = sweep_opt(argc, argv, &i, "-j", "--jobs"))) {
            if (!parse_count(v, 4096, &n))
                return kp_cli_usage_error("sweep", USAGE, "-j: \"%s\" is not from 1 to 4096", v);
            a->jobs = (unsigned)n;
        } else if (kp_cli_is_opt(arg, "--html")) {
            if (!(a->html = kp_cli_optval(argc, argv, &i, "sweep"))) return KP_EXIT_USAGE;
        } else if (strcmp(arg, "--progress") == 0) {
            a->progress = true;
        } else if (strcmp(arg, "--emit-job") == 0) {
            a->emit_job = true;
        } else if (kp_cli_is_opt(arg, "--shard")) {
            if (!(v = kp_cli_optval(argc, argv, &i, "sweep"))) return KP_EXIT_USAGE;
            if (shard_arg(a, v) != KP_EXIT_OK) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--shard-from-env")) {
            char buf[96];
            if (!(v = kp_cli_optval(argc, argv, &i, "sweep"))) return KP_EXIT_USAGE;
            snprintf(buf, sizeof buf, "$JOB_COMPLETION_INDEX/%s", v);
            if (shard_arg(a, buf) != KP_EXIT_OK) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--shard-out")) {
            if (!(a->shard_out = kp_cli_optval(argc, argv, &i, "sweep"))) return KP_EXIT_USAGE;
        } else if (files && arg[0] != '-') {
            (*files)[(*n_files)++] = arg; /* merge's shards (room for argc) */
        } else if (!v && (strcmp(arg, "-f") == 0 || strcmp(arg, "-o") == 0 ||
                          strcmp(arg, "-j") == 0 || kp_cli_is_opt(arg, "--filename") ||
                          kp_cli_is_opt(arg, "--output") || kp_cli_is_opt(arg, "--jobs"))) {
            return KP_EXIT_USAGE; /* (its missing value was reported) */
        } else {
            return kp_cli_usage_error("sweep", USAGE, "unknown option \"%s\"", arg);
        }
    }
    return KP_EXIT_OK;
}

/* ---------------------------------------------------------------- the runs */

typedef struct {
    const kp_sweep *sw;
    kp_sweep_row *rows; /* by position in the shard */
    size_t n_shards, done, failed, n_tasks;
    bool progress, tty;
} run_ctx;

/* In a worker: 'F' and the KP_FIG_COUNT figures, or 'E' and the message. */
static kp_status work(void *vctx, size_t run, kp__buf *out) {
    const run_ctx *c = vctx;
    int64_t figs[KP_FIG_COUNT];
    char msg[1024];
    if (kp_cli_sweep_run(c->sw, run, figs, msg, sizeof msg)) {
        if (!kp__buf_putc(out, 'F') || !kp__buf_append(out, figs, sizeof figs)) return KP_ENOMEM;
    } else if (!kp__buf_putc(out, 'E') || !kp__buf_puts(out, msg)) {
        return KP_ENOMEM;
    }
    return KP_OK;
}

static void progress(run_ctx *c) {
    if (!c->progress) return;
    char failed[48] = "";
    if (c->failed) snprintf(failed, sizeof failed, ", %zu failed", c->failed);
    /* a terminal: one line rewritten in place; else one line per run */
    fprintf(stderr, "%skprio sweep: %zu/%zu runs%s%s", c->tty ? "\r" : "", c->done, c->n_tasks,
            failed, c->tty ? "\x1b[K" : "\n");
    if (c->tty && c->done == c->n_tasks) fputc('\n', stderr);
    fflush(stderr);
}

/* In the parent: the row of task `run` from its worker's message (or the worker's failure). */
static kp_status done(void *vctx, size_t run, const char *res, size_t len, const char *failure) {
    run_ctx *c = vctx;
    kp_sweep_row *row = &c->rows[run / c->n_shards];
    row->run = run;
    int64_t *figs = NULL;
    char *msg = NULL;
    if (failure || len < 1) msg = kp_strdup(failure ? failure : "the worker sent nothing");
    else if (res[0] == 'E') {
        if ((msg = kp_malloc(len))) memcpy(msg, res + 1, len - 1), msg[len - 1] = '\0';
    } else if (res[0] == 'F' && len == 1 + KP_FIG_COUNT * sizeof *figs) {
        if ((figs = kp_malloc(KP_FIG_COUNT * sizeof *figs))) memcpy(figs, res + 1, len - 1);
    } else msg = kp_strdup("the worker sent a malformed result");
    if (!msg && !figs) return KP_ENOMEM;
    row->error = msg;
    row->figures = figs;
    c->done++;
    c->failed += msg != NULL;
    progress(c);
    return KP_OK;
}

static void rows_free(kp_sweep_row *rows, size_t n) {
    for (size_t i = 0; rows && i < n; i++) {
        kp_free((void *)rows[i].error);
        kp_free((void *)rows[i].figures);
    }
    kp_free(rows);
}

/* The shard's runs on the workers, written as its SweepShard document to out. */
static int run_shard(const sweep_args *a, const kp_sweep *sw, kp__buf *out) {
    size_t n_shards = a->has_shard ? a->n_shards : 1, shard = a->has_shard ? a->shard : 0;
    size_t n = shard < sw->n_runs ? (sw->n_runs - shard + n_shards - 1) / n_shards : 0;
    size_t *tasks = kp_calloc(n ? n : 1, sizeof *tasks);
    run_ctx c = {sw, kp_calloc(n ? n : 1, sizeof *c.rows), n_shards, 0, 0, n, false, false};
    c.tty = isatty(2) != 0;
    c.progress = a->progress || c.tty;
    if (!tasks || !c.rows) {
        kp_free(tasks);
        kp_free(c.rows);
        return kp_cli_print_status(KP_ENOMEM);
    }
    for (size_t i = 0; i < n; i++) tasks[i] = shard + i * n_shards;
    unsigned jobs = a->jobs;
    if (!jobs) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 ? (unsigned)cores : 1;
    }
    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_OK;
    kp_status st = kp__workers_run(tasks, n, jobs, work, done, &c, &err);
    if (st != KP_OK) rc = kp_cli_print_error(&err);
    else if (kp_render_sweep_shard(out, sw, shard, n_shards, c.rows, n) != KP_OK)
        rc = kp_cli_print_status(KP_ENOMEM);
    if (rc == KP_EXIT_OK && c.failed)
        kp_cli_eprintf("kprio sweep: %zu of %zu runs failed (their rows say why)", c.failed, n);
    rows_free(c.rows, n);
    kp_free(tasks);
    return rc;
}

/* ---------------------------------------------------------------- output */

static kp_status fill_html(FILE *f, void *ctx) { return kp_render_sweep_html(f, ctx); }

static int render(const sweep_args *a, const kp_sweep_result *r) {
    kp_error err;
    kp_error_clear(&err);
    if (a->html && kp__file_write(a->html, fill_html, (void *)r, &err) != KP_OK)
        return kp_cli_print_error(&err);
    kp_status st = kp_render_sweep(stdout, r, a->out);
    return st == KP_OK ? KP_EXIT_OK : kp_cli_print_status(st);
}

static kp_status fill_buf(FILE *f, void *ctx) {
    const kp__buf *b = ctx;
    return fwrite(b->p, 1, b->len, f) == b->len ? KP_OK : KP_EIO;
}

static int run_sweep(sweep_args *a) {
    kp_sweep *sw = NULL;
    kp_sweep_result *res = NULL;
    kp__buf doc;
    kp__buf_init(&doc);
    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_OK;
    if (kp_sweep_load_path(a->file, &sw, &err) != KP_OK) return kp_cli_print_error(&err);
    if (a->emit_job) {
        a->job.sweep_path = a->file;
        rc = kp_cli_sweep_emit_job(stdout, sw, &a->job);
        kp_sweep_free(sw);
        return rc;
    }
    if ((rc = run_shard(a, sw, &doc)) != KP_EXIT_OK) goto out;
    if (a->has_shard) { /* the shard's document itself */
        if (!a->shard_out) fwrite(doc.p, 1, doc.len, stdout);
        else if (kp__file_write(a->shard_out, fill_buf, &doc, &err) != KP_OK)
            rc = kp_cli_print_error(&err);
        goto out;
    }
    if (kp_sweep_result_load_buffer(a->file, doc.p, doc.len, &res, &err) != KP_OK) {
        rc = kp_cli_print_error(&err);
        goto out;
    }
    rc = render(a, res);
out:
    kp_sweep_result_free(res);
    kp__buf_free(&doc);
    kp_sweep_free(sw);
    return rc;
}

static int run_merge(sweep_args *a, const char **files, size_t n) {
    if (!n) return kp_cli_usage_error("sweep", USAGE, "merge: no shard file given");
    kp_sweep_result **parts = kp_calloc(n, sizeof *parts), *res = NULL;
    if (!parts) return kp_cli_print_status(KP_ENOMEM);
    kp_error err;
    kp_error_clear(&err);
    int rc = KP_EXIT_OK;
    for (size_t i = 0; i < n && rc == KP_EXIT_OK; i++)
        if (kp_sweep_result_load_path(files[i], &parts[i], &err) != KP_OK)
            rc = kp_cli_print_error(&err);
    if (rc == KP_EXIT_OK &&
        kp_sweep_result_merge((const kp_sweep_result *const *)parts, files, n, &res, &err) != KP_OK)
        rc = kp_cli_print_error(&err);
    if (rc == KP_EXIT_OK) rc = render(a, res);
    kp_sweep_result_free(res);
    for (size_t i = 0; i < n; i++) kp_sweep_result_free(parts[i]);
    kp_free(parts);
    return rc;
}

int kp_cmd_sweep(int argc, char **argv) {
    sweep_args a;
    memset(&a, 0, sizeof a);
    bool merge = argc > 1 && strcmp(argv[1], "merge") == 0;
    const char **files = merge ? kp_calloc((size_t)argc + 1, sizeof *files) : NULL;
    size_t n_files = 0;
    if (merge && !files) return kp_cli_print_status(KP_ENOMEM);
    int rc = parse_args(&a, argc, argv, merge ? 2 : 1, merge ? &files : NULL, &n_files);
    if (rc == KP_EXIT_OK) {
        if (merge && (a.file || a.has_shard || a.emit_job || a.shard_out))
            rc = kp_cli_usage_error("sweep", USAGE, "merge takes shard files, -o and --html only");
        else if (!merge && !a.file)
            rc = kp_cli_usage_error("sweep", USAGE, "no Sweep file: give -f SWEEP.yaml");
        else if (a.has_shard && (a.html || a.out != KP_SWEEP_OUT_TABLE || a.emit_job))
            rc = kp_cli_usage_error("sweep", USAGE,
                                    "--shard writes a SweepShard document: no -o, --html or "
                                    "--emit-job (merge the shards for those)");
        else if (a.shard_out && !a.has_shard)
            rc = kp_cli_usage_error("sweep", USAGE, "--shard-out needs --shard");
        else if (a.emit_job && !a.job.image)
            rc = kp_cli_usage_error("sweep", USAGE, "--emit-job needs --image IMAGE");
        else if (!a.emit_job && (a.job.image || a.job.shards || a.job.name))
            rc = kp_cli_usage_error("sweep", USAGE,
                                    "--image, --shards, --name ... go with --emit-job");
    }
    if (rc == KP_EXIT_OK) rc = merge ? run_merge(&a, files, n_files) : run_sweep(&a);
    kp_free(files);
    return rc < 0 ? KP_EXIT_OK : rc;
}
