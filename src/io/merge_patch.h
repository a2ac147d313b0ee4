/* JSON merge patch (RFC 7386, `kubectl patch --type merge`) over value trees (internal). */
#ifndef KP_IO_MERGE_PATCH_H
#define KP_IO_MERGE_PATCH_H

#include "io/tree.h"
#include "io/tree_text.h"

/* Appends to out the text of MergePatch(target, patch) as RFC 7386 section 2 defines it: a patch
 * that is an object merges member by member into the target (an object, else {} in its place),
 * a null member removing the target's member of that name; any other patch replaces the target
 * whole. target NULL: no value. Members keep the target's order, new ones follow in the patch's
 * order. Strings and scalars are written as kp__tree_text writes them (a YAML plain scalar as
 * written). Recursion is bounded by the trees' depth (the parser's cap). Out of memory sets
 * out->oom. */
void kp__merge_patch(kp_tbuf *out, const kp_tnode *target, const kp_tnode *patch);

#endif
