/* `kprio obfuscate` (include/kprio/obfuscate.h, docs/live.md): every document of an input is
 * read whole as a tree (tree.h) and written back as JSON with its free-form strings replaced by a
 * keyed hash (SipHash-2-4, 60 bits shown as "x" and 12 base-32 letters: a valid name, label
 * value and DNS label). The same string gives the same hash wherever it appears, so a node name
 * in spec.nodeName, in a kubernetes.io/hostname label, in a matchFields term and in a kubelet
 * summary stays one name, and every decision is unchanged. */
#include "kprio/obfuscate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "core/volume.h"
#include "io/input.h"
#include "io/tree.h"

struct kp_obfuscator {
    uint64_t k0, k1;
};

/* ------------------------------------------------------------------ SipHash-2-4 */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                  \
    do {                                                          \
        v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32); \
        v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                    \
        v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                    \
        v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32); \
    } while (0)

static uint64_t siphash(uint64_t k0, uint64_t k1, const unsigned char *m, size_t len) {
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = 0;
        for (int b = 0; b < 8; b++) w |= (uint64_t)m[i + (size_t)b] << (8 * b);
        v3 ^= w;
        SIPROUND;
        SIPROUND;
        v0 ^= w;
    }
    uint64_t last = (uint64_t)(len & 0xff) << 56;
    for (int b = 0; i + (size_t)b < len; b++) last |= (uint64_t)m[i + (size_t)b] << (8 * b);
    v3 ^= last;
    SIPROUND;
    SIPROUND;
    v0 ^= last;
    v2 ^= 0xff;
    for (int r = 0; r < 4; r++) SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

kp_status kp_obfuscator_new(const char *key, kp_obfuscator **out, kp_error *err) {
    *out = NULL;
    kp_obfuscator *o = kp__calloc(1, sizeof *o);
    if (!o) return kp_error_set(err, KP_ENOMEM, "out of memory");
    if (key) {
        if (!key[0]) {
            kp__free(o);
            return kp_error_set(err, KP_EINVAL, "the obfuscation key is empty");
        }
        const unsigned char *k = (const unsigned char *)key;
        o->k0 = siphash(0x6b7072696f2d6f62ULL, 0x6675736361746531ULL, k, strlen(key));
        o->k1 = siphash(0x6b7072696f2d6f62ULL, 0x6675736361746532ULL, k, strlen(key));
    } else {
        unsigned char r[16];
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        ssize_t got = fd >= 0 ? read(fd, r, sizeof r) : -1;
        int e = errno;
        if (fd >= 0) close(fd);
        if (got != (ssize_t)sizeof r) {
            kp__free(o);
            return kp_error_set(err, KP_EIO, "/dev/urandom: cannot read a random key: %s",
                                got < 0 ? strerror(e) : "short read");
        }
        for (int b = 0; b < 8; b++) {
            o->k0 |= (uint64_t)r[b] << (8 * b);
            o->k1 |= (uint64_t)r[8 + b] << (8 * b);
        }
    }
    *out = o;
    return KP_OK;
}

void kp_obfuscator_free(kp_obfuscator *o) { kp__free(o); }

/* ------------------------------------------------------------------ output buffer */

typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void put(sbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (!kp__grow((void **)&b->p, &b->cap, b->len + n + 1, 1, 4096)) {
        b->oom = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}
static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

/* An original value in the --show-map TSV: a backslash, tab, newline, carriage return or other
 * control character escaped (\\, \t, \n, \r, \xNN), so one value is one field of one line and
 * the map reads back exactly. */
static void put_original(sbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[5];
        if (c == '\\') put(b, "\\\\", 2);
        else if (c == '\t') put(b, "\\t", 2);
        else if (c == '\n') put(b, "\\n", 2);
        else if (c == '\r') put(b, "\\r", 2);
        else if (c < 0x20 || c == 0x7f) put(b, e, (size_t)snprintf(e, sizeof e, "\\x%02x", c));
        else put(b, s + i, 1);
    }
}

static void put_json_string(sbuf *b, const char *s, size_t n) {
    put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put(b, s + run, i - run);
        char esc[8];
        if (c == '"' || c == '\\') snprintf(esc, sizeof esc, "\\%c", c);
        else snprintf(esc, sizeof esc, "\\u%04x", c);
        puts_(b, esc);
        run = i + 1;
    }
    put(b, s + run, n - run);
    put(b, "\"", 1);
}

/* ------------------------------------------------------------------ what is kept */

static bool eq(const char *s, size_t n, const char *lit) {
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}
static bool in_list(const char *s, size_t n, const char *const *list) {
    for (; *list; list++)
        if (eq(s, n, *list)) return true;
    return false;
}

/* Well-known values kept wherever they appear: names with a meaning to Kubernetes. */
static const char *const KEEP_VALUES[] = {"default",
                                          "kube-system",
                                          "kube-public",
                                          "kube-node-lease",
                                          "default-scheduler",
                                          "linux",
                                          "windows",
                                          "api",
                                          "file",
                                          "http",
                                          "true",
                                          "false",
                                          NULL};

/* Members whose string values the engines interpret (enums, keys of labels and taints, policy
 * fields) or that carry nothing identifying: kept as they are. */
static const char *const KEEP_KEYS[] = {
    "kind", "apiVersion", "operator", "effect", "type", "status", "reason", "phase", "qosClass",
    "preemptionPolicy", "restartPolicy", "protocol", "whenUnsatisfiable", "nodeAffinityPolicy",
    "nodeTaintsPolicy", "volumeBindingMode", "accessModes", "volumeMode",
    "persistentVolumeReclaimPolicy", "reclaimPolicy", "key", "topologyKey", "matchLabelKeys",
    "mismatchLabelKeys", "resource", "resourceName", "fsType", "medium",
    "unhealthyPodEvictionPolicy", "podManagementPolicy", "concurrencyPolicy", "schedule",
    "timeZone", "completionMode", "podReplacementPolicy", "enforceNodeAllocatable", "hostIP",
    "scopeName", "minAvailable", "maxUnavailable", "maxSurge", "imagePullPolicy", "dnsPolicy",
    "storagePolicy",
    /* DRA: a device selector's CEL expression reads the
     * driver, attribute names and their string/version
     * values as written, and constraints name attributes:
     * all kept so that selectors select the same devices */
    "expression", "string", "version", "matchAttribute", "distinctAttribute", "allocationMode",
    "deviceClassName",
    /* a DeviceClass's extended resource is named as the pods' requests name it (kept) */
    "extendedResourceName",
    /* an allocation result's shareID: a random UID the decoder checks for its form */
    "shareID", NULL};

/* The CSI drivers NodeVolumeLimits counts migrated in-tree volumes under (core/volume.h
 * kp__mig_driver_name: ebs.csi.aws.com, pd.csi.storage.gke.io, ...): an inline
 * awsElasticBlockStore volume or a StorageClass with provisioner kubernetes.io/aws-ebs counts
 * against the CSINode limit of the driver of that name, so the name stays wherever it appears
 * (CSINode drivers, CSIDriver, PV csi.driver, provisioner, attacher). */
static bool mig_driver(const char *s, size_t n) {
    for (int m = KP_MIG_NONE + 1; m < KP_MIG_KINDS; m++) {
        const char *d = kp__mig_driver_name((kp_mig_plugin)m);
        if (d && eq(s, n, d)) return true;
    }
    return false;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A number, a quantity ("100Mi", "1.5", "2e3"), a percentage ("10%"), a Go duration ("1m30s")
 * or an RFC 3339 time: kept (integers also keep label values that Gt/Lt compare). */
static bool numeric_like(const char *s, size_t n) {
    if (n == 0) return true;
    if (n >= 11 && is_digit(s[0]) && is_digit(s[3]) && s[4] == '-' && s[7] == '-' && s[10] == 'T')
        return true;
    size_t i = 0;
    if (s[0] == '+' || s[0] == '-') i++;
    if (i == n || !(is_digit(s[i]) || s[i] == '.')) return false;
    size_t letters = 0, dots = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && ++dots > 1) return false; /* an IP address is not a quantity */
        if (is_digit(c) || c == '.' || c == '%') continue;
        if (c == '+' || c == '-') {
            if (s[i - 1] != 'e' && s[i - 1] != 'E') return false;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
        if (++letters > 12) return false; /* "1h2m3s4ms" at most */
    }
    return true;
}

/* One walk: the key, the mapping being recorded (kp_obfuscate_path with map set: every token
 * hashed, as "ORIGINAL\tOBFUSCATED\n"), and the document's PodDisruptionBudget names, sorted
 * (pdb_rank). */
typedef struct {
    const kp_obfuscator *o;
    sbuf *record;
    const kp_tnode **pdbs;
    size_t n_pdbs;
    char **cmp_keys; /* the label keys a Gt / Lt requirement of the input compares */
    size_t n_cmp_keys;
} walker;

/* "x" + 12 base-32 letters of the keyed hash of s. */
static void put_hash(const walker *o, sbuf *b, const char *s, size_t n) {
    static const char A[] = "abcdefghijklmnopqrstuvwxyz234567";
    uint64_t h = siphash(o->o->k0, o->o->k1, (const unsigned char *)s, n);
    char out[14];
    out[0] = 'x';
    for (int i = 0; i < 12; i++) out[1 + i] = A[(h >> (5 * i)) & 31];
    put(b, out, 13);
    if (o->record) {
        put_original(o->record, s, n);
        put(o->record, "\t", 1);
        put(o->record, out, 13);
        put(o->record, "\n", 1);
    }
}

/* One token: kept, or hashed (put_hash). user: the token is user data (an env value, an
 * argument, a label or annotation value of the user's own key), where a number means nothing to
 * Kubernetes and may be a secret: hashed as any string (the empty string stays). */
static void put_token(const walker *o, sbuf *b, const char *s, size_t n, bool user) {
    if ((user ? n == 0 : numeric_like(s, n)) || in_list(s, n, KEEP_VALUES) || mig_driver(s, n) ||
        (n > 7 && memcmp(s, "system-", 7) == 0) ||
        (n > 14 && memcmp(s, "kubernetes.io/", 14) == 0)) {
        put(b, s, n);
        return;
    }
    put_hash(o, b, s, n);
}

/* An AWS EBS volume id (awsElasticBlockStore.volumeID, an ebs.csi.aws.com volumeHandle):
 * NodeVolumeLimits counts a volume under the id csi-translation-lib takes from it
 * (KubernetesVolumeIDToEBSVolumeID, core/volume.c: "aws://<zone>/vol-<id>" is "vol-<id>", a URL
 * whose path is not vol-* does not translate). So "vol-" stays and what follows is hashed, and in
 * an "aws://" URL the zone and the path are hashed apart: "aws://us-east-1a/vol-0a" and "vol-0a"
 * stay one volume. The whole value is recorded in the mapping. False: not such a value. */
static bool put_ebs(const walker *o, sbuf *b, const char *s, size_t n) {
    bool url = n > 6 && memcmp(s, "aws://", 6) == 0;
    if (!url && !(n > 4 && memcmp(s, "vol-", 4) == 0)) return false;
    sbuf t = {0};
    walker quiet = *o;
    quiet.record = NULL;
    size_t i = 0;
    if (url) {
        puts_(&t, "aws://");
        size_t h = i = 6;
        while (h < n && s[h] != '/') h++;
        if (h > i) put_token(&quiet, &t, s + i, h - i, false); /* the zone, as in the labels */
        for (i = h; i < n && s[i] == '/'; i++) put(&t, "/", 1);
    }
    size_t end = i, k;
    while (end < n && s[end] != '/' && s[end] != '?' && s[end] != '#') end++;
    if (end - i > 4 && memcmp(s + i, "vol-", 4) == 0) {
        puts_(&t, "vol-");
        put_hash(&quiet, &t, s + i + 4, end - i - 4);
    } else if (end > i) {
        put_hash(&quiet, &t, s + i, end - i);
    }
    for (k = end; k < n && s[k] == '/'; k++) put(&t, "/", 1); /* trailing slashes: trimmed */
    if (k < n) put_hash(&quiet, &t, s + k, n - k);
    if (t.oom) {
        b->oom = true;
    } else {
        put(b, t.p, t.len);
        if (o->record) {
            put_original(o->record, s, n);
            put(o->record, "\t", 1);
            put(o->record, t.p, t.len);
            put(o->record, "\n", 1);
        }
    }
    kp__free(t.p);
    return true;
}

/* A free-form value: its "__"-separated parts one by one (a multi-zone label value, as the
 * VolumeZone plugin splits it), so that a part keeps matching the same part elsewhere; an EBS
 * volume id as put_ebs writes it. user: as put_token. */
static void put_value(const walker *o, sbuf *b, const char *s, size_t n, bool user) {
    if (put_ebs(o, b, s, n)) return;
    size_t start = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] == '_' && s[i + 1] == '_') {
            put_token(o, b, s + start, i - start, user);
            put(b, "__", 2);
            start = i + 2;
            i++;
        }
    }
    put_token(o, b, s + start, n - start, user);
}

/* An image reference: the repository hashed, a tag kept when it is "latest" (ImageLocality
 * appends ":latest" to an untagged name, so both spellings stay one image) and hashed otherwise,
 * a digest hashed. */
static void put_image(const walker *o, sbuf *b, const char *s, size_t n) {
    size_t at = n, colon = n, slash = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '@' && at == n) at = i;
        if (s[i] == '/' && at == n) slash = i + 1, colon = n;
        if (s[i] == ':' && at == n && i >= slash) colon = i;
    }
    size_t repo_end = colon < at ? colon : at;
    put_token(o, b, s, repo_end, false);
    if (colon < at) {
        put(b, ":", 1);
        if (eq(s + colon + 1, at - colon - 1, "latest")) puts_(b, "latest");
        else put_token(o, b, s + colon + 1, at - colon - 1, false);
    }
    if (at < n) {
        puts_(b, "@sha256:");
        put_token(o, b, s + at + 1, n - at - 1, false);
    }
}

char *kp_obfuscate_string(const kp_obfuscator *o, const char *s, size_t len) {
    sbuf b = {0};
    walker wk = {o, NULL, NULL, 0, NULL, 0};
    put_value(&wk, &b, s, len, false);
    if (b.oom || !b.p) {
        kp__free(b.p);
        return b.oom ? NULL : kp__strdup("");
    }
    return b.p;
}

/* ------------------------------------------------------------------ the walk */

enum { MAP_LABELS = 1, MAP_ANNOTATIONS = 2 };

typedef struct {
    const char *key, *pkey; /* this value's member name, its object's member name ("" at root) */
    size_t key_len, pkey_len;
    unsigned map; /* the value is a member of a labels-like or an annotations map */
    bool sched_config; /* inside a KubeSchedulerConfiguration: only schedulerName is hashed */
    bool pdb_meta; /* the metadata of a PodDisruptionBudget */
    bool dclass_meta; /* the metadata of a DeviceClass */
    bool dra; /* inside a DRA object: its `driver` is kept (device selectors compare it) */
    const kp_tnode *req_key; /* the values of a requirement ({key, operator, values}): its key */
} wctx;

static int str_cmp(const void *a, const void *b) {
    return strcmp((*(const kp_tnode *const *)a)->s, (*(const kp_tnode *const *)b)->s);
}

/* A PodDisruptionBudget's name keeps its place in name order: kprio consults the PDBs that
 * select a pod in namespace/name order (pdb_index.c), so "xp" + its rank among the document's
 * PDB names + "-" + its hash. */
static void put_pdb_name(const walker *o, sbuf *b, const kp_tnode *v) {
    size_t lo = 0, hi = o->n_pdbs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(o->pdbs[mid]->s, v->s) < 0) lo = mid + 1;
        else hi = mid;
    }
    sbuf t = {0};
    char rank[32];
    snprintf(rank, sizeof rank, "xp%05zu-", lo);
    puts_(&t, rank);
    walker quiet = *o;
    quiet.record = NULL;
    put_token(&quiet, &t, v->s, v->len, false);
    if (t.oom) {
        b->oom = true;
    } else {
        put_json_string(b, t.p, t.len);
        if (o->record) {
            put_original(o->record, v->s, v->len);
            put(o->record, "\t", 1);
            put(o->record, t.p, t.len);
            put(o->record, "\n", 1);
        }
    }
    kp__free(t.p);
}

static bool kind_is(const kp_tnode *obj, const char *kind) {
    const kp_tnode *k = obj->type == KP_T_OBJ ? kp__tree_get(obj, "kind") : NULL;
    return k && k->type == KP_T_STR && strcmp(k->s, kind) == 0;
}

/* The metadata.name nodes of the document's PodDisruptionBudgets (the document itself or the
 * items of a List), sorted; false when out of memory. */
static bool collect_pdbs(const kp_tnode *doc, walker *wk) {
    const kp_tnode *items = kp__tree_get(doc, "items");
    const kp_tnode *first = items && items->type == KP_T_ARR ? items->first : doc;
    size_t n = 0, cap = 0;
    for (const kp_tnode *it = first; it; it = items ? it->next : NULL) {
        const kp_tnode *name =
            kind_is(it, "PodDisruptionBudget") ? kp__tree_path(it, "metadata.name") : NULL;
        if (!name || !name->s || !(name->type == KP_T_STR || name->plain)) continue;
        if (!kp__grow((void **)&wk->pdbs, &cap, n + 1, sizeof *wk->pdbs, 16)) return false;
        wk->pdbs[n++] = name;
    }
    if (n) qsort((void *)wk->pdbs, n, sizeof *wk->pdbs, str_cmp);
    wk->n_pdbs = n;
    return true;
}

static bool key_is(const char *k, size_t n, const char *lit) { return k && eq(k, n, lit); }

/* A member holding a map of label values: labels, matchLabels, nodeSelector, and a selector
 * whose members are all strings (Service, ReplicationController). */
static bool labels_map(const kp_tnode *c) {
    if (c->type != KP_T_OBJ) return false;
    if (key_is(c->key, c->key_len, "labels") || key_is(c->key, c->key_len, "matchLabels") ||
        key_is(c->key, c->key_len, "nodeSelector"))
        return true;
    if (!key_is(c->key, c->key_len, "selector")) return false;
    for (const kp_tnode *m = c->first; m; m = m->next)
        if (m->type == KP_T_OBJ || m->type == KP_T_ARR) return false;
    return true;
}

static bool json_number(const char *s, size_t n) {
    size_t i = 0;
    if (i < n && s[i] == '-') i++;
    if (i == n || !is_digit(s[i])) return false;
    if (s[i] == '0') i++;
    else
        while (i < n && is_digit(s[i])) i++;
    if (i < n && s[i] == '.') {
        if (++i == n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i == n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i])) i++;
    }
    return i == n;
}

/* A label or annotation key of Kubernetes' own (its prefix kubernetes.io or k8s.io, or a
 * subdomain of either: reserved for Kubernetes' components): its value is the system's data
 * (apps.kubernetes.io/pod-index, deployment.kubernetes.io/revision,
 * controller.kubernetes.io/pod-deletion-cost, ...), whose numbers the controllers read. */
static bool k8s_key(const char *k, size_t n) {
    size_t slash = 0;
    while (slash < n && k[slash] != '/') slash++;
    if (slash == n) return false;
    static const char *const DOMAINS[] = {"kubernetes.io", "k8s.io", NULL};
    for (const char *const *d = DOMAINS; *d; d++) {
        size_t dl = strlen(*d);
        if (slash == dl && memcmp(k, *d, dl) == 0) return true;
        if (slash > dl && k[slash - dl - 1] == '.' && memcmp(k + slash - dl, *d, dl) == 0)
            return true;
    }
    return false;
}

/* Whether a number in the value of label key k is user data (hashed): not when the key is
 * Kubernetes' own, nor when a Gt / Lt requirement of the input compares it (nodeaffinity
 * parses both sides as integers: the number is the decision), nor for matchFields' metadata.name
 * (a node name, kept as names are). */
static bool label_user(const walker *o, const char *k, size_t n) {
    if (k8s_key(k, n) || eq(k, n, "metadata.name")) return false;
    for (size_t i = 0; i < o->n_cmp_keys; i++)
        if (eq(k, n, o->cmp_keys[i])) return false;
    return true;
}

static void put_string_value(const walker *o, sbuf *b, const kp_tnode *v, const wctx *w) {
    const char *s = v->s ? v->s : "";
    size_t n = v->len;
    sbuf tmp = {0};
    sbuf *t = &tmp;
    const char *k = w->key ? w->key : "";
    if (w->sched_config) {
        if (key_is(w->key, w->key_len, "schedulerName")) put_value(o, t, s, n, false);
        else put(t, s, n);
    } else if (w->map == MAP_ANNOTATIONS) {
        if (w->key_len > 21 && memcmp(w->key, "kubernetes.io/config.", 21) == 0) put(t, s, n);
        else put_value(o, t, s, n, !k8s_key(k, w->key_len));
    } else if (w->map == MAP_LABELS) {
        put_value(o, t, s, n, label_user(o, k, w->key_len));
    } else if (w->req_key && key_is(w->key, w->key_len, "values")) {
        /* a selector's values are label values of its key: hashed as the labels are */
        put_value(o, t, s, n, label_user(o, w->req_key->s, w->req_key->len));
    } else if ((key_is(w->key, w->key_len, "value") && key_is(w->pkey, w->pkey_len, "env")) ||
               key_is(w->key, w->key_len, "args") || key_is(w->key, w->key_len, "command")) {
        put_value(o, t, s, n, true); /* an env value, a container's arguments and command */
    } else if (key_is(w->key, w->key_len, "image") ||
               (key_is(w->key, w->key_len, "names") && key_is(w->pkey, w->pkey_len, "images"))) {
        put_image(o, t, s, n);
    } else if ((key_is(w->key, w->key_len, "name") &&
                key_is(w->pkey, w->pkey_len, "systemContainers")) ||
               /* an rbd volume's pool: "rbd" is also the default of an rbd volume without one
                * (VolumeRestrictions compares pools), so that value stays */
               (key_is(w->key, w->key_len, "pool") && eq(s, n, "rbd")) ||
               (w->dra && key_is(w->key, w->key_len, "driver")) ||
               in_list(w->key ? w->key : "", w->key ? w->key_len : 0, KEEP_KEYS)) {
        put(t, s, n);
    } else {
        put_value(o, t, s, n, false);
    }
    if (tmp.oom) b->oom = true;
    else put_json_string(b, tmp.p ? tmp.p : "", tmp.len);
    kp__free(tmp.p);
}

static void walk(const walker *o, sbuf *b, const kp_tnode *v, const wctx *w) {
    /* a YAML plain scalar in a labels or annotations map, or among a selector's values, is a
     * string ("tier: y", "v: 1", "values: [1]"), as kprio and sigs.k8s.io/yaml read it there */
    bool strs = w->map || (w->req_key && key_is(w->key, w->key_len, "values"));
    if (strs && v->plain && v->s && v->type != KP_T_OBJ && v->type != KP_T_ARR) {
        put_string_value(o, b, v, w);
        return;
    }
    switch (v->type) {
    case KP_T_NULL: puts_(b, "null"); return;
    case KP_T_BOOL: puts_(b, v->b ? "true" : "false"); return;
    case KP_T_NUM:
        if (json_number(v->s, v->len)) put(b, v->s, v->len);
        else put_string_value(o, b, v, w); /* a YAML number JSON cannot spell (0x1f, .5) */
        return;
    case KP_T_STR:
    case KP_T_LAZY: put_string_value(o, b, v, w); return;
    case KP_T_ARR: {
        put(b, "[", 1);
        for (const kp_tnode *c = v->first; c; c = c->next) {
            walk(o, b, c, w); /* elements are read as values of the array's member */
            if (c->next) put(b, ",", 1);
        }
        put(b, "]", 1);
        return;
    }
    case KP_T_OBJ: {
        put(b, "{", 1);
        unsigned map = labels_map(v)                                           ? MAP_LABELS
                       : (v->key && key_is(v->key, v->key_len, "annotations")) ? MAP_ANNOTATIONS
                                                                               : 0;
        bool pdb = kind_is(v, "PodDisruptionBudget");
        /* a DeviceClass is named like its driver as a rule ("gpu.nvidia.com"), and CEL may
         * compare the driver: its name is kept, as deviceClassName references are */
        bool dclass = kind_is(v, "DeviceClass");
        bool dra = w->dra || dclass || kind_is(v, "ResourceSlice") || kind_is(v, "ResourceClaim") ||
                   kind_is(v, "ResourceClaimTemplate");
        /* status.disruptedPods of a PDB: a map keyed by pod names */
        bool hash_keys = v->key && key_is(v->key, v->key_len, "disruptedPods");
        /* a requirement ({key, operator, values}): its values are label values of its key */
        const kp_tnode *req_key = kp__tree_get(v, "key");
        if (req_key && !(req_key->s && (req_key->type == KP_T_STR || req_key->plain)))
            req_key = NULL;
        for (const kp_tnode *c = v->first; c; c = c->next) {
            if (hash_keys) {
                sbuf t = {0};
                put_value(o, &t, c->key ? c->key : "", c->key_len, false);
                if (t.oom) b->oom = true;
                else put_json_string(b, t.p ? t.p : "", t.len);
                kp__free(t.p);
            } else {
                put_json_string(b, c->key ? c->key : "", c->key_len);
            }
            put(b, ":", 1);
            wctx cw = {c->key,
                       w->key ? w->key : "",
                       c->key_len,
                       w->key ? w->key_len : 0,
                       map,
                       w->sched_config,
                       pdb && key_is(c->key, c->key_len, "metadata"),
                       dclass && key_is(c->key, c->key_len, "metadata"),
                       dra,
                       key_is(c->key, c->key_len, "values") ? req_key : NULL};
            if (w->dclass_meta && key_is(c->key, c->key_len, "name") && c->s &&
                (c->type == KP_T_STR || c->plain)) {
                put_json_string(b, c->s, strlen(c->s));
                if (c->next) put(b, ",", 1);
                continue;
            }
            if (w->pdb_meta && key_is(c->key, c->key_len, "name") && c->s &&
                (c->type == KP_T_STR || c->plain)) {
                put_pdb_name(o, b, c);
                if (c->next) put(b, ",", 1);
                continue;
            }
            walk(o, b, c, &cw);
            if (c->next) put(b, ",", 1);
        }
        put(b, "}", 1);
        return;
    }
    }
}

typedef struct {
    const kp_obfuscator *o;
    sbuf out, map;
    bool want_map;
    char **cmp_keys; /* walker.cmp_keys, from every document of the input (scan_doc) */
    size_t n_cmp_keys, cap_cmp_keys;
    bool oom;
} run_ctx;

/* The label keys of the Gt / Lt requirements under v (a node selector's matchExpressions):
 * their integer values stay in every label of the input (label_user). */
static void scan(run_ctx *r, const kp_tnode *v) {
    if (v->type != KP_T_OBJ && v->type != KP_T_ARR) return;
    const kp_tnode *op = v->type == KP_T_OBJ ? kp__tree_get(v, "operator") : NULL;
    const kp_tnode *key = op ? kp__tree_get(v, "key") : NULL;
    if (key && key->s && op->s && (eq(op->s, op->len, "Gt") || eq(op->s, op->len, "Lt"))) {
        bool seen = false;
        for (size_t i = 0; i < r->n_cmp_keys && !seen; i++)
            seen = eq(key->s, key->len, r->cmp_keys[i]);
        char *copy = seen ? NULL : kp__strndup(key->s, key->len);
        if (!seen && (!copy || !kp__grow((void **)&r->cmp_keys, &r->cap_cmp_keys, r->n_cmp_keys + 1,
                                         sizeof *r->cmp_keys, 8))) {
            kp__free(copy);
            r->oom = true;
            return;
        }
        if (copy) r->cmp_keys[r->n_cmp_keys++] = copy;
    }
    for (const kp_tnode *c = v->first; c; c = c->next) scan(r, c);
}

static kp_status scan_doc(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    run_ctx *r = ctx;
    scan(r, obj);
    return r->oom ? kp_error_set(err, KP_ENOMEM, "out of memory") : KP_OK;
}

static kp_status on_doc(void *ctx, const kp_tnode *obj, const kp_tdoc *doc, kp_error *err) {
    (void)doc;
    run_ctx *r = ctx;
    /* a scheduler configuration holds plugin names and settings, kept; its profiles'
     * schedulerName is what pods name, hashed as theirs */
    const kp_tnode *kind = kp__tree_get(obj, "kind");
    wctx w = {NULL, "", 0, 0, 0, false, false, false, false, NULL};
    w.sched_config =
        kind && kind->type == KP_T_STR && strcmp(kind->s, "KubeSchedulerConfiguration") == 0;
    walker wk = {r->o, r->want_map ? &r->map : NULL, NULL, 0, r->cmp_keys, r->n_cmp_keys};
    if (!collect_pdbs(obj, &wk)) {
        kp__free((void *)wk.pdbs);
        return kp_error_set(err, KP_ENOMEM, "out of memory");
    }
    if (r->want_map) { /* the mapping only: the document is walked into scratch output */
        sbuf scratch = {0};
        walk(&wk, &scratch, obj, &w);
        if (scratch.oom) r->map.oom = true;
        kp__free(scratch.p);
    } else {
        walk(&wk, &r->out, obj, &w);
        put(&r->out, "\n", 1);
    }
    kp__free((void *)wk.pdbs);
    return r->out.oom || r->map.oom ? kp_error_set(err, KP_ENOMEM, "out of memory") : KP_OK;
}

kp_status kp_obfuscate_path(const kp_obfuscator *o, const char *path, bool map, char **out,
                            size_t *out_len, kp_error *err) {
    *out = NULL;
    *out_len = 0;
    char *buf = NULL;
    size_t len = 0;
    kp_status st = kp__read_file(path, SIZE_MAX / 2, &buf, &len, err);
    if (st != KP_OK) {
        if (err && !err->source[0]) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    run_ctx r = {o, {0}, {0}, map, NULL, 0, 0, false};
    /* two passes: the Gt / Lt keys of every document first, so that a node's labels and the
     * pods' affinity agree in whatever order the file has them */
    st = kp__tree_parse(path, buf, len, false, scan_doc, &r, err);
    if (st == KP_OK) st = kp__tree_parse(path, buf, len, false, on_doc, &r, err);
    kp__free(buf);
    for (size_t i = 0; i < r.n_cmp_keys; i++) kp__free(r.cmp_keys[i]);
    kp__free((void *)r.cmp_keys);
    sbuf *res = map ? &r.map : &r.out;
    if (st == KP_OK && res->oom) st = kp_error_set(err, KP_ENOMEM, "out of memory");
    if (st != KP_OK) {
        if (err && !err->source[0]) snprintf(err->source, sizeof err->source, "%s", path);
        kp__free(r.out.p);
        kp__free(r.map.p);
        return st;
    }
    *out = res->p;
    *out_len = res->len;
    return KP_OK;
}
