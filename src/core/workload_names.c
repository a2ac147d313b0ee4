/* What the controllers (src/ctrl/) ask of core beyond pods (workload_ctrl.h): generated names
 * (generateName's shape with a hash instead of a random source), the stand-in of a new
 * ReplicaSet's pod-template-hash, a label set on a copy, the Deployment's new ReplicaSet object,
 * and the expansion switch the CLI sets before loading (kprio/ctrl.h kp_ctrl_expand applies it). */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/labels.h"
#include "core/workload.h"
#include "core/workload_ctrl.h"
#include "kprio/cluster.h"


static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static uint64_t hash_str(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* mirrors controller.ComputeHash: fnv-1a 32 of the template (here its encoding, io's
 * template_hash32, where upstream hashes the Go object's dump), then, when the Deployment has a
 * collisionCount, its 4 little-endian bytes and 4 zero bytes; the sum in decimal, each digit
 * mapped into the alphabet (rand.SafeEncodeString). A workload whose template was not decoded
 * hashes "ns/name" instead. */
static void template_hash(const kp_cluster *cl, const kp_workload *w, int32_t collisions,
                          char out[16]) {
    uint32_t h = 2166136261u;
    if (w->template_fp) {
        h = w->template_hash32;
    } else {
        char key[600];
        snprintf(key, sizeof key, "%s/%s", kp__s(cl, w->ns), kp__s(cl, w->name));
        for (const char *s = key; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    }
    if (collisions > 0) {
        unsigned char b[8] = {(unsigned char)collisions, (unsigned char)(collisions >> 8),
                              (unsigned char)(collisions >> 16), (unsigned char)(collisions >> 24)};
        for (int i = 0; i < 8; i++) h = (h ^ b[i]) * 16777619u;
    }
    char dec[16];
    snprintf(dec, sizeof dec, "%u", h);
    size_t i = 0;
    for (; dec[i]; i++) out[i] = KP_NAME_ALPHABET[(unsigned char)dec[i] % 27];
    out[i] = 0;
}

/* The controller-revision-hash of revision rev of StatefulSet / DaemonSet w (ComputeHash of
 * its template, here fnv-1a 32 of "ns/name/rev" in decimal mapped into the alphabet like the
 * pod-template-hash stand-in): a StatefulSet's pods carry the revision's name, NAME-HASH, a
 * DaemonSet's the hash alone (workload_ctrl.h). */
void kp__workload_revision_label(const kp_cluster *cl, const kp_workload *w, uint32_t rev,
                                 char *out, size_t cap) {
    uint32_t h = 2166136261u;
    char key[600];
    snprintf(key, sizeof key, "%s/%s/%u", kp__s(cl, w->ns), kp__s(cl, w->name), rev);
    for (const char *s = key; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    char dec[16], hash[16];
    snprintf(dec, sizeof dec, "%u", h);
    size_t i = 0;
    for (; dec[i]; i++) hash[i] = KP_NAME_ALPHABET[(unsigned char)dec[i] % 27];
    hash[i] = 0;
    if (w->kind == KP_WL_STS) snprintf(out, cap, "%s-%s", kp__s(cl, w->name), hash);
    else snprintf(out, cap, "%s", hash);
}

bool kp__pod_at_revision(const kp_cluster *cl, const kp_pod *p, const kp_workload *w,
                         uint32_t rev) {
    if (rev == 0) return true; /* the template as loaded: every pod the snapshot has */
    char want[480];
    kp__workload_revision_label(cl, w, rev, want, sizeof want);
    kp_str key = kp__intern_find(&cl->strs, "controller-revision-hash", 24), v;
    if (key == UINT32_MAX || !kp__labels_get(&p->labels, key, &v)) return false;
    return strcmp(kp__s(cl, v), want) == 0;
}

void kp__workload_rollout_done(kp_workload *w) {
    w->cur_template = NULL;
    w->cur_rev = w->tmpl_rev;
}

void kp__workload_template_hash(const kp_cluster *cl, const kp_workload *w, char out[16]) {
    template_hash(cl, w, 0, out);
}

static bool pod_exists(const kp_cluster *cl, const char *ns, const char *name) {
    char ref[600];
    snprintf(ref, sizeof ref, "%s/%s", ns, name);
    return kp_cluster_find_pod(cl, ref) >= 0;
}

/* generateName: base (cut to 58 bytes, maxGeneratedNameLength) + 5 characters of upstream's
 * alphabet, here from a hash of the namespace, the base and seq instead of a random source;
 * the first name no (live) pod of the namespace has. */
static void generate_name(const kp_cluster *cl, const char *ns, const char *base, uint64_t seq,
                          char *out, size_t cap) {
    size_t bl = strlen(base) > 58 ? 58 : strlen(base);
    uint64_t h0 = hash_str(hash_str(0xcbf29ce484222325ULL, ns), base);
    for (uint64_t attempt = 0;; attempt++) {
        uint64_t h = mix(h0 ^ mix(seq * 0x9E3779B97F4A7C15ULL + attempt));
        char sfx[KP_NAME_SUFFIX_LEN + 1];
        for (int i = 0; i < KP_NAME_SUFFIX_LEN; i++, h /= 27) sfx[i] = KP_NAME_ALPHABET[h % 27];
        sfx[KP_NAME_SUFFIX_LEN] = 0;
        snprintf(out, cap, "%.*s%s", (int)bl, base, sfx);
        if (!pod_exists(cl, ns, out)) return;
    }
}

void kp_cluster_generate_pod_name(const kp_cluster *cl, const char *ns, const char *base,
                                  uint64_t seq, char *buf, size_t cap) {
    generate_name(cl, ns, base, seq, buf, cap);
}

/* ---------------------------------------------------------------- objects */

static kp_str intern(kp_cluster *cl, const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

/* l with key=val set (a new sorted array in the arena; workload_ctrl.h). */
kp_status kp__labels_set(kp_cluster *cl, kp_labels *l, const char *key, const char *val) {
    kp_str k = intern(cl, key), v = intern(cl, val);
    if (k == UINT32_MAX || v == UINT32_MAX) return KP_ENOMEM;
    kp_label *items = kp__arena_alloc(&cl->arena, ((size_t)l->n + 1) * sizeof *items);
    if (!items) return KP_ENOMEM;
    uint32_t n = 0, i = 0;
    for (; i < l->n && l->items[i].key < k; i++) items[n++] = l->items[i];
    items[n++] = (kp_label){k, v};
    if (i < l->n && l->items[i].key == k) i++;
    for (; i < l->n; i++) items[n++] = l->items[i];
    l->items = items;
    l->n = n;
    return KP_OK;
}

/* The ReplicaSet a Deployment's generated pods belong to, when the input lacks it: what the
 * deployment controller creates (getNewReplicaSet): the Deployment's selector and template plus
 * pod-template-hash, controlled by the Deployment (PodTopologySpread's default selector reads
 * it), with its replicas. *out: its index (an existing ReplicaSet of that name: that one). */
kp_status kp__workload_new_replicaset(kp_cluster *cl, uint32_t di, uint32_t *out) {
    char hash[16], name[400];
    kp_str nid = 0, dep = intern(cl, "Deployment");
    if (dep == UINT32_MAX) return KP_ENOMEM;
    /* getNewReplicaSet's AlreadyExists: the ReplicaSet of that name with the same template is
     * the new one; another template under that name is a hash collision: collisionCount + 1 */
    for (int32_t collisions = 0;; collisions++) {
        template_hash(cl, &cl->workloads[di], collisions, hash);
        snprintf(name, sizeof name, "%s-%s", kp__s(cl, cl->workloads[di].name), hash);
        if ((nid = intern(cl, name)) == UINT32_MAX) return KP_ENOMEM;
        long old = kp__cluster_find_workload(cl, KP_WL_RS, cl->workloads[di].ns, nid);
        if (old < 0) break;
        if (cl->workloads[old].template_fp == cl->workloads[di].template_fp) {
            *out = (uint32_t)old;
            return KP_OK;
        }
    }
    kp_workload *rs = kp__cluster_new_workload(cl, KP_WL_RS, cl->workloads[di].ns, nid);
    if (!rs) return KP_ENOMEM;
    const kp_workload *d = &cl->workloads[di];
    rs->origin = d->origin;
    rs->owner_kind = dep;
    rs->owner_name = d->name;
    rs->replicas = d->replicas;
    rs->min_ready_seconds = d->min_ready_seconds;
    rs->template_fp = d->template_fp;
    rs->template_hash32 = d->template_hash32;
    rs->sel = d->sel;
    rs->labels = d->labels;
    rs->sel.is_set = true;
    *out = (uint32_t)(rs - cl->workloads);
    /* its template: the Deployment's plus the pod-template-hash label (a copy: the Deployment's
     * is not changed) */
    kp_pod *t = d->template ? kp__arena_alloc(&cl->arena, sizeof *t) : NULL;
    if (d->template && !t) return KP_ENOMEM;
    if (t) {
        *t = *d->template;
        if (kp__labels_set(cl, &t->labels, "pod-template-hash", hash) != KP_OK) return KP_ENOMEM;
    }
    rs->template = t;
    return kp__labels_set(cl, &rs->sel.match_labels, "pod-template-hash", hash);
}

kp_status kp_cluster_set_expand(kp_cluster *cl, unsigned flags) {
    /* the templates of objects already loaded were not decoded */
    if (cl->n_objects || cl->finalized) return KP_EINVAL;
    cl->expand_flags = flags;
    return KP_OK;
}

size_t kp_cluster_expanded_pod_count(const kp_cluster *cl) { return cl->n_expanded; }
