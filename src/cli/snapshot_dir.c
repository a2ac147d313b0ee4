/* The kubelet data of a snapshot directory (docs/live.md): `kubectl kprio snapshot -o DIR`
 * writes DIR/cluster.json and, per node, DIR/kubelet/NODE-summary.json (the kubelet's
 * /stats/summary) and DIR/kubelet/NODE-configz.json (its /configz). `kprio evict -f DIR --node
 * NODE` without --summary / --config takes them from there. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/eviction.h"

/* True if path ends with "/" + node + suffix. */
static bool names_file(const char *path, const char *node, const char *suffix) {
    size_t lp = strlen(path), ln = strlen(node), ls = strlen(suffix);
    if (lp < ln + ls + 1) return false;
    const char *p = path + lp - ln - ls;
    return p[-1] == '/' && strncmp(p, node, ln) == 0 && strcmp(p + ln, suffix) == 0;
}

int kp_cli_snapshot_kubelet(const kp_cli_common *c, const char *node, char **summary,
                            char **configz) {
    *summary = *configz = NULL;
    if (!node[0] || strchr(node, '/')) return 0;
    for (int i = 0; i < c->n_files; i++) {
        if (strcmp(c->files[i], "-") == 0) continue;
        size_t l = strlen(c->files[i]) + sizeof "/kubelet";
        char *dir = kp_malloc(l);
        if (!dir) return kp_cli_print_status(KP_ENOMEM);
        snprintf(dir, l, "%s/kubelet", c->files[i]);
        char **paths = NULL;
        size_t n = 0;
        kp_error err;
        kp_error_clear(&err);
        kp_status st = kp_evict_summary_paths(dir, &paths, &n, &err);
        kp_free(dir);
        if (st == KP_ENOMEM) return kp_cli_print_status(KP_ENOMEM);
        for (size_t k = 0; st == KP_OK && k < n; k++) {
            char **want = names_file(paths[k], node, "-summary.json")   ? summary
                          : names_file(paths[k], node, "-configz.json") ? configz
                                                                        : NULL;
            if (!want || *want) continue; /* the first -f directory that has it wins */
            if (!(*want = kp_strdup(paths[k]))) st = KP_ENOMEM;
        }
        kp_evict_summary_paths_free(paths, n);
        if (st == KP_ENOMEM) {
            kp_free(*summary);
            kp_free(*configz);
            *summary = *configz = NULL;
            return kp_cli_print_status(KP_ENOMEM);
        }
    }
    return 0;
}
