/* The FitError text: see diagnosis.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sched/diagnosis.h"

void kp__diagnosis_init(kp_diagnosis *d) { memset(d, 0, sizeof *d); }

void kp__diagnosis_fini(kp_diagnosis *d) {
    kp__free(d->ents);
    memset(d, 0, sizeof *d);
}

kp_status kp__diagnosis_add(kp_diagnosis *d, const char *reason, uint32_t count) {
    if (d->n && d->ents[d->last].reason == reason) { /* the same string as the last one */
        d->ents[d->last].count += count;
        return KP_OK;
    }
    uint32_t k = 0;
    /* reasons are mostly the same static or per-scheduler string: compare pointers first */
    while (k < d->n && d->ents[k].reason != reason && strcmp(d->ents[k].reason, reason) != 0) k++;
    if (k == d->n) {
        if (!kp__grow32((void **)&d->ents, &d->cap, (size_t)d->n + 1, sizeof *d->ents, 16))
            return KP_ENOMEM;
        d->ents[d->n].reason = reason;
        d->ents[d->n++].count = 0;
    }
    d->ents[k].count += count;
    d->last = k;
    return KP_OK;
}

kp_status kp__diagnosis_add_status(kp_diagnosis *d, const kp_node_status *st) {
    for (uint8_t r = 0; r < st->n_reasons; r++) {
        kp_status rc = kp__diagnosis_add(d, st->reasons[r], 1);
        if (rc != KP_OK) return rc;
    }
    return KP_OK;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* mirrors FitError.Error(): sortReasonsHistogram sorts the "count reason" strings */
kp_status kp__diagnosis_message(const kp_diagnosis *d, const char *prefix, uint32_t n_nodes,
                                bool period_if_empty, char *buf, size_t cap) {
    size_t off = (size_t)snprintf(buf, cap, "%s0/%u nodes are available", prefix, n_nodes);
    if (d->n == 0) {
        if (off < cap) snprintf(buf + off, cap - off, "%s", period_if_empty ? "." : ":");
        return KP_OK;
    }
    size_t text_len = 0;
    for (uint32_t k = 0; k < d->n; k++) text_len += strlen(d->ents[k].reason) + 12;
    char **items = kp__malloc(d->n * sizeof *items);
    char *text = kp__malloc(text_len);
    if (!items || !text) {
        kp__free(items);
        kp__free(text);
        return KP_ENOMEM;
    }
    size_t at = 0;
    for (uint32_t k = 0; k < d->n; k++) {
        items[k] = text + at;
        at += (size_t)snprintf(items[k], text_len - at, "%u %s", d->ents[k].count,
                               d->ents[k].reason) +
              1;
    }
    qsort(items, d->n, sizeof *items, cmp_str);
    for (uint32_t k = 0; k < d->n && off < cap; k++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", k ? ", " : ": ", items[k]);
    if (off < cap) snprintf(buf + off, cap - off, ".");
    kp__free(items);
    kp__free(text);
    return KP_OK;
}

kp_status kp__diagnosis_text(const kp_diagnosis *d, const char *prefix, uint32_t n_nodes,
                             bool period_if_empty, char **out) {
    size_t cap = strlen(prefix) + 64; /* "0/N nodes are available" and the punctuation */
    for (uint32_t k = 0; k < d->n; k++)
        cap += strlen(d->ents[k].reason) + 14; /* "count reason, " */
    *out = kp__malloc(cap);
    if (!*out) return KP_ENOMEM;
    kp_status st = kp__diagnosis_message(d, prefix, n_nodes, period_if_empty, *out, cap);
    if (st != KP_OK) {
        kp__free(*out);
        *out = NULL;
    }
    return st;
}

/* mirrors RunPostFilterPlugins (the Unschedulable statuses' reasons merged in plugin order, a
 * Success returned at once) and FitError.Error()'s " " + PostFilterMsg */
kp_status kp__postfilter_join(char **msg, const char *dra, bool dra_first, const char *preempt_msg,
                              bool nominated) {
    const char *parts[2] = {NULL, NULL};
    uint32_t n = 0;
    bool has_preempt = preempt_msg && preempt_msg[0];
    if (nominated) dra = NULL; /* Success returns at once; a later DRA does not run */
    if (dra && dra_first) parts[n++] = dra;
    if (has_preempt) parts[n++] = preempt_msg;
    if (dra && !dra_first) parts[n++] = dra;
    if (n == 0) return KP_OK;
    size_t len = strlen(*msg) + 1 + strlen(parts[0]) + (n > 1 ? 2 + strlen(parts[1]) : 0) + 1;
    char *joined = kp__malloc(len);
    if (!joined) return KP_ENOMEM;
    snprintf(joined, len, "%s %s%s%s", *msg, parts[0], n > 1 ? ", " : "", n > 1 ? parts[1] : "");
    kp__free(*msg);
    *msg = joined;
    return KP_OK;
}
