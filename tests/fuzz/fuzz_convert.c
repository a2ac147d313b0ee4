/* libFuzzer harness for the trace converters (kp_convert_alibaba_gpu, kp_convert_alibaba_spot,
 * src/io/convert_alibaba.c): the first byte picks the converter and which of its two CSV files
 * the rest of the input is (the other is a fixed valid file). Any input must end in KP_OK or a
 * clean error with a message (crashes, leaks and sanitizer reports are bugs); a conversion that
 * succeeds gives JSON that the cluster loader and the scenario decoder read or refuse with a
 * message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprio/cluster.h"
#include "kprio/convert.h"
#include "kprio/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char GPU_NODES[] = "sn,cpu_milli,memory_mib,gpu,model\nn1,32000,262144,8,G3\n";
static const char GPU_PODS[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
                               "creation_time,deletion_time\np1,4000,8192,1,500,G3,LS,10,20\n";
static const char SPOT_NODES[] = "node_name,gpu_model,gpu_capacity_num,cpu_num\n0,A10,4,64\n";
static const char SPOT_JOBS[] = "job_name,organization,gpu_model,cpu_request,gpu_request,"
                                "worker_num,submit_time,duration,job_type\n1,2,A10,4,1,2,0,60,HP\n";

static char dir[64];

static const char *put(const char *name, const void *p, size_t n) {
    static char path[4][128];
    static int k;
    char *s = path[k++ & 3];
    snprintf(s, 128, "%s/%s", dir, name);
    FILE *f = fopen(s, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) abort();
    return s;
}

static void cleanup(void) {
    char p[128];
    snprintf(p, sizeof p, "%s/a.csv", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/b.csv", dir);
    unlink(p);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/kprio-fuzz-convert.%ld", (long)getpid());
        mkdir(dir, 0700);
        atexit(cleanup);
    }
    unsigned pick = data[0] & 3;
    bool spot = pick >= 2, first = (pick & 1) == 0;
    const char *fixed = spot ? (first ? SPOT_JOBS : SPOT_NODES) : (first ? GPU_PODS : GPU_NODES);
    const char *fuzzed = put("a.csv", data + 1, size - 1);
    const char *other = put("b.csv", fixed, strlen(fixed));
    const char *nodes = first ? fuzzed : other, *rows = first ? other : fuzzed;
    kp_error err;
    kp_error_clear(&err);
    kp_converted *c = NULL;
    kp_status st = spot ? kp_convert_alibaba_spot(nodes, rows, &c, &err)
                        : kp_convert_alibaba_gpu(nodes, rows, &c, &err);
    if (st != KP_OK) {
        if (c || !err.msg[0]) abort();
        return 0;
    }
    size_t n1 = 0, n2 = 0;
    const char *cl_text = kp_converted_cluster(c, &n1), *sc_text = kp_converted_scenario(c, &n2);
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(&err);
    if (cl && kp_cluster_load_buffer(cl, "cluster.json", cl_text, n1, &err) != KP_OK &&
        (err.code == KP_ESYNTAX || !err.msg[0]))
        abort(); /* the converter writes valid JSON whatever it read */
    kp_cluster_free(cl);
    kp_scenario *sc = NULL;
    kp_error_clear(&err);
    if (kp_scenario_load_buffer("scenario.json", sc_text, n2, NULL, &sc, &err) != KP_OK &&
        (err.code == KP_ESYNTAX || !err.msg[0]))
        abort();
    kp_scenario_free(sc);
    kp_converted_free(c);
    return 0;
}
