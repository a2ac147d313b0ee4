/* kubelets[] of a Scenario (docs/scenario.md "Kubelets"): a KubeletConfiguration per node pool,
 * for the simulated kubelets' eviction and admission (src/sim/sim_admit_plan.c). The file is
 * named here and read by the caller. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/decode_common.h"
#include "io/decode_scenario.h"

kp_status kp__sc_decode_kubelet(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *n,
                                uint32_t i, kp_scenario_kubelet *k) {
    static const char *const keys[] = {"nodeSelector", "config", NULL};
    memset(k, 0, sizeof *k);
    snprintf(d->object, sizeof d->object, "kubelets[%u]", i);
    kp_status st;
    char *f = NULL;
    if ((st = kp__sc_need_obj(d, n, NULL)) != KP_OK ||
        (st = kp__sc_only_keys(d, n, keys)) != KP_OK ||
        (st = kp__sc_req_str(d, s, n, "config", &f)) != KP_OK)
        return st;
    const kp_tnode *sel = kp__tree_get(n, "nodeSelector");
    if (!sel || sel->type == KP_T_NULL)
        return kp__dctx_fail(d, n, KP_EINVAL, "nodeSelector", "required value");
    size_t sv = kp__dctx_push(d, "nodeSelector");
    st = kp__sc_decode_selector(d, s, sel, &k->reqs, &k->n_reqs);
    kp__dctx_pop(d, sv);
    if (st != KP_OK) return st;
    /* relative to the scenario's directory, as a create action's file */
    size_t bl = f[0] != '/' && base_dir && base_dir[0] ? strlen(base_dir) : 0;
    if (!bl) {
        k->config = f;
    } else {
        size_t cap = bl + strlen(f) + 2;
        if (!(k->config = kp__arena_alloc(&s->arena, cap))) return kp__sc_nomem(d);
        snprintf(k->config, cap, "%s/%s", base_dir, f);
    }
    /* a regular file only, as every file a scenario names: a FIFO or device would be waited on
     * for ever by its reader (a missing file is the reader's error, naming it) */
    struct stat sb;
    if (stat(k->config, &sb) == 0 && !S_ISREG(sb.st_mode))
        return kp__dctx_fail(d, kp__tree_get(n, "config"), KP_EIO, "config",
                             "%s: not a regular file", k->config);
    return kp__sc_name_file(d, s, "config", f);
}
