/* The List splitter (internal): cuts the "items" array of a JSON kubectl List into one byte range
 * per item, without parsing, so each item is parsed as its own document (tree.c). */
#ifndef KP_IO_LIST_SPLIT_H
#define KP_IO_LIST_SPLIT_H

#include <stddef.h>

#include "kprio/common.h"

/* Called once per element of items: [start, start + len) is the element's text (an object), idx
 * its index; or once with the whole document and idx -1 when the document has "items" but its
 * kind is not a List kind (only List kinds, or a document with items and no kind, are split). A
 * status other than KP_OK stops the split and is returned. */
typedef kp_status (*kp_list_item_fn)(void *ctx, const char *start, size_t len, long idx);

/* buf holds len bytes of JSON followed by KP_JSON_PADDING readable bytes; the document to split
 * starts at offset from (a stream may hold several: `(kubectl get nodes -o json; kubectl get pods
 * -o json)`). Returns KP_OK after calling item for every element of that document's "items"
 * array, with *doc_end set to the offset just after the document (what follows is the caller's),
 * 1 if the document is not such a List object or cannot be cut (the caller parses it whole, and
 * the full parser describes any error), or an error: KP_ESYNTAX with line/column (in buf) for a
 * bad separator between items, or the callback's status. The List's "kind", when it is a List
 * kind that fits, is copied to kind. */
int kp__list_split(const char *buf, size_t len, size_t from, size_t *doc_end, char *kind,
                   size_t kind_cap, kp_list_item_fn item, void *ctx, kp_error *err);

#endif
