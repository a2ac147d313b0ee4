/* Per-object value trees built from JSON (simdjson) or YAML (libyaml) events (internal).
 *
 * kp__tree_parse walks a buffer and calls `cb` once per top-level object: the document itself,
 * or, when split_lists is set and the document has an "items" array (a List / *List), once per
 * item. The tree handed to cb lives in scratch memory that is reset after cb returns, so no DOM
 * outlives one object. Strings are copied (NUL-terminated) into that scratch memory.
 * `metadata.managedFields` and the kubectl last-applied annotation are skipped while parsing;
 * with split_lists (cluster objects) so is every member of an object's root that no decoder
 * reads (tree.c: root_key_read), so an ignored array never becomes nodes. */
#ifndef KP_IO_TREE_H
#define KP_IO_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"

/* KP_T_LAZY: with split_lists (cluster objects, JSON), a member below an object's root whose
 * value is an object or an array and whose name no decoder reads (tree.c: known_key) is checked
 * and kept unread, as one node whose s/len is its text: an ignored array costs one node, not
 * one per element (issue 17 item 18). kp__tree_get expands it in place when asked for it, so a
 * decoder that starts reading a new member still sees it (only slower); code that walks all the
 * members of an object sees the node as it is. */
typedef enum {
    KP_T_NULL = 0,
    KP_T_BOOL,
    KP_T_NUM,
    KP_T_STR,
    KP_T_OBJ,
    KP_T_ARR,
    KP_T_LAZY
} kp_ttype;

typedef struct kp_tnode {
    kp_ttype type;
    bool b; /* KP_T_BOOL */
    bool plain; /* YAML plain scalar: its text is kept and may be read as a string */
    const char *key; /* member name when the parent is an object, else NULL */
    uint32_t key_len;
    const char *s; /* KP_T_STR / KP_T_NUM: text (numbers keep their source spelling) */
    uint32_t len;
    uint32_t n; /* children count (objects, arrays) */
    struct kp_tnode *first, *last, *next;
    uint64_t off; /* byte offset in the source buffer, for line/column in errors */
} kp_tnode;

typedef struct {
    const char *source; /* file name as given */
    const char *buf; /* whole source buffer (for offset -> line/column) */
    size_t len;
    long doc_index; /* YAML document number (0-based) */
    long item_index; /* index in items[] or -1 when the object is the document itself */
    const char *list_kind; /* kind of the enclosing List if already seen, else NULL */
    unsigned summary_like; /* the root has "node" (bit 0) and "pods" (bit 1): a Summary API doc */
} kp_tdoc;

typedef kp_status (*kp_tree_cb)(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err);

/* Parses buf (JSON if the first non-blank byte is '{' or '[', else YAML). With split_lists, buf
 * carries KP_JSON_PADDING readable bytes after len (the List splitter's scanner reads ahead).
 * A JSON stream (several documents one after the other) and a multi-document YAML stream are
 * read whole; tdoc.doc_index numbers the documents. Syntax errors are
 * KP_ESYNTAX with err->line/column set and a message "line L, column C: what". Depth is capped
 * at 128 (KP_ELIMIT). With split_lists a document that is an array is an error (kubectl reads
 * objects). */
kp_status kp__tree_parse(const char *source, const char *buf, size_t len, bool split_lists,
                         kp_tree_cb cb, void *ctx, kp_error *err);

/* The same over an input file (input.h): a mapped file's pages are released behind the List
 * splitter as it goes, so a multi-gigabyte List never sits in memory whole. */
struct kp_input_s;
kp_status kp__tree_parse_input(const char *source, struct kp_input_s *in, bool split_lists,
                               kp_tree_cb cb, void *ctx, kp_error *err);

/* Member lookup (first match), NULL if absent. */
const kp_tnode *kp__tree_get(const kp_tnode *obj, const char *key);
/* Walks a dotted path of member names ("metadata.name"). */
const kp_tnode *kp__tree_path(const kp_tnode *obj, const char *dotted);
bool kp__tree_key_is(const kp_tnode *n, const char *key);

#endif
