/* What the tables and documents of the tool show (kubectl's habits, docs/schedule.md): -n / -A
 * (one namespace or all), -l (a label selector over pods), --start (absolute times). The CLI
 * sets the view once, after loading, for the thread; each renderer asks it about the rows it
 * would print. A filter changes what is shown, never what is computed: the scheduler, the
 * simulation and their counters see every pod. --sort-by is the tables' (kp_table_set_sort_by,
 * emit.h). */
#ifndef KP_RENDER_VIEW_H
#define KP_RENDER_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kprio/cluster.h"
#include "kprio/selector.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *ns; /* -n NS; NULL: every namespace (the default, and -A) */
    const kp_selector *sel; /* -l SELECTOR (borrowed); NULL: every pod */
    const kp_cluster *cl; /* what pod names are looked up in (kp_view_pod_named); borrowed */
    bool absolute; /* --start given: times as RFC 3339 UTC timestamps */
} kp_view;

/* Sets the view of this thread (a copy; NULL: show everything, the default). */
void kp_view_set(const kp_view *v);
/* Whether a filter is set (-n or -l). */
bool kp_view_filters(void);
/* Whether the pod is shown: in the namespace of -n and selected by -l. */
bool kp_view_pod(const kp_cluster *cl, kp_index pod);
/* A pod named by namespace and name, looked up in the view's cluster (shown when not found). */
bool kp_view_pod_named(const char *ns, const char *name);
/* An object that is not a pod: shown when in the namespace of -n ("" = cluster-scoped: shown
 * only without -n) and no -l is set (a selector selects pods). */
bool kp_view_object(const char *ns);
/* Whether namespace ns is shown (-n alone; a selector is not asked). */
bool kp_view_ns(const char *ns);
/* In place of a table whose every row -n / -l filtered out: kubectl's words, "No resources
 * found in NS namespace." (with -n) or "No resources found". */
void kp_view_none_found(FILE *f);
/* Whether times are absolute (--start). */
bool kp_view_absolute(void);
/* unix seconds + ms as RFC 3339 UTC with milliseconds only when not whole
 * ("2026-11-01T01:00:00Z", "2026-11-01T01:00:00.250Z"). */
void kp_view_time_format(int64_t unix_s, int64_t ms, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
