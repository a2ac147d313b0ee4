/* `kprio sweep` (src/cli/cmd_sweep*.c, src/io/decode_sweep*.c, src/base/workers.c), compiled
 * into the test: the Sweep file's strict decoding and its ${NAME} substitution; the worker pool
 * (a worker killed mid-task costs that task only); shards run through the command's own entry
 * point and merged give the local run's bytes; the Indexed Job --emit-job writes checked
 * against batch/v1's Job schema (the fields the API server requires, their types,
 * completionMode, the index's environment variable, the command). The sweep is
 * examples/sweep/sweep.yaml: four runs of a two-node cluster. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/workers.h"
#include "cli_capture.h"
#include "harness.h"
#include "io/tree.h"

#include "cli/cmd_sweep.c"
#include "cli/cmd_sweep_job.c"
#include "cli/cmd_sweep_run.c"
#include "cli/common.c"

#define EX "examples/sweep/"
#define LAYOUTS "tests/golden/sweep-priority-layouts/sweep.yaml"
#define POOLS "tests/golden/sweep-kubelet-pools/sweep.yaml"
static char dir[] = "/tmp/kprio-test-sweep-XXXXXX";
static char out[1 << 17], errb[4096];

static int sweep(int argc, char **argv) {
    return kt_run_captured(kp_cmd_sweep, argc, argv, out, sizeof out, errb, sizeof errb);
}

/* the error of a Sweep given as text (relative paths against examples/sweep/) */
static const char *load_error(const char *text) {
    static kp_error err;
    kp_error_clear(&err);
    kp_sweep *sw = NULL;
    kp_status st = kp_sweep_load_buffer("s.yaml", text, strlen(text), "examples/sweep", &sw, &err);
    kp_sweep_free(sw);
    static char line[700];
    if (st == KP_OK) return "OK";
    snprintf(line, sizeof line, "%.180s: %.500s", err.source, err.msg);
    return line;
}

#define HEAD "apiVersion: kprio/v1alpha1\nkind: Sweep\nbase: {snapshot: [cluster.yaml]"

KT_TEST(decoder_errors_name_file_and_field) {
    KT_CHECK_STR(load_error(HEAD "}\n"), "OK");
    KT_CHECK_STR(load_error("apiVersion: kprio/v1alpha1\nkind: Swep\n"),
                 "s.yaml: kind: expected Sweep, got \"Swep\"");
    KT_CHECK_STR(load_error(HEAD "}\nbogus: 1\n"), "s.yaml: bogus: unknown field");
    KT_CHECK_STR(load_error("apiVersion: kprio/v1alpha1\nkind: Sweep\nbase: {}\n"),
                 "s.yaml: base.snapshot: required: a file or directory, or a list of them (as -f)");
    KT_CHECK_STR(load_error(HEAD "}\nmatrix:\n- {name: s, seeds: [1, x]}\n"),
                 "s.yaml: matrix[0].seeds[1]: expected an integer from 0 to 18446744073709551615");
    KT_CHECK_STR(load_error(HEAD "}\nmatrix:\n- {name: s, seeds: [1], values: [2]}\n"),
                 "s.yaml: matrix[0].values: a variable has one kind (seeds given too)");
    KT_CHECK_STR(load_error(HEAD "}\nmatrix:\n- {name: a, seeds: [1]}\n- {name: a, seeds: [2]}\n"),
                 "s.yaml: matrix[1].name: \"a\" is already matrix[0]'s name");
    KT_CHECK_STR(load_error(HEAD "}\nfigures: [scheduled, nope]\n"),
                 "s.yaml: figures[1]: \"nope\" names no figure (docs/reference.md \"kprio sweep\" "
                 "lists them)");
    KT_CHECK_STR(load_error(HEAD "}\nmatrix:\n- {name: num, values: [1, 1.5, abc]}\n"),
                 "s.yaml: matrix[0].values[2]: expected a number (digits, an optional sign and "
                 "fraction)");
    /* a numeric variable no scenario names; a ${NAME} no variable has */
    KT_CHECK_STR(load_error(HEAD ", scenario: scenario.yaml}\nmatrix:\n"
                                 "- {name: replicas, values: [1]}\n- {name: x, values: [2]}\n"),
                 "s.yaml: matrix[1].name: variable \"x\" appears in no scenario (write ${x} in "
                 "base.scenario or in the files of a scenarios variable)");
    KT_CHECK_STR(load_error(HEAD ", scenario: scenario.yaml}\n"),
                 "examples/sweep/scenario.yaml: line 1: ${replicas}: no numeric variable of that "
                 "name in the sweep (matrix[].values)");
    /* a priorityLayouts variable's files are decoded with the Sweep: the variable's field, then
     * the layout file and what is wrong with it */
    KT_CHECK_STR(load_error(HEAD "}\nmatrix:\n- {name: l, priorityLayouts: [nope.yaml]}\n"),
                 "s.yaml: matrix[0].priorityLayouts[0]: examples/sweep/nope.yaml: cannot open: No "
                 "such file or directory");
    KT_CHECK_STR(
        load_error(HEAD "}\nmatrix:\n- {name: l, priorityLayouts: ["
                        "../../tests/golden/sweep-priority-layouts/layout-web-low.yaml, "
                        "cluster.yaml]}\n"),
        "s.yaml: matrix[0].priorityLayouts[1]: examples/sweep/cluster.yaml: kind: expected "
        "PriorityLayout, got \"PriorityClass\"");
    /* one million runs is the limit */
    KT_CHECK_CONTAINS(
        load_error(HEAD "}\nmatrix:\n- {name: a, values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                        "- {name: b, values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                        "- {name: c, values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                        "- {name: d, values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                        "- {name: e, values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                        "- {name: f, values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                        "- {name: g, values: [1, 2]}\n"),
        "more than 1000000 runs in the matrix (KP_SWEEP_MAX_RUNS");
}

KT_TEST(substitution) {
    kp_error err;
    kp_error_clear(&err);
    kp_sweep *sw = NULL;
    const char *text = HEAD ", scenario: scenario.yaml}\nmatrix:\n- {name: replicas, values: [2, "
                            "4.5]}\n- {name: s, seeds: [7, 8]}\nfigures: ['pendingTime.*']\n";
    KT_CHECK_INT(kp_sweep_load_buffer("s.yaml", text, strlen(text), "examples/sweep", &sw, &err),
                 KP_OK);
    if (!sw) return;
    KT_CHECK_INT(sw->n_runs, 4);
    KT_CHECK_INT(sw->n_figures, 4);
    KT_CHECK_INT(sw->figures[0], KP_FIG_PENDING_P50);
    size_t idx[2];
    kp_sweep_run_values(sw, 2, idx); /* the last variable varies fastest */
    KT_CHECK_INT(idx[0], 1);
    KT_CHECK_INT(idx[1], 0);
    const char *t = "a: ${replicas}\nb: $${replicas} $ ${replicas}$\n";
    char *o = NULL;
    size_t ol = 0;
    KT_CHECK_INT(kp_sweep_substitute(sw, idx, "t", t, strlen(t), &o, &ol, &err), KP_OK);
    KT_CHECK_STR(o, "a: 4.5\nb: ${replicas} $ 4.5$\n");
    kp__free(o);
    const char *bad = "x\ny: ${nope}\n";
    KT_CHECK_INT(kp_sweep_substitute(sw, idx, "t", bad, strlen(bad), &o, &ol, &err), KP_EINVAL);
    KT_CHECK_STR(
        err.msg,
        "line 2: ${nope}: no numeric variable of that name in the sweep (matrix[].values)");
    const char *open = "y: ${replicas\n";
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sweep_substitute(sw, idx, "t", open, strlen(open), &o, &ol, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "line 1: an unclosed ${");
    kp_sweep_free(sw);
}

/* ---------------------------------------------------------------- the worker pool */

typedef struct {
    size_t n_ok, n_failed, seen[8];
    char failure[200];
} pool_rec;

static kp_status square(void *ctx, size_t task, kp__buf *b) {
    (void)ctx;
    if (task == 5) raise(SIGKILL); /* a worker dying mid-task */
    return kp__buf_printf(b, "%zu", task * task) ? KP_OK : KP_ENOMEM;
}

static kp_status record(void *ctx, size_t task, const char *res, size_t len, const char *failure) {
    pool_rec *r = ctx;
    r->seen[task]++;
    if (failure) {
        r->n_failed++;
        snprintf(r->failure, sizeof r->failure, "%s", failure);
        return KP_OK;
    }
    char want[32];
    snprintf(want, sizeof want, "%zu", task * task);
    if (strlen(want) == len && memcmp(want, res, len) == 0) r->n_ok++;
    return KP_OK;
}

KT_TEST(worker_death_costs_its_task_only) {
    size_t tasks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    pool_rec r;
    memset(&r, 0, sizeof r);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp__workers_run(tasks, 8, 3, square, record, &r, &err), KP_OK);
    KT_CHECK_INT(r.n_ok, 7);
    KT_CHECK_INT(r.n_failed, 1);
    for (int i = 0; i < 8; i++) KT_CHECK_INT(r.seen[i], 1);
    KT_CHECK_CONTAINS(r.failure, "killed by signal 9");
}

/* ---------------------------------------------------------------- shards and merge */

KT_TEST(shards_merge_to_the_local_bytes) {
    char *local = NULL, *merged = NULL;
    char paths[3][300], *argv[12];
    char html[300];
    snprintf(html, sizeof html, "%s/sweep.html", dir);
    /* (the table's bytes: the user guide's commands, tests/examples.sh) */
    for (int fmt = 1; fmt < 2; fmt++) {
        char *o = fmt ? (char *)"-ojson" : (char *)"-otable";
        argv[0] = (char *)"sweep", argv[1] = (char *)"-f", argv[2] = (char *)EX "sweep.yaml";
        argv[3] = (char *)"-j2", argv[4] = o, argv[5] = (char *)"--progress", argv[6] = NULL;
        KT_CHECK_INT(sweep(6, argv), 0);
        KT_CHECK_STR(errb, "kprio sweep: 1/4 runs\nkprio sweep: 2/4 runs\nkprio sweep: 3/4 runs\n"
                           "kprio sweep: 4/4 runs\n");
        local = strdup(out);
        for (int s = 0; s < 3; s++) {
            char shard[16];
            snprintf(paths[s], sizeof paths[s], "%s/shard-%d.json", dir, s);
            snprintf(shard, sizeof shard, "%d/3", s);
            char *av[] = {(char *)"sweep",   (char *)"-f",  (char *)EX "sweep.yaml",
                          (char *)"--shard", shard,         (char *)"--shard-out",
                          paths[s],          (char *)"-j1", NULL};
            KT_CHECK_INT(sweep(8, av), 0);
            KT_CHECK_STR(out, "");
        }
        /* in any order */
        char *av[] = {(char *)"sweep",
                      (char *)"merge",
                      paths[2],
                      paths[0],
                      paths[1],
                      o,
                      (char *)"--html",
                      html,
                      NULL};
        KT_CHECK_INT(sweep(8, av), 0);
        merged = strdup(out);
        FILE *hf = fopen(html, "r");
        char page[1 << 14] = "";
        size_t hn = hf ? fread(page, 1, sizeof page - 1, hf) : 0;
        page[hn] = '\0';
        if (hf) fclose(hf);
        KT_CHECK_CONTAINS(page, "<svg id=\"fig-2-var-0\""); /* victims by replicas */
        KT_CHECK_CONTAINS(page, "4: mean 2.000, p50 2, p95 2 over 2 run(s)");
        unlink(html);
        KT_CHECK(local && merged && strlen(local) > 200);
        KT_CHECK_STR(merged, local);
        free(local);
        free(merged);
    }
    /* a shard missing, a shard twice: one line each */
    char *av[] = {(char *)"sweep", (char *)"merge", paths[0], paths[2], NULL};
    KT_CHECK_INT(sweep(4, av), 1);
    KT_CHECK_CONTAINS(errb, "shard 1 of 3 is missing");
    char *av2[] = {(char *)"sweep", (char *)"merge", paths[0], paths[1], paths[2], paths[1], NULL};
    KT_CHECK_INT(sweep(6, av2), 1);
    KT_CHECK_CONTAINS(errb, "shard 1: given twice");
    for (int s = 0; s < 3; s++) unlink(paths[s]);
}

/* a priorityLayouts variable (by file name) travels through the shard documents too: the 2
 * layouts x 2 seeds of tests/golden/sweep-priority-layouts, in 2 shards, merge to the local
 * run's bytes */
KT_TEST(shards_merge_a_layout_variable) {
    char *av[] = {(char *)"sweep", (char *)"-f",     (char *)LAYOUTS,
                  (char *)"-j1",   (char *)"-ojson", NULL};
    KT_CHECK_INT(sweep(5, av), 0);
    char *local = strdup(out);
    char paths[2][300];
    for (int s = 0; s < 2; s++) {
        char shard[16];
        snprintf(paths[s], sizeof paths[s], "%s/layout-shard-%d.json", dir, s);
        snprintf(shard, sizeof shard, "%d/2", s);
        char *a[] = {(char *)"sweep",   (char *)"-f",  (char *)LAYOUTS,
                     (char *)"--shard", shard,         (char *)"--shard-out",
                     paths[s],          (char *)"-j1", NULL};
        KT_CHECK_INT(sweep(8, a), 0);
    }
    char *m[] = {(char *)"sweep", (char *)"merge", paths[1], paths[0], (char *)"-ojson", NULL};
    KT_CHECK_INT(sweep(5, m), 0);
    KT_CHECK_CONTAINS(local, "\"priorityLayouts\"");
    KT_CHECK_CONTAINS(local, "layout-web-low.yaml");
    KT_CHECK_STR(out, local);
    free(local);
    for (int s = 0; s < 2; s++) unlink(paths[s]);
    /* --emit-job: the layout files go into the ConfigMap with the other inputs */
    char *j[] = {
        (char *)"sweep", (char *)"-f", (char *)LAYOUTS, (char *)"--emit-job", (char *)"--image",
        (char *)"x:1",   NULL};
    KT_CHECK_INT(sweep(6, j), 0);
    KT_CHECK_CONTAINS(out, "path: \"layout-current.yaml\"");
    KT_CHECK_CONTAINS(out, "path: \"layout-web-low.yaml\"");
}

/* a scenario with a kubelets[] pool: each run reads the pool's KubeletConfiguration (relative to
 * the scenario's directory) as `kprio simulate` does, the same figures in the shards as in the
 * local run (tests/golden/sweep-kubelet-pools: n1's pool rejects one pod at admission, which
 * the other nodes' configuration alone would admit) */
KT_TEST(shards_merge_a_scenario_with_kubelet_pools) {
    char *av[] = {(char *)"sweep", (char *)"-f",     (char *)POOLS,
                  (char *)"-j2",   (char *)"-ojson", NULL};
    KT_CHECK_INT(sweep(5, av), 0);
    char *local = strdup(out);
    KT_CHECK_CONTAINS(local, "\"kubeletRejections\": 1,");
    KT_CHECK(!strstr(local, "\"kubeletRejections\": 0"));
    char paths[2][300];
    for (int s = 0; s < 2; s++) {
        char shard[16];
        snprintf(paths[s], sizeof paths[s], "%s/pools-shard-%d.json", dir, s);
        snprintf(shard, sizeof shard, "%d/2", s);
        char *a[] = {(char *)"sweep",   (char *)"-f",  (char *)POOLS,
                     (char *)"--shard", shard,         (char *)"--shard-out",
                     paths[s],          (char *)"-j1", NULL};
        KT_CHECK_INT(sweep(8, a), 0);
    }
    char *m[] = {(char *)"sweep", (char *)"merge", paths[0], paths[1], (char *)"-ojson", NULL};
    KT_CHECK_INT(sweep(5, m), 0);
    KT_CHECK_STR(out, local);
    free(local);
    for (int s = 0; s < 2; s++) unlink(paths[s]);
}

/* a shard document is decoded strictly */
KT_TEST(shard_decoder) {
    const char *doc =
        "{\"apiVersion\":\"kprio/v1alpha1\",\"kind\":\"SweepShard\",\"sweep\":\"x\",\"runs\":3,"
        "\"shard\":1,\"shards\":2,\"variables\":[{\"name\":\"s\",\"kind\":\"seeds\",\"values\":"
        "[\"1\",\"2\",\"3\"]}],\"figures\":[\"scheduled\"],\"rows\":[\n"
        "{\"run\":1,\"error\":null,\"figures\":[4]}]}\n";
    kp_sweep_result *r = NULL;
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_sweep_result_load_buffer("s.json", doc, strlen(doc), &r, &err), KP_OK);
    if (r) {
        KT_CHECK_INT(r->n_rows, 1);
        KT_CHECK_INT(r->rows[0].figures[0], 4);
    }
    kp_sweep_result_free(r);
    char bad[1024];
    snprintf(bad, sizeof bad, "%s", doc);
    memcpy(strstr(bad, "\"run\":1"), "\"run\":2", 7); /* not shard 1's */
    KT_CHECK_INT(kp_sweep_result_load_buffer("s.json", bad, strlen(bad), &r, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "rows[0].run: expected 1");
}

/* ---------------------------------------------------------------- the Indexed Job */

typedef struct {
    int docs;
    bool config_map, job;
    char cm_name[128], vol_cm[128];
} job_check;

static const kp_tnode *at(const kp_tnode *n, const char *path) { return kp__tree_path(n, path); }

static bool is_str(const kp_tnode *n, const char *want) {
    return n && (n->type == KP_T_STR || n->plain) &&
           (!want || (strlen(want) == n->len && memcmp(n->s, want, n->len) == 0));
}

static bool is_int(const kp_tnode *n, long want) {
    return n && n->type == KP_T_NUM && strtol(n->s, NULL, 10) == want;
}

/* batch/v1 Job: the fields the API server requires and kprio's own (ValidateJob,
 * ValidateJobSpec: an Indexed Job has completions; the pod template's restartPolicy is Never or
 * OnFailure; every container has a name and an image) */
static void check_job(job_check *c, const kp_tnode *o) {
    c->job = true;
    KT_CHECK(is_str(at(o, "metadata.name"), "web-replicas"));
    const kp_tnode *spec = at(o, "spec");
    KT_CHECK(spec && spec->type == KP_T_OBJ);
    KT_CHECK(is_str(at(o, "spec.completionMode"), "Indexed"));
    KT_CHECK(is_int(at(o, "spec.completions"), 3));
    KT_CHECK(is_int(at(o, "spec.parallelism"), 2));
    KT_CHECK(is_str(at(o, "spec.template.spec.restartPolicy"), "Never"));
    const kp_tnode *cs = at(o, "spec.template.spec.containers");
    KT_CHECK(cs && cs->type == KP_T_ARR && cs->n == 1);
    if (!cs || !cs->first) return;
    const kp_tnode *ct = cs->first;
    KT_CHECK(is_str(at(ct, "name"), NULL) && is_str(at(ct, "image"), "registry.example/kprio:1"));
    const kp_tnode *cmd = at(ct, "command");
    KT_CHECK(cmd && cmd->type == KP_T_ARR);
    const char *want[] = {"kprio", "sweep", "-f",      "/sweep/sweep.yaml",
                          "-j",    "1",     "--shard", "$(JOB_COMPLETION_INDEX)/3"};
    size_t i = 0;
    for (const kp_tnode *a = cmd ? cmd->first : NULL; a; a = a->next, i++)
        KT_CHECK(i < 8 && a->type == KP_T_STR && is_str(a, want[i]));
    KT_CHECK_INT(i, 8);
    const kp_tnode *env = at(ct, "env");
    KT_CHECK(env && env->type == KP_T_ARR && env->first);
    if (env && env->first) {
        KT_CHECK(is_str(at(env->first, "name"), "JOB_COMPLETION_INDEX"));
        KT_CHECK(is_str(at(env->first, "valueFrom.fieldRef.fieldPath"),
                        "metadata.annotations['batch.kubernetes.io/job-completion-index']"));
    }
    KT_CHECK(is_str(at(ct, "volumeMounts"), NULL) == false);
    const kp_tnode *vm = at(ct, "volumeMounts");
    KT_CHECK(vm && vm->first && is_str(at(vm->first, "mountPath"), "/sweep"));
    const kp_tnode *vols = at(o, "spec.template.spec.volumes");
    KT_CHECK(vols && vols->first && is_str(at(vols->first, "name"), "inputs"));
    const kp_tnode *cmn = vols && vols->first ? at(vols->first, "configMap.name") : NULL;
    if (cmn) snprintf(c->vol_cm, sizeof c->vol_cm, "%.*s", (int)cmn->len, cmn->s);
    const kp_tnode *items = vols && vols->first ? at(vols->first, "configMap.items") : NULL;
    KT_CHECK(items && items->n == 3 && is_str(at(items->first, "path"), "sweep.yaml"));
}

static kp_status on_obj(void *ctx, const kp_tnode *o, const kp_tdoc *doc, kp_error *err) {
    (void)doc, (void)err;
    job_check *c = ctx;
    c->docs++;
    const kp_tnode *kind = at(o, "kind"), *av = at(o, "apiVersion");
    if (is_str(kind, "ConfigMap")) {
        c->config_map = true;
        KT_CHECK(is_str(av, "v1"));
        const kp_tnode *nm = at(o, "metadata.name"), *data = at(o, "data");
        if (nm) snprintf(c->cm_name, sizeof c->cm_name, "%.*s", (int)nm->len, nm->s);
        KT_CHECK(data && data->type == KP_T_OBJ && data->n == 3);
        for (const kp_tnode *d = data ? data->first : NULL; d; d = d->next)
            KT_CHECK(d->type == KP_T_STR);
    } else if (is_str(kind, "Job")) {
        KT_CHECK(is_str(av, "batch/v1"));
        check_job(c, o);
    } else {
        KT_CHECK(!"an object of another kind");
    }
    return KP_OK;
}

KT_TEST(emit_job_is_a_batch_v1_indexed_job) {
    char *argv[] = {(char *)"sweep",
                    (char *)"-f",
                    (char *)EX "sweep.yaml",
                    (char *)"--emit-job",
                    (char *)"--image",
                    (char *)"registry.example/kprio:1",
                    (char *)"--shards",
                    (char *)"3",
                    (char *)"--parallelism",
                    (char *)"2",
                    NULL};
    KT_CHECK_INT(sweep(10, argv), 0);
    job_check c;
    memset(&c, 0, sizeof c);
    kp_error err;
    kp_error_clear(&err);
    size_t len = strlen(out);
    char *buf = calloc(1, len + 64); /* the parser reads ahead (KP_JSON_PADDING) */
    memcpy(buf, out, len);
    KT_CHECK_INT(kp__tree_parse("job.yaml", buf, len, false, on_obj, &c, &err), KP_OK);
    free(buf);
    KT_CHECK_INT(c.docs, 2);
    KT_CHECK(c.config_map && c.job);
    KT_CHECK_STR(c.vol_cm, c.cm_name);
    /* a path above the Sweep file's directory cannot go in the ConfigMap */
    char path[300];
    snprintf(path, sizeof path, "%s/up.yaml", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("apiVersion: kprio/v1alpha1\nkind: Sweep\nbase: {snapshot: [../x.yaml]}\n", f);
        fclose(f);
    }
    argv[2] = path;
    KT_CHECK_INT(sweep(10, argv), 1);
    KT_CHECK_CONTAINS(errb, "base.snapshot[0]: \"../x.yaml\": a Job's ConfigMap holds only files");
    unlink(path);
}

/* ---------------------------------------------------------------- the Job's ConfigMap, mounted */

#define FILES "tests/golden/sweep-emit-job-files/"

/* The emitted ConfigMap's data and the Job's volume items and command, as a pod gets them. */
typedef struct {
    char *data[16], *key[16], *item_key[16], *item_path[16], *cmd[16];
    size_t n_data, n_items, n_cmd;
} mount_check;

static char *tdup(const kp_tnode *n) {
    char *c = malloc(n->len + 1);
    if (c) memcpy(c, n->s, n->len), c[n->len] = '\0';
    return c;
}

static kp_status on_mount_obj(void *ctx, const kp_tnode *o, const kp_tdoc *doc, kp_error *err) {
    (void)doc, (void)err;
    mount_check *m = ctx;
    if (is_str(at(o, "kind"), "ConfigMap")) {
        for (const kp_tnode *d = at(o, "data")->first; d && m->n_data < 16; d = d->next) {
            m->key[m->n_data] = strndup(d->key, d->key_len);
            m->data[m->n_data++] = tdup(d);
        }
        return KP_OK;
    }
    const kp_tnode *ct = at(o, "spec.template.spec.containers")->first;
    for (const kp_tnode *a = at(ct, "command")->first; a && m->n_cmd < 16; a = a->next)
        m->cmd[m->n_cmd++] = tdup(a);
    const kp_tnode *vol = at(o, "spec.template.spec.volumes")->first;
    for (const kp_tnode *it = at(vol, "configMap.items")->first; it && m->n_items < 16;
         it = it->next) {
        m->item_key[m->n_items] = tdup(at(it, "key"));
        m->item_path[m->n_items++] = tdup(at(it, "path"));
    }
    return KP_OK;
}

/* writes text at root/path, making its directories; the file's path into made[] */
static void put_file(const char *root, const char *path, const char *text, char made[][300],
                     size_t *n_made) {
    char full[300];
    KT_CHECK(strlen(root) + strlen(path) + 2 <= sizeof full);
    snprintf(full, sizeof full, "%.150s/%.140s", root, path);
    for (char *c = full + strlen(root) + 1; (c = strchr(c, '/')); c++) {
        *c = '\0';
        if (mkdir(full, 0755) == 0) snprintf(made[(*n_made)++], 300, "%s", full);
        *c = '/';
    }
    FILE *f = fopen(full, "w");
    KT_CHECK(f != NULL);
    if (f) fputs(text, f), fclose(f);
    snprintf(made[(*n_made)++], 300, "%s", full);
}

/* tests/golden/sweep-emit-job-files: the scenarios name a create file (its name holding
 * ${replicas}) and usage traces, beside them and in a sibling directory. The ConfigMap holds
 * every one of them; written to a directory as the kubelet mounts it (each key at its item's
 * path), the pods' own command lines, run from there, give shards that merge to the local
 * run's bytes. */
KT_TEST(emit_job_config_map_runs_the_shards) {
    char *loc[] = {(char *)"sweep", (char *)"-f",     (char *)FILES "sweep.yaml",
                   (char *)"-j1",   (char *)"-ojson", NULL};
    KT_CHECK_INT(sweep(5, loc), 0);
    char *local = strdup(out);
    char *j[] = {(char *)"sweep",      (char *)"-f",      (char *)FILES "sweep.yaml",
                 (char *)"--emit-job", (char *)"--image", (char *)"x:1",
                 (char *)"--shards",   (char *)"2",       NULL};
    KT_CHECK_INT(sweep(8, j), 0);
    mount_check m;
    memset(&m, 0, sizeof m);
    kp_error err;
    kp_error_clear(&err);
    size_t len = strlen(out);
    char *buf = calloc(1, len + 64);
    memcpy(buf, out, len);
    KT_CHECK_INT(kp__tree_parse("job.yaml", buf, len, false, on_mount_obj, &m, &err), KP_OK);
    free(buf);
    /* every file the runs read, each once */
    const char *want[] = {"sweep.yaml",         "cluster.yaml",       "scen/burst.yaml",
                          "scen/steady.yaml",   "objects/web-2.yaml", "scen/batch-memory.csv",
                          "objects/web-3.yaml", "traces/steady.csv"};
    KT_CHECK_INT(m.n_items, 8);
    KT_CHECK_INT(m.n_data, 8);
    for (size_t i = 0; i < 8 && i < m.n_items; i++) KT_CHECK_STR(m.item_path[i], want[i]);
    char mount[300], made[40][300], paths[2][300];
    size_t n_made = 0;
    snprintf(mount, sizeof mount, "%s/mount", dir);
    KT_CHECK_INT(mkdir(mount, 0755), 0);
    for (size_t i = 0; i < m.n_items; i++)
        for (size_t k = 0; k < m.n_data; k++)
            if (strcmp(m.item_key[i], m.key[k]) == 0)
                put_file(mount, m.item_path[i], m.data[k], made, &n_made);
    /* the pod's command, /sweep being the mount and JOB_COMPLETION_INDEX its index */
    KT_CHECK_INT(m.n_cmd, 8);
    KT_CHECK_STR(m.n_cmd > 3 ? m.cmd[3] : "", "/sweep/sweep.yaml");
    char file[320];
    snprintf(file, sizeof file, "%.290s/sweep.yaml", mount);
    for (int s = 0; s < 2 && m.n_cmd == 8; s++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", s);
        setenv("JOB_COMPLETION_INDEX", idx, 1);
        snprintf(paths[s], sizeof paths[s], "%s/files-shard-%d.json", dir, s);
        char *av[] = {m.cmd[1], m.cmd[2], file,     m.cmd[4],
                      m.cmd[5], m.cmd[6], m.cmd[7], (char *)"--shard-out",
                      paths[s], NULL};
        KT_CHECK_INT(sweep(9, av), 0);
    }
    unsetenv("JOB_COMPLETION_INDEX");
    char *mg[] = {(char *)"sweep", (char *)"merge", paths[0], paths[1], (char *)"-ojson", NULL};
    KT_CHECK_INT(sweep(5, mg), 0);
    KT_CHECK(strlen(local) > 200);
    KT_CHECK_STR(out, local);
    free(local);
    for (int s = 0; s < 2; s++) unlink(paths[s]);
    while (n_made--) remove(made[n_made]);
    rmdir(mount);
    for (size_t i = 0; i < 16; i++) {
        free(m.data[i]), free(m.key[i]), free(m.item_key[i]), free(m.item_path[i]);
        free(m.cmd[i]);
    }
}

/* a scenario's file that a ConfigMap cannot hold: one line naming the scenario and its field;
 * a kubelets[] pool's config is collected too */
KT_TEST(emit_job_refuses_what_a_config_map_cannot_hold) {
    char sw[300], sc[300], kc[300], big[300];
    snprintf(sw, sizeof sw, "%s/s.yaml", dir);
    snprintf(sc, sizeof sc, "%s/sc.yaml", dir);
    snprintf(kc, sizeof kc, "%s/kubelet.yaml", dir);
    snprintf(big, sizeof big, "%s/big.csv", dir);
    FILE *f = fopen(sw, "w");
    if (f) {
        fputs("apiVersion: kprio/v1alpha1\nkind: Sweep\nbase: {snapshot: [sc.yaml], scenario: "
              "sc.yaml}\n",
              f);
        fclose(f);
    }
    const char *head = "apiVersion: kprio/v1alpha1\nkind: Scenario\n";
    char *av[] = {(char *)"sweep",   (char *)"-f",  sw,  (char *)"--emit-job",
                  (char *)"--image", (char *)"x:1", NULL};
    /* a pool's config */
    if ((f = fopen(kc, "w"))) fputs("kind: KubeletConfiguration\n", f), fclose(f);
    if ((f = fopen(sc, "w")))
        fprintf(f, "%skubelets:\n- {nodeSelector: {}, config: kubelet.yaml}\n", head), fclose(f);
    KT_CHECK_INT(sweep(6, av), 0);
    KT_CHECK_CONTAINS(out, "path: \"kubelet.yaml\"");
    /* an absolute name, a name leaving the Sweep file's directory */
    if ((f = fopen(sc, "w")))
        fprintf(f, "%susage:\n- {selector: {}, resource: memory, trace: {file: %s}}\n", head, big),
            fclose(f);
    if ((f = fopen(big, "w"))) fputs("0s,1\n", f), fclose(f);
    KT_CHECK_INT(sweep(6, av), 1);
    char want[1500];
    snprintf(want, sizeof want,
             "kprio: %s: usage[0].trace.file: \"%s\": a Job's ConfigMap holds only files below "
             "the Sweep file's directory, named by relative paths (or give the inputs as a "
             "volume: --inputs-claim PVC)\n",
             sc, big);
    KT_CHECK_STR(errb, want);
    if ((f = fopen(sc, "w")))
        fprintf(f, "%skubelets:\n- {nodeSelector: {}, config: ../%s/kubelet.yaml}\n", head,
                strrchr(dir, '/') + 1),
            fclose(f);
    KT_CHECK_INT(sweep(6, av), 1);
    KT_CHECK_CONTAINS(errb, ": kubelets[0].config: \"../");
    /* a file past 1 MiB, then files past 1 MiB together */
    if ((f = fopen(sc, "w")))
        fprintf(f, "%susage:\n- {selector: {}, resource: memory, trace: {file: big.csv}}\n", head),
            fclose(f);
    if ((f = fopen(big, "w"))) {
        for (int i = 0; i < 150000; i++) fprintf(f, "%ds,1\n", i);
        fclose(f);
    }
    KT_CHECK_INT(sweep(6, av), 1);
    KT_CHECK_CONTAINS(errb, "usage[0].trace.file: \"big.csv\": larger than a ConfigMap holds "
                            "(1 MiB) (or give the inputs as a volume: --inputs-claim PVC)");
    if ((f = fopen(big, "w"))) {
        for (int i = 0; i < 90000; i++) fprintf(f, "%ds,1\n", i);
        fclose(f);
    }
    if ((f = fopen(sc, "w"))) {
        fprintf(f, "%susage:\n- {selector: {}, resource: memory, trace: {file: big.csv}}\n", head);
        for (int i = 0; i < 12000; i++) fprintf(f, "# %d padding the scenario past 100 KiB\n", i);
        fclose(f);
    }
    KT_CHECK_INT(sweep(6, av), 1);
    KT_CHECK_CONTAINS(errb, "files and a ConfigMap holds 1 MiB (1048576 bytes) at most: put them "
                            "on a volume and give --inputs-claim PVC");
    unlink(sw), unlink(sc), unlink(kc), unlink(big);
}

static void setup(void) {
    if (!mkdtemp(dir)) perror("mkdtemp");
}
static void teardown(void) { rmdir(dir); }

KT_MAIN(KT_CASE(setup), KT_CASE(decoder_errors_name_file_and_field), KT_CASE(substitution),
        KT_CASE(worker_death_costs_its_task_only), KT_CASE(shards_merge_to_the_local_bytes),
        KT_CASE(shards_merge_a_layout_variable),
        KT_CASE(shards_merge_a_scenario_with_kubelet_pools), KT_CASE(shard_decoder),
        KT_CASE(emit_job_is_a_batch_v1_indexed_job), KT_CASE(emit_job_config_map_runs_the_shards),
        KT_CASE(emit_job_refuses_what_a_config_map_cannot_hold), KT_CASE(teardown))
