/* kp_evict_summary_encode_json (kprio/summary_builder.h): a summary written back as the Summary
 * API document a kubelet serves, compact, members in the order of the Go types
 * (k8s.io/kubelet/pkg/apis/stats/v1alpha1: Summary{Node, Pods}, written pods first as the
 * simulated kubelets always wrote them; FsStats{Time, AvailableBytes, CapacityBytes, UsedBytes,
 * InodesFree, Inodes, InodesUsed}; MemoryStats{Time, AvailableBytes, UsageBytes,
 * WorkingSetBytes}), only the fields the summary holds: decoding the text gives the summary
 * back (kp__summary_equal). `kprio simulate --dump-summaries` writes these files. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/civil.h"
#include "core/summary.h"
#include "kprio/summary_builder.h"

/* the document is built whole in a kp__buf (failure sticky), then written in one call */
typedef kp__buf out_buf;

static void put(out_buf *o, const char *s, size_t n) { kp__buf_append(o, s, n); }

static void puts_(out_buf *o, const char *s) { kp__buf_puts(o, s); }

static void put_u64(out_buf *o, uint64_t v) {
    char t[24];
    size_t i = sizeof t;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(o, t + i, sizeof t - i);
}

/* "key":N */
static void put_num(out_buf *o, bool *first, const char *key, uint64_t v) {
    put(o, *first ? "\"" : ",\"", *first ? 1 : 2);
    puts_(o, key);
    put(o, "\":", 2);
    put_u64(o, v);
    *first = false;
}

/* a JSON string: quote and backslash escaped, control bytes as \u00XX, the rest as is */
static void put_str(out_buf *o, const char *s, size_t n) {
    put(o, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20) continue;
        put(o, s + run, i - run);
        char e[8];
        if (c < 0x20) snprintf(e, sizeof e, "\\u%04x", c);
        else snprintf(e, sizeof e, "\\%c", c);
        puts_(o, e);
        run = i + 1;
    }
    put(o, s + run, n - run);
    put(o, "\"", 1);
}

/* "time":"RFC 3339" (unix ns; the fraction only when there is one, as RFC3339Nano trims it).
 * Node-level objects always carry it: 0, the epoch, decodes to 0 as an absent time does. */
static void put_time(out_buf *o, bool *first, int64_t ns) {
    int64_t secs = ns / KP__NS_PER_SEC, frac = ns % KP__NS_PER_SEC;
    int64_t days = secs / 86400, rem = secs % 86400, y;
    int m, d;
    kp__civil_from_days(days, &y, &m, &d);
    char b[80];
    int n = snprintf(b, sizeof b, "%s\"time\":\"%04lld-%02d-%02dT%02lld:%02lld:%02lld",
                     *first ? "" : ",", (long long)y, m, d, (long long)(rem / 3600),
                     (long long)(rem / 60 % 60), (long long)(rem % 60));
    if (frac) {
        int w = 9;
        while (frac % 10 == 0) {
            frac /= 10;
            w--;
        }
        n += snprintf(b + n, sizeof b - (size_t)n, ".%0*lld", w, (long long)frac);
    }
    snprintf(b + n, sizeof b - (size_t)n, "Z\"");
    puts_(o, b);
    *first = false;
}

static void put_mem(out_buf *o, const char *key, const kp__ev_mem *m) {
    bool first = true;
    puts_(o, key);
    put(o, "{", 1);
    put_time(o, &first, m->time_ns);
    if (m->has & KP__EVM_AVAIL) put_num(o, &first, "availableBytes", m->avail);
    if (m->has & KP__EVM_USAGE) put_num(o, &first, "usageBytes", m->usage);
    if (m->has & KP__EVM_WS) put_num(o, &first, "workingSetBytes", m->ws);
    put(o, "}", 1);
}

static void put_fs(out_buf *o, const char *key, const kp__ev_fs *f) {
    bool first = true;
    puts_(o, key);
    put(o, "{", 1);
    put_time(o, &first, f->time_ns);
    if (f->has & KP__EVF_AVAIL) put_num(o, &first, "availableBytes", f->avail);
    if (f->has & KP__EVF_CAP) put_num(o, &first, "capacityBytes", f->cap);
    if (f->has & KP__EVF_USED) put_num(o, &first, "usedBytes", f->used);
    if (f->has & KP__EVF_IFREE) put_num(o, &first, "inodesFree", f->inodes_free);
    if (f->has & KP__EVF_INODES) put_num(o, &first, "inodes", f->inodes);
    if (f->has & KP__EVF_IUSED) put_num(o, &first, "inodesUsed", f->inodes_used);
    put(o, "}", 1);
}

/* a pod-side usedBytes / inodesUsed pair */
static void put_used(out_buf *o, const char *key, bool has_used, uint64_t used, bool has_iused,
                     uint64_t iused) {
    bool first = true;
    puts_(o, key);
    put(o, "{", 1);
    if (has_used) put_num(o, &first, "usedBytes", used);
    if (has_iused) put_num(o, &first, "inodesUsed", iused);
    put(o, "}", 1);
}

static void put_container(out_buf *o, const kp_evict_summary *s, const kp__ev_cstats *c) {
    const char *sep = "";
    put(o, "{", 1);
    if (c->has & KP__EVC_NAME) {
        puts_(o, "\"name\":");
        put_str(o, kp__ev_str(s, c->name), c->name_len);
        sep = ",";
    }
    if (c->has & KP__EVC_WS) {
        puts_(o, sep);
        puts_(o, "\"memory\":{\"workingSetBytes\":");
        put_u64(o, c->ws);
        put(o, "}", 1);
        sep = ",";
    }
    if (c->has & (KP__EVC_ROOT_USED | KP__EVC_ROOT_IUSED)) {
        puts_(o, sep);
        put_used(o, "\"rootfs\":", c->has & KP__EVC_ROOT_USED, c->root_used,
                 c->has & KP__EVC_ROOT_IUSED, c->root_iused);
        sep = ",";
    }
    if (c->has & (KP__EVC_LOGS_USED | KP__EVC_LOGS_IUSED)) {
        puts_(o, sep);
        put_used(o, "\"logs\":", c->has & KP__EVC_LOGS_USED, c->logs_used,
                 c->has & KP__EVC_LOGS_IUSED, c->logs_iused);
    }
    put(o, "}", 1);
}

static void put_volume(out_buf *o, const kp_evict_summary *s, const kp__ev_vstats *v) {
    bool first = true;
    put(o, "{", 1);
    if (v->has & KP__EVV_NAME) {
        puts_(o, "\"name\":");
        put_str(o, kp__ev_str(s, v->name), v->name_len);
        first = false;
    }
    if (v->has & KP__EVV_USED) put_num(o, &first, "usedBytes", v->used);
    if (v->has & KP__EVV_IUSED) put_num(o, &first, "inodesUsed", v->iused);
    put(o, "}", 1);
}

static void put_pod(out_buf *o, const kp_evict_summary *s, const kp__ev_pstats *p) {
    puts_(o, "{\"podRef\":{\"name\":");
    put_str(o, kp__ev_str(s, p->name), p->name_len);
    puts_(o, ",\"namespace\":");
    put_str(o, kp__ev_str(s, p->ns), p->ns_len);
    if (p->uid_len) {
        puts_(o, ",\"uid\":");
        put_str(o, kp__ev_str(s, p->uid), p->uid_len);
    }
    put(o, "}", 1);
    if (p->has & KP__EVP_MEM) {
        puts_(o, ",\"memory\":{");
        if (p->has & KP__EVP_WS) {
            puts_(o, "\"workingSetBytes\":");
            put_u64(o, p->ws);
        }
        put(o, "}", 1);
    }
    const kp__ev_cstats *cs = kp__ev_pod_conts(s, p);
    for (uint32_t i = 0; i < p->n_containers; i++) {
        puts_(o, i ? "," : ",\"containers\":[");
        put_container(o, s, &cs[i]);
    }
    if (p->n_containers) put(o, "]", 1);
    const kp__ev_vstats *vs = kp__ev_pod_vols(s, p);
    for (uint32_t i = 0; i < p->n_volumes; i++) {
        puts_(o, i ? "," : ",\"volume\":[");
        put_volume(o, s, &vs[i]);
    }
    if (p->n_volumes) put(o, "]", 1);
    if (p->has & (KP__EVP_EPH_USED | KP__EVP_EPH_IUSED))
        put_used(o, ",\"ephemeral-storage\":", p->has & KP__EVP_EPH_USED, p->eph_used,
                 p->has & KP__EVP_EPH_IUSED, p->eph_iused);
    if (p->has & KP__EVP_PROCS) {
        puts_(o, ",\"process_stats\":{\"process_count\":");
        put_u64(o, p->procs);
        put(o, "}", 1);
    }
    put(o, "}", 1);
}

static void put_node(out_buf *o, const kp_evict_summary *s) {
    const char *sep = "";
    puts_(o, "\"node\":{");
    if (s->node_name_len) {
        puts_(o, "\"nodeName\":");
        put_str(o, kp__ev_str(s, s->node_name), s->node_name_len);
        sep = ",";
    }
    if (s->node_mem.has & KP__EVM_PRESENT) {
        puts_(o, sep);
        put_mem(o, "\"memory\":", &s->node_mem);
        sep = ",";
    }
    if (s->node_fs.has & KP__EVF_PRESENT) {
        puts_(o, sep);
        put_fs(o, "\"fs\":", &s->node_fs);
        sep = ",";
    }
    bool img = s->imagefs.has & KP__EVF_PRESENT, cfs = s->containerfs.has & KP__EVF_PRESENT;
    if (img || cfs) {
        puts_(o, sep);
        puts_(o, "\"runtime\":{");
        if (img) put_fs(o, "\"imageFs\":", &s->imagefs);
        if (cfs) put_fs(o, img ? ",\"containerFs\":" : "\"containerFs\":", &s->containerfs);
        put(o, "}", 1);
        sep = ",";
    }
    if (s->has_rlimit) {
        bool first = true;
        puts_(o, sep);
        puts_(o, "\"rlimit\":{");
        put_time(o, &first, s->rlimit_time_ns);
        /* the decoder took them as Go's int64 of a uint64 */
        if (s->has_maxpid) put_num(o, &first, "maxpid", (uint64_t)s->maxpid);
        if (s->has_curproc) put_num(o, &first, "curproc", (uint64_t)s->curproc);
        put(o, "}", 1);
        sep = ",";
    }
    if (s->has_pods_container) {
        puts_(o, sep);
        puts_(o, "\"systemContainers\":[{\"name\":\"pods\",");
        put_mem(o, "\"memory\":", &s->pods_mem);
        puts_(o, "}]");
    }
    put(o, "}", 1);
}

kp_status kp_evict_summary_encode_json(const kp_evict_summary *s, kp_write_fn w, void *ctx,
                                       kp_error *err) {
    out_buf o;
    kp__buf_init(&o);
    puts_(&o, "{\"pods\":[");
    for (uint32_t i = 0; i < s->n_pods; i++) {
        if (i) put(&o, ",", 1);
        put_pod(&o, s, &s->pods[i]);
    }
    put(&o, "]", 1);
    if (s->has_node) {
        put(&o, ",", 1);
        put_node(&o, s);
    }
    put(&o, "}", 1);
    kp_status st = KP_OK;
    if (o.failed) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    else st = w(ctx, o.p, o.len);
    kp__buf_free(&o);
    return st;
}
