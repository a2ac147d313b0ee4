/* Resource names registered per cluster, sparse resource lists. */
#include <string.h>

#include "core/cluster.h"
#include "core/resources.h"

int kp__res_index(kp_cluster *cl, const char *name, size_t len) {
    for (uint32_t i = 0; i < cl->n_res; i++)
        if (kp__strlen(&cl->strs, cl->res_names[i]) == len &&
            memcmp(kp__s(cl, cl->res_names[i]), name, len) == 0)
            return (int)i;
    if (cl->n_res >= KP_MAX_RES) return -1;
    kp_str id = kp__intern(&cl->strs, name, len);
    if (id == UINT32_MAX) return -2;
    cl->res_names[cl->n_res] = id;
    return (int)cl->n_res++;
}

int64_t kp__resv_get(const kp_resv *v, int r) {
    for (uint16_t i = 0; i < v->n; i++)
        if (v->e[i].res == r) return v->e[i].v;
    return 0;
}
