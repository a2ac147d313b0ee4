/* Findings of a simulation and the what-if comparison (kprio/insight.h). Scaffolding of this
 * session: the structures and their lifetime; the findings themselves are being written
 * (issue 13) and this file says so by returning none. */
#include <string.h>

#include "kprio/insight.h"

struct kp_insight {
    kp_finding *f;
    size_t n;
};

struct kp_insight_compare {
    kp_compare c;
};

void kp_insight_options_init(kp_insight_options *o) {
    memset(o, 0, sizeof *o);
    o->starvation_ms = 5 * 60 * 1000;
    o->loop_min_turns = 3;
    o->cascade_min_depth = 2;
}

kp_status kp_insight_new(const kp_sim *sim, const kp_insight_options *opt, kp_insight **out,
                         kp_error *err) {
    (void)sim;
    (void)opt;
    *out = kp_calloc(1, sizeof **out);
    return *out ? KP_OK : kp_error_set(err, KP_ENOMEM, "insight: out of memory");
}

void kp_insight_free(kp_insight *in) {
    if (!in) return;
    kp_free(in->f);
    kp_free(in);
}

size_t kp_insight_finding_count(const kp_insight *in) { return in->n; }
const kp_finding *kp_insight_finding_get(const kp_insight *in, size_t i) {
    return i < in->n ? &in->f[i] : NULL;
}

kp_status kp_insight_compare_new(const kp_sim *a, const kp_insight *ia, const kp_sim *b,
                                 const kp_insight *ib, kp_insight_compare **out, kp_error *err) {
    (void)ia;
    (void)ib;
    *out = kp_calloc(1, sizeof **out);
    if (!*out) return kp_error_set(err, KP_ENOMEM, "insight: out of memory");
    kp_sim_counters_get(a, &(*out)->c.a);
    kp_sim_counters_get(b, &(*out)->c.b);
    return KP_OK;
}

const kp_compare *kp_insight_compare_get(const kp_insight_compare *c) { return &c->c; }
void kp_insight_compare_free(kp_insight_compare *c) { kp_free(c); }
