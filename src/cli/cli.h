/* Shared CLI plumbing (internal to the kprio binary).
 *
 * Exit codes: 0 answered, 1 bad input or runtime error, 2 wrong usage. Every error is one line
 * on stderr starting with "kprio: ". Results go to stdout; warnings and progress to stderr. */
#ifndef KP_CLI_CLI_H
#define KP_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kprio/cluster.h"
#include "kprio/selector.h"
#include "render/emit.h"

enum { KP_EXIT_OK = 0, KP_EXIT_ERROR = 1, KP_EXIT_USAGE = 2 };

/* Options every cluster-reading command accepts: -f/--filename (repeatable, any number),
 * -R/--recursive, -o/--output (table, wide, json, yaml), --no-headers, --max-input-bytes N (bytes,
 * optional Ki/Mi/Gi/Ti suffix: the largest input one -f may read, kp_cluster_set_max_input_bytes;
 * default 16Gi). Initialise with kp_cli_common_init (not by zeroing: the feature gates need their
 * defaults) and release with kp_cli_common_free; do not copy an initialised value (files may point
 * into it). */
typedef struct {
    const char **files; /* the -f values in order, borrowed from argv */
    int n_files;
    bool recursive;
    kp_outfmt out; /* -o; "wide" is KP_OUT_TABLE with `wide` set */
    bool wide; /* -o wide: the renderers that have more columns get KP_OUT_WIDE */
    bool no_headers; /* --no-headers (also set in the renderers: kp_table_set_no_headers) */
    uint64_t max_input_bytes; /* --max-input-bytes; 0 = the library's default */
    unsigned expand; /* kp_cluster_set_expand flags (schedule --expand-workloads); 0 = off */
    kp_feature_gates gates; /* --feature-gates (schedule, why, inspect, admit, evict) on the
                             * --compat line's defaults (kp_cli_compat_arg) */
    /* kubectl's habits on output (schedule, simulate, inspect; why takes -n only): -n/--namespace,
     * -A/--all-namespaces, -l/--selector, --sort-by (kp_cli_view_arg, kp_cli_view_begin) */
    const char *ns; /* NULL: every namespace */
    bool all_ns;
    const char *selector, *sort_by;
    kp_selector *sel; /* parsed -l (kp_cli_view_begin); freed by kp_cli_common_free */
    /* simulate --compare-priorities: the layout the next kp_cli_load gives the cluster before
     * finalize (kp_cluster_set_priority_layout); borrowed, NULL: none */
    const struct kp_priority_layout *layout;
    int cap_files;
    const char *files_inline[16]; /* first 16 -f values: no allocation in the common case */
} kp_cli_common;

void kp_cli_common_init(kp_cli_common *c);
/* Releases the list of -f values if it outgrew files_inline. */
void kp_cli_common_free(kp_cli_common *c);

/* Tries to consume argv[*i] (and its value) as a common option. Returns 1 if consumed, 0 if not a
 * common option, -1 on a usage error (already printed). Accepts "-f X", "-fX", "--filename=X",
 * "-o json", "-ojson", "--output=json". */
int kp_cli_common_arg(kp_cli_common *c, int argc, char **argv, int *i);
/* Appends an input as -f does (simulate --trace adds its snapshot); false when out of memory. */
bool kp_cli_add_file(kp_cli_common *c, const char *val);
/* --expand-workloads / --expand-cronjobs (schedule, why, inspect): sets c->expand and returns
 * true if arg is one of them. */
bool kp_cli_expand_arg(kp_cli_common *c, const char *arg);
/* --feature-gates KEY=BOOL,... (schedule, why, inspect, admit, evict; kube-scheduler's syntax,
 * the kubelet's for admit and evict): applies the value on top of c->gates
 * (repeatable; a later flag wins for the gates it names) and returns 1; 0 if argv[*i] is not
 * this option; -1 after printing the usage error ("--feature-gates: unrecognized feature gate:
 * X", a bad value, a locked gate). */
int kp_cli_gates_arg(kp_cli_common *c, int argc, char **argv, int *i, const char *cmd);
/* --compat VERSION (schedule, why, admit, evict), read before the other options: sets *compat
 * (NULL without the option; the last one wins) and puts c->gates on that release line's
 * defaults and locks, so --feature-gates anywhere on the line is checked against them. Returns 0,
 * or an exit status after printing the usage error. */
int kp_cli_compat_arg(kp_cli_common *c, int argc, char **argv, const char *cmd,
                      const char **compat);
/* Reads the value of option argv[*i] ("--opt V" or "--opt=V"); NULL + usage message if missing. */
const char *kp_cli_optval(int argc, char **argv, int *i, const char *cmd);
/* True if argv[i] is exactly name or starts with "name=". */
bool kp_cli_is_opt(const char *arg, const char *name);

/* Parses a --max-input-bytes value: decimal bytes with an optional Ki, Mi, Gi or Ti suffix,
 * at least 1. False if malformed or too large for 64 bits. */
bool kp_cli_parse_bytes(const char *s, uint64_t *out);

/* -n NS / --namespace NS, -A / --all-namespaces, -l SEL / --selector SEL, --sort-by COLUMN (also
 * "-nNS", "-lSEL", "--namespace=NS"): 1 if argv[*i] is one of them (stored in c), 0 if not, -1
 * after a usage error. */
/* The help lines of those options (schedule, simulate, inspect). */
#define KP_CLI_VIEW_HELP                                                                        \
    "  -n, --namespace NS      show only the pods (and namespaced objects) of namespace NS\n"   \
    "  -A, --all-namespaces    show every namespace (the default: a snapshot is the cluster)\n" \
    "  -l, --selector SEL      show only the pods whose labels match SEL (k=v, k!=v,\n"         \
    "                          k in (a,b), k notin (a,b), k, !k; comma-separated)\n"            \
    "  --sort-by COLUMN        order table rows by a column (its header, or .metadata.name,\n"  \
    "                          .metadata.namespace, .spec.priority, .spec.nodeName ...)\n"      \
    "                          Filters change what is shown (tables, -o json|yaml), never\n"    \
    "                          what is computed; docs/schedule.md\n"
int kp_cli_view_arg(kp_cli_common *c, int argc, char **argv, int *i, const char *cmd);
/* Checks the view options before anything is loaded: the selector parses (one line, "kprio
 * CMD: -l: invalid label selector ..."), --sort-by names one of columns[0..n) (a JSONPath-like
 * key such as .metadata.name or .spec.priority is read as its column; the resolved header is
 * kept in c->sort_by). Returns KP_EXIT_OK or KP_EXIT_USAGE after printing the error. */
int kp_cli_view_check(kp_cli_common *c, const char *cmd, const char *const *columns, size_t n);
/* Sets the renderers' view (render/view.h) and the tables' sort (kp_table_set_sort_by) for cl,
 * with absolute times when absolute. */
void kp_cli_view_begin(const kp_cli_common *c, const kp_cluster *cl, bool absolute);

/* Loads and finalizes all -f inputs, printing warnings to stderr (and a one-line error on
 * failure). Returns NULL on error (caller exits 1). Shows progress on a terminal when slow. */
kp_cluster *kp_cli_load(const kp_cli_common *c);
/* The same inputs loaded once more (why's second cluster, each run of --compare after the
 * first): the same, without printing the warnings the first load printed already. */
kp_cluster *kp_cli_load_again(const kp_cli_common *c);

/* A command that reads its inputs more than once (kp_cli_load per run of --compare, twice for
 * why) needs inputs that read the same the second time: every -f and each path of paths[0..n)
 * (NULL entries skipped) must be a regular file or a directory. Else one line, "kprio: PATH:
 * WHO reads it twice, and standard input or a pipe reads only once: save it to a file
 * first", and KP_EXIT_USAGE; KP_EXIT_OK when all are. */
int kp_cli_require_rereadable(const kp_cli_common *c, const char *const *paths, size_t n,
                              const char *who);

/* Standard input ("-") named by two of paths[0..n) (NULL entries skipped): one line naming the
 * two flags (names[i] is the flag of paths[i]) and KP_EXIT_USAGE; else KP_EXIT_OK. */
int kp_cli_stdin_once(const char *const *paths, const char *const *names, size_t n);

/* Prints a kp_error as one line on stderr and returns KP_EXIT_ERROR. The only place that maps
 * status codes to CLI output: KP_ENOMEM prints exactly "kprio: out of memory" (whatever the
 * message and source); anything else "kprio: SOURCE: MESSAGE" (source prefix when set). */
int kp_cli_print_error(const kp_error *err);
/* The same for a bare status (no kp_error): "kprio: out of memory", "kprio: <status name>". */
int kp_cli_print_status(kp_status st);
/* Prints "kprio <cmd>: <msg>" and the --help hint (not the usage text); returns KP_EXIT_USAGE. */
int kp_cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prints a formatted message and a newline on stderr with control characters escaped (\n, \x1b,
 * ...; see common.c), so every message is one line and input cannot drive the terminal. Every
 * error and warning of the CLI goes through it. */
void kp_cli_eprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A usage error: "kprio CMD: MESSAGE" and the hint "Run 'kprio CMD --help' for usage."; returns
 * KP_EXIT_USAGE. */
int kp_cli_usage_hint(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* At exit: flushes and closes stdout; on a write error prints "kprio: write error: REASON" and
 * returns KP_EXIT_ERROR, otherwise rc. */
int kp_cli_close_stdout(int rc);
/* True if v has the syntax of a --compat version ([v]1.MINOR[.PATCH]). */
bool kp_cli_compat_ok(const char *v);

/* The kubelet data of NODE in a snapshot directory given with -f (snapshot_dir.c, docs/live.md):
 * DIR/kubelet/NODE-summary.json into *summary and DIR/kubelet/NODE-configz.json into *configz
 * (kp_free them; NULL when no -f directory has one; the first -f that has one wins). Returns 0,
 * or KP_EXIT_ERROR after printing "out of memory". */
int kp_cli_snapshot_kubelet(const kp_cli_common *c, const char *node, char **summary,
                            char **configz);

/* The summary files a --summary argument names (snapshot_dir.c): path itself when it is not a
 * directory ("-" included), else the directory's regular files named *.json, *.yaml or *.yml
 * (not recursive), by name. On success *paths holds *n >= 1 strings ("DIR/NAME"); release them
 * with kp__paths_free (base/file.h). Errors: KP_EIO (directory unreadable), KP_EINVAL (no summary
 * file in the directory), KP_ENOMEM. */
kp_status kp_cli_summary_paths(const char *path, char ***paths, size_t *n, kp_error *err);

/* Sub-commands (one file each: src/cli/cmd_<name>.c). */
int kp_cmd_inspect(int argc, char **argv);
int kp_cmd_schedule(int argc, char **argv);
int kp_cmd_why(int argc, char **argv);
int kp_cmd_evict(int argc, char **argv);
int kp_cmd_admit(int argc, char **argv);
int kp_cmd_simulate(int argc, char **argv);
/* `kprio why POD` for evictions: argv as kprio evict's (or simulate's) with POD as the one
 * positional argument, the same as their --why POD. */
int kp_cmd_evict_why(int argc, char **argv);
int kp_cmd_simulate_why(int argc, char **argv);
/* The pod NAMESPACE/NAME (NAME alone: default/NAME) of cl, or -1 after printing "kprio: CMD: no
 * pod ... in the input" with the closest NAMESPACE/NAME as a hint. */
kp_index kp_cli_find_pod_or_hint(const kp_cluster *cl, const char *target, const char *cmd);
int kp_cmd_obfuscate(int argc, char **argv);
/* kprio sweep (cmd_sweep.c, cli/sweep.h). */
int kp_cmd_sweep(int argc, char **argv);
int kp_cmd_convert(int argc, char **argv);

#endif
