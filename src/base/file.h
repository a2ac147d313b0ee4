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

/* Creates (or truncates) the file at path and lets fill(f, ctx) write it; on any error the file
 * is removed. Errors: fill's status (err says "out of memory" or "cannot write" unless it is
 * KP_EIO), KP_EIO ("cannot create: REASON", "write error"), always with path as the error's
 * source. */
kp_status kp__file_write(const char *path, kp_status (*fill)(FILE *f, void *ctx), void *ctx,
                         kp_error *err);

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
