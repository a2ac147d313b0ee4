/* Typed reading of value trees (internal): a decoding context names the file and object in every
 * error and tracks the field path. Used by every decoder (kinds, configurations, Summary API). */
#ifndef KP_IO_DCTX_H
#define KP_IO_DCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/tree.h"
#include "kprio/common.h"

/* A decoding context: names the file and object in every error, tracks the field path. */
typedef struct kp_dctx {
    kp_error *err;
    const kp_tdoc *doc;
    char object[200]; /* e.g. "items[12] (Pod team-a/web-1)" */
    char path[400]; /* current field path, e.g. "spec.containers[0]" */
    size_t path_len;
} kp_dctx;

/* Path stack: push ".key" (or "key" at the start) / "[i]"; pop restores the saved length. */
size_t kp__dctx_push(kp_dctx *d, const char *key);
size_t kp__dctx_push_index(kp_dctx *d, uint32_t i);
void kp__dctx_pop(kp_dctx *d, size_t saved);
/* Sets err: "SOURCE: OBJECT: PATH[.field]: message" (line/column from n when known). Returns code.
 */
kp_status kp__dctx_fail(kp_dctx *d, const kp_tnode *n, kp_status code, const char *field,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* KP_EINVAL naming field when s[0..len) holds a NUL character: names, kinds, label keys and
 * values, signals and keys are validated upstream and never hold one, and kprio reads them as C
 * strings, where a NUL would silently cut them ("Pod\u0000x" read as "Pod"). */
kp_status kp__d_no_nul(kp_dctx *d, const kp_tnode *n, const char *field, const char *s, size_t len);
/* Duplicate member names in obj and everything below it (issue 17 item 8), as upstream reads
 * them. YAML (sigs.k8s.io/yaml, as kubectl): an error, KP_EINVAL "PATH: line N: key \"x\" already
 * set in map" (go-yaml's words). JSON (Go's encoding/json): the last value wins; the earlier
 * members of that name are unlinked from the tree (so every lookup and walk sees one member) and
 * warn(wctx, text) is called once per duplicate with "PATH: duplicate key \"x\": the last value
 * is used" (the caller names the file and object: call this before reading the object's kind and
 * name, which may be duplicated too, so warnings are kept until the object is named). */
typedef kp_status (*kp_dup_warn_fn)(void *wctx, const char *text);
kp_status kp__d_dup_keys(kp_dctx *d, kp_tnode *obj, bool yaml, kp_dup_warn_fn warn, void *wctx);
/* true when the document is YAML (its first non-blank byte is neither '{' nor '['). */
bool kp__d_doc_is_yaml(const kp_tdoc *doc);
/* Typed getters for member `key` of obj. Absent or null: returns KP_OK and leaves *out / *present
 * untouched (present=false). Wrong type or bad value: KP_EINVAL with a path error. */
kp_status kp__dget_str(kp_dctx *d, const kp_tnode *obj, const char *key, const char **out,
                       bool *present);
kp_status kp__dget_int(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t min, int64_t max,
                       int64_t *out, bool *present);
kp_status kp__dget_bool(kp_dctx *d, const kp_tnode *obj, const char *key, bool *out, bool *present);
/* Expects obj[key] to be an object/array (or absent/null -> *out = NULL). */
kp_status kp__dget_obj(kp_dctx *d, const kp_tnode *obj, const char *key, const kp_tnode **out);
kp_status kp__dget_arr(kp_dctx *d, const kp_tnode *obj, const char *key, const kp_tnode **out);
/* RFC 3339 timestamp ("2024-05-01T10:00:00Z", fractions and offsets accepted) -> unix seconds
 * (and nanoseconds in *nanos if non-NULL). */
kp_status kp__parse_time(const char *s, size_t len, int64_t *secs, int32_t *nanos);
kp_status kp__dget_time(kp_dctx *d, const kp_tnode *obj, const char *key, int64_t *out,
                        bool *present);

#endif
