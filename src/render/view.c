/* The tool's view (render/view.h): namespace and label filters, absolute times. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/civil.h"
#include "render/view.h"

static _Thread_local kp_view view; /* zeroed: everything shown, relative times */

void kp_view_set(const kp_view *v) {
    if (v) view = *v;
    else memset(&view, 0, sizeof view);
}

bool kp_view_filters(void) { return view.ns || view.sel; }

bool kp_view_pod(const kp_cluster *cl, kp_index pod) {
    if (view.ns && strcmp(view.ns, kp_cluster_pod_namespace(cl, pod)) != 0) return false;
    return !view.sel || kp_selector_matches_pod(view.sel, cl, pod);
}

bool kp_view_pod_named(const char *ns, const char *name) {
    if (view.ns && strcmp(view.ns, ns) != 0) return false;
    if (!view.sel || !view.cl) return true;
    char ref[600];
    snprintf(ref, sizeof ref, "%s/%s", ns, name);
    kp_index pod = kp_cluster_find_pod(view.cl, ref);
    return pod < 0 || kp_selector_matches_pod(view.sel, view.cl, pod);
}

bool kp_view_object(const char *ns) {
    if (view.sel) return false;
    return !view.ns || strcmp(view.ns, ns) == 0;
}

bool kp_view_ns(const char *ns) { return !view.ns || strcmp(view.ns, ns) == 0; }

bool kp_view_absolute(void) { return view.absolute; }

void kp_view_none_found(FILE *f) {
    if (view.ns) fprintf(f, "No resources found in %s namespace.\n", view.ns);
    else fputs("No resources found\n", f);
}

void kp_view_time_format(int64_t unix_s, int64_t ms, char *buf, size_t cap) {
    int64_t t = unix_s * 1000 + ms;
    int64_t secs = t >= 0 ? t / 1000 : (t - 999) / 1000, frac = t - secs * 1000;
    kp__rfc3339_utc(secs, buf, cap);
    size_t n = strlen(buf);
    if (frac && n && n + 5 <= cap) /* "...:05Z" -> "...:05.250Z" */
        snprintf(buf + n - 1, cap - (n - 1), ".%03" PRId64 "Z", frac);
}
