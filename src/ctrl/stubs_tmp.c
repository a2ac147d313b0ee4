#include "ctrl/ctrl_internal.h"
kp_status kp_ctrl_replicaset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    (void)c, (void)w, (void)now_ms, (void)sink, (void)err;
    return KP_OK;
}
kp_status kp_ctrl_deployment_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                  kp_error *err) {
    (void)c, (void)w, (void)now_ms, (void)sink, (void)err;
    return KP_OK;
}
kp_status kp_ctrl_statefulset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                   kp_error *err) {
    (void)c, (void)w, (void)now_ms, (void)sink, (void)err;
    return KP_OK;
}
kp_status kp_ctrl_daemonset_sync(kp_ctrl *c, kp_index w, int64_t now_ms, const kp_ctrl_sink *sink,
                                 kp_error *err) {
    (void)c, (void)w, (void)now_ms, (void)sink, (void)err;
    return KP_OK;
}
kp_status kp__ctrl_deployment_scale(kp_ctrl *c, kp_index w, const kp_ctrl_sink *sink,
                                    kp_error *err) {
    (void)c, (void)w, (void)sink, (void)err;
    return KP_OK;
}
