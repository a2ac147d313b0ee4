/* `kprio simulate` findings and what-if (docs/simulate.md "Findings", "What-if comparison"): the
 * thresholds of the findings, and --compare A B / --compare-config A B /
 * --compare-kubelet-config A B: two runs from the same snapshot (loaded twice: a simulation
 * changes its cluster) and the same seed, compared (kprio/insight.h) and printed
 * (kp_render_compare). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "cli/simulate_insight.h"
#include "kprio/encode.h"
#include "kprio/eviction.h"
#include "kprio/priority_layout.h"
#include "kprio/scenario.h"
#include "kprio/sched.h"
#include "render/render_report.h"
#include "render/render_sim.h"

void kp_cli_insight_args_init(kp_cli_insight_args *x) {
    memset(x, 0, sizeof *x);
    kp_insight_options_init(&x->o);
}

static int count_arg(const char *opt, const char *v, uint32_t *out, const char *usage) {
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-' || n < 1 || n > UINT32_MAX)
        return kp_cli_usage_error("simulate", usage, "%s: \"%s\" is not a positive integer", opt,
                                  v);
    *out = (uint32_t)n;
    return 0;
}

int kp_cli_insight_arg(kp_cli_insight_args *x, int argc, char **argv, int *i, const char *usage) {
    const char *arg = argv[*i], *v;
    static const struct {
        const char *opt;
        kp_cmp_kind kind;
    } CMP[] = {{"--compare", KP_CMP_SCENARIO},
               {"--compare-config", KP_CMP_CONFIG},
               {"--compare-kubelet-config", KP_CMP_KUBELET_CONFIG},
               {"--compare-priorities", KP_CMP_PRIORITIES}};
    for (size_t k = 0; k < sizeof CMP / sizeof CMP[0]; k++) {
        if (strcmp(arg, CMP[k].opt) != 0) continue;
        if (x->compare != KP_CMP_NONE)
            return kp_cli_usage_error("simulate", usage, "%s: only one comparison at a time", arg),
                   -1;
        if (*i + 2 >= argc)
            return kp_cli_usage_error("simulate", usage, "%s needs two files (A B)", arg), -1;
        x->compare = CMP[k].kind;
        x->a = argv[++*i];
        x->b = argv[++*i];
        return 1;
    }
    if (kp_cli_is_opt(arg, "--starvation-threshold")) {
        if (!(v = kp_cli_optval(argc, argv, i, "simulate"))) return -1;
        int64_t ns = 0;
        kp_error err;
        if (kp_duration_parse(v, &ns, &err) != KP_OK || ns < 0)
            return kp_cli_usage_error("simulate", usage,
                                      "--starvation-threshold: \"%s\" is not a duration (e.g. "
                                      "5m, 90s)",
                                      v),
                   -1;
        x->o.starvation_ms = ns / 1000000;
        return 1;
    }
    if (kp_cli_is_opt(arg, "--loop-turns")) {
        if (!(v = kp_cli_optval(argc, argv, i, "simulate"))) return -1;
        return count_arg("--loop-turns", v, &x->o.loop_min_turns, usage) ? -1 : 1;
    }
    if (kp_cli_is_opt(arg, "--cascade-depth")) {
        if (!(v = kp_cli_optval(argc, argv, i, "simulate"))) return -1;
        return count_arg("--cascade-depth", v, &x->o.cascade_min_depth, usage) ? -1 : 1;
    }
    return 0;
}

int kp_cli_insight_check(const kp_cli_insight_args *x, const kp_cli_common *c,
                         const kp_cli_sim_run *run, const char *usage) {
    if (x->compare == KP_CMP_NONE) return 0;
    if (run->events_only || run->final_snapshot)
        return kp_cli_usage_error("simulate", usage, "a comparison has no %s",
                                  run->events_only ? "--events-only" : "--final-snapshot");
    if (x->compare == KP_CMP_SCENARIO && run->scenario)
        return kp_cli_usage_error("simulate", usage,
                                  "--compare runs two scenarios: drop --scenario");
    if (x->compare == KP_CMP_CONFIG && run->config)
        return kp_cli_usage_error("simulate", usage,
                                  "--compare-config runs two configurations: drop --config");
    if (x->compare == KP_CMP_KUBELET_CONFIG && run->kubelet_config)
        return kp_cli_usage_error(
            "simulate", usage,
            "--compare-kubelet-config runs two configurations: drop --kubelet-config");
    for (int i = 0; i < c->n_files; i++)
        if (strcmp(c->files[i], "-") == 0)
            return kp_cli_usage_error("simulate", usage,
                                      "a comparison reads the snapshot twice: -f - (stdin) "
                                      "cannot be used");
    return 0;
}

int kp_cli_simulate_render(const kp_cli_insight_args *x, const kp_sim *sim, kp_outfmt fmt,
                           bool events_only) {
    kp_insight *in = NULL;
    kp_error err;
    kp_error_clear(&err);
    if (!events_only && kp_insight_new(sim, &x->o, &in, &err) != KP_OK)
        return kp_cli_print_error(&err);
    kp_status st = kp_render_simulation_insight(stdout, sim, in, fmt, events_only);
    kp_insight_free(in);
    return st == KP_OK ? KP_EXIT_OK : kp_cli_print_status(st);
}

/* ---------------------------------------------------------------- warnings */

void kp_cli_usage_warnings(const kp_scenario *sc, const kp_sim *a, const kp_sim *b) {
    for (size_t i = 0; sc && i < sc->n_usage; i++) {
        const char *fa = kp_sim_usage_unmatched(a, i), *fb = b ? kp_sim_usage_unmatched(b, i) : fa;
        if (!fa || !fb) continue;
        const char *f = strcmp(fa, "selector") == 0 ? fb : fa; /* the nearer miss */
        const kp_scenario_usage *u = &sc->usage[i];
        if (strcmp(f, "selector") == 0)
            kp_cli_eprintf("kprio: warning: %s: usage[%zu]: selector: matched no pod on a node in "
                           "the run%s%s%s",
                           sc->source, i, u->ns[0] ? " (namespace \"" : "", u->ns,
                           u->ns[0] ? "\")" : "");
        else if (strcmp(f, "node") == 0)
            kp_cli_eprintf("kprio: warning: %s: usage[%zu]: node: \"%s\": no node of that name in "
                           "the run",
                           sc->source, i, u->node);
        else
            kp_cli_eprintf("kprio: warning: %s: usage[%zu]: %s: \"%s\": none of the pods it "
                           "matched has %s of that name",
                           sc->source, i, f, f[0] == 'v' ? u->volume : u->container,
                           f[0] == 'v' ? "an emptyDir volume" : "a container");
    }
}

/* ---------------------------------------------------------------- one side */

typedef struct {
    const char *scenario, *config, *kubelet_config, *layout_path;
    kp_priority_layout *layout; /* --compare-priorities: given to the cluster before finalize */
    kp_sched_config *cfg;
    kp_scenario *sc;
    kp_evict_config *kcfg;
    kp_cluster *cl;
    kp_sim *sim;
    kp_insight *in;
} side;

static void side_free(side *s) {
    kp_insight_free(s->in);
    kp_sim_free(s->sim);
    kp_cluster_free(s->cl);
    kp_scenario_free(s->sc);
    kp_sched_config_free(s->cfg);
    kp_evict_config_free(s->kcfg);
    kp_priority_layout_free(s->layout); /* (after the cluster it was given to) */
}

static int side_load(side *s) {
    kp_error err;
    kp_error_clear(&err);
    if (s->kubelet_config && !(s->kcfg = kp_evict_config_new()))
        return kp_cli_print_status(KP_ENOMEM);
    if ((s->config && kp_sched_config_load_path(s->config, NULL, &s->cfg, &err) != KP_OK) ||
        (s->scenario && kp_scenario_load_path(s->scenario, &s->sc, &err) != KP_OK) ||
        (s->layout_path &&
         kp_priority_layout_load_path(s->layout_path, &s->layout, &err) != KP_OK) ||
        (s->kcfg && (kp_evict_config_load_path(s->kcfg, s->kubelet_config, &err) != KP_OK ||
                     kp_evict_config_finish(s->kcfg, &err) != KP_OK))) {
        if (s->kcfg && !err.source[0])
            snprintf(err.source, sizeof err.source, "%s", s->kubelet_config);
        return kp_cli_print_error(&err);
    }
    if (s->sc && s->sc->n_kubelets) { /* their files are read by cmd_simulate.c's pools */
        kp_cli_eprintf("kprio: %s: kubelets: node pools are not supported with --compare*",
                       s->scenario);
        return KP_EXIT_USAGE;
    }
    return KP_EXIT_OK;
}

static int side_run(side *s, kp_cli_common *c, const kp_cli_insight_args *x,
                    const kp_sim_options *o0) {
    kp_error err;
    kp_error_clear(&err);
    c->layout = s->layout;
    s->cl = kp_cli_load(c);
    c->layout = NULL;
    if (!s->cl) return KP_EXIT_ERROR;
    kp_sim_options o = *o0;
    o.kubelet_config = s->kcfg;
    if (kp_sim_new(s->cl, s->cfg, s->sc, &o, &s->sim, &err) != KP_OK ||
        kp_sim_run(s->sim, &err) != KP_OK || kp_insight_new(s->sim, &x->o, &s->in, &err) != KP_OK)
        return kp_cli_print_error(&err);
    return KP_EXIT_OK;
}

/* --report with --compare*: the two runs side by side (render/render_report.h). */
typedef struct {
    const side *s;
    const kp_cli_insight_args *x;
    const kp_insight_compare *cmp;
} html_ctx;

static kp_status fill_compare(FILE *f, void *vctx) {
    const html_ctx *h = vctx;
    kp_report_findings fa = kp_report_findings_of(h->s[0].in);
    kp_report_findings fb = kp_report_findings_of(h->s[1].in);
    kp_status st = KP_OK;
    if ((kp_insight_finding_count(h->s[0].in) && !fa.items) ||
        (kp_insight_finding_count(h->s[1].in) && !fb.items))
        st = KP_ENOMEM;
    kp_report_run ra = {h->s[0].sim, h->x->a, &fa}, rb = {h->s[1].sim, h->x->b, &fb};
    if (st == KP_OK) st = kp_render_compare_html(f, kp_insight_compare_get(h->cmp), &ra, &rb);
    kp_report_findings_free(&fa);
    kp_report_findings_free(&fb);
    return st;
}

int kp_cli_simulate_compare(kp_cli_common *c, const kp_cli_insight_args *x,
                            const kp_cli_sim_run *run) {
    side s[2];
    memset(s, 0, sizeof s);
    for (int k = 0; k < 2; k++) {
        const char *v = k ? x->b : x->a;
        s[k].scenario = x->compare == KP_CMP_SCENARIO ? v : run->scenario;
        s[k].config = x->compare == KP_CMP_CONFIG ? v : run->config;
        s[k].kubelet_config = x->compare == KP_CMP_KUBELET_CONFIG ? v : run->kubelet_config;
        s[k].layout_path = x->compare == KP_CMP_PRIORITIES ? v : NULL;
    }
    /* the report's file opened before the runs (base/file.h): a bad path costs nothing */
    kp__out *report = NULL;
    kp_insight_compare *cmp = NULL;
    /* each run loads the snapshot, and the files both runs share, again: they must read the
     * same the second time */
    const char *twice[4] = {s[0].scenario == s[1].scenario ? s[0].scenario : NULL,
                            s[0].config == s[1].config ? s[0].config : NULL,
                            s[0].kubelet_config == s[1].kubelet_config ? s[0].kubelet_config : NULL,
                            strcmp(x->a, x->b) == 0 ? x->a : NULL};
    int rrc = kp_cli_require_rereadable(c, twice, 4, "--compare");
    if (rrc != KP_EXIT_OK) return rrc;
    kp_error oerr;
    kp_error_clear(&oerr);
    int rc = KP_EXIT_OK;
    if (run->report && kp__out_open(run->report, &report, &oerr) != KP_OK)
        rc = kp_cli_print_error(&oerr);
    if (rc == KP_EXIT_OK) rc = side_load(&s[0]);
    if (rc == KP_EXIT_OK) rc = side_load(&s[1]);
    if (rc != KP_EXIT_OK) goto out;
    kp_sim_options o;
    kp_sim_options_init(&o);
    o.compat = run->compat;
    o.fs_layout = run->fs_layout;
    /* the same seed and duration for both: the flags', else the first scenario's seed and the
     * longer of the scenarios' durations */
    o.seed = run->seed;
    o.has_seed = run->has_seed;
    o.duration_ms = run->duration_ms;
    for (int k = 0; k < 2; k++) {
        const kp_scenario *sc = s[k].sc;
        if (!sc) continue;
        if (!o.has_seed && sc->has_seed) o.seed = sc->seed, o.has_seed = true;
        if (!run->duration_ms && sc->has_duration && sc->duration_ms > o.duration_ms)
            o.duration_ms = sc->duration_ms;
    }
    c->expand |= KP_WORKLOAD_TEMPLATES;
    if ((rc = side_run(&s[0], c, x, &o)) != KP_EXIT_OK ||
        (rc = side_run(&s[1], c, x, &o)) != KP_EXIT_OK)
        goto out;
    if (x->compare == KP_CMP_SCENARIO && strcmp(x->a, x->b) != 0) {
        kp_cli_usage_warnings(s[0].sc, s[0].sim, NULL);
        kp_cli_usage_warnings(s[1].sc, s[1].sim, NULL);
    } else {
        kp_cli_usage_warnings(s[0].sc, s[0].sim, s[1].sim);
    }
    kp_error err;
    kp_error_clear(&err);
    if (kp_insight_compare_new(s[0].sim, s[0].in, s[1].sim, s[1].in, &cmp, &err) != KP_OK ||
        (x->compare == KP_CMP_PRIORITIES &&
         kp_insight_compare_by_class(cmp, s[0].sim, s[0].in, s[1].sim, s[1].in, &err) != KP_OK)) {
        rc = kp_cli_print_error(&err);
        goto out;
    }
    if (report) {
        html_ctx h = {s, x, cmp};
        kp__out *ro = report;
        report = NULL;
        if (kp__out_commit(ro, fill_compare(kp__out_stream(ro), &h), &err) != KP_OK) {
            rc = kp_cli_print_error(&err);
            goto out;
        }
    }
    kp_status st = kp_render_compare(stdout, s[0].sim, s[0].in, x->a, s[1].sim, s[1].in, x->b,
                                     kp_insight_compare_get(cmp), c->out);
    if (st != KP_OK) rc = kp_cli_print_status(st);
out:
    kp__out_abort(report);
    kp_insight_compare_free(cmp);
    side_free(&s[0]);
    side_free(&s[1]);
    return rc;
}
