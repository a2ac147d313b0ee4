/* --compat VERSION parsing (core/compat.h). */
#include <stdlib.h>

#include "core/compat.h"

bool kp__compat_parse(const char *v, uint16_t *minor) {
    if (!v) return false;
    if (v[0] == 'v') v++;
    char *end = NULL;
    long major = strtol(v, &end, 10);
    if (end == v || *end != '.' || major != 1) return false;
    const char *m = end + 1;
    long mi = strtol(m, &end, 10);
    if (end == m || (*end != '\0' && *end != '.') || mi < 0 || mi > 999) return false;
    *minor = (uint16_t)(mi > KP_COMPAT_NEWEST ? KP_COMPAT_NEWEST : mi);
    return true;
}
