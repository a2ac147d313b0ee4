/* `kprio simulate --trace DIR` (docs/live.md "Replaying a trace"): the steps cmd_simulate.c
 * takes around its run (internal to the kprio binary). */
#ifndef KP_CLI_SIMULATE_TRACE_H
#define KP_CLI_SIMULATE_TRACE_H

#include <stddef.h>

#include "cli/cli.h"
#include "kprio/sim.h"
#include "kprio/trace.h"

typedef struct {
    const char *dir;
    char *snapshot; /* DIR/snapshot, an input */
    kp_trace *tr;
} kp_cli_trace;

/* DIR/snapshot joins the inputs. KP_EXIT_OK or an exit status (printed). */
int kp_cli_trace_begin(kp_cli_common *c, const char *dir, kp_cli_trace *t);
/* Reads the trace against the loaded snapshot and sets the run's start and, unless given
 * (o->duration_ms), its duration. KP_EXIT_OK or an exit status (printed). */
int kp_cli_trace_load(kp_cli_trace *t, const kp_cluster *cl, kp_sim_options *o);
/* After the run: the comparison, rendered. */
int kp_cli_trace_render(const kp_cli_trace *t, const kp_sim *sim, kp_outfmt fmt,
                        size_t max_divergences);
void kp_cli_trace_end(kp_cli_trace *t);

#endif
