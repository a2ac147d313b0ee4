/* Output files and directory listings (internal utility module, not published: like curl's
 * curlx, usable by every layer, the tool's included).
 *
 * The library never creates a file: its writers take a callback or a FILE *. The tool opens its
 * output files here (kprio simulate --metrics, --report, --final-snapshot), so that a file is
 * written whole or not at all, and it walks the directories a flag names (kprio evict --summary
 * DIR) here. Together with src/io/, which reads, this file is the only one that opens files or
 * directories. */
#ifndef KP_BASE_FILE_H
#define KP_BASE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kprio/common.h"

/* An output file being written. A regular file (or a name not taken yet) is written to a
 * temporary file beside its target ("DIR/.NAME.kprio-XXXXXX", after following symbolic links, so
 * a link keeps pointing where it did) and renamed over the target only when complete: until then
 * the target is untouched, and on failure only the temporary file is removed. Anything else (a
 * device such as /dev/null or /dev/full, a FIFO, a socket) is written in place and never
 * removed. Open every output before the work that fills it, so that a bad path costs nothing. */
typedef struct kp__out kp__out;

/* Opens path for writing (above); *out is released by kp__out_commit or kp__out_abort.
 * Errors: KP_EIO ("cannot create: REASON", "is a directory"), KP_ENOMEM, with path as the
 * error's source. */
kp_status kp__out_open(const char *path, kp__out **out, kp_error *err);

/* The stream to write to. */
FILE *kp__out_stream(kp__out *o);

/* Closes o and, when fill (the status of whatever wrote the stream) is KP_OK and every write
 * succeeded, puts the file in place; else removes the temporary file. Releases o. Errors: fill
 * (err says "out of memory" or "cannot write" unless it is KP_EIO), KP_EIO ("write error",
 * "cannot rename: REASON"), always with the path as the error's source. */
kp_status kp__out_commit(kp__out *o, kp_status fill, kp_error *err);

/* Closes o, removes its temporary file (never the target) and releases o; NULL is a no-op. */
void kp__out_abort(kp__out *o);

/* kp__out_open, fill(f, ctx), kp__out_commit: the file at path written whole or not at all. */
kp_status kp__file_write(const char *path, kp_status (*fill)(FILE *f, void *ctx), void *ctx,
                         kp_error *err);

/* Makes directory path (one level; an existing directory is fine). Errors: KP_EIO ("cannot
 * create directory: REASON", "a file of that name exists"), path as the error's source. */
kp_status kp__dir_make(const char *path, kp_error *err);

/* True when path can be read a second time with the same content: a regular file or a
 * directory, or a name that does not exist (its reader reports that). False for standard input
 * ("-"), a pipe or FIFO, a device or a socket: read once, they are empty (or different) after. */
bool kp__file_rereadable(const char *path);

/* True when path names a directory (following symbolic links). */
bool kp__is_dir(const char *path);

/* The regular files of directory dir (not recursive; names starting with '.' left out) whose
 * name keep accepts (keep NULL: all), as "DIR/NAME" strings sorted by name: *n of them in
 * *paths, released with kp__paths_free (*n may be 0). Errors: KP_EIO ("cannot open directory:
 * REASON", dir as the error's source), KP_ENOMEM. */
kp_status kp__dir_files(const char *dir, bool (*keep)(const char *name), char ***paths, size_t *n,
                        kp_error *err);

/* Releases what kp__dir_files returned; NULL is a no-op. */
void kp__paths_free(char **paths, size_t n);

#endif
