/* kprio inspect: kubectl-style overview of a loaded snapshot (computed by kp_inspection_new,
 * rendered by kp_render_inspection). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "kprio/inspect.h"
#include "render/render_inspect.h"

#define USAGE_TEXT                                                                            \
    "kprio inspect -f FILE|DIR|- [-f ...] [-R] [-o table|json|yaml] [--max-input-bytes N]\n"  \
    "              [--expand-workloads | --expand-cronjobs] [--feature-gates KEY=BOOL,...]\n" \
    "              [-n NS | -A] [-l SELECTOR] [--sort-by COLUMN]"
static const char *USAGE = USAGE_TEXT;

static const char *HELP =
    "Overview of a cluster snapshot: per node allocatable vs requested cpu/memory/pods,\n"
    "pods by QoS class and priority class; PriorityClasses; PodDisruptionBudgets;\n"
    "warnings for state that changes decisions (terminating pods, nominations,\n"
    "pods whose PriorityClass was deleted). With storage objects: volumes in use and held by\n"
    "VolumeAttachments against each CSINode limit, pending pods' claims and the nodes their\n"
    "volumes can go to. --expand-workloads / --expand-cronjobs count the\n"
    "pods the workloads' controllers would create as pending "
    "(docs/schedule.md).\n"
    "--feature-gates K=B,... as for kprio schedule: the gates that change requests and QoS\n"
    "classes (PodLevelResources, in-place resize; docs/compat.md).\n"
    "-n NS and -l SEL keep the PodDisruptionBudgets of NS and the pending pods' claims of NS /\n"
    "selected by SEL; nodes and PriorityClasses are cluster-wide. --sort-by COLUMN orders the\n"
    "rows of every table that has the column.\n\nusage: " USAGE_TEXT "\n"
    "\nExit status: 0 answered, 1 bad input or a runtime error (out of memory, write error), 2 "
    "usage\n"
    "error (unknown option, missing or bad option value).\n";

int kp_cmd_inspect(int argc, char **argv) {
    kp_cli_common c;
    kp_cli_common_init(&c);
    int rc = KP_EXIT_OK;
    for (int i = 1; i < argc && rc == KP_EXIT_OK; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(HELP, stdout);
            kp_cli_common_free(&c);
            return KP_EXIT_OK;
        }
        if (kp_cli_expand_arg(&c, argv[i])) continue; /* the pods as kprio schedule sees them */
        int r = kp_cli_common_arg(&c, argc, argv, &i);
        if (r == 0) r = kp_cli_gates_arg(&c, argc, argv, &i, "inspect");
        if (r == 0) r = kp_cli_view_arg(&c, argc, argv, &i, "inspect");
        if (r < 0) rc = KP_EXIT_USAGE;
        else if (r == 0)
            rc = kp_cli_usage_error("inspect", USAGE, "unknown argument \"%s\"", argv[i]);
    }
    if (rc == KP_EXIT_OK && c.n_files == 0)
        rc = kp_cli_usage_error("inspect", USAGE, "at least one -f is required");
    static const char *const columns[] = {"NODE",
                                          "CPU REQ/ALLOC",
                                          "MEMORY REQ/ALLOC",
                                          "PODS",
                                          "QOS G/B/BE",
                                          "PRIORITY CLASSES",
                                          "FLAGS",
                                          "PRIORITYCLASS",
                                          "VALUE",
                                          "GLOBAL-DEFAULT",
                                          "PREEMPTIONPOLICY",
                                          "PDB",
                                          "MIN AVAILABLE",
                                          "MAX UNAVAILABLE",
                                          "ALLOWED DISRUPTIONS",
                                          "DISRUPTED PODS",
                                          "CSI DRIVER",
                                          "VOLUMES IN USE",
                                          "HELD BY ATTACHMENTS",
                                          "LIMIT",
                                          "PENDING POD",
                                          "CLAIM",
                                          "STATUS",
                                          "VOLUME",
                                          "STORAGECLASS",
                                          "NODES",
                                          "CAPACITY"};
    if (rc == KP_EXIT_OK)
        rc = kp_cli_view_check(&c, "inspect", columns, sizeof columns / sizeof columns[0]);
    if (rc != KP_EXIT_OK) {
        kp_cli_common_free(&c);
        return rc;
    }
    kp_outfmt out = c.out;
    kp_cluster *cl = kp_cli_load(&c);
    if (!cl) {
        kp_cli_common_free(&c);
        return KP_EXIT_ERROR;
    }
    kp_cli_view_begin(&c, cl, false);

    kp_error err;
    kp_error_clear(&err);
    kp_inspection *in = NULL;
    kp_status st = kp_inspection_new(cl, &in, &err);
    if (st == KP_OK) {
        st = kp_render_inspection(stdout, in, out);
        if (st != KP_OK) kp_error_set(&err, st, "%s", kp_status_str(st));
    }
    if (st != KP_OK) rc = kp_cli_print_error(&err);
    kp_inspection_free(in);
    kp_cluster_free(cl);
    kp_cli_common_free(&c);
    return rc;
}
