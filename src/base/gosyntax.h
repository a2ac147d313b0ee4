/* Go syntax helpers (internal): the spellings of Go's standard library that kprio reproduces
 * byte for byte in messages and accepts in configuration. Shared by the kubelet engines, the
 * configuration decoders and (later) the simulator.
 *
 * Mirrors strconv.Quote (for plain strings), time.ParseDuration, time.Duration.String and the
 * syntax and range of strconv.ParseFloat(s, 32). Errors are written as Go words them into
 * msg[0..msg_cap) (NUL-terminated); the caller attaches them to its kp_error. */
#ifndef KP_BASE_GOSYNTAX_H
#define KP_BASE_GOSYNTAX_H

#include <stddef.h>
#include <stdint.h>

#include "kprio/common.h"

/* strconv.Quote of s[0..len) for the plain strings we see: escapes quote, backslash and control
 * bytes; truncated (still quoted) to fit buf[0..cap). */
void kp__go_quote(const char *s, size_t len, char *buf, size_t cap);

/* time.ParseDuration. KP_EINVAL with Go's text ("time: invalid duration \"x\"") in msg. */
kp_status kp__go_parse_duration(const char *s, size_t len, int64_t *out_ns, char *msg,
                                size_t msg_cap);

/* time.Duration.String ("2m0s", "1.5s", "0s", "300ms"). */
void kp__go_format_duration(int64_t ns, char *buf, size_t cap);

/* strconv.ParseFloat(s, 32) for s[0..len) (at most 127 bytes are read): KP_EINVAL ("invalid
 * syntax") or KP_ERANGE ("value out of range") with Go's text in msg. */
kp_status kp__go_parse_float32(const char *s, size_t len, float *out, char *msg, size_t msg_cap);

#endif
