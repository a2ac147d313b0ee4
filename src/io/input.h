/* Input files for loading (internal): large regular files are mapped, not copied. */
#ifndef KP_IO_INPUT_H
#define KP_IO_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "kprio/common.h"

typedef struct {
    const char *buf; /* len bytes of text, then KP_JSON_PADDING readable bytes */
    size_t len;
    void *map;       /* mapping base (NULL: buf is a malloc'ed copy) */
    size_t map_len;
} kp_input;

/* Opens path ("-" = stdin). A regular file of at least KP_INPUT_MAP_MIN bytes is mapped
 * read-only with a zeroed tail of at least KP_JSON_PADDING bytes (page-cache pages are used in
 * place: no copy, no zeroing); anything else is read into a padded malloc'ed buffer. Bounded by
 * max_bytes (KP_ELIMIT beyond). Release with kp__input_close. */
kp_status kp__input_open(const char *path, size_t max_bytes, kp_input *in, kp_error *err);
/* Tells the kernel the bytes before `upto` will not be read again soon (mapped input only): the
 * pages leave this process's resident set and are read back from the page cache on demand (an
 * error message may still quote an earlier line). */
void kp__input_done_with(kp_input *in, const char *upto);
void kp__input_close(kp_input *in);

#define KP_INPUT_MAP_MIN ((size_t)1 << 20)

#endif
