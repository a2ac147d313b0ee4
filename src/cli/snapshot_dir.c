/* The summary files of a directory: `kprio evict --summary DIR`, and the kubelet data of a
 * snapshot directory (docs/live.md): `kubectl kprio snapshot -o DIR` writes DIR/cluster.json and,
 * per node, DIR/kubelet/NODE-summary.json (the kubelet's /stats/summary) and
 * DIR/kubelet/NODE-configz.json (its /configz). `kprio evict -f DIR --node NODE` without
 * --summary / --config takes them from there. The directory itself is walked by base/file.h. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "cli/cli.h"
#include "kprio/eviction.h"

static bool summary_ext(const char *name) {
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

kp_status kp_cli_summary_paths(const char *path, char ***paths, size_t *n, kp_error *err) {
    *paths = NULL;
    *n = 0;
    if (strcmp(path, "-") == 0 || !kp__is_dir(path)) { /* a file: loading it reports errors */
        char **one = kp__malloc(sizeof *one);
        char *p = one ? kp__strdup(path) : NULL;
        if (!p) {
            kp__free(one);
            return kp_error_set(err, KP_ENOMEM, "out of memory");
        }
        one[0] = p;
        *paths = one;
        *n = 1;
        return KP_OK;
    }
    kp_status st = kp__dir_files(path, summary_ext, paths, n, err);
    if (st == KP_OK && *n == 0) {
        kp__paths_free(*paths, 0);
        *paths = NULL;
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        st = kp_error_set(err, KP_EINVAL, "no summary files (*.json, *.yaml, *.yml) in directory");
    }
    return st;
}

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
        kp_status st = kp_cli_summary_paths(dir, &paths, &n, &err);
        kp_free(dir);
        if (st == KP_ENOMEM) return kp_cli_print_status(KP_ENOMEM);
        for (size_t k = 0; st == KP_OK && k < n; k++) {
            char **want = names_file(paths[k], node, "-summary.json")   ? summary
                          : names_file(paths[k], node, "-configz.json") ? configz
                                                                        : NULL;
            if (!want || *want) continue; /* the first -f directory that has it wins */
            if (!(*want = kp_strdup(paths[k]))) st = KP_ENOMEM;
        }
        kp__paths_free(paths, n);
        if (st == KP_ENOMEM) {
            kp_free(*summary);
            kp_free(*configz);
            *summary = *configz = NULL;
            return kp_cli_print_status(KP_ENOMEM);
        }
    }
    return 0;
}
