/* The builder the finders of a simulation's insight share (src/sim/insight_internal.h): a
 * finding owns its texts and link arrays (subjects are borrowed from the cluster); links are
 * appended in any order, then sorted and made unique. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/insight_internal.h"

/* ---------------------------------------------------------------- the builder */

static const char *KIND_NAME[] = {"Loop",        "Cascade",         "Starvation",
                                  "PDBPressure", "PressureHotSpot", "DeviceContention"};

kp_finding *kp__ins_add(kp_insight *in, kp_finding_kind kind, kp_finding_severity sev,
                        const char *subject_kind, const char *subject_ns,
                        const char *subject_name) {
    void *nf = in->f;
    if (!kp__grow(&nf, &in->cap, in->n + 1, sizeof *in->f, 16)) return NULL;
    in->f = nf;
    kp_finding *f = &in->f[in->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->severity = sev;
    f->kind_name = KIND_NAME[kind];
    f->subject_kind = subject_kind;
    f->subject_ns = subject_ns ? subject_ns : "";
    f->subject_name = subject_name;
    f->summary = f->detail = f->condition = "";
    f->pod = -1;
    return f;
}

/* grows *arr (n elements of size sz) when n is 0 or a power of two: room for one more */
static kp_status room(void **arr, size_t n, size_t sz) {
    if (n & (n - 1)) return KP_OK;
    void *na = kp_realloc(*arr, (n ? n * 2 : 1) * sz);
    if (!na) return KP_ENOMEM;
    *arr = na;
    return KP_OK;
}

kp_status kp__ins_event(kp_finding *f, long ev) {
    if (ev < 0) return KP_OK;
    void *a = (void *)f->events;
    if (room(&a, f->n_events, sizeof(long)) != KP_OK) return KP_ENOMEM;
    ((long *)a)[f->n_events++] = ev;
    f->events = a;
    return KP_OK;
}

kp_status kp__ins_pod(kp_finding *f, kp_index pod) {
    if (pod < 0) return KP_OK;
    void *a = (void *)f->pods;
    if (room(&a, f->n_pods, sizeof(kp_index)) != KP_OK) return KP_ENOMEM;
    ((kp_index *)a)[f->n_pods++] = pod;
    f->pods = a;
    return KP_OK;
}

kp_status kp__ins_node(kp_finding *f, kp_index node) {
    if (node < 0) return KP_OK;
    void *a = (void *)f->nodes;
    if (room(&a, f->n_nodes, sizeof(kp_index)) != KP_OK) return KP_ENOMEM;
    ((kp_index *)a)[f->n_nodes++] = node;
    f->nodes = a;
    return KP_OK;
}

kp_status kp__ins_link(kp_finding *f, const kp_finding_link *l) {
    void *a = (void *)f->tree;
    if (room(&a, f->n_tree, sizeof *l) != KP_OK) return KP_ENOMEM;
    ((kp_finding_link *)a)[f->n_tree++] = *l;
    f->tree = a;
    return KP_OK;
}

__attribute__((format(printf, 2, 0))) static char *vfmt(const char *prefix, const char *fmt,
                                                        va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    size_t pl = prefix ? strlen(prefix) : 0;
    char *s = n < 0 ? NULL : kp_malloc(pl + (size_t)n + 2);
    if (!s) return NULL;
    if (pl) {
        memcpy(s, prefix, pl);
        s[pl++] = '\n';
    }
    vsnprintf(s + pl, (size_t)n + 1, fmt, ap);
    return s;
}

kp_status kp__ins_summary(kp_finding *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = vfmt(NULL, fmt, ap);
    va_end(ap);
    if (!s) return KP_ENOMEM;
    if (*f->summary) kp_free((void *)f->summary);
    f->summary = s;
    return KP_OK;
}

kp_status kp__ins_detail(kp_finding *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = vfmt(*f->detail ? f->detail : NULL, fmt, ap);
    va_end(ap);
    if (!s) return KP_ENOMEM;
    if (*f->detail) kp_free((void *)f->detail);
    f->detail = s;
    return KP_OK;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}
static int cmp_idx(const void *a, const void *b) {
    kp_index x = *(const kp_index *)a, y = *(const kp_index *)b;
    return (x > y) - (x < y);
}

static size_t uniq(void *arr, size_t n, size_t sz, int (*cmp)(const void *, const void *)) {
    if (n < 2) return n;
    qsort(arr, n, sz, cmp);
    char *a = arr;
    size_t w = 1;
    for (size_t i = 1; i < n; i++)
        if (cmp(a + i * sz, a + (w - 1) * sz) != 0) memmove(a + w++ * sz, a + i * sz, sz);
    return w;
}

void kp__ins_sort_links(kp_finding *f) {
    f->n_events = uniq((void *)f->events, f->n_events, sizeof(long), cmp_long);
    f->n_pods = uniq((void *)f->pods, f->n_pods, sizeof(kp_index), cmp_idx);
    f->n_nodes = uniq((void *)f->nodes, f->n_nodes, sizeof(kp_index), cmp_idx);
}

const char *kp__ins_pod_ref(const ins_run *r, kp_index pod, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", kp_cluster_pod_namespace(r->cl, pod),
             kp_cluster_pod_name(r->cl, pod));
    return buf;
}

const char *kp__ins_dur(int64_t ms, char *buf, size_t cap) {
    kp_duration_format(ms * 1000000, buf, cap);
    return buf;
}

/* up to 5 names, then "and N more"; a name that does not fit ends the list */
static const char *name_list(const ins_run *r, const kp_index *v, size_t n, bool pods, char *buf,
                             size_t cap) {
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        char one[600];
        if (i == 5) {
            snprintf(buf + used, cap - used, " and %zu more", n - i);
            break;
        }
        if (pods) kp__ins_pod_ref(r, v[i], one, sizeof one);
        else snprintf(one, sizeof one, "%s", kp_cluster_node_name(r->cl, v[i]));
        int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", one);
        if (w < 0 || (size_t)w >= cap - used) {
            buf[used] = 0;
            break;
        }
        used += (size_t)w;
    }
    return buf;
}

const char *kp__ins_pod_list(const ins_run *r, const kp_finding *f, char *buf, size_t cap) {
    return name_list(r, f->pods, f->n_pods, true, buf, cap);
}
const char *kp__ins_node_list(const ins_run *r, const kp_finding *f, char *buf, size_t cap) {
    return name_list(r, f->nodes, f->n_nodes, false, buf, cap);
}
