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

#endif
