/* Quantity formatting into a caller's buffer (internal): what the public by-value
 * kp_quantity_string* (kprio/quantity.h) are built on, for library code that composes messages
 * in its own buffers. */
#ifndef KP_CORE_QUANTITY_H
#define KP_CORE_QUANTITY_H

#include <stddef.h>

#include "kprio/quantity.h"

/* Canonical string of q (Quantity.String()) into buf: at most cap bytes incl. NUL; returns the
 * length it needed (like snprintf). buf may be NULL when cap is 0. */
size_t kp__quantity_format(const kp_quantity *q, char *buf, size_t cap);
/* NewQuantity(v, format).String() and NewMilliQuantity(v, format).String(), the same way. */
size_t kp__quantity_format_int(int64_t v, kp_qformat format, char *buf, size_t cap);
size_t kp__quantity_format_milli(int64_t v, kp_qformat format, char *buf, size_t cap);

#endif
