/* Pieces of object metadata and status shared by several kinds (internal). */
#ifndef KP_CORE_META_H
#define KP_CORE_META_H

#include <stdint.h>

#include "base/arena.h"

#define KP_TIME_NONE INT64_MIN /* a timestamp that is not set */

/* status.conditions[] entry (pods keep only DisruptionTarget). */
typedef struct {
    kp_str type, status, reason, message;
} kp_condition;

/* Where an object was read from, for errors raised after loading (PriorityClass validation,
 * workload expansion): the input file and the loader's name of the object, "items[3]
 * (PriorityClass high)". Both NULL for objects kprio makes itself (the built-in classes). */
typedef struct {
    const char *file, *object;
} kp_origin;

#endif
