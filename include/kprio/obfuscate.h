/* Obfuscation of snapshots (`kprio obfuscate`, docs/live.md): names, namespaces, label and
 * annotation values, images and every other free-form string are replaced by a keyed hash, the
 * same string by the same hash everywhere, so that every decision kprio makes is the same on the
 * obfuscated snapshot as on the original, with the names mapped. What is kept: member names
 * (label keys, resource names), numbers, quantities, times and durations (but numbers that are
 * user data are hashed: env values, commands and args, values of labels and annotations of the
 * user's own keys and of selectors, unless a Gt / Lt node affinity of the same input compares
 * that label key), the values the engines
 * interpret (kind, operator, effect, phase, policy fields, taint and topology keys, ...) and a few
 * well-known names (default-scheduler, kube-system, system-* classes, linux/windows). */
#ifndef KPRIO_OBFUSCATE_H
#define KPRIO_OBFUSCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "kprio/common.h"

typedef struct kp_obfuscator kp_obfuscator;

/* A new obfuscator keyed by `key` (any non-empty string; the same key gives the same names), or,
 * with key NULL, by 128 random bits from /dev/urandom (KP_EIO if it cannot be read). The key is
 * never printed nor stored anywhere else. */
kp_status kp_obfuscator_new(const char *key, kp_obfuscator **out, kp_error *err);
void kp_obfuscator_free(kp_obfuscator *o);

/* The obfuscated form of one string as it would appear in a name or label value field (len
 * bytes of s). Returns a NUL-terminated string owned by the caller (kp_free), NULL when out of
 * memory. */
char *kp_obfuscate_string(const kp_obfuscator *o, const char *s, size_t len);

/* Reads `path` (JSON or YAML, "-" for stdin; every document of a stream) and returns its
 * documents obfuscated, as JSON, one document per line, in *out (kp_free) and *out_len; with
 * `map`, the mapping instead: one line "ORIGINAL<TAB>OBFUSCATED" per string hashed, in the order
 * met (repeats included). Each document is read whole. Errors as for loading (file, line and
 * column). */
kp_status kp_obfuscate_path(const kp_obfuscator *o, const char *path, bool map, char **out,
                            size_t *out_len, kp_error *err);

#endif
