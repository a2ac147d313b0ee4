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
    {"simulate", kp_cmd_simulate,
     "Play the cluster forward in virtual time: queue, preemption, controllers"},
    {"obfuscate", kp_cmd_obfuscate, "Replace names in a snapshot by a keyed hash, decisions kept"},
    {"sweep", kp_cmd_sweep, "Run a matrix of simulations (seeds, settings): rows and aggregates"},
    {"convert", kp_cmd_convert, "Convert an Alibaba or a SimKube trace into inputs of simulate"},
};

static void usage(FILE *f) {
    fprintf(f,
            "kprio - Kubernetes pod priority, preemption and eviction, decision for decision.\n\n"
            "Usage: kprio COMMAND [options]\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(
        f,
        "\nCommon options: -f FILE|DIR|- (repeatable), -R (recurse into directories),\n"
        "                -o table|wide|json|yaml, --no-headers, --max-input-bytes N (largest\n"
        "                input read, bytes with an optional Ki/Mi/Gi/Ti suffix; default 16Gi)\n"
        "No colour, on a terminal or not: the output is the same wherever it goes.\n"
        "Run 'kprio COMMAND --help' for a command's options.\n\n"
        "Exit status: 0 answered; 1 bad input or a runtime error (out of memory, write error\n"
        "on stdout), with one line \"kprio: ...\" on stderr and nothing on stdout; 2 wrong usage\n"
        "(unknown command or option, missing or bad option value), with one line and a hint.\n");
}

static int run(int argc, char **argv) {
    if (argc < 2) {
        kp_cli_eprintf("kprio: no command given");
        kp_cli_eprintf("Run 'kprio --help' for usage.");
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
        printf("kprio %s (reproduces Kubernetes v%s: kube-scheduler and kubelet decisions; "
               "older scheduler lines with --compat VERSION)\n",
               kp_version(), KP_KUBERNETES_VERSION);
        return KP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    kp_cli_eprintf("kprio: unknown command \"%s\"", argv[1]);
    kp_cli_eprintf("Run 'kprio --help' for usage.");
    return KP_EXIT_USAGE;
}

/* Every write to stdout is checked once, at the end (flush and close): a full disk or a closed
 * pipe is exit 1 with "kprio: write error: ...", never a silent success. */
int main(int argc, char **argv) { return kp_cli_close_stdout(run(argc, argv)); }
