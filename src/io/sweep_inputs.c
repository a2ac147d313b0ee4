/* The files of a sweep with their bytes (kp_sweep_inputs, include/kprio/sweep.h): what
 * `kprio sweep --emit-job` puts in the Job's ConfigMap, each under the path the Sweep file
 * writes, so the pods read the same Sweep file from the ConfigMap's mount. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "io/input.h"
#include "kprio/sweep.h"

/* The largest input put in a ConfigMap: the API server refuses a ConfigMap over 1 MiB whole. */
#define KP_SWEEP_MAX_INPUT_BYTES ((size_t)1 << 20)

/* A path the ConfigMap can hold: relative, no "." or ".." component, no empty one. */
static bool below(const char *p) {
    if (!*p || p[0] == '/') return false;
    for (const char *c = p; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n + (e != NULL);
        if (e && !*c) return false; /* a trailing slash: a directory */
    }
    return true;
}

typedef struct {
    kp_sweep_input *in;
    size_t n;
} list;

static kp_status add(const kp_sweep *sw, list *l, const char *field, const char *raw,
                     const char *resolved, kp_error *err) {
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->in[i].path, raw) == 0) return KP_OK;
    if (!below(raw)) {
        kp_error_set(err, KP_EINVAL,
                     "%s: \"%s\": a Job's ConfigMap holds only files below the Sweep file's "
                     "directory, named by relative paths (or give the inputs as a volume: "
                     "--inputs-claim)",
                     field, raw);
        if (err) snprintf(err->source, sizeof err->source, "%s", sw->source);
        return KP_EINVAL;
    }
    struct stat sb;
    if (stat(resolved, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        kp_error_set(err, KP_EINVAL,
                     "%s: \"%s\" is a directory: a Job's ConfigMap holds files (name them, or give "
                     "the inputs as a volume: --inputs-claim)",
                     field, raw);
        if (err) snprintf(err->source, sizeof err->source, "%s", sw->source);
        return KP_EINVAL;
    }
    kp_sweep_input *x = &l->in[l->n];
    x->path = raw;
    kp_status st = kp__read_file(resolved, KP_SWEEP_MAX_INPUT_BYTES, &x->data, &x->len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", resolved);
        return st;
    }
    l->n++;
    return KP_OK;
}

kp_status kp_sweep_inputs(const kp_sweep *sw, kp_sweep_input **out, size_t *n, kp_error *err) {
    size_t cap = 4 + sw->n_snapshot;
    for (size_t i = 0; i < sw->n_vars; i++)
        if (sw->vars[i].paths) cap += sw->vars[i].n_values;
    list l = {kp__calloc(cap, sizeof *l.in), 0};
    *out = NULL;
    *n = 0;
    if (!l.in) return kp_error_set(err, KP_ENOMEM, "out of memory");
    const char *slash = strrchr(sw->source, '/');
    kp_status st = add(sw, &l, "the Sweep file", slash ? slash + 1 : sw->source, sw->source, err);
    char field[96];
    for (size_t i = 0; i < sw->n_snapshot && st == KP_OK; i++) {
        snprintf(field, sizeof field, "base.snapshot[%zu]", i);
        st = add(sw, &l, field, sw->snapshot_raw[i], sw->snapshot[i], err);
    }
    if (st == KP_OK && sw->scenario)
        st = add(sw, &l, "base.scenario", sw->scenario_raw, sw->scenario, err);
    if (st == KP_OK && sw->config) st = add(sw, &l, "base.config", sw->config_raw, sw->config, err);
    if (st == KP_OK && sw->kubelet_config)
        st = add(sw, &l, "base.kubeletConfig", sw->kubelet_config_raw, sw->kubelet_config, err);
    for (size_t i = 0; i < sw->n_vars && st == KP_OK; i++)
        for (size_t k = 0; sw->vars[i].paths && k < sw->vars[i].n_values && st == KP_OK; k++) {
            snprintf(field, sizeof field, "matrix[%zu].%s[%zu]", i,
                     kp_sweep_var_kind_name(sw->vars[i].kind), k);
            st = add(sw, &l, field, sw->vars[i].values[k], sw->vars[i].paths[k], err);
        }
    if (st != KP_OK) {
        kp_sweep_inputs_free(l.in, l.n);
        return st;
    }
    *out = l.in;
    *n = l.n;
    return KP_OK;
}

void kp_sweep_inputs_free(kp_sweep_input *in, size_t n) {
    for (size_t i = 0; in && i < n; i++) kp__free(in[i].data);
    kp__free(in);
}
