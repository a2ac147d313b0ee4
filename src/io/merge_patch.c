/* JSON merge patch (RFC 7386; see merge_patch.h): the API server's application of a patch of
 * type application/merge-patch+json (apimachinery's jsonpatch.MergePatch), over value trees and
 * written as text, so that the result is read by the same decoders as any object. */
#include "io/merge_patch.h"

#include <stdbool.h>
#include <string.h>

/* The member of obj named like m (an object's member), or NULL. */
static const kp_tnode *member(const kp_tnode *obj, const kp_tnode *m) {
    if (!obj || obj->type != KP_T_OBJ) return NULL;
    for (const kp_tnode *c = obj->first; c; c = c->next)
        if (c->key_len == m->key_len && memcmp(c->key, m->key, m->key_len) == 0) return c;
    return NULL;
}

static void put_key(kp_tbuf *out, bool *first, const kp_tnode *m) {
    if (!*first) kp__tbuf_put(out, ", ", 2);
    *first = false;
    kp__tbuf_quoted(out, m->key, m->key_len);
    kp__tbuf_put(out, ": ", 2);
}

/* mirrors jsonpatch.MergePatch (RFC 7386 section 2 MergePatch; the API server applies merge patches
 * with it) */
void kp__merge_patch(kp_tbuf *out, const kp_tnode *target, const kp_tnode *patch) {
    if (patch->type != KP_T_OBJ) { /* a scalar, an array or null replaces the target */
        kp__tree_text(out, patch);
        return;
    }
    const kp_tnode *t = target && target->type == KP_T_OBJ ? target : NULL;
    bool first = true;
    kp__tbuf_put(out, "{", 1);
    for (const kp_tnode *c = t ? t->first : NULL; c; c = c->next) {
        const kp_tnode *p = member(patch, c);
        if (p && p->type == KP_T_NULL) continue; /* removed */
        put_key(out, &first, c);
        if (p) kp__merge_patch(out, c, p);
        else kp__tree_text(out, c);
    }
    for (const kp_tnode *p = patch->first; p; p = p->next) {
        if (p->type == KP_T_NULL || member(t, p)) continue; /* a null for nothing: nothing */
        put_key(out, &first, p);
        kp__merge_patch(out, NULL, p); /* nulls inside a new object are dropped too */
    }
    kp__tbuf_put(out, "}", 1);
}
