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
#include "kprio/admission.h"
#include "kprio/node_conditions.h"
#include "render/render_kubelet.h"

static const char *const USAGE =
    "kprio admit -f FILE... --node NODE --pod FILE [--node-condition TYPE=True|False]...\n"
    "            [--feature-gates KEY=BOOL,...] [--compat VERSION] [-o table|json|yaml] [-R]\n"
    "\n"
    "Decides whether the kubelet of NODE admits the pod in --pod against the pods bound to\n"
    "NODE in the snapshot, as upstream does: node-pressure admission (eviction manager), the\n"
    "general predicates (resources incl. pods and extended resources, node affinity/selector,\n"
    "node name, host ports, NoExecute taints, OS), and for a critical pod (static, mirror, or\n"
    "priority >= 2000000000) failing only for resources, critical-pod preemption.\n"
    "\n"
    "  -f, --filename FILE      snapshot file or directory (repeatable); '-' reads stdin\n"
    "  -R, --recursive          descend into directories given with -f\n"
    "      --max-input-bytes N  largest input read (Ki/Mi/Gi/Ti suffixes; default 16Gi)\n"
    "      --node NODE          the node whose kubelet admits the pod\n"
    "      --pod FILE           manifest holding exactly one Pod (not part of the snapshot)\n"
    "      --node-condition C   override a node condition: MemoryPressure, DiskPressure or\n"
    "                           PIDPressure = True|False (repeatable; default: node status)\n"
    "      --feature-gates K=B,...  the kubelet's feature gates, e.g. PodLevelResources=false\n"
    "                           (repeatable; docs/compat.md lists the ones kprio models)\n"
    "      --compat VERSION     decide as an older kubelet line (e.g. 1.34): its feature-gate\n"
    "                           defaults and locks and its rules (docs/compat.md)\n"
    "  -o, --output FORMAT      table (default), json or yaml\n"
    "\n"
    "Exit status: 0 answered (admitted or not), 1 bad input or a runtime error (out of memory,\n"
    "write error), 2 usage error (unknown option, missing or bad option value).\n";

/* Parses "TYPE=True|False"; returns false on bad syntax. */
static bool parse_condition(const char *s, unsigned *bit, bool *value) {
    const char *eq = strchr(s, '=');
    if (!eq || !kp_node_condition_parse(s, (size_t)(eq - s), bit)) return false;
    if (strcmp(eq + 1, "True") == 0) *value = true;
    else if (strcmp(eq + 1, "False") == 0) *value = false;
    else return false;
    return true;
}

/* Loads the snapshot and the --pod file, finalizes, and finds the pod the file contributed. */
static kp_cluster *load_all(const kp_cli_common *c, const char *pod_file, kp_index *pod_out) {
    kp_error err;
    kp_error_clear(&err);
    kp_cluster *cl = kp_cluster_new();
    if (!cl) {
        kp_cli_print_status(KP_ENOMEM);
        return NULL;
    }
    kp_cluster_set_max_input_bytes(cl, c->max_input_bytes);
    (void)kp_cluster_set_feature_gates(cl, &c->gates); /* (not finalized: cannot fail) */
    for (int i = 0; i < c->n_files; i++) {
        if (kp_cluster_load_path(cl, c->files[i], c->recursive, &err) != KP_OK) goto fail;
    }
    size_t before = kp_cluster_pod_count(cl), n_found = 0;
    if (kp_cluster_load_path(cl, pod_file, false, &err) != KP_OK) goto fail;
    if (kp_cluster_finalize(cl, &err) != KP_OK) goto fail;
    for (size_t i = 0; i < kp_cluster_warning_count(cl); i++)
        kp_cli_eprintf("kprio: warning: %s", kp_cluster_warning(cl, i));
    *pod_out = kp_admit_pod_from_file(cl, before, pod_file, &n_found);
    if (n_found == 1) return cl;
    if (n_found == 0)
        kp_cli_eprintf("kprio: %s: no Pod found (--pod takes a manifest holding one Pod)",
                       pod_file);
    else
        kp_cli_eprintf("kprio: %s: %zu Pods found (--pod takes a manifest holding one Pod)",
                       pod_file, n_found);
    kp_cluster_free(cl);
    return NULL;
fail:
    kp_cli_print_error(&err);
    kp_cluster_free(cl);
    return NULL;
}

/* The command proper; the caller owns the common options (-f list) and frees them. */
static int run_admit(kp_cli_common *c, int argc, char **argv) {
    c->out = KP_OUT_TABLE;
    const char *node_name = NULL, *pod_file = NULL, *bad_cond = NULL;
    unsigned set_bits = 0, set_vals = 0; /* --node-condition overrides, later ones win */
    const char *compat = NULL; /* the line's gate defaults and kubelet rules (c->gates.line) */
    int crc = kp_cli_compat_arg(c, argc, argv, "admit", &compat);
    if (crc != 0) return crc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs("usage: ", stdout);
            fputs(USAGE, stdout);
            return KP_EXIT_OK;
        }
        int r = kp_cli_common_arg(c, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(c, argc, argv, &i, "admit");
        if (r < 0) return KP_EXIT_USAGE;
        if (r > 0) continue;
        if (kp_cli_is_opt(arg, "--compat")) { /* read by kp_cli_compat_arg */
            if (!kp_cli_optval(argc, argv, &i, "admit")) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--node")) {
            if (!(node_name = kp_cli_optval(argc, argv, &i, "admit"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--pod")) {
            if (!(pod_file = kp_cli_optval(argc, argv, &i, "admit"))) return KP_EXIT_USAGE;
        } else if (kp_cli_is_opt(arg, "--node-condition")) {
            const char *v = kp_cli_optval(argc, argv, &i, "admit");
            unsigned bit;
            bool value;
            if (!v) return KP_EXIT_USAGE;
            if (!parse_condition(v, &bit, &value)) {
                if (!bad_cond) bad_cond = v; /* reported after the usage checks */
                continue;
            }
            set_bits |= bit;
            set_vals = value ? (set_vals | bit) : (set_vals & ~bit);
        } else {
            return kp_cli_usage_error("admit", USAGE, "unknown argument \"%s\"", arg);
        }
    }
    if (c->n_files == 0) return kp_cli_usage_error("admit", USAGE, "no input: give -f FILE");
    if (!node_name) return kp_cli_usage_error("admit", USAGE, "--node is required");
    if (!pod_file) return kp_cli_usage_error("admit", USAGE, "--pod is required");
    if (bad_cond) {
        return kp_cli_usage_hint("admit",
                                 "--node-condition \"%s\": expected TYPE=True|False with TYPE one "
                                 "of MemoryPressure, DiskPressure, PIDPressure",
                                 bad_cond);
    }
    kp_index pod = -1;
    kp_cluster *cl = load_all(c, pod_file, &pod);
    if (!cl) return KP_EXIT_ERROR;
    kp_index node = kp_cluster_find_node(cl, node_name);
    if (node < 0) {
        kp_cli_eprintf("kprio: admit: node \"%s\" not found in the input", node_name);
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
    if (!a || kp_admit(cl, node, pod, &o, a, &err) != KP_OK) {
        if (!a) kp_error_set(&err, KP_ENOMEM, "out of memory");
        kp_cli_print_error(&err);
        kp_admission_free(a);
        kp_cluster_free(cl);
        return KP_EXIT_ERROR;
    }
    int rc = KP_EXIT_OK;
    if (kp_render_admission(stdout, c->out, cl, node, pod, o.conditions, a) != KP_OK)
        rc = kp_cli_print_status(KP_ENOMEM); /* nothing was written */
    kp_admission_free(a);
    kp_cluster_free(cl);
    return rc;
}

int kp_cmd_admit(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = run_admit(&c, argc, argv);
    kp_cli_common_free(&c);
    return rc;
}
