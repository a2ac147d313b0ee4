/* kprio: command dispatch, --help and --version. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"inspect", kp_cmd_inspect,
     "Overview of a cluster snapshot: nodes, priority classes, PDBs, warnings"},
    {"schedule", kp_cmd_schedule, "Schedule pending pods as kube-scheduler would, with preemption"},
    {"why", kp_cmd_why, "Explain why a pod would be preempted, by whom, and what would spare it"},
    {"evict", kp_cmd_evict, "Replay kubelet node-pressure eviction over Summary API snapshots"},
    {"admit", kp_cmd_admit, "Kubelet admission of a pod on a node, with critical-pod preemption"},
};

static void usage(FILE *f) {
    fprintf(f,
            "kprio - Kubernetes pod priority, preemption and eviction, decision for decision.\n\n"
            "Usage: kprio COMMAND [options]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nCommon options: -f FILE|DIR|- (repeatable), -R (recurse into directories),\n"
               "                -o table|json|yaml\n"
               "Run 'kprio COMMAND --help' for a command's options. Exit status: 0 answered,\n"
               "1 bad input or runtime error, 2 wrong usage.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return KP_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(argv[2], commands[i].name) == 0) {
                    char *av[] = {argv[2], (char *)"--help", NULL};
                    return commands[i].fn(2, av);
                }
        }
        usage(stdout);
        return KP_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("kprio %s (Kubernetes %s: kube-scheduler and kubelet decisions)\n", kp_version(),
               KP_KUBERNETES_VERSION);
        return KP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "kprio: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return KP_EXIT_USAGE;
}
