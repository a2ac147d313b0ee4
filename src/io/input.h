/* Input files for loading (internal): large regular files are mapped, not copied. */
#ifndef KP_IO_INPUT_H
#define KP_IO_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"

typedef struct kp_input_s {
    const char *buf; /* len bytes of text, then KP_JSON_PADDING readable bytes */
    size_t len;
    void *map; /* mapping base (NULL: buf is a malloc'ed copy) */
    size_t map_len;
    size_t ahead; /* bytes [0, ahead) are prefaulted */
    size_t behind; /* bytes [0, behind) were released */
    int fd; /* mapped input: the file, kept open to notice a change (-1 otherwise) */
    int64_t mtime_ns; /* mapped input: modification time when opened */
} kp_input;

/* Opens path ("-" = stdin). A regular file of at least KP_INPUT_MAP_MIN bytes is mapped
 * read-only with a zeroed tail of at least KP_JSON_PADDING bytes (page-cache pages are used in
 * place: no copy, no zeroing); anything else (a small file, stdin, a FIFO or a character device
 * named directly) is read into a padded malloc'ed buffer. Bounded by max_bytes: KP_ELIMIT
 * "input is larger than the limit of N bytes" as soon as more arrives, so an endless input
 * (/dev/zero) stops there. A socket is KP_EIO "cannot read a socket". Release with
 * kp__input_close. */
kp_status kp__input_open(const char *path, size_t max_bytes, kp_input *in, kp_error *err);
/* The reader has reached pos (mapped input only; KP_OK otherwise): prefaults the next
 * KP_INPUT_WINDOW bytes when pos enters unfaulted pages, and releases pages more than a window
 * behind, so the resident set stays near two windows. Released pages read back from the page
 * cache if touched again (an error message counting lines, say). Before each new window the
 * file is checked (kp__input_check), so a file that shrinks while it is read is an error and
 * not a bus error on the next page. */
kp_status kp__input_advance(kp_input *in, const char *pos, kp_error *err);
/* KP_EIO "file changed while it was read" if a mapped file's size or modification time is no
 * longer what it was when opened; KP_OK otherwise (and for input that was copied). */
kp_status kp__input_check(const kp_input *in, kp_error *err);
void kp__input_close(kp_input *in);

/* 1-based line and column of byte offset off in buf. */
void kp__offset_to_linecol(const char *buf, size_t len, uint64_t off, long *line, long *col);

/* Whole file (or "-" for stdin) into a malloc'ed buffer with 64 spare zeroed bytes after len
 * (simdjson padding). Caller frees. Bounded by max_bytes (KP_ELIMIT beyond: "file is larger
 * than the limit of N bytes" for a regular file, "input is larger ..." for a stream). A regular
 * file that changes size while it is read is KP_EIO "file changed while it was read". */
kp_status kp__read_file(const char *path, size_t max_bytes, char **buf, size_t *len, kp_error *err);

#define KP_INPUT_MAP_MIN ((size_t)1 << 20)
#define KP_INPUT_WINDOW ((size_t)16 << 20)

#endif
