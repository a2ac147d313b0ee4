/* Scenario decoding helpers shared by decode_scenario.c and decode_scenario_usage.c (internal). */
#ifndef KP_IO_DECODE_SCENARIO_H
#define KP_IO_DECODE_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "io/dctx.h"
#include "io/tree.h"
#include "io/tree_text.h"
#include "kprio/scenario.h"

typedef struct {
    kp_scenario pub;
    kp_arena arena;
    size_t files_cap; /* of pub.files (kp__grow) */
} scen;

kp_status kp__sc_only_keys(kp_dctx *d, const kp_tnode *obj, const char *const *keys);
kp_status kp__sc_need_obj(kp_dctx *d, const kp_tnode *n, const char *field);
/* A required (non-empty) / optional ("" when absent) string member, copied into the scenario. */
kp_status kp__sc_req_str(kp_dctx *d, scen *s, const kp_tnode *obj, const char *key, char **out);
kp_status kp__sc_opt_str(kp_dctx *d, scen *s, const kp_tnode *obj, const char *key, char **out);
/* A Go duration of at least 0, in whole milliseconds. */
kp_status kp__sc_duration_ms(kp_dctx *d, const kp_tnode *obj, const char *key, bool required,
                             int64_t *out, bool *present);
/* A metav1.LabelSelector into requirements (matchLabels, then matchExpressions). */
kp_status kp__sc_decode_selector(kp_dctx *d, scen *s, const kp_tnode *sel, kp_selector_req **reqs,
                                 size_t *n_reqs);
/* usage[i] (decode_scenario_usage.c); a trace's file is relative to base_dir (NULL: the
 * current directory). */
kp_status kp__sc_decode_usage(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *n,
                              uint32_t i, kp_scenario_usage *u);
/* The trace CSV of u->trace_file (decode_scenario_trace.c); fn names the `file` member. */
kp_status kp__sc_read_trace(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *fn,
                            kp_scenario_usage *u);

/* kubelets[i] (decode_scenario_kubelets.c); base_dir: the scenario's directory (NULL: none). */
kp_status kp__sc_decode_kubelet(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *n,
                                uint32_t i, kp_scenario_kubelet *k);

/* The body of a `patch` action (decode_scenario_patch.c): the object's reference, its
 * subresource and the merge patch, kept as text (written with scratch; YAML when yaml). */
kp_status kp__sc_decode_patch(kp_dctx *d, scen *s, const kp_tnode *body, bool yaml,
                              kp_tbuf *scratch, kp_scenario_action *a);
/* IsValidLabelValue: NULL when valid, else upstream's message (decode_scenario_util.c). */
const char *kp__sc_label_value_error(const char *v, size_t n);
/* A label selector string (labels.Parse; decode_scenario_selector.c, kprio/selector.h) into
 * *out / *n_out in arena: NULL on success, else the reason (kp__selector_string_oom tells out of
 * memory from bad syntax). */
const char *kp__selector_string_parse(const char *text, kp_arena *arena, kp_selector_req **out,
                                      size_t *n_out);
bool kp__selector_string_oom(const char *why);
/* drain's body (decode_scenario_drain.c): node or nodeSelector and kubectl drain's options */
kp_status kp__sc_decode_drain(kp_dctx *d, scen *s, const kp_tnode *body, kp_scenario_action *a);

/* A NUL-terminated copy of p[0..n) in the scenario's arena (NULL: out of memory), and the
 * decoder's out-of-memory failure. */
char *kp__sc_sdup(scen *s, const char *p, size_t n);
kp_status kp__sc_nomem(kp_dctx *d);
/* Adds name (as written) to the files the scenario names (kp_scenario.files), its field the
 * decoder's object and path then key ("usage[0].trace.file"). */
kp_status kp__sc_name_file(kp_dctx *d, scen *s, const char *key, const char *name);
/* f relative to the scenario's directory base (absolute f, or no base: f itself); kp__malloc'd,
 * NULL when out of memory */
char *kp__sc_path(const char *base, const char *f);

#endif
