/* Feature gates in `--explain` (see render_gates.h); on the public API only. */
#include "render/render_gates.h"

void kp__render_emit_gates(kp_emit *e, const kp_cluster *cl) {
    const kp_feature_gates *g = kp_cluster_feature_gates(cl);
    bool any = false;
    for (int i = 0; i < KP_GATE_COUNT; i++) {
        if (g->on[i] == kp_feature_gates_default(g, (kp_gate)i)) continue;
        if (!any) {
            kp_emit_key(e, "featureGates");
            kp_emit_obj_begin(e);
            any = true;
        }
        kp_emit_kv_bool(e, kp_gate_name((kp_gate)i), g->on[i]);
    }
    if (any) kp_emit_obj_end(e);
}

void kp__render_print_gates(FILE *f, const kp_cluster *cl, const char *lead) {
    const kp_feature_gates *g = kp_cluster_feature_gates(cl);
    const char *sep = lead;
    for (int i = 0; i < KP_GATE_COUNT; i++) {
        if (g->on[i] == kp_feature_gates_default(g, (kp_gate)i)) continue;
        fprintf(f, "%s%s=%s", sep, kp_gate_name((kp_gate)i), g->on[i] ? "true" : "false");
        sep = ",";
    }
    if (sep != lead) fputc('\n', f);
}
