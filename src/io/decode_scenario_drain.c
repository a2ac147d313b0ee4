/* The `drain` action of a Scenario (docs/scenario.md): `node` or `nodeSelector` (a label
 * selector string, as `kubectl drain --selector`; decode_scenario_selector.c), and kubectl drain's
 * options: `concurrency`, `podSelector`, `gracePeriod`, `ignoreDaemonSets`, `deleteEmptyDirData`,
 * `force` (kubectl's defaults: 1 node at a time, every pod, -1, false, false, false). */
#include <string.h>

#include "base/arena.h"
#include "io/decode_common.h"
#include "io/decode_scenario.h"

/* labels.Parse: requirements separated by commas; "" selects everything */
static kp_status selector_string(kp_dctx *d, scen *s, const kp_tnode *body, const char *key,
                                 kp_selector_req **out, size_t *n_out, bool *present) {
    char *text = NULL;
    kp_status st = kp__sc_opt_str(d, s, body, key, &text);
    if (st != KP_OK) return st;
    if (present) *present = kp__tree_get(body, key) != NULL;
    kp_selector_req *v = NULL;
    size_t n = 0;
    const char *why = kp__selector_string_parse(text, &s->arena, &v, &n);
    if (why && kp__selector_string_oom(why)) return kp__sc_nomem(d);
    if (why)
        return kp__dctx_fail(d, kp__tree_get(body, key), KP_EINVAL, key,
                             "invalid label selector \"%s\": %s", text, why);
    *out = v;
    *n_out = n;
    return KP_OK;
}

kp_status kp__sc_decode_drain(kp_dctx *d, scen *s, const kp_tnode *body, kp_scenario_action *a) {
    static const char *const keys[] = {
        "node",        "nodeSelector",     "concurrency",        "podSelector",
        "gracePeriod", "ignoreDaemonSets", "deleteEmptyDirData", "force",
        NULL};
    kp_scenario_drain *o = &a->drain;
    kp_status st = kp__sc_only_keys(d, body, keys);
    if (st != KP_OK) return st;
    a->ref.kind = kp__sc_sdup(s, "Node", 4);
    a->ref.ns = kp__sc_sdup(s, "", 0);
    if (!a->ref.kind || !a->ref.ns) return kp__sc_nomem(d);
    bool has_node = kp__tree_get(body, "node") != NULL;
    if ((st = selector_string(d, s, body, "nodeSelector", &o->node_reqs, &o->n_node_reqs,
                              &o->has_node_selector)) != KP_OK)
        return st;
    if (has_node == o->has_node_selector)
        return kp__dctx_fail(d, body, KP_EINVAL, NULL,
                             "exactly one of node and nodeSelector is required");
    if (has_node && (st = kp__sc_req_str(d, s, body, "node", &a->ref.name)) != KP_OK) return st;
    if ((st = selector_string(d, s, body, "podSelector", &o->pod_reqs, &o->n_pod_reqs, NULL)) !=
        KP_OK)
        return st;
    int64_t v = 1;
    bool has = false;
    if ((st = kp__dget_int(d, body, "concurrency", 1, 100000, &v, &has)) != KP_OK) return st;
    o->concurrency = has ? (int32_t)v : 1;
    v = -1;
    if ((st = kp__dget_int(d, body, "gracePeriod", -1, INT32_MAX, &v, &has)) != KP_OK) return st;
    o->grace_period = has ? v : -1;
    if ((st = kp__dget_bool(d, body, "ignoreDaemonSets", &o->ignore_daemonsets, NULL)) != KP_OK ||
        (st = kp__dget_bool(d, body, "deleteEmptyDirData", &o->delete_emptydir_data, NULL)) !=
            KP_OK ||
        (st = kp__dget_bool(d, body, "force", &o->force, NULL)) != KP_OK)
        return st;
    return KP_OK;
}
