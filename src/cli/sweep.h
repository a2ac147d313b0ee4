/* `kprio sweep` (docs/reference.md "kprio sweep"): its files share this header. cmd_sweep.c
 * parses the command line and runs the sweep (local workers, a shard, a merge);
 * cmd_sweep_run.c is one run (the simulation `kprio simulate` plays, and its figures);
 * cmd_sweep_job.c writes the Indexed Job. */
#ifndef KP_CLI_SWEEP_H
#define KP_CLI_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kprio/sweep.h"

/* Run `run` of the sweep as `kprio simulate` would play it (the run's scenario, configurations,
 * seed and duration; the findings with their default thresholds): figs[0..KP_FIG_COUNT) by
 * kp_sweep_figure, or false with the one-line error that ended it in msg (as `kprio: ` would
 * print it, without the prefix). */
bool kp_cli_sweep_run(const kp_sweep *sw, size_t run, int64_t *figs, char *msg, size_t cap);

/* The Indexed Job's options (--emit-job). */
typedef struct {
    const char *sweep_path; /* the -f value */
    const char
        *name; /* --name: the Job's and ConfigMap's name (default: the sweep's, "kprio-sweep") */
    const char *image; /* --image */
    const char *inputs_claim; /* --inputs-claim PVC: the inputs from a volume, not a ConfigMap */
    const char *results_claim; /* --results-claim PVC: shards written there, not to the log */
    unsigned shards, parallelism;
} kp_cli_sweep_job;

/* Writes the ConfigMap (unless inputs_claim) and the Job as one YAML stream to f. An exit
 * status (errors printed). */
int kp_cli_sweep_emit_job(FILE *f, const kp_sweep *sw, const kp_cli_sweep_job *j);

#endif
