/* libFuzzer harness, differential, for the two kubelet Summary API decoders: the public
 * kp_evict_summary_parse (streaming event parser, which falls back to the tree decoder for what
 * it cannot take) and the tree-based reference decoder alone. Every input is decoded both ways;
 * the harness aborts when one accepts what the other rejects, when they decode different
 * values, or when an error carries no message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprio/eviction.h"
/* ---- the decoders under test: only these lines change when the decoders move ---- */
#include "kubelet/evict_summary_tree.h" /* kp__ev_summary_parse_tree; kp_evict_summary layout */
#define DECODE_STREAM(src, buf, len, out, err) kp_evict_summary_parse(src, buf, len, out, err)
#define DECODE_TREE(src, buf, len, out, err) kp__ev_summary_parse_tree(src, buf, len, out, err)
/* ---- */

#define PADDING 64 /* the JSON back end reads up to 64 bytes past the end (eviction.h) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what) {
    fprintf(stderr, "fuzz_summary: the decoders differ: %s\n", what);
    abort();
}

#define SAME(field) \
    do { if (a->field != b->field) differ(#field); } while (0)

static void same_str(const kp_evict_summary *a, uint32_t ao, uint32_t al, const kp_evict_summary *b,
                     uint32_t bo, uint32_t bl, const char *what) {
    if (al != bl || (al && memcmp(a->strs + ao, b->strs + bo, al) != 0)) differ(what);
}

static void same_fs(const kp__ev_fs *a, const kp__ev_fs *b) {
    SAME(has); SAME(time_ns); SAME(avail); SAME(cap); SAME(used); SAME(inodes_free);
    SAME(inodes); SAME(inodes_used);
}

static void same_mem(const kp__ev_mem *a, const kp__ev_mem *b) {
    SAME(has); SAME(time_ns); SAME(avail); SAME(usage); SAME(ws);
}

static void same_summary(const kp_evict_summary *a, const kp_evict_summary *b) {
    same_mem(&a->node_mem, &b->node_mem);
    same_mem(&a->pods_mem, &b->pods_mem);
    same_fs(&a->node_fs, &b->node_fs);
    same_fs(&a->imagefs, &b->imagefs);
    same_fs(&a->containerfs, &b->containerfs);
    SAME(has_pods_container); SAME(has_rlimit); SAME(rlimit_time_ns); SAME(has_maxpid);
    SAME(has_curproc); SAME(maxpid); SAME(curproc); SAME(has_time); SAME(time_ns);
    SAME(n_pods); SAME(n_conts); SAME(n_vols);
    for (uint32_t i = 0; i < a->n_pods; i++) {
        const kp__ev_pstats *p = &a->pods[i], *q = &b->pods[i];
        if (p->uid_hash != q->uid_hash || p->has != q->has || p->ws != q->ws ||
            p->procs != q->procs || p->eph_used != q->eph_used ||
            p->n_containers != q->n_containers || p->n_volumes != q->n_volumes)
            differ("pods[i]");
        same_str(a, p->uid, p->uid_len, b, q->uid, q->uid_len, "pods[i].uid");
        same_str(a, p->ns, p->ns_len, b, q->ns, q->ns_len, "pods[i].namespace");
        same_str(a, p->name, p->name_len, b, q->name, q->name_len, "pods[i].name");
        for (uint32_t j = 0; j < p->n_containers; j++) {
            const kp__ev_cstats *c = &a->conts[p->c0 + j], *d = &b->conts[q->c0 + j];
            if (c->has != d->has || c->ws != d->ws || c->root_used != d->root_used ||
                c->root_iused != d->root_iused || c->logs_used != d->logs_used ||
                c->logs_iused != d->logs_iused)
                differ("pods[i].containers[j]");
            same_str(a, c->name, c->name_len, b, d->name, d->name_len, "containers[j].name");
        }
        for (uint32_t j = 0; j < p->n_volumes; j++) {
            const kp__ev_vstats *v = &a->vols[p->v0 + j], *w = &b->vols[q->v0 + j];
            if (v->has != w->has || v->used != w->used || v->iused != w->iused)
                differ("pods[i].volume_stats[j]");
            same_str(a, v->name, v->name_len, b, w->name, w->name_len, "volume_stats[j].name");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    char *buf = calloc(1, size + PADDING);
    if (!buf) return 0;
    memcpy(buf, data, size);
    kp_evict_summary *a = NULL, *b = NULL;
    kp_error ea, eb;
    kp_error_clear(&ea);
    kp_error_clear(&eb);
    kp_status sa = DECODE_STREAM("fuzz.json", buf, size, &a, &ea);
    kp_status sb = DECODE_TREE("fuzz.json", buf, size, &b, &eb);
    if (sa != KP_OK && ea.msg[0] == 0) abort(); /* every error must carry a message */
    if (sb != KP_OK && eb.msg[0] == 0) abort();
    if (sa == KP_ENOMEM || sb == KP_ENOMEM) goto out; /* an allocation limit, not a verdict */
    /* FUZZ_SUMMARY_LAX=1 tolerates the known finding (tests/fuzz/crashes-found/summary-stream-*):
     * the streaming path does not validate members it skips, so it accepts malformed JSON there
     * that the tree decoder rejects. Set it to look past that finding for others. */
    static int lax = -1;
    if (lax < 0) lax = getenv("FUZZ_SUMMARY_LAX") && getenv("FUZZ_SUMMARY_LAX")[0] == '1';
    if (lax && sa == KP_OK && sb == KP_ESYNTAX) goto out;
    if ((sa == KP_OK) != (sb == KP_OK)) {
        fprintf(stderr, "fuzz_summary: streaming %s (%s), tree %s (%s)\n", sa == KP_OK ? "accepts" : "rejects",
                ea.msg, sb == KP_OK ? "accepts" : "rejects", eb.msg);
        abort();
    }
    if (sa == KP_OK) same_summary(a, b);
out:
    kp_evict_summary_free(a);
    kp_evict_summary_free(b);
    free(buf);
    return 0;
}
