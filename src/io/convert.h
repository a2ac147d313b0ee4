/* The converters' result (internal; include/kprio/convert.h): the body of kp_converted that
 * convert_alibaba.c (a snapshot and a Scenario) and convert_simkube.c (a trace directory)
 * fill, and whose accessors live in convert_alibaba.c. */
#ifndef KP_IO_CONVERT_H
#define KP_IO_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "io/tree_text.h"
#include "kprio/convert.h"

struct kp_converted {
    kp_tbuf cluster, scenario; /* the snapshot (a v1 List) and, but for a trace, the Scenario */
    kp_tbuf manifest, watch, readme; /* a trace directory (is_trace) */
    bool is_trace;
    uint32_t items; /* cluster items written */
    kp_converted_stats st;
};

#endif
