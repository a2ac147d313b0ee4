/* Generated names of expanded pods (workload_expand.h): generateName's shape with a hash instead
 * of a random source, and the stand-in of a new ReplicaSet's pod-template-hash. */
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "core/workload.h"
#include "core/workload_expand.h"
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

/* The pod-template-hash stand-in of a Deployment's ReplicaSet: fnv-1a 32 of "ns/name" in
 * decimal, each digit mapped into the alphabet as rand.SafeEncodeString does. */
void kp__workload_template_hash(const kp_cluster *cl, const kp_workload *w, char out[16]) {
    uint32_t h = 2166136261u;
    char key[600];
    snprintf(key, sizeof key, "%s/%s", kp__s(cl, w->ns), kp__s(cl, w->name));
    for (const char *s = key; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    char dec[16];
    snprintf(dec, sizeof dec, "%u", h);
    size_t i = 0;
    for (; dec[i]; i++) out[i] = KP_NAME_ALPHABET[(unsigned char)dec[i] % 27];
    out[i] = 0;
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

void kp__workload_generate_name(const kp_cluster *cl, kp_str ns, const char *base, uint64_t seq,
                                char *out, size_t cap) {
    generate_name(cl, kp__s(cl, ns), base, seq, out, cap);
}

void kp_cluster_generate_pod_name(const kp_cluster *cl, const char *ns, const char *base,
                                  uint64_t seq, char *buf, size_t cap) {
    generate_name(cl, ns, base, seq, buf, cap);
}
