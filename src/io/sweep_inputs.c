/* The files of a sweep with their bytes (kp_sweep_inputs, include/kprio/sweep.h): what
 * `kprio sweep --emit-job` puts in the Job's ConfigMap, each under the path the pods find it at
 * below the ConfigMap's mount: the Sweep file's own files under the paths it writes, and the
 * files its scenarios name (kp_scenario.files) under their scenario's directory, so the pods
 * read the same Sweep file, the same scenarios and the same files from the mount. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "io/decode_scenario.h"
#include "io/input.h"
#include "kprio/sweep.h"

/* The API server refuses a ConfigMap whose values pass 1 MiB together (ValidateConfigMap
 * against core.MaxSecretSize): a larger file is refused before it is read. */
#define KP_SWEEP_MAX_INPUT_BYTES ((size_t)1 << 20)

/* The kubelet's atomic writer of ConfigMap volumes refuses longer paths and path elements. */
#define KP_ITEM_MAX_PATH 4096
#define KP_ITEM_MAX_NAME 255

/* Why p cannot be a ConfigMap item's path, NULL when it can: relative, no "." or ".." element,
 * no empty one, not starting with ".." (a ".." element or a leading ".." would reach the
 * volume's own "..data" link), within the kubelet's lengths. Mirrors
 * validateLocalNonReservedPath (the API server's check of an item's path) and mirrors
 * validatePath (the kubelet's atomic writer: maxPathLength, maxFileNameLength). */
static const char *item_path_error(const char *p) {
    if (!*p || p[0] == '/')
        return "a Job's ConfigMap holds only files below the Sweep file's "
               "directory, named by relative paths";
    if (strlen(p) > KP_ITEM_MAX_PATH) return "longer than a ConfigMap item's path may be (4096)";
    if (p[0] == '.' && p[1] == '.' && p[2] != '/' && p[2])
        return "a ConfigMap item's path must not start with \"..\"";
    for (const char *c = p; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return "a Job's ConfigMap holds only files below the Sweep file's directory, named "
                   "by relative paths";
        if (n > KP_ITEM_MAX_NAME)
            return "a path element longer than a ConfigMap item's may be (255)";
        c += n + (e != NULL);
        if (e && !*c) return "a directory: a Job's ConfigMap holds files"; /* trailing slash */
    }
    return NULL;
}

typedef struct {
    kp_sweep_input *in;
    size_t n, cap;
} list;

/* field: what names the file ("base.snapshot[0]", "actions[2].create.file"), in source's
 * errors; path: where the pods find it below the mount; resolved: where it is read now. */
static kp_status add(list *l, const char *source, const char *field, const char *path,
                     const char *resolved, kp_error *err) {
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->in[i].path, path) == 0) return KP_OK;
    const char *why = item_path_error(path);
    struct stat sb;
    bool have = stat(resolved, &sb) == 0;
    if (!why && have && S_ISDIR(sb.st_mode)) why = "a directory: a Job's ConfigMap holds files";
    if (!why && have && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > KP_SWEEP_MAX_INPUT_BYTES)
        why = "larger than a ConfigMap holds (1 MiB)";
    if (why) {
        kp_error_set(err, KP_EINVAL,
                     "%s: \"%s\": %s (or give the inputs as a volume: "
                     "--inputs-claim PVC)",
                     field, path, why);
        if (err) snprintf(err->source, sizeof err->source, "%s", source);
        return KP_EINVAL;
    }
    if (!kp__grow((void **)&l->in, &l->cap, l->n + 1, sizeof *l->in, 8))
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_sweep_input *x = &l->in[l->n];
    memset(x, 0, sizeof *x);
    if (!(x->path = kp__strdup(path))) return kp_error_set(err, KP_ENOMEM, "out of memory");
    kp_status st = kp__read_file(resolved, KP_SWEEP_MAX_INPUT_BYTES, &x->data, &x->len, err);
    if (st != KP_OK) {
        kp__free((void *)x->path);
        if (err) snprintf(err->source, sizeof err->source, "%s", resolved);
        return st;
    }
    l->n++;
    return KP_OK;
}

/* The directory of name's scenario (as the Sweep file writes it) joined with name, where the
 * pods find the file below the mount: NULL when name is absolute or leaves the mount, or when a
 * ".." of name leaves a directory name itself entered (the mount may lack it: only the files
 * listed are there). kp__malloc'd; *oom on failure to allocate. */
static char *mount_path(const char *scen_raw, const char *name, bool *oom) {
    *oom = false;
    if (name[0] == '/') return NULL;
    size_t cap = strlen(scen_raw) + strlen(name) + 2, len = 0, fixed = 0;
    char *p = kp__malloc(cap);
    if (!p) return *oom = true, NULL;
    const char *slash = strrchr(scen_raw, '/');
    if (slash) { /* the scenario's directory: elements the mount has */
        len = (size_t)(slash - scen_raw);
        memcpy(p, scen_raw, len);
        for (size_t i = 0; i <= len; i++) fixed += i == len || p[i] == '/';
    }
    size_t depth = fixed;
    for (const char *c = name; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            if (depth == 0 || depth > fixed) {
                kp__free(p);
                return NULL;
            }
            while (len && p[len - 1] != '/') len--;
            if (len) len--; /* (the slash before the element) */
            depth--, fixed--;
        } else if (n && !(n == 1 && c[0] == '.')) {
            if (len) p[len++] = '/';
            memcpy(p + len, c, n);
            len += n;
            depth++;
        }
        c += n + (e != NULL);
    }
    p[len] = '\0';
    return p;
}

/* The files scenario `raw` (resolved: `path`) names in run idx (kp_sweep_scenario_load decodes
 * it as the run does), each below the scenario's directory. */
static kp_status named_files(const kp_sweep *sw, list *l, const size_t *idx, const char *raw,
                             const char *path, kp_error *err) {
    kp_scenario *sc = NULL;
    kp_status st = kp_sweep_scenario_load(sw, idx, &sc, err);
    const char *slash = strrchr(path, '/');
    char *dir = slash ? kp__strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
    if (st == KP_OK && slash && !dir) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    for (size_t i = 0; sc && st == KP_OK && i < sc->n_files; i++) {
        const kp_scenario_file *f = &sc->files[i];
        bool oom;
        char *mp = mount_path(raw, f->name, &oom);
        char *rp = kp__sc_path(dir, f->name);
        if (oom || !rp) st = kp_error_set(err, KP_ENOMEM, "out of memory");
        else st = add(l, path, f->field, mp ? mp : f->name, rp, err);
        kp__free(mp);
        kp__free(rp);
    }
    kp__free(dir);
    kp_scenario_free(sc);
    return st;
}

/* Whether text[0..len) holds ${name} */
static bool names(const char *text, size_t len, const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i + n + 3 <= len; i++)
        if (text[i] == '$' && text[i + 1] == '{' && memcmp(text + i + 2, name, n) == 0 &&
            text[i + 2 + n] == '}')
            return true;
    return false;
}

/* Every file the runs' scenarios name: each scenario the runs use (a scenarios variable's, else
 * base.scenario), decoded with every combination of the numeric variables its text names (a
 * file name may hold a ${NAME} too). */
static kp_status scenario_files(const kp_sweep *sw, list *l, kp_error *err) {
    size_t sv = sw->n_vars, n_src = sw->scenario ? 1 : 0;
    for (size_t i = 0; i < sw->n_vars; i++)
        if (sw->vars[i].kind == KP_SWEEP_SCENARIOS) sv = i, n_src = sw->vars[i].n_values;
    size_t *idx = kp__calloc(sw->n_vars + 1, sizeof *idx);
    bool *named = kp__calloc(sw->n_vars + 1, sizeof *named);
    kp_status st = idx && named ? KP_OK : kp_error_set(err, KP_ENOMEM, "out of memory");
    for (size_t k = 0; k < n_src && st == KP_OK; k++) {
        const char *raw = sv < sw->n_vars ? sw->vars[sv].values[k] : sw->scenario_raw;
        const char *path = sv < sw->n_vars ? sw->vars[sv].paths[k] : sw->scenario;
        char *text = NULL;
        size_t len = 0;
        if ((st = kp__read_file(path, KP_SWEEP_MAX_INPUT_BYTES, &text, &len, err)) != KP_OK) {
            if (err) snprintf(err->source, sizeof err->source, "%s", path);
            break;
        }
        for (size_t i = 0; i < sw->n_vars; i++) { /* (a $${NAME} only costs a decode more) */
            named[i] = sw->vars[i].kind == KP_SWEEP_VALUES && names(text, len, sw->vars[i].name);
            idx[i] = i == sv ? k : 0;
        }
        kp__free(text);
        for (;;) { /* the combinations, the last named variable fastest */
            if ((st = named_files(sw, l, idx, raw, path, err)) != KP_OK) break;
            size_t i = sw->n_vars;
            while (i-- > 0 && (!named[i] || ++idx[i] == sw->vars[i].n_values))
                if (named[i]) idx[i] = 0;
            if (i == (size_t)-1) break;
        }
    }
    kp__free(idx);
    kp__free(named);
    return st;
}

kp_status kp_sweep_inputs(const kp_sweep *sw, kp_sweep_input **out, size_t *n, kp_error *err) {
    list l = {NULL, 0, 0};
    *out = NULL;
    *n = 0;
    const char *slash = strrchr(sw->source, '/'), *src = sw->source;
    kp_status st = add(&l, src, "the Sweep file", slash ? slash + 1 : src, src, err);
    char field[96];
    for (size_t i = 0; i < sw->n_snapshot && st == KP_OK; i++) {
        snprintf(field, sizeof field, "base.snapshot[%zu]", i);
        st = add(&l, src, field, sw->snapshot_raw[i], sw->snapshot[i], err);
    }
    if (st == KP_OK && sw->scenario)
        st = add(&l, src, "base.scenario", sw->scenario_raw, sw->scenario, err);
    if (st == KP_OK && sw->config)
        st = add(&l, src, "base.config", sw->config_raw, sw->config, err);
    if (st == KP_OK && sw->kubelet_config)
        st = add(&l, src, "base.kubeletConfig", sw->kubelet_config_raw, sw->kubelet_config, err);
    for (size_t i = 0; i < sw->n_vars && st == KP_OK; i++)
        for (size_t k = 0; sw->vars[i].paths && k < sw->vars[i].n_values && st == KP_OK; k++) {
            snprintf(field, sizeof field, "matrix[%zu].%s[%zu]", i,
                     kp_sweep_var_kind_name(sw->vars[i].kind), k);
            st = add(&l, src, field, sw->vars[i].values[k], sw->vars[i].paths[k], err);
        }
    if (st == KP_OK) st = scenario_files(sw, &l, err);
    if (st != KP_OK) {
        kp_sweep_inputs_free(l.in, l.n);
        return st;
    }
    *out = l.in;
    *n = l.n;
    return KP_OK;
}

void kp_sweep_inputs_free(kp_sweep_input *in, size_t n) {
    for (size_t i = 0; in && i < n; i++) {
        kp__free((void *)in[i].path);
        kp__free(in[i].data);
    }
    kp__free(in);
}
