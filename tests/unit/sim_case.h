/* Shared by the simulation tests that replay a golden case through the library
 * (test_sim_admit.c, test_sim_kubelet.c): load a case directory's cluster.yaml and scenario.yaml,
 * run it, and walk the encoded final snapshot (kp_cluster_encode_json: one item per line).
 * Header-only, static; include after text_buf.h. */
#ifndef KP_TEST_SIM_CASE_H
#define KP_TEST_SIM_CASE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/cluster.h"
#include "kprio/encode.h"
#include "kprio/scenario.h"
#include "kprio/sim.h"

/* Runs case `dir` (ending in '/') to its end with options o (NULL: the defaults); *cl, *sc and
 * the returned simulation are the caller's (NULL on an error, reported in err). */
static inline kp_sim *sim_case_run(const char *dir, const kp_sim_options *o, kp_cluster **cl,
                                   kp_scenario **sc, kp_error *err) {
    char path[512];
    kp_sim *sim = NULL;
    kp_error_clear(err);
    *cl = kp_cluster_new();
    *sc = NULL;
    snprintf(path, sizeof path, "%scluster.yaml", dir);
    if (kp_cluster_load_path(*cl, path, false, err) != KP_OK ||
        kp_cluster_finalize(*cl, err) != KP_OK)
        return NULL;
    snprintf(path, sizeof path, "%sscenario.yaml", dir);
    if (kp_scenario_load_path(path, sc, err) != KP_OK ||
        kp_sim_new(*cl, NULL, *sc, o, &sim, err) != KP_OK)
        return NULL;
    if (kp_sim_run(sim, err) != KP_OK) {
        kp_sim_free(sim);
        return NULL;
    }
    return sim;
}

/* The next line of text at *at (a copy, the caller frees it), NULL at the end. */
static inline char *next_line(const char **at) {
    const char *l = *at;
    if (!l || !*l) return NULL;
    const char *end = strchr(l, '\n');
    size_t n = end ? (size_t)(end - l) : strlen(l);
    char *line = calloc(1, n + 1);
    if (line) memcpy(line, l, n);
    *at = l + n + (end ? 1 : 0);
    return line;
}

#endif
