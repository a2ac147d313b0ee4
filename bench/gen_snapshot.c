/* gen_snapshot: writes a synthetic but realistic cluster snapshot, shaped like the output of
 *     kubectl get nodes,pods,pdb,priorityclass -A -o json
 * (a v1 List, 4-space indented, keys sorted as kubectl prints them) for ingest benchmarks.
 *
 *     gen_snapshot --nodes N --pods P [--pending K] [--pdbs B] [--seed S]
 *                  [--managed-fields compact|full] [-o FILE]
 *
 * Objects carry what real ones carry: uid, resourceVersion, many labels, annotations,
 * ownerReferences, managedFields with nested fieldsV1, full Pod specs (containers with env,
 * ports, probes, resources, volume mounts; volumes, tolerations, affinity, priority), full
 * statuses (conditions, containerStatuses, qosClass) and Nodes with capacity/allocatable,
 * conditions, images and nodeInfo. Bound pods fit their node's allocatable resources and
 * respect its taints. Pod names are unique (suffixes are distinct per owner).
 *
 * Size: with that content at kubectl's 4-space indentation a pod averages ~15 KB with compact
 * managedFields (the default: every object carries its manager entries, pods list their main
 * fields) and ~22 KB with --managed-fields full, so 5,000 nodes / 150,000 pods make ~2.2 GB
 * (the foundation issue's "~8.7 KB per pod, ~1.3 GB" assumed leaner objects; see
 * docs/internals/benchmarks.md). The output depends only on the arguments (own PRNG, no
 * rand()). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ PRNG (xoshiro256**) */

typedef struct {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng_t *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

/* Uniform in [0, n). */
static uint32_t rng_below(rng_t *r, uint32_t n) {
    return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}
static bool rng_pct(rng_t *r, uint32_t percent) { return rng_below(r, 100) < percent; }

/* ------------------------------------------------------------------ JSON writer */

#define OUT_CAP ((size_t)16 << 20)
#define MAX_DEPTH 48

typedef struct {
    FILE *f;
    char *buf;
    size_t len;
    uint64_t total;
    int depth;
    bool first[MAX_DEPTH];
    char closer[MAX_DEPTH];
    bool failed;
} jw_t;

static char g_spaces[4 * MAX_DEPTH];
/* managedFields detail: false = compact (every object has its entries, but a pod's fieldsV1 list
 * only the main fields), true = full (every field the managers own, as a live cluster shows). */
static bool g_mf_full;

static void jw_flush(jw_t *w) {
    if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len) w->failed = true;
    w->total += w->len;
    w->len = 0;
}

static void put(jw_t *w, const char *s, size_t n) {
    if (w->len + n > OUT_CAP) jw_flush(w);
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void putch(jw_t *w, char c) {
    if (w->len + 1 > OUT_CAP) jw_flush(w);
    w->buf[w->len++] = c;
}

/* A JSON string literal; only '"' and '\\' occur in generated text that need escaping. */
static void put_jstr(jw_t *w, const char *s, size_t n) {
    if (w->len + 2 * n + 2 > OUT_CAP) jw_flush(w);
    char *o = w->buf + w->len;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"' || c == '\\') *o++ = '\\';
        *o++ = c;
    }
    *o++ = '"';
    w->len = (size_t)(o - w->buf);
}

/* Starts a member (key != NULL) or an array element: comma, newline, indentation, key. */
static void jw_key(jw_t *w, const char *key) {
    if (w->depth > 0) {
        if (!w->first[w->depth]) putch(w, ',');
        w->first[w->depth] = false;
        putch(w, '\n');
        put(w, g_spaces, (size_t)w->depth * 4);
    }
    if (key) {
        put_jstr(w, key, strlen(key));
        put(w, ": ", 2);
    }
}

static void jw_open(jw_t *w, const char *key, char open) {
    jw_key(w, key);
    putch(w, open);
    w->depth++;
    w->first[w->depth] = true;
    w->closer[w->depth] = open == '{' ? '}' : ']';
}

static void obj(jw_t *w, const char *key) { jw_open(w, key, '{'); }
static void arr(jw_t *w, const char *key) { jw_open(w, key, '['); }

static void end(jw_t *w) {
    if (!w->first[w->depth]) {
        putch(w, '\n');
        put(w, g_spaces, (size_t)(w->depth - 1) * 4);
    }
    putch(w, w->closer[w->depth]);
    w->depth--;
}

static void jstr(jw_t *w, const char *key, const char *v) {
    jw_key(w, key);
    put_jstr(w, v, strlen(v));
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
jstrf(jw_t *w, const char *key, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof tmp) n = (int)sizeof tmp - 1;
    jw_key(w, key);
    put_jstr(w, tmp, (size_t)n);
}

static void jint(jw_t *w, const char *key, int64_t v) {
    char tmp[24];
    char *e = tmp + sizeof tmp, *p = e;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--p = '-';
    jw_key(w, key);
    put(w, p, (size_t)(e - p));
}

static void jbool(jw_t *w, const char *key, bool v) {
    jw_key(w, key);
    if (v) put(w, "true", 4);
    else put(w, "false", 5);
}

static void jnull(jw_t *w, const char *key) {
    jw_key(w, key);
    put(w, "null", 4);
}

/* An empty object member: `"key": {}` (the leaves of managedFields' fieldsV1). */
static void fe(jw_t *w, const char *key) {
    obj(w, key);
    end(w);
}

/* Several empty-object members, NULL-terminated. */
static void fes(jw_t *w, ...) {
    va_list ap;
    va_start(ap, w);
    for (const char *k = va_arg(ap, const char *); k; k = va_arg(ap, const char *)) fe(w, k);
    va_end(ap);
}

/* ------------------------------------------------------------------ helpers */

static const char kAlnum[] =
    "bcdfghjklmnpqrstvwxz2456789"; /* Kubernetes' generated-name alphabet */
static const char kHex[] = "0123456789abcdef";

static void rand_chars(rng_t *r, char *out, size_t n, const char *alphabet, uint32_t alen) {
    for (size_t i = 0; i < n; i++) out[i] = alphabet[rng_below(r, alen)];
    out[n] = 0;
}

static void rand_suffix(rng_t *r, char *out, size_t n) {
    rand_chars(r, out, n, kAlnum, sizeof kAlnum - 1);
}
static void rand_hex(rng_t *r, char *out, size_t n) { rand_chars(r, out, n, kHex, 16); }

/* The 5-character suffix of the idx-th pod of one owner: random-looking but distinct for every
 * idx < 27^5 (the multiplier is coprime to 27^5), so names never collide within an owner. */
static void pod_suffix(char out[6], uint32_t base, uint32_t idx) {
    const uint32_t space = 27u * 27 * 27 * 27 * 27;
    uint32_t x = (uint32_t)(((uint64_t)base + (uint64_t)idx * 2654435761u) % space);
    for (int i = 0; i < 5; i++) {
        out[i] = kAlnum[x % 27];
        x /= 27;
    }
    out[5] = 0;
}

static void rand_uid(rng_t *r, char out[37]) {
    uint64_t a = rng_next(r), b = rng_next(r);
    char h[32];
    for (int i = 0; i < 16; i++) {
        h[i] = kHex[(a >> (4 * i)) & 15];
        h[16 + i] = kHex[(b >> (4 * i)) & 15];
    }
    h[12] = '4';
    h[16] = kHex[8 + (b & 3)];
    memcpy(out, h, 8);
    out[8] = '-';
    memcpy(out + 9, h + 8, 4);
    out[13] = '-';
    memcpy(out + 14, h + 12, 4);
    out[18] = '-';
    memcpy(out + 19, h + 16, 4);
    out[23] = '-';
    memcpy(out + 24, h + 20, 12);
    out[36] = 0;
}

/* RFC 3339 UTC, seconds precision, as the API server prints it. */
static void fmt_time(char out[24], int64_t t) {
    int64_t days = t / 86400, sod = t % 86400;
    /* civil_from_days (Howard Hinnant) */
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    snprintf(out, 24, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, (int)m, (int)d, (int)(sod / 3600),
             (int)(sod / 60 % 60), (int)(sod % 60));
}

static void jtime(jw_t *w, const char *key, int64_t t) {
    char ts[24];
    fmt_time(ts, t);
    jstr(w, key, ts);
}

/* "k:{...}" keys of fieldsV1 with one string member. */
static void fk_str(jw_t *w, const char *member, const char *value) {
    char k[256];
    snprintf(k, sizeof k, "k:{\"%s\":\"%s\"}", member, value);
    obj(w, k);
}

/* ------------------------------------------------------------------ the cluster's shape */

#define NOW ((int64_t)1717200000 + 90 * 86400) /* 2024-08-30: "now" for the snapshot */

static const char *const kTeams[] = {
    "payments",      "checkout",      "search",     "catalog",   "identity",        "ml-platform",
    "data-pipeline", "observability", "storefront", "ads",       "recommendations", "inventory",
    "notifications", "billing",       "shipping",   "analytics", "fraud",           "messaging",
};
#define N_TEAMS (sizeof kTeams / sizeof kTeams[0])
#define ML_TEAM 5

static const char *const kBases[] = {
    "api",      "web",    "worker",   "gateway", "cache",     "indexer",  "scheduler", "consumer",
    "producer", "sync",   "renderer", "auth",    "ingest",    "exporter", "proxy",     "batch",
    "graphql",  "events", "reporter", "router",  "validator", "mailer",   "compactor", "planner",
};
#define N_BASES (sizeof kBases / sizeof kBases[0])

static const char *const kTiers[] = {"frontend", "backend", "data", "cache", "batch"};
static const char *const kZones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};

static const char *const kCpuReq[] = {"50m", "100m", "200m", "250m", "500m", "750m", "1", "2"};
static const uint32_t kCpuReqMilli[] = {50, 100, 200, 250, 500, 750, 1000, 2000};
static const char *const kCpuLim[] = {"200m", "500m", "1", "1", "2", "2", "4", "4"};
static const char *const kMemReq[] = {"64Mi",  "128Mi", "256Mi", "512Mi",
                                      "768Mi", "1Gi",   "2Gi",   "4Gi"};
static const uint64_t kMemReqMi[] = {64, 128, 256, 512, 768, 1024, 2048, 4096};
static const char *const kMemLim[] = {"256Mi",  "512Mi", "512Mi", "1Gi",
                                      "1536Mi", "2Gi",   "4Gi",   "8Gi"};

typedef struct {
    const char *name;
    int32_t value;
    bool global_default;
    bool never;
    const char *desc;
} pclass_t;

static const pclass_t kClasses[] = {
    {"platform-critical", 1000000, false, false,
     "Cluster add-ons and platform services that must keep running."},
    {"high-priority", 100000, false, false, "Customer-facing services."},
    {"default-priority", 1000, true, false, "Default for workloads that do not choose a class."},
    {"low-priority", 100, false, false, "Internal tools and best-effort services."},
    {"batch-no-preempt", 10, false, true,
     "Batch jobs: queue ahead of low priority but never preempt."},
};
#define N_CLASSES (sizeof kClasses / sizeof kClasses[0])
#define PC_PLATFORM 0

typedef struct {
    const char *type;
    uint32_t cores;
    uint32_t mem_gib;
    uint32_t max_pods;
    bool arm;
    uint32_t weight; /* percent */
} node_type_t;

static const node_type_t kNodeTypes[] = {
    {"m5.4xlarge", 16, 64, 110, false, 50},  {"m6i.8xlarge", 32, 128, 110, false, 20},
    {"c6i.4xlarge", 16, 32, 110, false, 15}, {"r6i.2xlarge", 8, 64, 110, false, 10},
    {"m7g.4xlarge", 16, 64, 110, true, 5},
};

typedef struct {
    uint8_t type;
    uint8_t zone;
    uint8_t tainted; /* dedicated=ml-platform:NoSchedule */
    uint8_t cordoned; /* spec.unschedulable + taint */
    uint32_t alloc_cpu; /* milli */
    uint64_t alloc_mem; /* bytes */
    uint32_t used_cpu;
    uint64_t used_mem;
    uint32_t pods;
} node_t;

typedef struct {
    char name[40]; /* app name, also the Deployment name */
    char hash[12]; /* pod-template-hash */
    char rs_uid[37];
    uint16_t team, base;
    uint8_t tier, n_containers, has_init, qos; /* qos: 0 Guaranteed, 1 Burstable, 2 BestEffort */
    uint8_t cpu_i, mem_i, pc, affinity, size_limit, tolerate_ml, n_env, omit_limits, helm, fenv,
        probes, secctx, no_sa, metrics;
    uint16_t v_minor, v_patch;
    uint32_t replicas, healthy;
    uint32_t sfx_base; /* pod name suffixes */
    uint32_t cpu_milli; /* per-pod requests (all app containers) */
    uint64_t mem_bytes;
} workload_t;

typedef struct {
    rng_t r;
    jw_t *w;
    uint32_t n_nodes;
    node_t *nodes;
    workload_t *wl;
    uint32_t n_wl;
    uint64_t rv; /* resourceVersion counter */
    char image_pool[400][96];
    uint32_t n_images;
} gen_t;

static void node_name(char out[64], uint32_t i) {
    snprintf(out, 64, "ip-10-%u-%u-%u.ec2.internal", 16 + (i >> 16), (i >> 8) & 255, (i & 255));
}

static void node_ip(char out[20], uint32_t i) {
    snprintf(out, 20, "10.%u.%u.%u", 16 + (i >> 16), (i >> 8) & 255, (i & 255));
}

/* ------------------------------------------------------------------ managedFields */

/* An entry's members in kubectl's (sorted) order: apiVersion, fieldsType, fieldsV1 {...},
 * manager, operation, subresource, time. */
static void mf_begin(jw_t *w, const char *api) {
    obj(w, NULL);
    jstr(w, "apiVersion", api);
    jstr(w, "fieldsType", "FieldsV1");
    obj(w, "fieldsV1");
}

static void mf_end(jw_t *w, const char *manager, const char *subresource, int64_t t) {
    end(w); /* fieldsV1 */
    jstr(w, "manager", manager);
    jstr(w, "operation", "Update");
    if (subresource) jstr(w, "subresource", subresource);
    jtime(w, "time", t);
    end(w);
}

static void mf_condition(jw_t *w, const char *type) {
    fk_str(w, "type", type);
    fes(w, ".", "f:lastProbeTime", "f:lastTransitionTime", "f:status", "f:type",
        (const char *)NULL);
    end(w);
}

static void mf_resources(jw_t *w, bool req, bool lim) {
    obj(w, "f:resources");
    if (req || lim) fe(w, ".");
    if (lim) {
        obj(w, "f:limits");
        fes(w, ".", "f:cpu", "f:memory", (const char *)NULL);
        end(w);
    }
    if (req) {
        obj(w, "f:requests");
        fes(w, ".", "f:cpu", "f:memory", (const char *)NULL);
        end(w);
    }
    end(w);
}

/* ------------------------------------------------------------------ nodes */

static void emit_node(gen_t *g, uint32_t i) {
    jw_t *w = g->w;
    rng_t *r = &g->r;
    node_t *n = &g->nodes[i];
    const node_type_t *nt = &kNodeTypes[n->type];
    char name[64], ip[20], uid[37], iid[20], tmp[160];
    node_name(name, i);
    node_ip(ip, i);
    rand_uid(r, uid);
    iid[0] = '0';
    rand_hex(r, iid + 1, 16);
    int64_t created = NOW - 3600 - (int64_t)rng_below(r, 60 * 86400);
    const char *zone = kZones[n->zone];
    const char *arch = nt->arm ? "arm64" : "amd64";

    obj(w, NULL);
    jstr(w, "apiVersion", "v1");
    jstr(w, "kind", "Node");
    obj(w, "metadata");
    obj(w, "annotations");
    jstr(w, "alpha.kubernetes.io/provided-node-ip", ip);
    jstrf(w, "csi.volume.kubernetes.io/nodeid", "{\"ebs.csi.aws.com\":\"i-%s\"}", iid);
    jstr(w, "node.alpha.kubernetes.io/ttl", "0");
    jstr(w, "volumes.kubernetes.io/controller-managed-attach-detach", "true");
    end(w);
    jtime(w, "creationTimestamp", created);
    obj(w, "labels");
    jstr(w, "beta.kubernetes.io/arch", arch);
    jstr(w, "beta.kubernetes.io/instance-type", nt->type);
    jstr(w, "beta.kubernetes.io/os", "linux");
    jstr(w, "eks.amazonaws.com/capacityType", rng_pct(r, 80) ? "ON_DEMAND" : "SPOT");
    jstrf(w, "eks.amazonaws.com/nodegroup", "%s-%s", n->tainted ? "ml" : "general", nt->type);
    jstr(w, "failure-domain.beta.kubernetes.io/region", "us-east-1");
    jstr(w, "failure-domain.beta.kubernetes.io/zone", zone);
    jstr(w, "kubernetes.io/arch", arch);
    jstr(w, "kubernetes.io/hostname", name);
    jstr(w, "kubernetes.io/os", "linux");
    jstr(w, "node.kubernetes.io/instance-type", nt->type);
    if (n->tainted) jstr(w, "node.kubernetes.io/pool", "ml-platform");
    jstr(w, "topology.ebs.csi.aws.com/zone", zone);
    jstr(w, "topology.kubernetes.io/region", "us-east-1");
    jstr(w, "topology.kubernetes.io/zone", zone);
    end(w);
    /* managedFields: kubelet (metadata), kube-controller-manager (podCIDR, taints), kubelet status
     */
    arr(w, "managedFields");
    mf_begin(w, "v1");
    obj(w, "f:metadata");
    obj(w, "f:annotations");
    fes(w, ".", "f:alpha.kubernetes.io/provided-node-ip",
        "f:volumes.kubernetes.io/controller-managed-attach-detach", (const char *)NULL);
    end(w);
    obj(w, "f:labels");
    fes(w, ".", "f:beta.kubernetes.io/arch", "f:beta.kubernetes.io/instance-type",
        "f:beta.kubernetes.io/os", "f:eks.amazonaws.com/capacityType",
        "f:eks.amazonaws.com/nodegroup", "f:failure-domain.beta.kubernetes.io/region",
        "f:failure-domain.beta.kubernetes.io/zone", "f:kubernetes.io/arch",
        "f:kubernetes.io/hostname", "f:kubernetes.io/os", "f:node.kubernetes.io/instance-type",
        "f:topology.kubernetes.io/region", "f:topology.kubernetes.io/zone", (const char *)NULL);
    end(w);
    end(w);
    obj(w, "f:spec");
    fe(w, "f:providerID");
    end(w);
    mf_end(w, "kubelet", NULL, created);
    mf_begin(w, "v1");
    obj(w, "f:metadata");
    obj(w, "f:annotations");
    fe(w, "f:node.alpha.kubernetes.io/ttl");
    end(w);
    end(w);
    obj(w, "f:spec");
    fe(w, "f:podCIDR");
    obj(w, "f:podCIDRs");
    fe(w, ".");
    snprintf(tmp, sizeof tmp, "v:\"10.%u.%u.0/24\"", 64 + (i >> 8), i & 255);
    fe(w, tmp);
    end(w);
    if (n->tainted || n->cordoned) fe(w, "f:taints");
    end(w);
    mf_end(w, "kube-controller-manager", NULL, created + 20);
    mf_begin(w, "v1");
    obj(w, "f:status");
    obj(w, "f:allocatable");
    fes(w, "f:cpu", "f:ephemeral-storage", "f:memory", (const char *)NULL);
    end(w);
    obj(w, "f:capacity");
    fes(w, "f:cpu", "f:ephemeral-storage", "f:memory", (const char *)NULL);
    end(w);
    obj(w, "f:conditions");
    static const char *const conds[] = {"DiskPressure", "MemoryPressure", "PIDPressure", "Ready"};
    for (int c = 0; c < 4; c++) {
        fk_str(w, "type", conds[c]);
        fes(w, "f:lastHeartbeatTime", "f:lastTransitionTime", "f:message", "f:reason", "f:status",
            (const char *)NULL);
        end(w);
    }
    end(w);
    obj(w, "f:addresses");
    fe(w, ".");
    fk_str(w, "type", "Hostname");
    fes(w, ".", "f:address", "f:type", (const char *)NULL);
    end(w);
    fk_str(w, "type", "InternalDNS");
    fes(w, ".", "f:address", "f:type", (const char *)NULL);
    end(w);
    fk_str(w, "type", "InternalIP");
    fes(w, ".", "f:address", "f:type", (const char *)NULL);
    end(w);
    end(w);
    fes(w, "f:daemonEndpoints", "f:images", (const char *)NULL);
    obj(w, "f:nodeInfo");
    fes(w, "f:bootID", "f:kernelVersion", "f:machineID", "f:systemUUID", (const char *)NULL);
    end(w);
    end(w);
    mf_end(w, "kubelet", "status", NOW - 30);
    end(w); /* managedFields */
    jstr(w, "name", name);
    jstrf(w, "resourceVersion", "%" PRIu64, g->rv += 1 + rng_below(r, 40));
    jstr(w, "uid", uid);
    end(w); /* metadata */

    obj(w, "spec");
    jstrf(w, "podCIDR", "10.%u.%u.0/24", 64 + (i >> 8), i & 255);
    arr(w, "podCIDRs");
    jstrf(w, NULL, "10.%u.%u.0/24", 64 + (i >> 8), i & 255);
    end(w);
    jstrf(w, "providerID", "aws:///%s/i-%s", zone, iid);
    if (n->tainted || n->cordoned) {
        arr(w, "taints");
        if (n->tainted) {
            obj(w, NULL);
            jstr(w, "effect", "NoSchedule");
            jstr(w, "key", "dedicated");
            jstr(w, "value", "ml-platform");
            end(w);
        }
        if (n->cordoned) {
            obj(w, NULL);
            jstr(w, "effect", "NoSchedule");
            jstr(w, "key", "node.kubernetes.io/unschedulable");
            jtime(w, "timeAdded", NOW - 7200);
            end(w);
        }
        end(w);
    }
    if (n->cordoned) jbool(w, "unschedulable", true);
    end(w); /* spec */

    obj(w, "status");
    arr(w, "addresses");
    obj(w, NULL);
    jstr(w, "address", ip);
    jstr(w, "type", "InternalIP");
    end(w);
    obj(w, NULL);
    jstr(w, "address", name);
    jstr(w, "type", "InternalDNS");
    end(w);
    obj(w, NULL);
    jstr(w, "address", name);
    jstr(w, "type", "Hostname");
    end(w);
    end(w);
    uint64_t cap_ki = (uint64_t)nt->mem_gib * 1048576 - 2200000 + rng_below(r, 20000);
    uint64_t alloc_ki = n->alloc_mem / 1024;
    obj(w, "allocatable");
    jstrf(w, "cpu", "%um", n->alloc_cpu);
    jstr(w, "ephemeral-storage", "95551679124");
    jstr(w, "hugepages-1Gi", "0");
    jstr(w, "hugepages-2Mi", "0");
    jstrf(w, "memory", "%" PRIu64 "Ki", alloc_ki);
    jstrf(w, "pods", "%u", nt->max_pods);
    end(w);
    obj(w, "capacity");
    jstrf(w, "cpu", "%u", nt->cores);
    jstr(w, "ephemeral-storage", "104845292Ki");
    jstr(w, "hugepages-1Gi", "0");
    jstr(w, "hugepages-2Mi", "0");
    jstrf(w, "memory", "%" PRIu64 "Ki", cap_ki);
    jstrf(w, "pods", "%u", nt->max_pods);
    end(w);
    arr(w, "conditions");
    static const char *const ctype[] = {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"};
    static const char *const creason[] = {"KubeletHasSufficientMemory", "KubeletHasNoDiskPressure",
                                          "KubeletHasSufficientPID", "KubeletReady"};
    static const char *const cmsg[] = {
        "kubelet has sufficient memory available", "kubelet has no disk pressure",
        "kubelet has sufficient PID available", "kubelet is posting ready status"};
    for (int c = 0; c < 4; c++) {
        obj(w, NULL);
        jtime(w, "lastHeartbeatTime", NOW - 20 - (int64_t)rng_below(r, 40));
        jtime(w, "lastTransitionTime", created + 5 + (c == 3 ? 25 : 0));
        jstr(w, "message", cmsg[c]);
        jstr(w, "reason", creason[c]);
        jstr(w, "status", c == 3 ? "True" : "False");
        jstr(w, "type", ctype[c]);
        end(w);
    }
    end(w);
    obj(w, "daemonEndpoints");
    obj(w, "kubeletEndpoint");
    jint(w, "Port", 10250);
    end(w);
    end(w);
    arr(w, "images");
    uint32_t n_img = 6 + rng_below(r, 11);
    uint32_t start = rng_below(r, g->n_images);
    for (uint32_t k = 0; k < n_img; k++) {
        uint32_t im = (start + k * 7) % g->n_images;
        char digest[65];
        rng_t dr;
        rng_seed(&dr, 0x1234567ull + im); /* an image's digest is the same on every node */
        rand_hex(&dr, digest, 64);
        obj(w, NULL);
        arr(w, "names");
        jstrf(w, NULL, "%.*s@sha256:%s", (int)strcspn(g->image_pool[im], ":"), g->image_pool[im],
              digest);
        jstr(w, NULL, g->image_pool[im]);
        end(w);
        jint(w, "sizeBytes", 5000000 + (int64_t)(rng_next(&dr) % 900000000));
        end(w);
    }
    end(w);
    obj(w, "nodeInfo");
    jstr(w, "architecture", arch);
    char boot[37], machine[33], sys[37];
    rand_uid(r, boot);
    rand_hex(r, machine, 32);
    rand_uid(r, sys);
    jstr(w, "bootID", boot);
    jstr(w, "containerRuntimeVersion", "containerd://1.7.11");
    jstr(w, "kernelVersion",
         nt->arm ? "5.10.205-195.807.amzn2.aarch64" : "5.10.205-195.807.amzn2.x86_64");
    jstr(w, "kubeProxyVersion", "v1.29.0-eks-5e0fdde");
    jstr(w, "kubeletVersion", "v1.29.0-eks-5e0fdde");
    jstr(w, "machineID", machine);
    jstr(w, "operatingSystem", "linux");
    jstr(w, "osImage", "Amazon Linux 2");
    jstr(w, "systemUUID", sys);
    end(w);
    end(w); /* status */
    end(w);
}

/* ------------------------------------------------------------------ pods */

#define MAX_KV 16

typedef struct {
    const char *k[MAX_KV];
    char v[MAX_KV][128];
    int n;
} kv_t;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
kv_addf(kv_t *kv, const char *k, const char *fmt, ...) {
    if (kv->n >= MAX_KV) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kv->v[kv->n], sizeof kv->v[0], fmt, ap);
    va_end(ap);
    kv->k[kv->n++] = k;
}

static void kv_sort(kv_t *kv) {
    for (int i = 1; i < kv->n; i++) {
        for (int j = i; j > 0 && strcmp(kv->k[j - 1], kv->k[j]) > 0; j--) {
            const char *tk = kv->k[j];
            char tv[128];
            memcpy(tv, kv->v[j], sizeof tv);
            kv->k[j] = kv->k[j - 1];
            memcpy(kv->v[j], kv->v[j - 1], sizeof tv);
            kv->k[j - 1] = tk;
            memcpy(kv->v[j - 1], tv, sizeof tv);
        }
    }
}

static void emit_kv(jw_t *w, const char *key, const kv_t *kv) {
    obj(w, key);
    for (int i = 0; i < kv->n; i++) jstr(w, kv->k[i], kv->v[i]);
    end(w);
}

static void mf_kv(jw_t *w, const char *key, const kv_t *kv) {
    char k[128];
    obj(w, key);
    fe(w, ".");
    for (int i = 0; i < kv->n; i++) {
        snprintf(k, sizeof k, "f:%s", kv->k[i]);
        fe(w, k);
    }
    end(w);
}

typedef struct {
    const char *name;
    char image[112];
    uint64_t image_seed;
    const char *cpu_req, *mem_req, *cpu_lim, *mem_lim; /* NULL: absent */
    int n_ports;
    uint16_t port[2];
    const char *port_name[2];
    uint16_t host_port[2];
    int n_env; /* plain variables from kEnv */
    bool field_env; /* POD_NAME / POD_NAMESPACE / NODE_NAME from the downward API */
    uint16_t probe; /* HTTP port of the readiness (and liveness) probe, 0 = none */
    bool liveness;
    bool privileged;
    int n_cmd;
    const char *cmd[4];
    int n_mounts;
    const char *mname[4];
    char mpath[4][64];
    bool mro[4];
    uint32_t restarts;
    bool sidecar_init; /* init container with restartPolicy: Always */
    bool secctx; /* restricted securityContext */
} ctr_t;

typedef struct {
    const char *ns;
    char name[112], gen_name[96];
    kv_t labels, annots;
    const char *owner_kind;
    char owner_name[80];
    const char *owner_uid;
    ctr_t c[3];
    int n_c;
    ctr_t init;
    bool has_init;
    char sa_vol[32]; /* kube-api-access-xxxxx */
    char cm_name[80];
    bool has_cm, has_cache, host_paths, host_network;
    bool no_sa; /* automountServiceAccountToken: false */
    const char *cache_limit;
    const char *pc_name;
    int32_t priority;
    bool never;
    int32_t node;
    const char *qos;
    int64_t created, started;
    int tol; /* 0 defaults, 1 + dedicated=ml-platform, 2 DaemonSet (tolerates everything) */
    int affinity; /* 0 none, 1 pod anti-affinity, 2 node affinity (arch/os) + zone preference, 3 DS
                   */
    bool spread;
    const char *app;
    const char *tier;
    const char *sa_name;
    int64_t grace;
    uint32_t ip_host;
} pod_t;

static const char *const kEnvName[] = {
    "ENVIRONMENT", "LOG_LEVEL", "SERVICE_NAME", "OTEL_EXPORTER_OTLP_ENDPOINT",
    "GOMAXPROCS",  "DB_HOST",   "REDIS_URL",    "FEATURE_FLAGS",
    "JAVA_OPTS",   "HTTP_PORT", "METRICS_PORT", "AWS_REGION"};
#define N_ENV (sizeof kEnvName / sizeof kEnvName[0])

static void env_value(char *out, size_t cap, int i, const pod_t *p) {
    switch (i) {
    case 0: snprintf(out, cap, "production"); break;
    case 1: snprintf(out, cap, "info"); break;
    case 2: snprintf(out, cap, "%s", p->app); break;
    case 3: snprintf(out, cap, "http://otel-collector.observability.svc.cluster.local:4317"); break;
    case 4: snprintf(out, cap, "2"); break;
    case 5: snprintf(out, cap, "%s-postgres.%s.svc.cluster.local", p->ns, p->ns); break;
    case 6: snprintf(out, cap, "redis://%s-redis.%s.svc.cluster.local:6379/0", p->ns, p->ns); break;
    case 7: snprintf(out, cap, "fast-checkout,new-search-ranking,async-invoices"); break;
    case 8: snprintf(out, cap, "-Xms512m -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=200"); break;
    case 9: snprintf(out, cap, "8080"); break;
    case 10: snprintf(out, cap, "9090"); break;
    default: snprintf(out, cap, "us-east-1"); break;
    }
}

static void emit_probe(jw_t *w, const char *key, const char *path, uint16_t port, int initial) {
    obj(w, key);
    jint(w, "failureThreshold", 3);
    obj(w, "httpGet");
    jstr(w, "path", path);
    jint(w, "port", port);
    jstr(w, "scheme", "HTTP");
    end(w);
    jint(w, "initialDelaySeconds", initial);
    jint(w, "periodSeconds", 10);
    jint(w, "successThreshold", 1);
    jint(w, "timeoutSeconds", 1);
    end(w);
}

static void emit_container(jw_t *w, const pod_t *p, const ctr_t *c) {
    char tmp[128];
    obj(w, NULL);
    if (c->n_cmd) {
        arr(w, "command");
        for (int i = 0; i < c->n_cmd; i++) jstr(w, NULL, c->cmd[i]);
        end(w);
    }
    if (c->n_env || c->field_env) {
        arr(w, "env");
        for (int i = 0; i < c->n_env; i++) {
            obj(w, NULL);
            jstr(w, "name", kEnvName[i]);
            env_value(tmp, sizeof tmp, i, p);
            jstr(w, "value", tmp);
            end(w);
        }
        if (c->field_env) {
            static const char *const fn[] = {"POD_NAME", "POD_NAMESPACE"};
            static const char *const fp[] = {"metadata.name", "metadata.namespace"};
            for (int i = 0; i < 2; i++) {
                obj(w, NULL);
                jstr(w, "name", fn[i]);
                obj(w, "valueFrom");
                obj(w, "fieldRef");
                jstr(w, "apiVersion", "v1");
                jstr(w, "fieldPath", fp[i]);
                end(w);
                end(w);
                end(w);
            }
        }
        end(w);
    }
    jstr(w, "image", c->image);
    jstr(w, "imagePullPolicy", "IfNotPresent");
    if (c->probe && c->liveness) emit_probe(w, "livenessProbe", "/healthz", c->probe, 15);
    jstr(w, "name", c->name);
    if (c->n_ports) {
        arr(w, "ports");
        for (int i = 0; i < c->n_ports; i++) {
            obj(w, NULL);
            jint(w, "containerPort", c->port[i]);
            if (c->host_port[i]) jint(w, "hostPort", c->host_port[i]);
            jstr(w, "name", c->port_name[i]);
            jstr(w, "protocol", "TCP");
            end(w);
        }
        end(w);
    }
    if (c->probe) emit_probe(w, "readinessProbe", "/ready", c->probe, 5);
    obj(w, "resources");
    if (c->cpu_lim || c->mem_lim) {
        obj(w, "limits");
        if (c->cpu_lim) jstr(w, "cpu", c->cpu_lim);
        if (c->mem_lim) jstr(w, "memory", c->mem_lim);
        end(w);
    }
    if (c->cpu_req || c->mem_req) {
        obj(w, "requests");
        if (c->cpu_req) jstr(w, "cpu", c->cpu_req);
        if (c->mem_req) jstr(w, "memory", c->mem_req);
        end(w);
    }
    end(w);
    if (c->sidecar_init) jstr(w, "restartPolicy", "Always");
    if (c->privileged) {
        obj(w, "securityContext");
        jbool(w, "privileged", true);
        end(w);
    } else if (c->secctx) {
        obj(w, "securityContext");
        jbool(w, "allowPrivilegeEscalation", false);
        obj(w, "capabilities");
        arr(w, "drop");
        jstr(w, NULL, "ALL");
        end(w);
        end(w);
        jbool(w, "readOnlyRootFilesystem", true);
        jbool(w, "runAsNonRoot", true);
        jint(w, "runAsUser", 10001);
        end(w);
    }
    jstr(w, "terminationMessagePath", "/dev/termination-log");
    jstr(w, "terminationMessagePolicy", "File");
    arr(w, "volumeMounts");
    for (int i = 0; i < c->n_mounts; i++) {
        obj(w, NULL);
        jstr(w, "mountPath", c->mpath[i]);
        jstr(w, "name", c->mname[i]);
        if (c->mro[i]) jbool(w, "readOnly", true);
        end(w);
    }
    end(w);
    end(w);
}

static void mf_probe(jw_t *w, const char *key) {
    obj(w, key);
    fe(w, ".");
    fe(w, "f:failureThreshold");
    obj(w, "f:httpGet");
    fes(w, ".", "f:path", "f:port", "f:scheme", (const char *)NULL);
    end(w);
    fes(w, "f:initialDelaySeconds", "f:periodSeconds", "f:successThreshold", "f:timeoutSeconds",
        (const char *)NULL);
    end(w);
}

static void mf_container(jw_t *w, const ctr_t *c) {
    char k[160];
    fk_str(w, "name", c->name);
    fe(w, ".");
    if (!g_mf_full) {
        fes(w, "f:image", "f:name", "f:resources", (const char *)NULL);
        end(w);
        return;
    }
    if (c->n_cmd) fe(w, "f:command");
    if (c->n_env || c->field_env) {
        obj(w, "f:env");
        fe(w, ".");
        for (int i = 0; i < c->n_env; i++) {
            fk_str(w, "name", kEnvName[i]);
            fes(w, ".", "f:name", "f:value", (const char *)NULL);
            end(w);
        }
        if (c->field_env) {
            static const char *const fn[] = {"POD_NAME", "POD_NAMESPACE"};
            for (int i = 0; i < 2; i++) {
                fk_str(w, "name", fn[i]);
                fes(w, ".", "f:name", (const char *)NULL);
                obj(w, "f:valueFrom");
                fe(w, ".");
                obj(w, "f:fieldRef");
                fes(w, ".", "f:apiVersion", "f:fieldPath", (const char *)NULL);
                end(w);
                end(w);
                end(w);
            }
        }
        end(w);
    }
    fes(w, "f:image", "f:imagePullPolicy", (const char *)NULL);
    if (c->probe && c->liveness) mf_probe(w, "f:livenessProbe");
    fe(w, "f:name");
    if (c->n_ports) {
        obj(w, "f:ports");
        fe(w, ".");
        for (int i = 0; i < c->n_ports; i++) {
            snprintf(k, sizeof k, "k:{\"containerPort\":%u,\"protocol\":\"TCP\"}", c->port[i]);
            obj(w, k);
            fes(w, ".", "f:containerPort", (const char *)NULL);
            if (c->host_port[i]) fe(w, "f:hostPort");
            fes(w, "f:name", "f:protocol", (const char *)NULL);
            end(w);
        }
        end(w);
    }
    if (c->probe) mf_probe(w, "f:readinessProbe");
    mf_resources(w, c->cpu_req || c->mem_req, c->cpu_lim || c->mem_lim);
    if (c->sidecar_init) fe(w, "f:restartPolicy");
    if (c->secctx || c->privileged) fe(w, "f:securityContext");
    fes(w, "f:terminationMessagePath", "f:terminationMessagePolicy", (const char *)NULL);
    obj(w, "f:volumeMounts");
    fe(w, ".");
    for (int i = 0; i < c->n_mounts; i++) {
        if (strncmp(c->mname[i], "kube-api-access", 15) == 0) continue; /* added by admission */
        fk_str(w, "mountPath", c->mpath[i]);
        fes(w, ".", "f:mountPath", "f:name", (const char *)NULL);
        if (c->mro[i]) fe(w, "f:readOnly");
        end(w);
    }
    end(w);
    end(w);
}

static void pod_ip(char out[20], const pod_t *p) {
    if (p->host_network) {
        node_ip(out, (uint32_t)p->node);
        return;
    }
    uint32_t i = (uint32_t)p->node;
    snprintf(out, 20, "10.%u.%u.%u", 64 + (i >> 8), i & 255, 2 + p->ip_host % 250);
}

static void emit_ctr_status(gen_t *g, const pod_t *p, const ctr_t *c, bool init) {
    jw_t *w = g->w;
    rng_t *r = &g->r;
    char cid[65], digest[65];
    rand_hex(r, cid, 64);
    rng_t dr;
    rng_seed(&dr, c->image_seed);
    rand_hex(&dr, digest, 64);
    obj(w, NULL);
    jstrf(w, "containerID", "containerd://%s", cid);
    jstr(w, "image", c->image);
    jstrf(w, "imageID", "%.*s@sha256:%s", (int)strcspn(c->image, ":"), c->image, digest);
    obj(w, "lastState");
    if (c->restarts) {
        char old[65];
        rand_hex(r, old, 64);
        obj(w, "terminated");
        jstrf(w, "containerID", "containerd://%s", old);
        jint(w, "exitCode", 137);
        jtime(w, "finishedAt", p->started + 3600);
        jstr(w, "reason", "OOMKilled");
        jtime(w, "startedAt", p->started + 20);
        end(w);
    }
    end(w);
    jstr(w, "name", c->name);
    jbool(w, "ready", !init);
    jint(w, "restartCount", c->restarts);
    jbool(w, "started", !init);
    obj(w, "state");
    if (init) {
        obj(w, "terminated");
        jstrf(w, "containerID", "containerd://%s", cid);
        jint(w, "exitCode", 0);
        jtime(w, "finishedAt", p->started + 4);
        jstr(w, "reason", "Completed");
        jtime(w, "startedAt", p->started + 2);
        end(w);
    } else {
        obj(w, "running");
        jtime(w, "startedAt", p->started + (c->restarts ? 3601 : 6));
        end(w);
    }
    end(w);
    end(w);
}

static void emit_tolerations(jw_t *w, const pod_t *p) {
    arr(w, "tolerations");
    if (p->tol == 1) {
        obj(w, NULL);
        jstr(w, "effect", "NoSchedule");
        jstr(w, "key", "dedicated");
        jstr(w, "operator", "Equal");
        jstr(w, "value", "ml-platform");
        end(w);
    }
    if (p->tol == 2) {
        obj(w, NULL);
        jstr(w, "operator", "Exists");
        end(w);
        static const char *const keys[] = {
            "node.kubernetes.io/not-ready",          "node.kubernetes.io/unreachable",
            "node.kubernetes.io/disk-pressure",      "node.kubernetes.io/memory-pressure",
            "node.kubernetes.io/pid-pressure",       "node.kubernetes.io/unschedulable",
            "node.kubernetes.io/network-unavailable"};
        for (int i = 0; i < 7; i++) {
            obj(w, NULL);
            jstr(w, "effect", i < 2 ? "NoExecute" : "NoSchedule");
            jstr(w, "key", keys[i]);
            jstr(w, "operator", "Exists");
            end(w);
        }
    } else {
        static const char *const keys[] = {"node.kubernetes.io/not-ready",
                                           "node.kubernetes.io/unreachable"};
        for (int i = 0; i < 2; i++) {
            obj(w, NULL);
            jstr(w, "effect", "NoExecute");
            jstr(w, "key", keys[i]);
            jstr(w, "operator", "Exists");
            jint(w, "tolerationSeconds", 300);
            end(w);
        }
    }
    end(w);
}

static void emit_affinity(gen_t *g, const pod_t *p) {
    jw_t *w = g->w;
    char nn[64];
    obj(w, "affinity");
    if (p->affinity == 3) {
        node_name(nn, (uint32_t)p->node);
        obj(w, "nodeAffinity");
        obj(w, "requiredDuringSchedulingIgnoredDuringExecution");
        arr(w, "nodeSelectorTerms");
        obj(w, NULL);
        arr(w, "matchFields");
        obj(w, NULL);
        jstr(w, "key", "metadata.name");
        jstr(w, "operator", "In");
        arr(w, "values");
        jstr(w, NULL, nn);
        end(w);
        end(w);
        end(w);
        end(w);
        end(w);
        end(w);
        end(w);
    } else if (p->affinity == 2) {
        obj(w, "nodeAffinity");
        arr(w, "preferredDuringSchedulingIgnoredDuringExecution");
        obj(w, NULL);
        obj(w, "preference");
        arr(w, "matchExpressions");
        obj(w, NULL);
        jstr(w, "key", "topology.kubernetes.io/zone");
        jstr(w, "operator", "In");
        arr(w, "values");
        jstr(w, NULL, kZones[(p->created / 7) % 3]);
        end(w);
        end(w);
        end(w);
        end(w);
        jint(w, "weight", 50);
        end(w);
        end(w);
        obj(w, "requiredDuringSchedulingIgnoredDuringExecution");
        arr(w, "nodeSelectorTerms");
        obj(w, NULL);
        arr(w, "matchExpressions");
        obj(w, NULL);
        jstr(w, "key", "kubernetes.io/os");
        jstr(w, "operator", "In");
        arr(w, "values");
        jstr(w, NULL, "linux");
        end(w);
        end(w);
        obj(w, NULL);
        jstr(w, "key", "kubernetes.io/arch");
        jstr(w, "operator", "In");
        arr(w, "values");
        jstr(w, NULL, "amd64");
        jstr(w, NULL, "arm64");
        end(w);
        end(w);
        end(w);
        end(w);
        end(w);
        end(w);
        end(w);
    } else {
        obj(w, "podAntiAffinity");
        arr(w, "preferredDuringSchedulingIgnoredDuringExecution");
        obj(w, NULL);
        obj(w, "podAffinityTerm");
        obj(w, "labelSelector");
        arr(w, "matchExpressions");
        obj(w, NULL);
        jstr(w, "key", "app");
        jstr(w, "operator", "In");
        arr(w, "values");
        jstr(w, NULL, p->app);
        end(w);
        end(w);
        end(w);
        end(w);
        jstr(w, "topologyKey", "kubernetes.io/hostname");
        end(w);
        jint(w, "weight", 100);
        end(w);
        end(w);
        end(w);
    }
    end(w);
}

static void emit_volumes(jw_t *w, const pod_t *p) {
    arr(w, "volumes");
    if (p->has_cm) {
        obj(w, NULL);
        obj(w, "configMap");
        jint(w, "defaultMode", 420);
        jstr(w, "name", p->cm_name);
        end(w);
        jstr(w, "name", "config");
        end(w);
    }
    if (p->has_cache) {
        obj(w, NULL);
        obj(w, "emptyDir");
        if (p->cache_limit) jstr(w, "sizeLimit", p->cache_limit);
        end(w);
        jstr(w, "name", "cache");
        end(w);
    }
    if (p->host_paths) {
        static const char *const hn[] = {"varlog", "xtables-lock", "lib-modules"};
        static const char *const hp[] = {"/var/log", "/run/xtables.lock", "/lib/modules"};
        static const char *const ht[] = {"", "FileOrCreate", ""};
        for (int i = 0; i < 3; i++) {
            obj(w, NULL);
            obj(w, "hostPath");
            jstr(w, "path", hp[i]);
            jstr(w, "type", ht[i]);
            end(w);
            jstr(w, "name", hn[i]);
            end(w);
        }
    }
    if (p->no_sa) {
        end(w);
        return;
    }
    obj(w, NULL);
    jstr(w, "name", p->sa_vol);
    obj(w, "projected");
    jint(w, "defaultMode", 420);
    arr(w, "sources");
    obj(w, NULL);
    obj(w, "serviceAccountToken");
    jint(w, "expirationSeconds", 3607);
    jstr(w, "path", "token");
    end(w);
    end(w);
    obj(w, NULL);
    obj(w, "configMap");
    arr(w, "items");
    obj(w, NULL);
    jstr(w, "key", "ca.crt");
    jstr(w, "path", "ca.crt");
    end(w);
    end(w);
    jstr(w, "name", "kube-root-ca.crt");
    end(w);
    end(w);
    obj(w, NULL);
    obj(w, "downwardAPI");
    arr(w, "items");
    obj(w, NULL);
    obj(w, "fieldRef");
    jstr(w, "apiVersion", "v1");
    jstr(w, "fieldPath", "metadata.namespace");
    end(w);
    jstr(w, "path", "namespace");
    end(w);
    end(w);
    end(w);
    end(w);
    end(w);
    end(w);
    end(w);
    end(w);
}

static void emit_pod(gen_t *g, pod_t *p) {
    jw_t *w = g->w;
    rng_t *r = &g->r;
    char uid[37], tmp[160], ip[20], hip[20];
    rand_uid(r, uid);
    bool bound = p->node >= 0;
    if (bound) {
        pod_ip(ip, p);
        node_ip(hip, (uint32_t)p->node);
    }
    kv_sort(&p->labels);
    kv_sort(&p->annots);

    obj(w, NULL);
    jstr(w, "apiVersion", "v1");
    jstr(w, "kind", "Pod");
    obj(w, "metadata");
    if (p->annots.n) emit_kv(w, "annotations", &p->annots);
    jtime(w, "creationTimestamp", p->created);
    jstr(w, "generateName", p->gen_name);
    emit_kv(w, "labels", &p->labels);

    arr(w, "managedFields");
    /* the controller that created the pod */
    mf_begin(w, "v1");
    obj(w, "f:metadata");
    if (p->annots.n && g_mf_full) mf_kv(w, "f:annotations", &p->annots);
    fe(w, "f:generateName");
    mf_kv(w, "f:labels", &p->labels);
    obj(w, "f:ownerReferences");
    fe(w, ".");
    fk_str(w, "uid", p->owner_uid);
    end(w);
    end(w);
    end(w);
    obj(w, "f:spec");
    if (p->no_sa) fe(w, "f:automountServiceAccountToken");
    if (p->affinity) {
        obj(w, "f:affinity");
        fe(w, ".");
        obj(w, p->affinity == 1 ? "f:podAntiAffinity" : "f:nodeAffinity");
        fe(w, ".");
        if (p->affinity != 1) fe(w, "f:requiredDuringSchedulingIgnoredDuringExecution");
        if (p->affinity != 3) fe(w, "f:preferredDuringSchedulingIgnoredDuringExecution");
        end(w);
        end(w);
    }
    obj(w, "f:containers");
    for (int i = 0; i < p->n_c; i++) mf_container(w, &p->c[i]);
    end(w);
    if (g_mf_full) fes(w, "f:dnsPolicy", "f:enableServiceLinks", (const char *)NULL);
    if (p->host_network) fe(w, "f:hostNetwork");
    if (p->has_init) {
        obj(w, "f:initContainers");
        mf_container(w, &p->init);
        end(w);
    }
    if (g_mf_full)
        fes(w, "f:priorityClassName", "f:restartPolicy", "f:schedulerName", "f:securityContext",
            "f:serviceAccount", "f:serviceAccountName", "f:terminationGracePeriodSeconds",
            "f:tolerations", (const char *)NULL);
    else
        fes(w, "f:priorityClassName", "f:schedulerName", "f:terminationGracePeriodSeconds",
            (const char *)NULL);
    if (p->spread) {
        obj(w, "f:topologySpreadConstraints");
        fe(w, ".");
        obj(w, "k:{\"topologyKey\":\"topology.kubernetes.io/"
               "zone\",\"whenUnsatisfiable\":\"ScheduleAnyway\"}");
        fes(w, ".", "f:labelSelector", "f:maxSkew", "f:topologyKey", "f:whenUnsatisfiable",
            (const char *)NULL);
        end(w);
        end(w);
    }
    obj(w, "f:volumes");
    fe(w, ".");
    if (p->has_cm && g_mf_full) {
        fk_str(w, "name", "config");
        fe(w, ".");
        obj(w, "f:configMap");
        fes(w, ".", "f:defaultMode", "f:name", (const char *)NULL);
        end(w);
        fe(w, "f:name");
        end(w);
    }
    if (p->has_cache && g_mf_full) {
        fk_str(w, "name", "cache");
        fe(w, ".");
        obj(w, "f:emptyDir");
        fe(w, ".");
        if (p->cache_limit) fe(w, "f:sizeLimit");
        end(w);
        fe(w, "f:name");
        end(w);
    }
    if (p->host_paths) {
        static const char *const hn[] = {"lib-modules", "varlog", "xtables-lock"};
        for (int i = 0; i < (g_mf_full ? 3 : 0); i++) {
            fk_str(w, "name", hn[i]);
            fe(w, ".");
            obj(w, "f:hostPath");
            fes(w, ".", "f:path", "f:type", (const char *)NULL);
            end(w);
            fe(w, "f:name");
            end(w);
        }
    }
    end(w);
    end(w); /* f:spec */
    mf_end(w, "kube-controller-manager", NULL, p->created);
    if (bound) {
        mf_begin(w, "v1");
        obj(w, "f:status");
        obj(w, "f:conditions");
        if (g_mf_full) {
            mf_condition(w, "ContainersReady");
            mf_condition(w, "Initialized");
            mf_condition(w, "PodReadyToStartContainers");
        }
        mf_condition(w, "Ready");
        end(w);
        fes(w, "f:containerStatuses", "f:hostIP", (const char *)NULL);
        if (g_mf_full) {
            obj(w, "f:hostIPs");
            fe(w, ".");
            fk_str(w, "ip", hip);
            fes(w, ".", "f:ip", (const char *)NULL);
            end(w);
            end(w);
            if (p->has_init) fe(w, "f:initContainerStatuses");
        }
        fes(w, "f:phase", "f:podIP", (const char *)NULL);
        if (g_mf_full) {
            obj(w, "f:podIPs");
            fe(w, ".");
            fk_str(w, "ip", ip);
            fes(w, ".", "f:ip", (const char *)NULL);
            end(w);
            end(w);
        }
        fe(w, "f:startTime");
        end(w);
        mf_end(w, "kubelet", "status", p->started + 8);
    } else {
        mf_begin(w, "v1");
        obj(w, "f:status");
        obj(w, "f:conditions");
        fe(w, ".");
        mf_condition(w, "PodScheduled");
        end(w);
        end(w);
        mf_end(w, "kube-scheduler", "status", p->created);
    }
    end(w); /* managedFields */

    jstr(w, "name", p->name);
    jstr(w, "namespace", p->ns);
    arr(w, "ownerReferences");
    obj(w, NULL);
    jstr(w, "apiVersion", "apps/v1");
    jbool(w, "blockOwnerDeletion", true);
    jbool(w, "controller", true);
    jstr(w, "kind", p->owner_kind);
    jstr(w, "name", p->owner_name);
    jstr(w, "uid", p->owner_uid);
    end(w);
    end(w);
    jstrf(w, "resourceVersion", "%" PRIu64, g->rv += 1 + rng_below(r, 40));
    jstr(w, "uid", uid);
    end(w); /* metadata */

    obj(w, "spec");
    if (p->affinity) emit_affinity(g, p);
    if (p->no_sa) jbool(w, "automountServiceAccountToken", false);
    arr(w, "containers");
    for (int i = 0; i < p->n_c; i++) emit_container(w, p, &p->c[i]);
    end(w);
    jstr(w, "dnsPolicy", p->host_network ? "ClusterFirstWithHostNet" : "ClusterFirst");
    jbool(w, "enableServiceLinks", true);
    if (p->host_network) jbool(w, "hostNetwork", true);
    if (p->has_init) {
        arr(w, "initContainers");
        emit_container(w, p, &p->init);
        end(w);
    }
    if (bound) {
        node_name(tmp, (uint32_t)p->node);
        jstr(w, "nodeName", tmp);
    }
    jstr(w, "preemptionPolicy", p->never ? "Never" : "PreemptLowerPriority");
    jint(w, "priority", p->priority);
    jstr(w, "priorityClassName", p->pc_name);
    jstr(w, "restartPolicy", "Always");
    jstr(w, "schedulerName", "default-scheduler");
    obj(w, "securityContext");
    if (!p->host_network) {
        jint(w, "fsGroup", 10001);
        obj(w, "seccompProfile");
        jstr(w, "type", "RuntimeDefault");
        end(w);
    }
    end(w);
    jstr(w, "serviceAccount", p->sa_name);
    jstr(w, "serviceAccountName", p->sa_name);
    jint(w, "terminationGracePeriodSeconds", p->grace);
    emit_tolerations(w, p);
    if (p->spread) {
        arr(w, "topologySpreadConstraints");
        obj(w, NULL);
        obj(w, "labelSelector");
        obj(w, "matchLabels");
        jstr(w, "app", p->app);
        end(w);
        end(w);
        jint(w, "maxSkew", 1);
        jstr(w, "topologyKey", "topology.kubernetes.io/zone");
        jstr(w, "whenUnsatisfiable", "ScheduleAnyway");
        end(w);
        end(w);
    }
    emit_volumes(w, p);
    end(w); /* spec */

    obj(w, "status");
    arr(w, "conditions");
    if (bound) {
        static const char *const ct[] = {"PodReadyToStartContainers", "Initialized", "Ready",
                                         "ContainersReady", "PodScheduled"};
        static const int dt[] = {5, 4, 12, 12, 0};
        for (int i = 0; i < 5; i++) {
            obj(w, NULL);
            jnull(w, "lastProbeTime");
            jtime(w, "lastTransitionTime", p->started + dt[i]);
            jstr(w, "status", "True");
            jstr(w, "type", ct[i]);
            end(w);
        }
    } else {
        obj(w, NULL);
        jnull(w, "lastProbeTime");
        jtime(w, "lastTransitionTime", p->created);
        jstrf(
            w, "message",
            "0/%u nodes are available: %u Insufficient cpu, %u Insufficient memory, %u node(s) had "
            "untolerated taint {dedicated: ml-platform}. preemption: 0/%u nodes are available: "
            "%u No preemption victims found for incoming pod.",
            g->n_nodes, g->n_nodes / 2, g->n_nodes / 3,
            g->n_nodes - g->n_nodes / 2 - g->n_nodes / 3, g->n_nodes, g->n_nodes);
        jstr(w, "reason", "Unschedulable");
        jstr(w, "status", "False");
        jstr(w, "type", "PodScheduled");
        end(w);
    }
    end(w);
    if (bound) {
        arr(w, "containerStatuses");
        for (int i = 0; i < p->n_c; i++) emit_ctr_status(g, p, &p->c[i], false);
        end(w);
        jstr(w, "hostIP", hip);
        arr(w, "hostIPs");
        obj(w, NULL);
        jstr(w, "ip", hip);
        end(w);
        end(w);
        if (p->has_init) {
            arr(w, "initContainerStatuses");
            emit_ctr_status(g, p, &p->init, true);
            end(w);
        }
    }
    jstr(w, "phase", bound ? "Running" : "Pending");
    if (bound) {
        jstr(w, "podIP", ip);
        arr(w, "podIPs");
        obj(w, NULL);
        jstr(w, "ip", ip);
        end(w);
        end(w);
    }
    jstr(w, "qosClass", p->qos);
    if (bound) jtime(w, "startTime", p->started);
    end(w); /* status */
    end(w);
}

/* ------------------------------------------------------------------ workloads and placement */

static uint32_t pick_weighted(rng_t *r, const uint32_t *weights, uint32_t n) {
    uint32_t x = rng_below(r, 100), acc = 0;
    for (uint32_t i = 0; i < n; i++) {
        acc += weights[i];
        if (x < acc) return i;
    }
    return n - 1;
}

static const uint32_t kCpuWeights[] = {15, 25, 20, 15, 15, 5, 4, 1};
static const uint32_t kMemWeights[] = {10, 20, 25, 20, 10, 8, 5, 2};
static const uint32_t kClassWeights[] = {5, 15, 50, 20, 10};

static void make_workloads(gen_t *g, uint32_t n_pods) {
    rng_t *r = &g->r;
    uint32_t cap = 1024;
    g->wl = calloc(cap, sizeof *g->wl);
    static uint16_t used[N_TEAMS][N_BASES];
    memset(used, 0, sizeof used);
    uint32_t left = n_pods;
    while (left) {
        if (g->n_wl == cap) {
            cap *= 2;
            workload_t *nw = realloc(g->wl, cap * sizeof *nw);
            if (!nw) {
                fprintf(stderr, "gen_snapshot: out of memory\n");
                exit(1);
            }
            g->wl = nw;
        }
        workload_t *wl = &g->wl[g->n_wl++];
        memset(wl, 0, sizeof *wl);
        wl->team = (uint16_t)rng_below(r, N_TEAMS);
        wl->base = (uint16_t)rng_below(r, N_BASES);
        uint16_t k = used[wl->team][wl->base]++;
        if (k)
            snprintf(wl->name, sizeof wl->name, "%s-%s-%u", kTeams[wl->team], kBases[wl->base],
                     k + 1);
        else snprintf(wl->name, sizeof wl->name, "%s-%s", kTeams[wl->team], kBases[wl->base]);
        rand_suffix(r, wl->hash, 10);
        rand_uid(r, wl->rs_uid);
        wl->sfx_base = (uint32_t)rng_next(r);
        uint32_t bucket = rng_below(r, 100);
        uint32_t rep = bucket < 40   ? 1 + rng_below(r, 3)
                       : bucket < 75 ? 3 + rng_below(r, 6)
                       : bucket < 95 ? 8 + rng_below(r, 23)
                                     : 30 + rng_below(r, 91);
        wl->replicas = rep < left ? rep : left;
        left -= wl->replicas;
        wl->tier = (uint8_t)rng_below(r, 5);
        uint32_t nc = rng_below(r, 100);
        wl->n_containers = nc < 85 ? 1 : nc < 97 ? 2 : 3;
        wl->helm = rng_pct(r, 30);
        wl->fenv = rng_pct(r, 25);
        uint32_t pr = rng_below(r, 100);
        wl->probes = pr < 45 ? 0 : pr < 80 ? 1 : 2;
        wl->secctx = rng_pct(r, 30);
        wl->no_sa = rng_pct(r, 60);
        wl->metrics = rng_pct(r, 30);
        wl->has_init = rng_pct(r, 12);
        uint32_t q = rng_below(r, 100);
        wl->qos = q < 15 ? 0 : q < 92 ? 1 : 2;
        wl->omit_limits = wl->qos == 1 && rng_pct(r, 30);
        wl->cpu_i = (uint8_t)pick_weighted(r, kCpuWeights, 8);
        wl->mem_i = (uint8_t)pick_weighted(r, kMemWeights, 8);
        wl->pc = (uint8_t)pick_weighted(r, kClassWeights, N_CLASSES);
        uint32_t a = rng_below(r, 100);
        wl->affinity = a < 8 ? 1 : a < 12 ? 2 : 0;
        wl->size_limit = (uint8_t)rng_below(r, 3); /* 0 no emptyDir, 1 emptyDir, 2 with sizeLimit */
        wl->tolerate_ml = wl->team == ML_TEAM;
        wl->n_env = (uint8_t)(rng_pct(r, 40) ? 0 : 1 + rng_below(r, 3));
        wl->v_minor = (uint16_t)rng_below(r, 40);
        wl->v_patch = (uint16_t)rng_below(r, 20);
        if (wl->qos != 2) {
            wl->cpu_milli = kCpuReqMilli[wl->cpu_i];
            wl->mem_bytes = kMemReqMi[wl->mem_i] << 20;
            if (wl->n_containers >= 2) {
                wl->cpu_milli += 100;
                wl->mem_bytes += (uint64_t)128 << 20;
            }
            if (wl->n_containers >= 3) {
                wl->cpu_milli += 50;
                wl->mem_bytes += (uint64_t)64 << 20;
            }
        }
    }
}

static bool node_fits(const gen_t *g, uint32_t i, const workload_t *wl) {
    const node_t *n = &g->nodes[i];
    if (n->cordoned) return false;
    if (n->tainted && !wl->tolerate_ml) return false;
    return n->pods + 1 <= kNodeTypes[n->type].max_pods &&
           n->used_cpu + wl->cpu_milli <= n->alloc_cpu &&
           n->used_mem + wl->mem_bytes <= n->alloc_mem;
}

static int32_t place(gen_t *g, const workload_t *wl) {
    uint32_t i = 0;
    bool ok = false;
    for (int t = 0; t < 24 && !ok; t++) {
        i = rng_below(&g->r, g->n_nodes);
        ok = node_fits(g, i, wl);
    }
    if (!ok) {
        uint32_t s = rng_below(&g->r, g->n_nodes);
        for (uint32_t k = 0; k < g->n_nodes && !ok; k++) {
            i = (s + k) % g->n_nodes;
            ok = node_fits(g, i, wl);
        }
    }
    if (!ok) i = rng_below(&g->r, g->n_nodes); /* the cluster is full: overcommit */
    node_t *n = &g->nodes[i];
    n->pods++;
    n->used_cpu += wl->cpu_milli;
    n->used_mem += wl->mem_bytes;
    return (int32_t)i;
}

static void set_image(char *out, size_t cap, uint64_t *seed, const char *image) {
    snprintf(out, cap, "%s", image);
    uint64_t h = 1469598103934665603ull;
    for (const char *c = image; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
    *seed = h;
}

static void add_mount(ctr_t *c, const char *name, const char *path, bool ro) {
    if (c->n_mounts >= 4) return;
    c->mname[c->n_mounts] = name;
    snprintf(c->mpath[c->n_mounts], sizeof c->mpath[0], "%s", path);
    c->mro[c->n_mounts] = ro;
    c->n_mounts++;
}

static void add_sa_mount(const pod_t *p, ctr_t *c) {
    if (!p->no_sa) add_mount(c, p->sa_vol, "/var/run/secrets/kubernetes.io/serviceaccount", true);
}

static void workload_pod(gen_t *g, workload_t *wl, uint32_t replica, int32_t node, pod_t *p) {
    rng_t *r = &g->r;
    memset(p, 0, sizeof *p);
    const char *team = kTeams[wl->team];
    p->ns = team;
    p->app = wl->name;
    p->tier = kTiers[wl->tier];
    char sfx[8];
    pod_suffix(sfx, wl->sfx_base, replica);
    snprintf(p->gen_name, sizeof p->gen_name, "%s-%s-", wl->name, wl->hash);
    snprintf(p->name, sizeof p->name, "%s%s", p->gen_name, sfx);
    snprintf(p->owner_name, sizeof p->owner_name, "%s-%s", wl->name, wl->hash);
    p->owner_kind = "ReplicaSet";
    p->owner_uid = wl->rs_uid;
    p->node = node;
    if (node >= 0) p->ip_host = g->nodes[node].pods;
    p->created = NOW - 600 - (int64_t)rng_below(r, 30 * 86400);
    p->started = p->created + 1 + rng_below(r, 4);
    p->sa_name = wl->base % 3 == 0 ? "default" : wl->name;
    p->grace = wl->base % 4 == 0 ? 60 : 30;
    rand_suffix(r, sfx, 5);
    snprintf(p->sa_vol, sizeof p->sa_vol, "kube-api-access-%s", sfx);

    kv_t *l = &p->labels;
    kv_addf(l, "app", "%s", wl->name);
    if (wl->helm) {
        kv_addf(l, "app.kubernetes.io/instance", "%s-prod", wl->name);
        kv_addf(l, "app.kubernetes.io/managed-by", "Helm");
        kv_addf(l, "app.kubernetes.io/name", "%s", wl->name);
        kv_addf(l, "helm.sh/chart", "%s-0.%u.%u", kBases[wl->base], wl->v_minor / 2, wl->v_patch);
    }
    kv_addf(l, "pod-template-hash", "%s", wl->hash);
    if (wl->n_containers >= 2) kv_addf(l, "security.istio.io/tlsMode", "istio");
    kv_addf(l, "team", "%s", team);
    kv_addf(l, "tier", "%s", p->tier);
    kv_addf(l, "version", "v1.%u.%u", wl->v_minor, wl->v_patch);

    kv_t *an = &p->annots;
    rng_t cr;
    rng_seed(&cr, 0xC0FFEEull + (uint64_t)(wl - g->wl));
    char chk[65];
    rand_hex(&cr, chk, 64);
    kv_addf(an, "checksum/config", "%s", chk);
    if (wl->base % 2 == 0) {
        kv_addf(an, "kubectl.kubernetes.io/restartedAt", "2024-08-%02uT1%u:2%u:0%uZ",
                1 + wl->v_patch % 28, wl->v_minor % 10, wl->v_patch % 6, wl->v_minor % 10);
    }
    if (wl->probes) {
        kv_addf(an, "prometheus.io/port", "9090");
        kv_addf(an, "prometheus.io/scrape", "true");
    }
    if (wl->tier == 4) kv_addf(an, "cluster-autoscaler.kubernetes.io/safe-to-evict", "true");
    if (wl->n_containers >= 2) {
        kv_addf(an, "sidecar.istio.io/status",
                "{\"initContainers\":null,\"containers\":[\"envoy\"],\"volumes\":null,\"revision\":"
                "\"default\"}");
    }

    p->pc_name = kClasses[wl->pc].name;
    p->priority = kClasses[wl->pc].value;
    p->never = kClasses[wl->pc].never;
    p->qos = wl->qos == 0 ? "Guaranteed" : wl->qos == 1 ? "Burstable" : "BestEffort";
    p->tol = wl->tolerate_ml ? 1 : 0;
    p->affinity = wl->affinity;
    p->spread = wl->replicas >= 6 && wl->base % 3 == 1;
    p->has_cm = true;
    p->no_sa = wl->no_sa;
    snprintf(p->cm_name, sizeof p->cm_name, "%s-config", wl->name);
    p->has_cache = wl->size_limit > 0;
    p->cache_limit = wl->size_limit == 2 ? (wl->mem_i > 4 ? "2Gi" : "512Mi") : NULL;

    /* the application container */
    ctr_t *c = &p->c[0];
    c->name = kBases[wl->base];
    char img[112];
    snprintf(img, sizeof img, "123456789012.dkr.ecr.us-east-1.amazonaws.com/%s/%s:1.%u.%u", team,
             kBases[wl->base], wl->v_minor, wl->v_patch);
    set_image(c->image, sizeof c->image, &c->image_seed, img);
    if (wl->qos != 2) {
        c->cpu_req = kCpuReq[wl->cpu_i];
        c->mem_req = kMemReq[wl->mem_i];
        if (wl->qos == 0) {
            c->cpu_lim = c->cpu_req;
            c->mem_lim = c->mem_req;
        } else if (!wl->omit_limits) {
            c->cpu_lim = kCpuLim[wl->cpu_i];
            c->mem_lim = kMemLim[wl->mem_i];
        }
    }
    c->n_ports = wl->metrics ? 2 : 1;
    c->port[0] = 8080;
    c->port_name[0] = "http";
    c->port[1] = 9090;
    c->port_name[1] = "metrics";
    c->n_env = wl->n_env;
    c->field_env = wl->fenv;
    c->probe = wl->probes ? 8080 : 0;
    c->liveness = wl->probes == 2;
    c->secctx = wl->secctx;
    c->restarts = rng_pct(r, 3) ? 1 + rng_below(r, 4) : 0;
    add_mount(c, "config", "/etc/app", true);
    if (p->has_cache) add_mount(c, "cache", "/var/cache/app", false);
    add_sa_mount(p, c);
    p->n_c = 1;
    if (wl->n_containers >= 2) {
        c = &p->c[p->n_c++];
        c->name = "envoy";
        set_image(c->image, sizeof c->image, &c->image_seed, "docker.io/envoyproxy/envoy:v1.29.2");
        if (wl->qos != 2) {
            c->cpu_req = "100m";
            c->mem_req = "128Mi";
            c->cpu_lim = wl->qos == 0 ? "100m" : "1";
            c->mem_lim = wl->qos == 0 ? "128Mi" : "512Mi";
        }
        c->n_ports = 1;
        c->port[0] = 15090;
        c->port_name[0] = "http-envoy-prom";
        c->probe = 15021;
        c->liveness = false;
        add_sa_mount(p, c);
    }
    if (wl->n_containers >= 3) {
        c = &p->c[p->n_c++];
        c->name = "log-shipper";
        set_image(c->image, sizeof c->image, &c->image_seed,
                  "cr.fluentbit.io/fluent/fluent-bit:2.2.2");
        if (wl->qos != 2) {
            c->cpu_req = "50m";
            c->mem_req = "64Mi";
            c->cpu_lim = wl->qos == 0 ? "50m" : "200m";
            c->mem_lim = wl->qos == 0 ? "64Mi" : "256Mi";
        }
        c->n_env = 2;
        add_mount(c, "config", "/fluent-bit/etc", true);
        add_sa_mount(p, c);
    }
    if (wl->has_init) {
        p->has_init = true;
        c = &p->init;
        c->name = "init-config";
        set_image(c->image, sizeof c->image, &c->image_seed, "docker.io/library/busybox:1.36.1");
        c->n_cmd = 3;
        c->cmd[0] = "sh";
        c->cmd[1] = "-c";
        c->cmd[2] = "until nslookup kubernetes.default.svc; do sleep 2; done";
        if (wl->qos != 2) {
            c->cpu_req = "10m";
            c->mem_req = "16Mi";
            c->cpu_lim = "10m";
            c->mem_lim = "16Mi";
        }
        add_sa_mount(p, c);
    }
}

/* DaemonSet pods: kind 0 kube-proxy (kube-system), 1 node-exporter (monitoring, host port). */
static void daemon_pod(gen_t *g, int kind, uint32_t node, const char *ds_uid, const char *rev,
                       pod_t *p) {
    rng_t *r = &g->r;
    memset(p, 0, sizeof *p);
    char sfx[8];
    pod_suffix(sfx, (uint32_t)kind * 7919u + 12345u, node);
    const char *app = kind == 0 ? "kube-proxy" : "node-exporter";
    p->ns = kind == 0 ? "kube-system" : "monitoring";
    p->app = app;
    snprintf(p->gen_name, sizeof p->gen_name, "%s-", app);
    snprintf(p->name, sizeof p->name, "%s-%s", app, sfx);
    snprintf(p->owner_name, sizeof p->owner_name, "%s", app);
    p->owner_kind = "DaemonSet";
    p->owner_uid = ds_uid;
    p->node = (int32_t)node;
    p->created = NOW - 86400 * 20 - (int64_t)rng_below(r, 86400);
    p->started = p->created + 2;
    p->sa_name = app;
    p->grace = 30;
    p->host_network = true;
    p->host_paths = kind == 0;
    rand_suffix(r, sfx, 5);
    snprintf(p->sa_vol, sizeof p->sa_vol, "kube-api-access-%s", sfx);
    kv_addf(&p->labels, "controller-revision-hash", "%s", rev);
    if (kind == 0) {
        kv_addf(&p->labels, "k8s-app", "kube-proxy");
    } else {
        kv_addf(&p->labels, "app.kubernetes.io/component", "metrics");
        kv_addf(&p->labels, "app.kubernetes.io/instance", "kube-prometheus-stack");
        kv_addf(&p->labels, "app.kubernetes.io/managed-by", "Helm");
        kv_addf(&p->labels, "app.kubernetes.io/name", "prometheus-node-exporter");
        kv_addf(&p->labels, "app.kubernetes.io/part-of", "prometheus-node-exporter");
        kv_addf(&p->labels, "app.kubernetes.io/version", "1.7.0");
        kv_addf(&p->labels, "helm.sh/chart", "prometheus-node-exporter-4.24.0");
        kv_addf(&p->labels, "jobLabel", "node-exporter");
        kv_addf(&p->labels, "release", "kube-prometheus-stack");
        kv_addf(&p->annots, "cluster-autoscaler.kubernetes.io/safe-to-evict", "true");
    }
    kv_addf(&p->labels, "pod-template-generation", "%u", kind == 0 ? 3 : 7);
    p->pc_name = kind == 0 ? "system-node-critical" : kClasses[PC_PLATFORM].name;
    p->priority = kind == 0 ? 2000001000 : kClasses[PC_PLATFORM].value;
    p->qos = "Burstable";
    p->tol = 2;
    p->affinity = 3;
    ctr_t *c = &p->c[0];
    p->n_c = 1;
    c->name = app;
    if (kind == 0) {
        set_image(c->image, sizeof c->image, &c->image_seed,
                  "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/"
                  "kube-proxy:v1.29.0-minimal-eksbuild.1");
        c->n_cmd = 3;
        c->cmd[0] = "kube-proxy";
        c->cmd[1] = "--v=2";
        c->cmd[2] = "--config=/var/lib/kube-proxy-config/config";
        c->cpu_req = "100m";
        c->privileged = true;
        c->field_env = true;
        add_mount(c, "varlog", "/var/log", false);
        add_mount(c, "xtables-lock", "/run/xtables.lock", false);
        add_mount(c, "lib-modules", "/lib/modules", true);
        add_sa_mount(p, c);
    } else {
        set_image(c->image, sizeof c->image, &c->image_seed,
                  "quay.io/prometheus/node-exporter:v1.7.0");
        c->cpu_req = "50m";
        c->mem_req = "64Mi";
        c->cpu_lim = "250m";
        c->mem_lim = "180Mi";
        c->n_ports = 1;
        c->port[0] = 9100;
        c->host_port[0] = 9100;
        c->port_name[0] = "http-metrics";
        c->probe = 9100;
        c->liveness = true;
        c->n_env = 1;
        add_sa_mount(p, c);
    }
    node_t *n = &g->nodes[node];
    n->pods++;
    n->used_cpu += kind == 0 ? 100 : 50;
    n->used_mem += kind == 0 ? 0 : (uint64_t)64 << 20;
    p->ip_host = n->pods;
}

/* ------------------------------------------------------------------ PDBs and PriorityClasses */

static void emit_pdb(gen_t *g, const workload_t *wl, uint32_t serial) {
    jw_t *w = g->w;
    rng_t *r = &g->r;
    char name[96], uid[37];
    if (serial) snprintf(name, sizeof name, "%s-pdb-%u", wl->name, serial + 1);
    else snprintf(name, sizeof name, "%s-pdb", wl->name);
    rand_uid(r, uid);
    const char *team = kTeams[wl->team];
    int64_t created = NOW - 40 * 86400 - (int64_t)rng_below(r, 40 * 86400);
    uint32_t style = rng_below(
        r, 4); /* 0 minAvailable n, 1 minAvailable %, 2 maxUnavailable n, 3 maxUnavailable % */
    uint32_t expected = wl->replicas, desired;
    char val[16];
    switch (style) {
    case 0:
        desired = expected > 1 ? expected - 1 : 1;
        snprintf(val, sizeof val, "%u", desired);
        break;
    case 1:
        desired = (expected + 1) / 2;
        snprintf(val, sizeof val, "50%%");
        break;
    case 2:
        desired = expected - 1;
        snprintf(val, sizeof val, "1");
        break;
    default:
        desired = expected - (expected + 3) / 4;
        snprintf(val, sizeof val, "25%%");
        break;
    }
    uint32_t healthy = wl->healthy;
    int32_t allowed = healthy > desired ? (int32_t)(healthy - desired) : 0;
    bool exprs = rng_pct(r, 25);

    obj(w, NULL);
    jstr(w, "apiVersion", "policy/v1");
    jstr(w, "kind", "PodDisruptionBudget");
    obj(w, "metadata");
    obj(w, "annotations");
    jstrf(w, "meta.helm.sh/release-name", "%s-prod", wl->name);
    jstr(w, "meta.helm.sh/release-namespace", team);
    end(w);
    jtime(w, "creationTimestamp", created);
    jint(w, "generation", 1);
    obj(w, "labels");
    jstr(w, "app", wl->name);
    jstr(w, "app.kubernetes.io/managed-by", "Helm");
    jstr(w, "team", team);
    end(w);
    arr(w, "managedFields");
    mf_begin(w, "policy/v1");
    obj(w, "f:metadata");
    obj(w, "f:annotations");
    fes(w, ".", "f:meta.helm.sh/release-name", "f:meta.helm.sh/release-namespace",
        (const char *)NULL);
    end(w);
    obj(w, "f:labels");
    fes(w, ".", "f:app", "f:app.kubernetes.io/managed-by", "f:team", (const char *)NULL);
    end(w);
    end(w);
    obj(w, "f:spec");
    fe(w, style < 2 ? "f:minAvailable" : "f:maxUnavailable");
    fe(w, "f:selector");
    end(w);
    mf_end(w, "helm", NULL, created);
    mf_begin(w, "policy/v1");
    obj(w, "f:status");
    obj(w, "f:conditions");
    fe(w, ".");
    mf_condition(w, "DisruptionAllowed");
    end(w);
    fes(w, "f:currentHealthy", "f:desiredHealthy", "f:disruptionsAllowed", "f:expectedPods",
        "f:observedGeneration", (const char *)NULL);
    end(w);
    mf_end(w, "kube-controller-manager", "status", NOW - 60);
    end(w);
    jstr(w, "name", name);
    jstr(w, "namespace", team);
    jstrf(w, "resourceVersion", "%" PRIu64, g->rv += 1 + rng_below(r, 40));
    jstr(w, "uid", uid);
    end(w);

    obj(w, "spec");
    if (style >= 2) {
        if (style == 2) jint(w, "maxUnavailable", 1);
        else jstr(w, "maxUnavailable", val);
    }
    if (style < 2) {
        if (style == 0) jint(w, "minAvailable", desired);
        else jstr(w, "minAvailable", val);
    }
    obj(w, "selector");
    if (exprs) {
        arr(w, "matchExpressions");
        obj(w, NULL);
        jstr(w, "key", "tier");
        jstr(w, "operator", "In");
        arr(w, "values");
        jstr(w, NULL, kTiers[wl->tier]);
        end(w);
        end(w);
        obj(w, NULL);
        jstr(w, "key", "canary");
        jstr(w, "operator", "DoesNotExist");
        end(w);
        end(w);
    }
    obj(w, "matchLabels");
    jstr(w, "app", wl->name);
    end(w);
    end(w);
    end(w);

    obj(w, "status");
    arr(w, "conditions");
    obj(w, NULL);
    jtime(w, "lastTransitionTime", NOW - 3600 - (int64_t)rng_below(r, 86400));
    jstr(w, "message", "");
    jint(w, "observedGeneration", 1);
    jstr(w, "reason", allowed > 0 ? "SufficientPods" : "InsufficientPods");
    jstr(w, "status", allowed > 0 ? "True" : "False");
    jstr(w, "type", "DisruptionAllowed");
    end(w);
    end(w);
    jint(w, "currentHealthy", healthy);
    jint(w, "desiredHealthy", desired);
    jint(w, "disruptionsAllowed", allowed);
    jint(w, "expectedPods", expected);
    jint(w, "observedGeneration", 1);
    end(w);
    end(w);
}

static void emit_class(gen_t *g, const char *name, int32_t value, bool global_default, bool never,
                       const char *desc, bool builtin) {
    jw_t *w = g->w;
    char uid[37];
    rand_uid(&g->r, uid);
    int64_t created = NOW - 200 * 86400 + (builtin ? 0 : 3600);
    obj(w, NULL);
    jstr(w, "apiVersion", "scheduling.k8s.io/v1");
    jstr(w, "description", desc);
    if (global_default) jbool(w, "globalDefault", true);
    jstr(w, "kind", "PriorityClass");
    obj(w, "metadata");
    if (!builtin) {
        obj(w, "annotations");
        jstr(w, "meta.helm.sh/release-name", "platform-priorities");
        jstr(w, "meta.helm.sh/release-namespace", "kube-system");
        end(w);
    }
    jtime(w, "creationTimestamp", created);
    jint(w, "generation", 1);
    if (!builtin) {
        obj(w, "labels");
        jstr(w, "app.kubernetes.io/managed-by", "Helm");
        end(w);
    }
    arr(w, "managedFields");
    mf_begin(w, "scheduling.k8s.io/v1");
    fe(w, "f:description");
    if (global_default) fe(w, "f:globalDefault");
    if (!builtin) {
        obj(w, "f:metadata");
        obj(w, "f:annotations");
        fes(w, ".", "f:meta.helm.sh/release-name", "f:meta.helm.sh/release-namespace",
            (const char *)NULL);
        end(w);
        obj(w, "f:labels");
        fes(w, ".", "f:app.kubernetes.io/managed-by", (const char *)NULL);
        end(w);
        end(w);
    }
    fes(w, "f:preemptionPolicy", "f:value", (const char *)NULL);
    mf_end(w, builtin ? "kube-apiserver" : "helm", NULL, created);
    end(w);
    jstr(w, "name", name);
    jstrf(w, "resourceVersion", "%" PRIu64, (uint64_t)(70 + value % 1000));
    jstr(w, "uid", uid);
    end(w);
    jstr(w, "preemptionPolicy", never ? "Never" : "PreemptLowerPriority");
    jint(w, "value", value);
    end(w);
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: gen_snapshot --nodes N --pods P [--pending K] [--pdbs B] [--seed S]\n"
        "                    [--managed-fields compact|full] [-o FILE]\n"
        "Writes a kubectl-style JSON List (nodes, pods, PDBs, PriorityClasses), ~15 KB per pod.\n"
        "Defaults: --pending P/100, --pdbs P/30, --seed 1, --managed-fields compact, stdout.\n");
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (!s || !*s || *s == '-') return false;
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (*e || errno || v > max) return false;
    *out = v;
    return true;
}

int main(int argc, char **argv) {
    uint64_t nodes = 0, pods = 0, pending = UINT64_MAX, pdbs = UINT64_MAX, seed = 1;
    const char *out = NULL;
    bool have_nodes = false, have_pods = false;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--nodes") == 0) {
            ok = parse_u64(v, 1000000, &nodes) && nodes > 0;
            have_nodes = true;
        } else if (strcmp(a, "--pods") == 0) {
            ok = parse_u64(v, 50000000, &pods);
            have_pods = true;
        } else if (strcmp(a, "--pending") == 0) {
            ok = parse_u64(v, 50000000, &pending);
        } else if (strcmp(a, "--pdbs") == 0) {
            ok = parse_u64(v, 50000000, &pdbs);
        } else if (strcmp(a, "--seed") == 0) {
            ok = parse_u64(v, UINT64_MAX, &seed);
        } else if (strcmp(a, "--managed-fields") == 0) {
            ok = v && (strcmp(v, "full") == 0 || strcmp(v, "compact") == 0);
            g_mf_full = ok && strcmp(v, "full") == 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            ok = v != NULL;
            out = v;
        } else {
            fprintf(stderr, "gen_snapshot: unknown argument \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "gen_snapshot: %s: invalid or missing value\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!have_nodes || !have_pods) {
        usage(stderr);
        return 2;
    }

    gen_t *g = calloc(1, sizeof *g);
    jw_t w = {0};
    w.buf = malloc(OUT_CAP);
    g->nodes = calloc((size_t)nodes, sizeof *g->nodes);
    if (!g || !w.buf || !g->nodes) {
        fprintf(stderr, "gen_snapshot: out of memory\n");
        return 1;
    }
    w.f = out ? fopen(out, "wb") : stdout;
    if (!w.f) {
        fprintf(stderr, "gen_snapshot: %s: %s\n", out, strerror(errno));
        return 1;
    }
    memset(g_spaces, ' ', sizeof g_spaces);
    g->w = &w;
    g->n_nodes = (uint32_t)nodes;
    g->rv = 180000000;
    rng_seed(&g->r, seed);
    rng_t *r = &g->r;

    /* images every node may have pulled */
    for (uint32_t t = 0; t < N_TEAMS; t++) {
        for (uint32_t b = 0; b < N_BASES && g->n_images < 380; b += 2) {
            uint32_t minor = rng_below(r, 40),
                     patch = rng_below(r, 20); /* fixed evaluation order */
            snprintf(g->image_pool[g->n_images++], sizeof g->image_pool[0],
                     "123456789012.dkr.ecr.us-east-1.amazonaws.com/%s/%s:1.%u.%u", kTeams[t],
                     kBases[b], minor, patch);
        }
    }
    static const char *const common_images[] = {
        "docker.io/envoyproxy/envoy:v1.29.2",
        "cr.fluentbit.io/fluent/fluent-bit:2.2.2",
        "quay.io/prometheus/node-exporter:v1.7.0",
        "docker.io/library/busybox:1.36.1",
        "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.29.0-minimal-eksbuild.1",
        "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.16.0-eksbuild.1",
        "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5",
        "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.26.1"};
    for (size_t i = 0; i < sizeof common_images / sizeof common_images[0]; i++)
        snprintf(g->image_pool[g->n_images++], sizeof g->image_pool[0], "%s", common_images[i]);

    /* nodes */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        node_t *n = &g->nodes[i];
        uint32_t x = rng_below(r, 100), acc = 0;
        n->type = 0;
        for (uint32_t t = 0; t < sizeof kNodeTypes / sizeof kNodeTypes[0]; t++) {
            acc += kNodeTypes[t].weight;
            if (x < acc) {
                n->type = (uint8_t)t;
                break;
            }
        }
        n->zone = (uint8_t)(i % 3);
        n->tainted = rng_pct(r, 4);
        n->cordoned = !n->tainted && rng_below(r, 1000) < 5;
        const node_type_t *nt = &kNodeTypes[n->type];
        n->alloc_cpu = nt->cores * 1000 - (nt->cores >= 16 ? 110 : 90);
        n->alloc_mem =
            ((uint64_t)nt->mem_gib * 1048576 - 2200000 - (255 + 11 * nt->max_pods + 100) * 1024) *
            1024;
    }

    /* pods: DaemonSet pods first (one or two per node when the budget allows), then workloads */
    uint32_t per_node = pods >= 3 * nodes ? 2 : pods >= 2 * nodes ? 1 : 0;
    uint64_t ds_pods = (uint64_t)per_node * nodes;
    uint64_t wl_pods = pods - ds_pods;
    if (pending == UINT64_MAX) pending = pods / 100;
    if (pending > wl_pods) pending = wl_pods;
    if (pdbs == UINT64_MAX) pdbs = pods / 30;
    make_workloads(g, (uint32_t)wl_pods);

    put(&w, "{\n", 2);
    w.depth = 1;
    w.first[1] = true;
    jstr(&w, "apiVersion", "v1");
    arr(&w, "items");
    for (uint32_t i = 0; i < g->n_nodes; i++) emit_node(g, i);

    pod_t *p = malloc(sizeof *p);
    if (!p) return 1;
    for (int kind = 0; kind < (int)per_node; kind++) {
        char ds_uid[37], rev[16];
        rand_uid(r, ds_uid);
        rand_suffix(r, rev, 9);
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            daemon_pod(g, kind, i, ds_uid, rev, p);
            emit_pod(g, p);
        }
    }
    uint64_t seen = 0, chosen = 0;
    for (uint32_t k = 0; k < g->n_wl; k++) {
        workload_t *wl = &g->wl[k];
        for (uint32_t j = 0; j < wl->replicas; j++, seen++) {
            /* selection sampling: exactly `pending` pods stay unscheduled, spread evenly */
            bool pend = (uint64_t)rng_below(r, (uint32_t)(wl_pods - seen)) < pending - chosen;
            int32_t node = -1;
            if (pend) chosen++;
            else {
                node = place(g, wl);
                wl->healthy++;
            }
            workload_pod(g, wl, j, node, p);
            emit_pod(g, p);
        }
    }
    free(p);

    /* PDBs over workloads with 2+ replicas (all workloads if there are none) */
    uint32_t n_cand = 0;
    for (uint32_t k = 0; k < g->n_wl; k++) n_cand += g->wl[k].replicas >= 2;
    bool all = n_cand == 0;
    if (all) n_cand = g->n_wl;
    uint32_t *cand = malloc((n_cand ? n_cand : 1) * sizeof *cand);
    if (!cand) return 1;
    n_cand = 0;
    for (uint32_t k = 0; k < g->n_wl; k++)
        if (all || g->wl[k].replicas >= 2) cand[n_cand++] = k;
    for (uint64_t j = 0; j < pdbs && n_cand; j++)
        emit_pdb(g, &g->wl[cand[j % n_cand]], (uint32_t)(j / n_cand));
    free(cand);

    emit_class(g, "system-cluster-critical", 2000000000, false, false,
               "Used for system critical pods that must run in the cluster, but can be moved to "
               "another node if "
               "necessary.",
               true);
    emit_class(g, "system-node-critical", 2000001000, false, false,
               "Used for system critical pods that must not be moved from their current node.",
               true);
    for (size_t i = 0; i < N_CLASSES; i++)
        emit_class(g, kClasses[i].name, kClasses[i].value, kClasses[i].global_default,
                   kClasses[i].never, kClasses[i].desc, false);
    end(&w); /* items */
    jstr(&w, "kind", "List");
    obj(&w, "metadata");
    jstr(&w, "resourceVersion", "");
    end(&w);
    put(&w, "\n}\n", 3);
    jw_flush(&w);
    bool bad = w.failed;
    if (out) bad |= fclose(w.f) != 0;
    else bad |= fflush(stdout) != 0;
    if (bad) {
        fprintf(stderr, "gen_snapshot: write error: %s\n", strerror(errno));
        return 1;
    }
    fprintf(stderr,
            "gen_snapshot: %" PRIu64 " bytes (%.1f MB): %" PRIu64 " nodes, %" PRIu64
            " pods (%" PRIu64 " pending, %" PRIu64 " DaemonSet), %u workloads, %" PRIu64
            " PDBs, %zu PriorityClasses; %.0f bytes/pod\n",
            w.total, (double)w.total / 1e6, nodes, pods, pending, ds_pods, g->n_wl,
            n_cand ? pdbs : 0, N_CLASSES + 2, pods ? (double)w.total / (double)pods : 0.0);
    free(g->wl);
    free(g->nodes);
    free(w.buf);
    free(g);
    return 0;
}
