/* `kprio sweep --emit-job` (docs/reference.md "kprio sweep", "On Kubernetes: an Indexed Job"):
 * a ConfigMap holding the Sweep file, every file it names and every file its scenarios name,
 * each under the path the pods read it at below the mount (kp_sweep_inputs; or a
 * PersistentVolumeClaim the user filled), and an Indexed Job (batch/v1,
 * completionMode Indexed) whose pod I runs `kprio sweep -f /sweep/SWEEP --shard I/N`, I from
 * JOB_COMPLETION_INDEX (the Job controller sets it in each pod's environment and the kubelet
 * expands $(JOB_COMPLETION_INDEX) in the command). The shards go to the pods' logs, or to a
 * claim; `kprio sweep merge` combines them. One YAML stream on standard output. */
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "cli/cli.h"
#include "cli/sweep.h"

/* The API server refuses a ConfigMap whose values pass 1 MiB together (ValidateConfigMap sums
 * the values of data and binaryData against core.MaxSecretSize; the keys do not count). */
#define KP_CONFIGMAP_MAX_BYTES ((size_t)1024 * 1024)

/* s as a double-quoted scalar (JSON's escapes are YAML's) */
static void q(FILE *f, const char *s, size_t len) {
    kp__json j;
    kp__json_init(&j, false, NULL, NULL, NULL);
    kp__json_quoted(&j, s, len);
    if (j.st == KP_OK) fwrite(j.out.p, 1, j.out.len, f);
    kp__json_free(&j);
}

static void qs(FILE *f, const char *s) { q(f, s, strlen(s)); }

/* a DNS-1123 label short enough for "-inputs" after it (the Job's pods add their index too) */
static bool name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 52 || s[0] == '-' || s[n - 1] == '-') return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

static void config_map(FILE *f, const char *name, const kp_sweep_input *in, size_t n) {
    fprintf(f, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ");
    fprintf(f, "%s-inputs\n  labels:\n    app.kubernetes.io/name: kprio-sweep\n", name);
    fprintf(f, "    app.kubernetes.io/instance: %s\ndata:\n", name);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "  input-%zu: ", i);
        q(f, in[i].data, in[i].len);
        fputc('\n', f);
    }
}

static void container(FILE *f, const kp_cli_sweep_job *j, const char *file) {
    char shard[64];
    snprintf(shard, sizeof shard, "$(JOB_COMPLETION_INDEX)/%u", j->shards);
    fprintf(f, "      containers:\n      - name: kprio\n        image: ");
    qs(f, j->image);
    fprintf(f, "\n        command: [\"kprio\", \"sweep\", \"-f\", ");
    char path[1200];
    snprintf(path, sizeof path, "/sweep/%s", file);
    qs(f, path);
    fprintf(f, ", \"-j\", \"1\", \"--shard\", ");
    qs(f, shard);
    if (j->results_claim)
        fprintf(f, ", \"--shard-out\", \"/results/shard-$(JOB_COMPLETION_INDEX).json\"");
    fprintf(f, "]\n");
    /* the Job controller adds this variable to an Indexed Job's containers itself
     * (addCompletionIndexEnvVariable skips a container that has it): written out so the
     * manifest says where the index comes from */
    fprintf(f, "        env:\n        - name: JOB_COMPLETION_INDEX\n          valueFrom:\n"
               "            fieldRef:\n              fieldPath: "
               "metadata.annotations['batch.kubernetes.io/job-completion-index']\n");
    fprintf(f, "        resources:\n          requests:\n            cpu: \"1\"\n");
    fprintf(f, "        volumeMounts:\n        - name: inputs\n          mountPath: /sweep\n"
               "          readOnly: true\n");
    if (j->results_claim) fprintf(f, "        - name: results\n          mountPath: /results\n");
}

static void volumes(FILE *f, const char *name, const kp_cli_sweep_job *j, const kp_sweep_input *in,
                    size_t n) {
    fprintf(f, "      volumes:\n      - name: inputs\n");
    if (j->inputs_claim) {
        fprintf(f, "        persistentVolumeClaim:\n          claimName: ");
        qs(f, j->inputs_claim);
        fprintf(f, "\n          readOnly: true\n");
    } else {
        fprintf(f, "        configMap:\n          name: %s-inputs\n          items:\n", name);
        for (size_t i = 0; i < n; i++) {
            fprintf(f, "          - key: input-%zu\n            path: ", i);
            qs(f, in[i].path);
            fputc('\n', f);
        }
    }
    if (j->results_claim) {
        fprintf(f, "      - name: results\n        persistentVolumeClaim:\n          claimName: ");
        qs(f, j->results_claim);
        fputc('\n', f);
    }
}

int kp_cli_sweep_emit_job(FILE *f, const kp_sweep *sw, const kp_cli_sweep_job *j0) {
    kp_cli_sweep_job j = *j0;
    if (!j.shards) j.shards = 4;
    if (!j.parallelism || j.parallelism > j.shards) j.parallelism = j.shards;
    const char *name = j.name ? j.name : sw->name[0] ? sw->name : "kprio-sweep";
    if (!name_ok(name))
        return kp_cli_usage_hint("sweep",
                                 "--emit-job: the Job's name \"%s\" must be lower-case letters, "
                                 "digits and '-' (at most 52; --name NAME)",
                                 name);
    const char *slash = strrchr(j.sweep_path, '/');
    const char *file = slash ? slash + 1 : j.sweep_path;
    kp_sweep_input *in = NULL;
    size_t n = 0, total = 0;
    kp_error err;
    kp_error_clear(&err);
    if (!j.inputs_claim) {
        if (kp_sweep_inputs(sw, &in, &n, &err) != KP_OK) return kp_cli_print_error(&err);
        for (size_t i = 0; i < n; i++) total += in[i].len;
        if (total > KP_CONFIGMAP_MAX_BYTES) {
            kp_sweep_inputs_free(in, n);
            kp_cli_eprintf("kprio: %s: the inputs are %zu bytes in %zu files and a ConfigMap "
                           "holds 1 MiB (1048576 bytes) at most: put them on a volume and give "
                           "--inputs-claim PVC",
                           sw->source, total, n);
            return KP_EXIT_ERROR;
        }
        config_map(f, name, in, n);
        fprintf(f, "---\n");
    }
    fprintf(f, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\n  labels:\n", name);
    fprintf(f, "    app.kubernetes.io/name: kprio-sweep\n    app.kubernetes.io/instance: %s\n",
            name);
    fprintf(f, "spec:\n  completionMode: Indexed\n  completions: %u\n  parallelism: %u\n", j.shards,
            j.parallelism);
    fprintf(f, "  backoffLimit: %u\n  template:\n    metadata:\n      labels:\n", j.shards * 2);
    fprintf(f,
            "        app.kubernetes.io/name: kprio-sweep\n        app.kubernetes.io/instance: "
            "%s\n    spec:\n      restartPolicy: Never\n",
            name);
    /* the image's user (Containerfile); fsGroup lets it write to a --results-claim volume */
    fprintf(f, "      securityContext:\n        runAsNonRoot: true\n        runAsUser: 65532\n"
               "        fsGroup: 65532\n");
    container(f, &j, file);
    volumes(f, name, &j, in, n);
    kp_sweep_inputs_free(in, n);
    return KP_EXIT_OK;
}
