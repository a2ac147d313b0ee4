/* Feature gates: the table of the gates kprio mirrors with their per-release specs
 * (pkg/features/kube_features.go VersionedSpecs, docs/compat.md "Feature gates"), the release
 * line a set of gates follows (--compat) and the flag syntax of component-base's featuregate. */
#include <string.h>

#include "core/cluster.h"
#include "core/compat.h"
#include "core/feature_gates_known.h"

/* One VersionedSpecs entry: from release 1.minor on, the default and whether it is locked. */
typedef struct {
    uint16_t minor;
    bool def;
    bool locked; /* LockToDefault */
} gate_spec;

#define MAX_SPECS 3

/* Each gate's featuregate.VersionedSpecs, oldest first (pkg/features/kube_features.go, the
 * kube-scheduler feature list with the 1.37 entries, and PR #137150 for the QOS-class fix; see
 * docs/compat.md "Feature gates"). Before its first entry a line does not have the gate. */
static const struct {
    const char *name;
    uint8_t n;
    gate_spec spec[MAX_SPECS];
} GATES[KP_GATE_COUNT] = {
    /* GA (on) since 1.0, deprecated and off 1.32, locked 1.35 */
    [KP_GATE_ALLOW_OVERWRITE_TERMINATION_GRACE_PERIOD_SECONDS] =
        {"AllowOverwriteTerminationGracePeriodSeconds",
         3,
         {{0, true, false}, {32, false, false}, {35, false, true}}},
    /* alpha 1.32, beta (on) 1.34, GA and locked 1.36 */
    [KP_GATE_DRA_ADMIN_ACCESS] = {"DRAAdminAccess",
                                  3,
                                  {{32, false, false}, {34, true, false}, {36, true, true}}},
    /* alpha 1.34, beta (on) 1.36 */
    [KP_GATE_DRA_CONSUMABLE_CAPACITY] = {"DRAConsumableCapacity",
                                         2,
                                         {{34, false, false}, {36, true, false}}},
    /* alpha 1.33, beta (on) 1.36 */
    [KP_GATE_DRA_PARTITIONABLE_DEVICES] = {"DRAPartitionableDevices",
                                           2,
                                           {{33, false, false}, {36, true, false}}},
    /* alpha 1.34, beta (on) 1.36 (with DRAResourceClaimDeviceStatus, locked on at 1.37) */
    [KP_GATE_DRA_DEVICE_BINDING_CONDITIONS] = {"DRADeviceBindingConditions",
                                               2,
                                               {{34, false, false}, {36, true, false}}},
    /* alpha 1.33, beta (on) 1.36, GA (on, not locked) 1.37 */
    [KP_GATE_DRA_DEVICE_TAINTS] = {"DRADeviceTaints", 2, {{33, false, false}, {36, true, false}}},
    /* alpha 1.34, beta (on) 1.36, GA and locked 1.37 */
    [KP_GATE_DRA_EXTENDED_RESOURCE] = {"DRAExtendedResource",
                                       3,
                                       {{34, false, false}, {36, true, false}, {37, true, true}}},
    /* alpha 1.33, beta (on) 1.34, GA 1.36, locked 1.37 */
    [KP_GATE_DRA_PRIORITIZED_LIST] = {"DRAPrioritizedList",
                                      3,
                                      {{33, false, false}, {34, true, false}, {37, true, true}}},
    /* alpha 1.26, beta (off) 1.32, GA (on) 1.34, locked 1.35 */
    [KP_GATE_DYNAMIC_RESOURCE_ALLOCATION] =
        {"DynamicResourceAllocation", 3, {{26, false, false}, {34, true, false}, {35, true, true}}},
    /* alpha 1.35, beta (on) 1.36 */
    [KP_GATE_IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING] =
        {"InPlacePodLevelResourcesVerticalScaling", 2, {{35, false, false}, {36, true, false}}},
    /* alpha 1.27, beta (on) 1.33, GA and locked 1.35 */
    [KP_GATE_IN_PLACE_POD_VERTICAL_SCALING] =
        {"InPlacePodVerticalScaling", 3, {{27, false, false}, {33, true, false}, {35, true, true}}},
    /* alpha 1.32, beta (on) 1.34 */
    [KP_GATE_POD_LEVEL_RESOURCES] = {"PodLevelResources",
                                     2,
                                     {{32, false, false}, {34, true, false}}},
    /* beta (on) 1.37 */
    [KP_GATE_POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS] = {"PodLevelResourcesFixKubeletQOSClass",
                                                           1,
                                                           {{37, true, false}}},
    /* alpha 1.32, beta (on) 1.33 */
    [KP_GATE_SCHEDULER_ASYNC_PREEMPTION] = {"SchedulerAsyncPreemption",
                                            2,
                                            {{32, false, false}, {33, true, false}}},
    /* beta (on) 1.33 */
    [KP_GATE_SCHEDULER_POP_FROM_BACKOFF_Q] = {"SchedulerPopFromBackoffQ", 1, {{33, true, false}}},
    /* beta (off) 1.28, beta (on) 1.32, GA and locked 1.34 */
    [KP_GATE_SCHEDULER_QUEUEING_HINTS] =
        {"SchedulerQueueingHints", 3, {{28, false, false}, {32, true, false}, {34, true, true}}},
};

/* The spec in force at line (NULL: the line does not have the gate). */
static const gate_spec *spec_at(int gate, uint16_t line) {
    const gate_spec *at = NULL;
    for (int k = 0; k < GATES[gate].n; k++)
        if (GATES[gate].spec[k].minor <= line) at = &GATES[gate].spec[k];
    return at;
}

static void init_line(kp_feature_gates *g, uint16_t line) {
    g->line = line;
    for (int i = 0; i < KP_GATE_COUNT; i++) {
        const gate_spec *sp = spec_at(i, line);
        g->on[i] = sp && sp->def;
        g->set[i] = false;
    }
}

void kp_feature_gates_init(kp_feature_gates *g) { init_line(g, KP_COMPAT_NEWEST); }

kp_status kp_feature_gates_init_compat(kp_feature_gates *g, const char *version, kp_error *err) {
    uint16_t line = KP_COMPAT_NEWEST;
    if (version && *version && !kp__compat_parse(version, &line))
        return kp_error_set(err, KP_EINVAL,
                            "--compat: \"%s\" is not a Kubernetes version (expected e.g. 1.35)",
                            version);
    init_line(g, line);
    return KP_OK;
}

const char *kp_gate_name(kp_gate gate) {
    return (unsigned)gate < KP_GATE_COUNT ? GATES[gate].name : "";
}

bool kp_gate_default(kp_gate gate) {
    if ((unsigned)gate >= KP_GATE_COUNT) return false;
    const gate_spec *sp = spec_at(gate, KP_COMPAT_NEWEST);
    return sp && sp->def;
}

bool kp_feature_gates_default(const kp_feature_gates *g, kp_gate gate) {
    if ((unsigned)gate >= KP_GATE_COUNT) return false;
    const gate_spec *sp = spec_at(gate, g->line);
    return sp && sp->def;
}

static int gate_index(const char *name, size_t len) {
    for (int i = 0; i < KP_GATE_COUNT; i++)
        if (strlen(GATES[i].name) == len && memcmp(GATES[i].name, name, len) == 0) return i;
    return -1;
}

/* mirrors featuregate's unsafeSetFromMap (component-base/featuregate/feature_gate.go): unknown
 * names and locked gates set to the other value are errors; the gates kprio does not model are
 * checked against the names the 1.37 binaries register (feature_gates_known.c). The modelled
 * gates follow g's line: a gate the line does not have is unrecognized, locks are the line's. */
kp_status kp_feature_gates_set(kp_feature_gates *g, const char *name, size_t len, bool value,
                               kp_error *err) {
    int i = gate_index(name, len);
    const gate_spec *sp = i >= 0 ? spec_at(i, g->line) : NULL;
    if (i >= 0 && !sp) /* a modelled gate g's line does not have yet */
        return kp_error_set(err, KP_EINVAL, "unrecognized feature gate: %.*s", (int)len, name);
    if (sp) {
        if (sp->locked && value != sp->def)
            return kp_error_set(
                err, KP_EINVAL, "cannot set feature gate %s to %s, feature is locked to %s",
                GATES[i].name, value ? "true" : "false", sp->def ? "true" : "false");
        g->on[i] = value;
        g->set[i] = true;
        return KP_OK;
    }
    /* a gate upstream registers but kprio does not model: accepted, changes nothing */
    kp__gate_lock lock = kp__gate_known(name, len, g->line);
    if (lock == KP__GATE_UNKNOWN)
        return kp_error_set(err, KP_EINVAL, "unrecognized feature gate: %.*s", (int)len, name);
    bool locked_to = lock == KP__GATE_LOCKED_ON;
    if (lock != KP__GATE_FREE && value != locked_to)
        return kp_error_set(err, KP_EINVAL,
                            "cannot set feature gate %.*s to %s, feature is locked to %s", (int)len,
                            name, value ? "true" : "false", locked_to ? "true" : "false");
    return KP_OK;
}

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **b, const char **e) {
    while (*b < *e && is_space(**b)) (*b)++;
    while (*e > *b && is_space((*e)[-1])) (*e)--;
}

/* mirrors strconv.ParseBool */
static bool parse_bool(const char *v, size_t n, bool *out) {
    static const char *yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (int i = 0; i < 6; i++) {
        if (strlen(yes[i]) == n && memcmp(yes[i], v, n) == 0) return *out = true, true;
        if (strlen(no[i]) == n && memcmp(no[i], v, n) == 0) return *out = false, true;
    }
    return false;
}

/* One pass of featuregate.Set (kubelet: cliflag.MapStringBool.Set, whose texts differ) over
 * text; apply = false only checks the values. */
static kp_status parse_pass(kp_feature_gates *g, const char *text, bool apply, bool kubelet,
                            kp_error *err) {
    const char *s = text;
    for (;;) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        if (end > s) {
            const char *eq = memchr(s, '=', (size_t)(end - s));
            const char *kb = s, *ke = eq ? eq : end;
            trim(&kb, &ke);
            if (!eq && kubelet)
                return kp_error_set(err, KP_EINVAL, "malformed pair, expect string=bool");
            if (!eq)
                return kp_error_set(err, KP_EINVAL, "missing bool value for %.*s", (int)(ke - kb),
                                    kb);
            const char *vb = eq + 1, *ve = end;
            trim(&vb, &ve);
            bool v = false;
            if (!parse_bool(vb, (size_t)(ve - vb), &v) && kubelet)
                return kp_error_set(err, KP_EINVAL,
                                    "invalid value of %.*s: %.*s, err: strconv.ParseBool: parsing "
                                    "\"%.*s\": invalid syntax",
                                    (int)(ke - kb), kb, (int)(ve - vb), vb, (int)(ve - vb), vb);
            if (!parse_bool(vb, (size_t)(ve - vb), &v))
                return kp_error_set(err, KP_EINVAL,
                                    "invalid value of %.*s=%.*s, err: strconv.ParseBool: parsing "
                                    "\"%.*s\": invalid syntax",
                                    (int)(ke - kb), kb, (int)(ve - vb), vb, (int)(ve - vb), vb);
            kp_status st;
            if (apply && (st = kp_feature_gates_set(g, kb, (size_t)(ke - kb), v, err)) != KP_OK)
                return st;
        }
        if (!*end) return KP_OK;
        s = end + 1;
    }
}

static kp_status parse_both(kp_feature_gates *g, const char *text, bool kubelet, kp_error *err) {
    kp_feature_gates tmp = *g;
    kp_status st = parse_pass(&tmp, text, false, kubelet, err);
    if (st == KP_OK) st = parse_pass(&tmp, text, true, kubelet, err);
    if (st == KP_OK) *g = tmp;
    return st;
}

/* mirrors featuregate.Set: every pair parsed first, then SetFromMap */
kp_status kp_feature_gates_parse(kp_feature_gates *g, const char *text, kp_error *err) {
    return parse_both(g, text, false, err);
}

/* mirrors cliflag.MapStringBool.Set (the kubelet's --feature-gates), then SetFromMap */
kp_status kp_feature_gates_parse_kubelet(kp_feature_gates *g, const char *text, kp_error *err) {
    return parse_both(g, text, true, err);
}

kp_status kp_cluster_set_feature_gates(kp_cluster *cl, const kp_feature_gates *g) {
    if (cl->finalized) return KP_EINVAL;
    cl->gates = *g;
    return KP_OK;
}

const kp_feature_gates *kp_cluster_feature_gates(const kp_cluster *cl) { return &cl->gates; }
