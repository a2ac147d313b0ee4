/* `kprio convert FORMAT ...` (docs/live.md "Converting public traces"): a public workload trace
 * into a snapshot (cluster.json) and a Scenario (scenario.json) that `kprio simulate` plays; a
 * SimKube trace into a trace directory that `kprio simulate --trace` replays. */
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"
#include "kprio/convert.h"

static const char *USAGE =
    "kprio convert alibaba-gpu --nodes NODES.csv --pods PODS.csv (-o DIR | --cluster FILE "
    "--scenario FILE)\n"
    "kprio convert alibaba-spot --nodes NODES.csv --jobs JOBS.csv (-o DIR | --cluster FILE "
    "--scenario FILE)\n"
    "kprio convert simkube TRACE -o DIR";

static const char *HELP =
    "Converts a public workload trace into a snapshot and a Scenario:\n"
    "  alibaba-gpu    Alibaba cluster-trace-gpu-v2023: openb_node_list_*.csv and\n"
    "                 openb_pod_list_*.csv\n"
    "  alibaba-spot   Alibaba cluster-trace-v2026-spot-gpu: node_info_df.csv and\n"
    "                 job_info_df.csv (high-priority and spot jobs)\n"
    "  simkube        a SimKube trace (msgpack, trace format version 2), into a trace\n"
    "                 directory: DIR/manifest.json, DIR/snapshot/cluster.json,\n"
    "                 DIR/watch/simkube.json\n"
    "Then: kprio simulate -f DIR/cluster.json --scenario DIR/scenario.json\n"
    "(simkube: kprio simulate --trace DIR -f NODES, the trace holding no nodes)\n"
    "(docs/live.md \"Converting public traces\": what maps to what, what is lost).\n"
    "\n"
    "Options:\n"
    "  --nodes FILE      the trace's node list\n"
    "  --pods FILE       alibaba-gpu: the pod list\n"
    "  --jobs FILE       alibaba-spot: the job list\n"
    "  -o DIR            write DIR/cluster.json and DIR/scenario.json (DIR is created;\n"
    "                    simkube: the trace directory's files)\n"
    "  --cluster FILE, --scenario FILE   write the two files where named instead (-:\n"
    "                    standard output)\n"
    "\n"
    "Exit status: 0 converted, 1 bad input or a runtime error, 2 usage error.\n";

typedef struct {
    const char *data;
    size_t len;
} text;

static kp_status put_text(FILE *f, void *ctx) {
    const text *t = ctx;
    return fwrite(t->data, 1, t->len, f) == t->len ? KP_OK : KP_EIO;
}

/* path "-": standard output */
static kp_status write_to(const char *path, text *t, kp_error *err) {
    if (strcmp(path, "-") != 0) return kp__file_write(path, put_text, t, err);
    return put_text(stdout, t) == KP_OK ? KP_OK : kp_error_set(err, KP_EIO, "write error");
}

/* A SimKube trace into the trace directory dir (kp_convert_simkube): DIR, DIR/snapshot and
 * DIR/watch are created, the files written whole. */
static int convert_simkube(const char *trace, const char *dir, bool other_opts) {
    if (!trace || !dir || other_opts)
        return kp_cli_usage_error("convert", USAGE, "simkube takes TRACE and -o DIR only");
    kp_error err;
    kp_error_clear(&err);
    kp_converted *cv = NULL;
    if (kp_convert_simkube(trace, &cv, &err) != KP_OK) return kp_cli_print_error(&err);
    char path[4096];
    kp_status st = kp__dir_make(dir, &err);
    static const char *const SUBDIRS[] = {"snapshot", "watch"};
    for (size_t i = 0; st == KP_OK && i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, SUBDIRS[i]);
        st = kp__dir_make(path, &err);
    }
    const char *name;
    text t;
    for (size_t i = 0; st == KP_OK && (t.data = kp_converted_file(cv, i, &name, &t.len)); i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
            st = kp_error_set(&err, KP_EINVAL, "-o: the directory's name is too long");
        else st = kp__file_write(path, put_text, &t, &err);
    }
    kp_converted_stats s;
    kp_converted_stats_get(cv, &s);
    kp_converted_free(cv);
    if (st != KP_OK) return kp_cli_print_error(&err);
    fprintf(stderr,
            "kprio: converted %llu objects at the start and %llu watch events: %s (replay: kprio "
            "simulate --trace %s -f NODES)\n",
            (unsigned long long)s.objects, (unsigned long long)s.events, dir, dir);
    return KP_EXIT_OK;
}

int kp_cmd_convert(int argc, char **argv) {
    const char *fmt = NULL, *nodes = NULL, *pods = NULL, *jobs = NULL, *dir = NULL;
    const char *cluster = NULL, *scenario = NULL, *trace = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **slot = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: %s\n\n%s", USAGE, HELP);
            return KP_EXIT_OK;
        }
        if (kp_cli_is_opt(a, "--nodes")) slot = &nodes;
        else if (kp_cli_is_opt(a, "--pods")) slot = &pods;
        else if (kp_cli_is_opt(a, "--jobs")) slot = &jobs;
        else if (kp_cli_is_opt(a, "--cluster")) slot = &cluster;
        else if (kp_cli_is_opt(a, "--scenario")) slot = &scenario;
        else if (strcmp(a, "-o") == 0 || kp_cli_is_opt(a, "--output")) slot = &dir;
        else if (a[0] != '-' && !fmt) {
            fmt = a;
            continue;
        } else if ((a[0] != '-' || strcmp(a, "-") == 0) && !trace && fmt &&
                   strcmp(fmt, "simkube") == 0) {
            trace = a;
            continue;
        } else return kp_cli_usage_error("convert", USAGE, "unknown argument \"%s\"", a);
        if (!(*slot = kp_cli_optval(argc, argv, &i, "convert"))) return KP_EXIT_USAGE;
    }
    bool gpu = fmt && strcmp(fmt, "alibaba-gpu") == 0,
         spot = fmt && strcmp(fmt, "alibaba-spot") == 0, sk = fmt && strcmp(fmt, "simkube") == 0;
    if (!gpu && !spot && !sk)
        return kp_cli_usage_error("convert", USAGE,
                                  "FORMAT must be alibaba-gpu, alibaba-spot or simkube%s%s%s",
                                  fmt ? ", not \"" : "", fmt ? fmt : "", fmt ? "\"" : "");
    if (sk) return convert_simkube(trace, dir, nodes || pods || jobs || cluster || scenario);
    if (!nodes || (gpu && (!pods || jobs)) || (spot && (!jobs || pods)))
        return kp_cli_usage_error("convert", USAGE, "%s needs --nodes and %s", fmt,
                                  gpu ? "--pods" : "--jobs");
    if (!dir == !(cluster && scenario) || (dir && (cluster || scenario)) ||
        (!dir && (!cluster || !scenario)))
        return kp_cli_usage_error("convert", USAGE,
                                  "give -o DIR, or both --cluster FILE and --scenario FILE");
    kp_error err;
    kp_error_clear(&err);
    kp_converted *cv = NULL;
    kp_status st = gpu ? kp_convert_alibaba_gpu(nodes, pods, &cv, &err)
                       : kp_convert_alibaba_spot(nodes, jobs, &cv, &err);
    if (st != KP_OK) return kp_cli_print_error(&err);
    char pc[4096], ps[4096];
    if (dir) {
        snprintf(pc, sizeof pc, "%s/cluster.json", dir);
        snprintf(ps, sizeof ps, "%s/scenario.json", dir);
        cluster = pc;
        scenario = ps;
        st = kp__dir_make(dir, &err);
    }
    text tc, ts;
    tc.data = kp_converted_cluster(cv, &tc.len);
    ts.data = kp_converted_scenario(cv, &ts.len);
    if (st == KP_OK) st = write_to(cluster, &tc, &err);
    if (st == KP_OK) st = write_to(scenario, &ts, &err);
    kp_converted_stats s;
    kp_converted_stats_get(cv, &s);
    kp_converted_free(cv);
    if (st != KP_OK) return kp_cli_print_error(&err);
    fprintf(stderr, "kprio: converted %llu nodes and %llu pods (%llu actions): %s, %s\n",
            (unsigned long long)s.nodes, (unsigned long long)s.pods, (unsigned long long)s.actions,
            cluster, scenario);
    return KP_EXIT_OK;
}
