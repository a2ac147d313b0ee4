/* kprio admit: would the kubelet of NODE admit the pod in --pod, and which pods would it preempt
 * for a critical one? (pkg/kubelet/lifecycle predicates + pkg/kubelet/preemption)
 *
 * The --pod manifest is loaded into the same cluster as the -f snapshot before finalize, so its
 * priorityClassName resolves against the snapshot's PriorityClasses. It is identified as the pod
 * that file contributed; it is never counted among the node's pods. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/model.h"
#include "kprio/admission.h"

static const char *const USAGE =
    "kprio admit -f FILE... --node NODE --pod FILE [--node-condition TYPE=True|False]...\n"
    "            [-o table|json|yaml] [-R]\n"
    "\n"
    "Decides whether the kubelet of NODE admits the pod in --pod against the pods bound to\n"
    "NODE in the snapshot, as upstream does: node-pressure admission (eviction manager), the\n"
    "general predicates (resources incl. pods and extended resources, node affinity/selector,\n"
    "node name, host ports, NoExecute taints, OS), and for a critical pod (static, mirror, or\n"
    "priority >= 2000000000) failing only for resources, critical-pod preemption.\n"
    "\n"
    "  -f, --filename FILE      snapshot file or directory (repeatable); '-' reads stdin\n"
    "  -R, --recursive          descend into directories given with -f\n"
    "      --node NODE          the node whose kubelet admits the pod\n"
    "      --pod FILE           manifest holding exactly one Pod (not part of the snapshot)\n"
    "      --node-condition C   override a node condition: MemoryPressure, DiskPressure or\n"
    "                           PIDPressure = True|False (repeatable; default: node status)\n"
    "  -o, --output FORMAT      table (default), json or yaml\n"
    "\n"
    "Exit status: 0 answered (admitted or not), 1 bad input, 2 usage error.\n";

static const struct {
    const char *name;
    unsigned bit;
} CONDS[] = {{"MemoryPressure", KP_NODE_COND_MEMORY_PRESSURE},
             {"DiskPressure", KP_NODE_COND_DISK_PRESSURE},
             {"PIDPressure", KP_NODE_COND_PID_PRESSURE}};

/* Parses "TYPE=True|False"; returns false on bad syntax. */
static bool parse_condition(const char *s, unsigned *bit, bool *value) {
    const char *eq = strchr(s, '=');
    if (!eq) return false;
    size_t n = (size_t)(eq - s);
    *bit = 0;
    for (size_t i = 0; i < sizeof CONDS / sizeof CONDS[0]; i++)
        if (strlen(CONDS[i].name) == n && strncmp(s, CONDS[i].name, n) == 0) *bit = CONDS[i].bit;
    if (!*bit) return false;
    if (strcmp(eq + 1, "True") == 0) *value = true;
    else if (strcmp(eq + 1, "False") == 0) *value = false;
    else return false;
    return true;
}

static const char *qos_name(kp_admit_qos q) {
    switch (q) {
    case KP_ADMIT_QOS_BESTEFFORT: return "BestEffort";
    case KP_ADMIT_QOS_BURSTABLE: return "Burstable";
    case KP_ADMIT_QOS_GUARANTEED: return "Guaranteed";
    }
    return "BestEffort";
}

static void print_warnings(const kp_cluster *cl) {
    for (size_t i = 0; i < kp_cluster_warning_count(cl); i++)
        fprintf(stderr, "kprio: warning: %s\n", kp_cluster_warning(cl, i));
}

static void emit_structured(FILE *f, kp_outfmt fmt, const kp_cluster *cl, size_t node, size_t pod,
                            unsigned conds, const kp_admission *a) {
    char ref[512];
    kp_emit *e = kp_emit_new(f, fmt);
    if (!e) return;
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "apiVersion", "kprio/v1alpha1");
    kp_emit_kv_str(e, "kind", "AdmissionResult");
    kp_emit_kv_str(e, "pod", kp__pod_ref(cl, &cl->pods[pod], ref, sizeof ref));
    kp_emit_kv_str(e, "node", kp__s(cl, cl->nodes[node].name));
    kp_emit_kv_bool(e, "critical", kp_admission_critical(a));
    kp_emit_kv_bool(e, "admitted", kp_admission_admitted(a));
    kp_emit_key(e, "reasons");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_admission_reason_count(a); i++) {
        const kp_admit_reason *r = kp_admission_reason_at(a, i);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "reason", r->reason);
        kp_emit_kv_str(e, "message", r->message);
        if (r->insufficient) {
            kp_emit_kv_str(e, "resource", r->resource);
            kp_emit_kv_int(e, "requested", r->requested);
            kp_emit_kv_int(e, "used", r->used);
            kp_emit_kv_int(e, "capacity", r->capacity);
        }
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "victims");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
        const kp_admit_victim *v = kp_admission_victim_at(a, i);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "pod", kp__pod_ref(cl, &cl->pods[v->pod], ref, sizeof ref));
        kp_emit_kv_str(e, "qosClass", qos_name(v->qos));
        kp_emit_kv_int(e, "priority", v->priority);
        kp_emit_key(e, "status");
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "phase", KP_ADMIT_VICTIM_PHASE);
        kp_emit_kv_str(e, "reason", KP_ADMIT_VICTIM_REASON);
        kp_emit_kv_str(e, "message", KP_ADMIT_VICTIM_MESSAGE);
        kp_emit_key(e, "conditions");
        kp_emit_arr_begin(e);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "type", KP_ADMIT_VICTIM_CONDITION_TYPE);
        kp_emit_kv_str(e, "status", "True");
        kp_emit_kv_str(e, "reason", KP_ADMIT_VICTIM_CONDITION_REASON);
        kp_emit_kv_str(e, "message", KP_ADMIT_VICTIM_CONDITION_MESSAGE);
        kp_emit_obj_end(e);
        kp_emit_arr_end(e);
        kp_emit_obj_end(e);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_kv_str(e, "message", kp_admission_message(a));
    kp_emit_kv_str(e, "reason", kp_admission_reason(a));
    kp_emit_key(e, "insufficient");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < kp_admission_requirement_count(a); i++) {
        const kp_admit_requirement *r = kp_admission_requirement_at(a, i);
        kp_emit_obj_begin(e);
        kp_emit_kv_str(e, "resource", r->resource);
        kp_emit_kv_int(e, "quantity", r->quantity);
        kp_emit_obj_end(e);
    }
    kp_emit_arr_end(e);
    kp_emit_key(e, "nodeConditions");
    kp_emit_arr_begin(e);
    for (size_t i = 0; i < sizeof CONDS / sizeof CONDS[0]; i++)
        if (conds & CONDS[i].bit) kp_emit_str(e, CONDS[i].name);
    kp_emit_arr_end(e);
    kp_emit_obj_end(e);
    kp_emit_free(e);
}

static void print_table(FILE *f, const kp_cluster *cl, size_t node, size_t pod, const kp_admission *a) {
    char ref[512];
    kp_table *t = kp_table_new(5);
    if (!t) return;
    kp_table_add(t, "POD");
    kp_table_add(t, "NODE");
    kp_table_add(t, "CRITICAL");
    kp_table_add(t, "ADMITTED");
    kp_table_add(t, "REASON");
    kp_table_add(t, kp__pod_ref(cl, &cl->pods[pod], ref, sizeof ref));
    kp_table_add(t, kp__s(cl, cl->nodes[node].name));
    kp_table_add(t, kp_admission_critical(a) ? "true" : "false");
    kp_table_add(t, kp_admission_admitted(a) ? "true" : "false");
    kp_table_add(t, *kp_admission_reason(a) ? kp_admission_reason(a) : "<none>");
    kp_table_print(t, f);
    kp_table_free(t);
    fprintf(f, "\nMessage: %s\n", kp_admission_message(a));
    if (kp_admission_reason_count(a)) {
        fprintf(f, "\nFailed before preemption:\n");
        for (size_t i = 0; i < kp_admission_reason_count(a); i++) {
            const kp_admit_reason *r = kp_admission_reason_at(a, i);
            fprintf(f, "  %s: %s\n", r->reason, r->message);
        }
    }
    if (kp_admission_victim_count(a)) {
        fprintf(f, "\n");
        t = kp_table_new(4);
        if (!t) return;
        kp_table_add(t, "VICTIM");
        kp_table_add(t, "QOS");
        kp_table_add(t, "PRIORITY");
        kp_table_add(t, "STATUS");
        for (size_t i = 0; i < kp_admission_victim_count(a); i++) {
            const kp_admit_victim *v = kp_admission_victim_at(a, i);
            kp_table_add(t, kp__pod_ref(cl, &cl->pods[v->pod], ref, sizeof ref));
            kp_table_add(t, qos_name(v->qos));
            kp_table_addf(t, "%d", (int)v->priority);
            kp_table_add(t, KP_ADMIT_VICTIM_PHASE "/" KP_ADMIT_VICTIM_REASON);
        }
        kp_table_print(t, f);
        kp_table_free(t);
    }
}

/* Loads the snapshot and the --pod file, finalizes, and finds the pod the file contributed. */
static kp_cluster *load_all(const kp_cli_common *c, const char *pod_file, long *pod_out) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        fprintf(stderr, "kprio: out of memory\n");
        return NULL;
    }
    for (int i = 0; i < c->n_files; i++) {
        if (kp_cluster_load_path(cl, c->files[i], c->recursive, &err) != KP_OK) goto fail;
    }
    size_t before = kp_cluster_pod_count(cl);
    if (kp_cluster_load_path(cl, pod_file, false, &err) != KP_OK) goto fail;
    if (kp_cluster_finalize(cl, &err) != KP_OK) goto fail;
    print_warnings(cl);
    /* the pods that file added: new indices, or (a replaced duplicate) those naming the file */
    long found = -1;
    size_t n_found = 0;
    for (size_t i = 0; i < cl->n_pods; i++) {
        const kp_pod *p = &cl->pods[i];
        if (i >= before || (p->src_file && strcmp(p->src_file, pod_file) == 0)) {
            if (found < 0) found = (long)i;
            n_found++;
        }
    }
    if (n_found == 0) {
        fprintf(stderr, "kprio: %s: no Pod found (--pod takes a manifest holding one Pod)\n", pod_file);
        kp_cluster_free(cl);
        return NULL;
    }
    if (n_found > 1) {
        fprintf(stderr, "kprio: %s: %zu Pods found (--pod takes a manifest holding one Pod)\n",
                pod_file, n_found);
        kp_cluster_free(cl);
        return NULL;
    }
    *pod_out = found;
    return cl;
fail:
    kp_cli_print_error(&err);
    kp_cluster_free(cl);
    return NULL;
}

int kp_cmd_admit(int argc, char **argv) {
    kp_cli_common c;
    memset(&c, 0, sizeof c);
    c.out = KP_OUT_TABLE;
    const char *node_name = NULL, *pod_file = NULL;
    const char *cond_args[16];
    int n_cond = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs("usage: ", stdout);
            fputs(USAGE, stdout);
            return KP_EXIT_OK;
        }
        int r = kp_cli_common_arg(&c, argc, argv, &i);
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        if (kp_cli_is_opt(arg, "--node")) {
            if (!(node_name = kp_cli_optval(argc, argv, &i, "admit"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--pod")) {
            if (!(pod_file = kp_cli_optval(argc, argv, &i, "admit"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--node-condition")) {
            const char *v = kp_cli_optval(argc, argv, &i, "admit");
            if (!v) return KP_EXIT_USAGE;
            if (n_cond == (int)(sizeof cond_args / sizeof cond_args[0]))
                return kp_cli_usage_error("admit", USAGE, "too many --node-condition options");
            cond_args[n_cond++] = v;
        } else {
            return kp_cli_usage_error("admit", USAGE, "unknown argument \"%s\"", arg);
        }
    }
    if (c.n_files == 0) return kp_cli_usage_error("admit", USAGE, "no input: give -f FILE");
    if (!node_name) return kp_cli_usage_error("admit", USAGE, "--node is required");
    if (!pod_file) return kp_cli_usage_error("admit", USAGE, "--pod is required");

    unsigned set_bits = 0, set_vals = 0;
    for (int i = 0; i < n_cond; i++) {
        unsigned bit;
        bool value;
        if (!parse_condition(cond_args[i], &bit, &value)) {
            fprintf(stderr,
                    "kprio: admit: --node-condition \"%s\": expected TYPE=True|False with TYPE one "
                    "of MemoryPressure, DiskPressure, PIDPressure\n",
                    cond_args[i]);
            return KP_EXIT_ERROR;
        }
        set_bits |= bit;
        set_vals = value ? (set_vals | bit) : (set_vals & ~bit);
    }

    long pod = -1;
    kp_cluster *cl = load_all(&c, pod_file, &pod);
    if (!cl) return KP_EXIT_ERROR;
    long node = kp_cluster_find_node(cl, node_name);
    if (node < 0) {
        fprintf(stderr, "kprio: admit: node \"%s\" not found in the input\n", node_name);
        kp_cluster_free(cl);
        return KP_EXIT_ERROR;
    }

    kp_admit_options o;
    kp_admit_options_init(&o);
    o.override_conditions = true;
    o.conditions = (kp_admit_node_conditions(cl, (size_t)node) & ~set_bits) | set_vals;

    kp_admission *a = kp_admission_new();
    kp_error err;
    kp_error_clear(&err);
    if (!a || kp_admit(cl, (size_t)node, (size_t)pod, &o, a, &err) != KP_OK) {
        if (!a) kp_error_set(&err, KP_ENOMEM, "out of memory");
        kp_cli_print_error(&err);
        kp_admission_free(a);
        kp_cluster_free(cl);
        return KP_EXIT_ERROR;
    }
    if (c.out == KP_OUT_TABLE)
        print_table(stdout, cl, (size_t)node, (size_t)pod, a);
    else
        emit_structured(stdout, c.out, cl, (size_t)node, (size_t)pod, o.conditions, a);
    kp_admission_free(a);
    kp_cluster_free(cl);
    return KP_EXIT_OK;
}
