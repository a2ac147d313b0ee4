/* `kprio simulate --trace DIR` (docs/live.md "Replaying a trace"): the trace's snapshot is the
 * input, its users' actions the scenario, the run starts at the trace's start; the answer is the
 * comparison of the run's decisions with the recorded ones. */
#include <stdio.h>
#include <string.h>

#include "cli/simulate_trace.h"
#include "kprio/common.h"
#include "render/render_sim.h"

int kp_cli_trace_begin(kp_cli_common *c, const char *dir, kp_cli_trace *t) {
    memset(t, 0, sizeof *t);
    t->dir = dir;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    t->snapshot = kp_malloc(n + sizeof "/snapshot");
    if (!t->snapshot) return kp_cli_print_status(KP_ENOMEM);
    memcpy(t->snapshot, dir, n);
    memcpy(t->snapshot + n, "/snapshot", sizeof "/snapshot");
    if (!kp_cli_add_file(c, t->snapshot)) return kp_cli_print_status(KP_ENOMEM);
    return KP_EXIT_OK;
}

int kp_cli_trace_load(kp_cli_trace *t, const kp_cluster *cl, kp_sim_options *o) {
    kp_error err;
    kp_error_clear(&err);
    if (kp_trace_load(t->dir, cl, &t->tr, &err) != KP_OK) return kp_cli_print_error(&err);
    o->start_unix = kp_trace_start(t->tr);
    o->has_start = true;
    if (!o->duration_ms) o->duration_ms = kp_trace_duration_ms(t->tr);
    o->refuse_unknown_refs = true;
    return KP_EXIT_OK;
}

int kp_cli_trace_render(const kp_cli_trace *t, const kp_sim *sim, kp_outfmt fmt,
                        size_t max_divergences) {
    kp_error err;
    kp_error_clear(&err);
    kp_trace_comparison *c = NULL;
    if (kp_trace_compare(t->tr, sim, &c, &err) != KP_OK) return kp_cli_print_error(&err);
    kp_status st = kp_render_trace(stdout, t->tr, c, fmt, max_divergences);
    kp_trace_comparison_free(c);
    return st == KP_OK ? KP_EXIT_OK : kp_cli_print_status(st);
}

void kp_cli_trace_end(kp_cli_trace *t) {
    kp_trace_free(t->tr);
    kp_free(t->snapshot);
    memset(t, 0, sizeof *t);
}
