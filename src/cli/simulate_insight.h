/* `kprio simulate`'s findings and what-if options (cmd_simulate_compare.c, docs/simulate.md
 * "Findings" and "What-if comparison"): parsed next to the command's own options, then either
 * the run's output with its findings or two runs compared. */
#ifndef KP_CLI_SIMULATE_INSIGHT_H
#define KP_CLI_SIMULATE_INSIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"
#include "kprio/insight.h"
#include "kprio/sim.h"

typedef enum {
    KP_CMP_NONE = 0,
    KP_CMP_SCENARIO,
    KP_CMP_CONFIG,
    KP_CMP_KUBELET_CONFIG,
    KP_CMP_PRIORITIES /* --compare-priorities: two PriorityLayouts (kprio/priority_layout.h) */
} kp_cmp_kind;

typedef struct {
    kp_insight_options o; /* --starvation-threshold, --loop-turns, --cascade-depth */
    kp_cmp_kind compare; /* --compare, --compare-config, --compare-kubelet-config,
                          * --compare-priorities */
    const char *a, *b;
} kp_cli_insight_args;

/* The settings of one run as `kprio simulate` parsed them (the shared half of a comparison). */
typedef struct {
    const char *scenario, *config, *kubelet_config, *compat, *final_snapshot;
    int64_t duration_ms;
    uint64_t seed;
    bool has_seed, events_only;
    kp_evict_fs_layout fs_layout; /* --imagefs */
    const char *report; /* --report FILE.html (with --compare*: the two runs side by side) */
} kp_cli_sim_run;

void kp_cli_insight_args_init(kp_cli_insight_args *x);
/* Consumes argv[*i] (and its values) if it is one of the options above: 1; 0 if not; -1 after
 * printing a usage error. */
int kp_cli_insight_arg(kp_cli_insight_args *x, int argc, char **argv, int *i, const char *usage);
/* The usage errors of the combination (--compare with --scenario, -f -, ...): 0 or an exit
 * status after printing. */
int kp_cli_insight_check(const kp_cli_insight_args *x, const kp_cli_common *c,
                         const kp_cli_sim_run *run, const char *usage);
/* The run's output with its findings (kp_render_simulation_insight). An exit status. */
int kp_cli_simulate_render(const kp_cli_insight_args *x, const kp_sim *sim, kp_outfmt fmt,
                           bool events_only);
/* A warning per usage entry of sc that matched nothing in run a (kp_sim_usage_unmatched), and in
 * run b too when b is given (the same scenario run twice: an entry either run matched is not
 * named). */
void kp_cli_usage_warnings(const kp_scenario *sc, const kp_sim *a, const kp_sim *b);
/* --compare*: both runs, from the snapshot loaded twice, compared. An exit status. */
int kp_cli_simulate_compare(kp_cli_common *c, const kp_cli_insight_args *x,
                            const kp_cli_sim_run *run);

#endif
