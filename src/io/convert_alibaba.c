/* Alibaba's public GPU traces into a snapshot and a Scenario (include/kprio/convert.h,
 * docs/live.md "Converting public traces"): cluster-trace-gpu-v2023 (the node list and a pod
 * list) and cluster-trace-v2026-spot-gpu (nodes and jobs, high-priority and spot). CSV with a
 * header row; columns found by name, others ignored. Errors name the file, the line and the
 * column: `pods.csv: line 7: cpu_milli: expected a number, got "x"`. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/convert.h"
#include "io/input.h"
#include "io/tree_text.h"
#include "kprio/convert.h"

#define CSV_MAX_BYTES ((size_t)4 << 30)
#define CSV_MAX_COLUMNS 64


/* ---------------------------------------------------------------- CSV */

typedef struct {
    const char *path;
    char *buf;
    size_t len, pos;
    long line;
    const char *f[CSV_MAX_COLUMNS]; /* the current row's fields (not NUL-terminated) */
    size_t fl[CSV_MAX_COLUMNS], n;
    char head[CSV_MAX_COLUMNS][32]; /* the header's names (cut at 31 bytes) */
    size_t n_head;
    kp_error *err;
} csv;

static kp_status csv_fail(csv *c, const char *col, const char *msg, const char *v, size_t n) {
    int w = (int)(n > 60 ? 60 : n);
    kp_status st =
        kp_error_set(c->err, KP_EINVAL, "line %ld: %s%s%s%s%.*s%s", c->line, col ? col : "",
                     col ? ": " : "", msg, v ? " \"" : "", v ? w : 0, v ? v : "", v ? "\"" : "");
    if (c->err) snprintf(c->err->source, sizeof c->err->source, "%s", c->path);
    return st;
}

/* The next row into c->f (1), end of file (0), or an error (< 0). Blank lines are skipped. */
static int csv_next(csv *c, kp_status *st) {
    while (c->pos < c->len) {
        size_t s = c->pos, e = s;
        while (e < c->len && c->buf[e] != '\n') e++;
        c->pos = e < c->len ? e + 1 : e;
        c->line++;
        size_t end = e;
        if (end > s && c->buf[end - 1] == '\r') end--;
        if (end == s) continue;
        c->n = 0;
        size_t i = s;
        for (;;) {
            if (c->n == CSV_MAX_COLUMNS) {
                *st = csv_fail(c, NULL, "more than 64 columns (the limit)", NULL, 0);
                return -1;
            }
            size_t a = i, b;
            if (i < end && c->buf[i] == '"') { /* a quoted field: up to the closing quote */
                a = ++i;
                while (i < end && c->buf[i] != '"') i++;
                b = i;
                if (i < end) i++;
            } else {
                while (i < end && c->buf[i] != ',') i++;
                b = i;
            }
            c->f[c->n] = c->buf + a;
            c->fl[c->n++] = b - a;
            if (i >= end || c->buf[i] != ',') break;
            i++;
        }
        return 1;
    }
    return 0;
}

static kp_status csv_open(csv *c, const char *path, kp_error *err) {
    memset(c, 0, sizeof *c);
    c->path = path;
    c->err = err;
    kp_status st = kp__read_file(path, CSV_MAX_BYTES, &c->buf, &c->len, err);
    if (st != KP_OK) {
        if (err) snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    int r = csv_next(c, &st);
    if (r < 0) return st;
    if (r == 0) return csv_fail(c, NULL, "no header row (an empty file)", NULL, 0);
    for (size_t i = 0; i < c->n; i++) {
        size_t n = c->fl[i] < 31 ? c->fl[i] : 31;
        memcpy(c->head[i], c->f[i], n);
        c->head[i][n] = 0;
    }
    c->n_head = c->n;
    return KP_OK;
}

/* The column named name (-1 when required and missing: an error is set in *st). */
static int csv_col(csv *c, const char *name, bool required, kp_status *st) {
    for (size_t i = 0; i < c->n_head; i++)
        if (strcmp(c->head[i], name) == 0) return (int)i;
    if (required) {
        long l = c->line;
        c->line = 1;
        *st = csv_fail(c, name, "no such column in the header", NULL, 0);
        c->line = l;
    }
    return -1;
}

/* The field of column i as text ("" when the row is shorter; "nan" and "" mean none). */
static bool field(const csv *c, int i, const char **p, size_t *n) {
    *p = "";
    *n = 0;
    if (i < 0 || (size_t)i >= c->n) return false;
    *p = c->f[i];
    *n = c->fl[i];
    return *n && !(*n == 3 && (memcmp(*p, "nan", 3) == 0 || memcmp(*p, "NaN", 3) == 0));
}

/* A decimal number of column i times scale (1, 1000), exactly: "4000", "4000.0", "2.5";
 * *present false for none. */
static kp_status number(csv *c, int i, const char *col, int64_t scale, int64_t *out,
                        bool *present) {
    const char *p;
    size_t n;
    *out = 0;
    *present = field(c, i, &p, &n);
    if (!*present) return KP_OK;
    int64_t v = 0, frac = 0, div = 1;
    size_t k = 0;
    bool digits = false, dot = false;
    for (; k < n; k++) {
        char ch = p[k];
        if (ch == '.' && !dot) {
            dot = true;
            continue;
        }
        if (ch < '0' || ch > '9') break;
        digits = true;
        if (!dot) {
            if (v > (INT64_MAX / 10 - 9) / (scale > 0 ? scale : 1))
                return csv_fail(c, col, "number too large", p, n);
            v = v * 10 + (ch - '0');
        } else if (div < scale) {
            frac = frac * 10 + (ch - '0');
            div *= 10;
        } else if (ch != '0') {
            return csv_fail(c, col, "more decimals than the unit holds", p, n);
        }
    }
    if (k != n || !digits) return csv_fail(c, col, "expected a number, got", p, n);
    *out = v * scale + frac * (scale / div);
    return KP_OK;
}

/* A name: letters, digits, '-', '.', '_' (the traces' names and GPU models), not empty. */
static kp_status name_of(csv *c, int i, const char *col, char *buf, size_t cap) {
    const char *p;
    size_t n;
    if (!field(c, i, &p, &n)) return csv_fail(c, col, "required", NULL, 0);
    if (n >= cap) return csv_fail(c, col, "longer than 63 bytes", p, n);
    for (size_t k = 0; k < n; k++) {
        char ch = p[k];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '.' || ch == '_'))
            return csv_fail(c, col, "expected letters, digits, '-', '.' or '_', got", p, n);
    }
    memcpy(buf, p, n);
    buf[n] = 0;
    return KP_OK;
}

/* ---------------------------------------------------------------- output */

static void puts_(kp_tbuf *b, const char *s) { kp__tbuf_put(b, s, strlen(s)); }

static void putf(kp_tbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void putf(kp_tbuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) kp__tbuf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void begin(kp_converted *cv) {
    puts_(&cv->cluster, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    puts_(&cv->scenario, "{\"apiVersion\":\"kprio/v1alpha1\",\"kind\":\"Scenario\",\"actions\":[");
}

static void priority_class(kp_converted *cv, const char *name, int value, const char *what) {
    putf(&cv->cluster,
         "%s{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
         "{\"name\":\"%s\"},\"value\":%d,\"description\":\"%s\"}",
         cv->items ? "," : "", name, value, what);
    cv->items++;
}

/* a node: cpu in milli, memory in MiB (< 0: the trace has none), gpu: the extended resource
 * and its amount (NULL: none), model: the GPU model label ("" none) */
static void node(kp_converted *cv, const char *name, int64_t cpu_m, int64_t mem_mi,
                 const char *gpu_res, int64_t gpu, const char *model) {
    kp_tbuf *b = &cv->cluster;
    putf(b,
         ",{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":"
         "{\"kubernetes.io/hostname\":\"%s\"",
         name, name);
    if (model[0]) putf(b, ",\"alibaba.com/gpu-model\":\"%s\"", model);
    putf(b,
         "}},\"status\":{\"allocatable\":{\"cpu\":\"%lldm\",\"memory\":\"%s%lld%s\","
         "\"pods\":\"110\"",
         (long long)cpu_m, "", (long long)(mem_mi < 0 ? 1 : mem_mi), mem_mi < 0 ? "Ti" : "Mi");
    if (gpu_res && gpu > 0) putf(b, ",\"%s\":\"%lld\"", gpu_res, (long long)gpu);
    puts_(b, "}}}");
    cv->st.nodes++;
    cv->items++;
}

/* a create action of a pod at `at` seconds, and its deletion at `del` (< 0: none) */
static void pod(kp_converted *cv, int64_t at, int64_t del, const char *name, const char *pclass,
                int64_t cpu_m, int64_t mem_mi, const char *gpu_res, int64_t gpu, const char *models,
                const char *label_key, const char *label_value) {
    kp_tbuf *b = &cv->scenario;
    putf(b,
         "%s{\"at\":\"%llds\",\"create\":{\"objects\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
         "\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"labels\":{\"%s\":\"%s\"}},"
         "\"spec\":{\"priorityClassName\":\"%s\",",
         cv->st.actions ? "," : "", (long long)at, name, label_key, label_value, pclass);
    if (models[0]) {
        puts_(b, "\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution"
                 "\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"alibaba.com/gpu-"
                 "model\",\"operator\":\"In\",\"values\":[");
        for (const char *p = models; *p;) {
            const char *e = strchr(p, '|');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (p != models) puts_(b, ",");
            kp__tbuf_quoted(b, p, n);
            p += n + (e ? 1 : 0);
        }
        puts_(b, "]}]}]}}},");
    }
    putf(b,
         "\"containers\":[{\"name\":\"main\",\"image\":\"trace\",\"resources\":{\"requests\":"
         "{\"cpu\":\"%lldm\"",
         (long long)cpu_m);
    if (mem_mi >= 0) putf(b, ",\"memory\":\"%lldMi\"", (long long)mem_mi);
    if (gpu_res && gpu > 0) {
        putf(b, ",\"%s\":\"%lld\"},\"limits\":{\"%s\":\"%lld\"", gpu_res, (long long)gpu, gpu_res,
             (long long)gpu);
    }
    puts_(b, "}}}]}}]}}");
    cv->st.actions++;
    cv->st.pods++;
    if (del >= 0) {
        putf(b,
             ",{\"at\":\"%llds\",\"delete\":{\"kind\":\"Pod\",\"namespace\":\"default\","
             "\"name\":\"%s\"}}",
             (long long)del, name);
        cv->st.actions++;
    }
}

static kp_status finish(kp_converted *cv, int64_t last, kp_error *err) {
    puts_(&cv->cluster, "]}\n");
    putf(&cv->scenario, "],\"duration\":\"%llds\"}\n", (long long)(last > 0 ? last : 1));
    if (cv->cluster.oom || cv->scenario.oom) return kp_error_set(err, KP_ENOMEM, "out of memory");
    return KP_OK;
}

/* ---------------------------------------------------------------- cluster-trace-gpu-v2023 */

static kp_status gpu_nodes(kp_converted *cv, const char *path, kp_error *err) {
    csv c;
    kp_status st = csv_open(&c, path, err);
    int sn = -1, cpu = -1, mem = -1, gpu = -1, model = -1;
    if (st == KP_OK) sn = csv_col(&c, "sn", true, &st);
    if (st == KP_OK) cpu = csv_col(&c, "cpu_milli", true, &st);
    if (st == KP_OK) mem = csv_col(&c, "memory_mib", true, &st);
    if (st == KP_OK) gpu = csv_col(&c, "gpu", true, &st);
    if (st == KP_OK) model = csv_col(&c, "model", false, &st);
    int r;
    while (st == KP_OK && (r = csv_next(&c, &st)) > 0) {
        char name[64], mdl[64] = "";
        int64_t vc, vm, vg;
        bool has, hm, hg;
        const char *p;
        size_t n;
        if ((st = name_of(&c, sn, "sn", name, sizeof name)) != KP_OK ||
            (st = number(&c, cpu, "cpu_milli", 1, &vc, &has)) != KP_OK ||
            (st = number(&c, mem, "memory_mib", 1, &vm, &hm)) != KP_OK ||
            (st = number(&c, gpu, "gpu", 1, &vg, &hg)) != KP_OK)
            break;
        if (field(&c, model, &p, &n) &&
            (st = name_of(&c, model, "model", mdl, sizeof mdl)) != KP_OK)
            break;
        node(cv, name, vc, vm, "alibaba.com/gpu-milli", vg * 1000, mdl);
    }
    kp__free(c.buf);
    return st;
}

static const struct {
    const char *qos, *pclass;
    int value;
} QOS[] = {{"LS", "alibaba-ls", 1000},
           {"Guaranteed", "alibaba-guaranteed", 800},
           {"Burstable", "alibaba-burstable", 500},
           {"BE", "alibaba-be", 100}};

static kp_status gpu_pods(kp_converted *cv, const char *path, kp_error *err) {
    csv c;
    kp_status st = csv_open(&c, path, err);
    int col[9];
    static const char *const names[9] = {"name",    "cpu_milli",     "memory_mib",
                                         "num_gpu", "gpu_milli",     "gpu_spec",
                                         "qos",     "creation_time", "deletion_time"};
    for (int i = 0; i < 9 && st == KP_OK; i++) col[i] = csv_col(&c, names[i], i != 5, &st);
    /* times from the first creation */
    int64_t t0 = INT64_MAX, last = 0;
    int r;
    size_t rows = 0;
    while (st == KP_OK && (r = csv_next(&c, &st)) > 0) {
        int64_t t;
        bool has;
        if ((st = number(&c, col[7], "creation_time", 1, &t, &has)) != KP_OK) break;
        if (!has) {
            st = csv_fail(&c, "creation_time", "required", NULL, 0);
            break;
        }
        if (t < t0) t0 = t;
        rows++;
    }
    c.pos = 0;
    c.line = 0;
    if (st == KP_OK) csv_next(&c, &st); /* the header again */
    while (st == KP_OK && (r = csv_next(&c, &st)) > 0) {
        char name[64], spec[256] = "";
        int64_t cpu, mem, ng, gm, ct, dt;
        bool h1, h2, h3, h4, h5, h6;
        const char *p;
        size_t n;
        if ((st = name_of(&c, col[0], "name", name, sizeof name)) != KP_OK ||
            (st = number(&c, col[1], "cpu_milli", 1, &cpu, &h1)) != KP_OK ||
            (st = number(&c, col[2], "memory_mib", 1, &mem, &h2)) != KP_OK ||
            (st = number(&c, col[3], "num_gpu", 1, &ng, &h3)) != KP_OK ||
            (st = number(&c, col[4], "gpu_milli", 1, &gm, &h4)) != KP_OK ||
            (st = number(&c, col[7], "creation_time", 1, &ct, &h5)) != KP_OK ||
            (st = number(&c, col[8], "deletion_time", 1, &dt, &h6)) != KP_OK)
            break;
        if (field(&c, col[5], &p, &n)) {
            if (n >= sizeof spec) {
                st = csv_fail(&c, "gpu_spec", "too long", p, n);
                break;
            }
            /* GPU models joined by '|' ("V100M16|V100M32"): written into a label value and
             * JSON as is, so only the characters those take (no quote, no byte past ASCII) */
            size_t bad = 0;
            while (bad < n &&
                   (isalnum((unsigned char)p[bad]) || (p[bad] && strchr("|._-", p[bad]))))
                bad++;
            if (bad < n) {
                st = csv_fail(&c, "gpu_spec",
                              "expected GPU models (letters, digits, '|', '.', '_', '-'), got", p,
                              n);
                break;
            }
            memcpy(spec, p, n);
            spec[n] = 0;
        }
        size_t q = 0;
        field(&c, col[6], &p, &n);
        while (q < 4 && !(strlen(QOS[q].qos) == n && memcmp(QOS[q].qos, p, n) == 0)) q++;
        if (q == 4) {
            st = csv_fail(&c, "qos", "expected LS, Guaranteed, Burstable or BE, got", p, n);
            break;
        }
        /* a shared GPU (num_gpu 1, gpu_milli < 1000) asks for its share; whole GPUs 1000 each */
        int64_t milli = ng == 1 && h4 && gm > 0 && gm < 1000 ? gm : ng * 1000;
        int64_t at = ct - t0, del = h6 && dt > ct ? dt - t0 : -1;
        if (del > last) last = del;
        if (at > last) last = at;
        pod(cv, at, del, name, QOS[q].pclass, cpu, mem, "alibaba.com/gpu-milli", milli, spec,
            "alibaba.com/qos", QOS[q].qos);
    }
    (void)rows;
    kp__free(c.buf);
    return st == KP_OK ? finish(cv, last + 1, err) : st;
}

kp_status kp_convert_alibaba_gpu(const char *nodes_csv, const char *pods_csv, kp_converted **out,
                                 kp_error *err) {
    *out = NULL;
    kp_converted *cv = kp__calloc(1, sizeof *cv);
    if (!cv) return kp_error_set(err, KP_ENOMEM, "out of memory");
    begin(cv);
    for (size_t q = 0; q < 4; q++) {
        char what[80];
        snprintf(what, sizeof what, "Alibaba QoS %s", QOS[q].qos);
        priority_class(cv, QOS[q].pclass, QOS[q].value, what);
    }
    kp_status st = gpu_nodes(cv, nodes_csv, err);
    if (st == KP_OK) st = gpu_pods(cv, pods_csv, err);
    if (st != KP_OK) {
        kp_converted_free(cv);
        return st;
    }
    *out = cv;
    return KP_OK;
}

/* ---------------------------------------------------------------- cluster-trace-v2026-spot-gpu */

static kp_status spot_nodes(kp_converted *cv, const char *path, kp_error *err) {
    csv c;
    kp_status st = csv_open(&c, path, err);
    int nm = -1, model = -1, gpu = -1, cpu = -1;
    if (st == KP_OK) nm = csv_col(&c, "node_name", true, &st);
    if (st == KP_OK) model = csv_col(&c, "gpu_model", true, &st);
    if (st == KP_OK) gpu = csv_col(&c, "gpu_capacity_num", true, &st);
    if (st == KP_OK) cpu = csv_col(&c, "cpu_num", true, &st);
    int r;
    while (st == KP_OK && (r = csv_next(&c, &st)) > 0) {
        char id[64], name[80], mdl[64] = "";
        int64_t vg, vc;
        bool hg, hc;
        const char *p;
        size_t n;
        if ((st = name_of(&c, nm, "node_name", id, sizeof id)) != KP_OK ||
            (st = number(&c, gpu, "gpu_capacity_num", 1, &vg, &hg)) != KP_OK ||
            (st = number(&c, cpu, "cpu_num", 1000, &vc, &hc)) != KP_OK)
            break;
        if (field(&c, model, &p, &n) &&
            (st = name_of(&c, model, "gpu_model", mdl, sizeof mdl)) != KP_OK)
            break;
        snprintf(name, sizeof name, "node-%s", id);
        node(cv, name, vc, -1, "nvidia.com/gpu", vg, mdl);
    }
    kp__free(c.buf);
    return st;
}

static kp_status spot_jobs(kp_converted *cv, const char *path, kp_error *err) {
    csv c;
    kp_status st = csv_open(&c, path, err);
    int col[9];
    static const char *const names[9] = {"job_name",    "organization", "gpu_model",
                                         "cpu_request", "gpu_request",  "worker_num",
                                         "submit_time", "duration",     "job_type"};
    for (int i = 0; i < 9 && st == KP_OK; i++) col[i] = csv_col(&c, names[i], i != 1, &st);
    int64_t last = 0;
    int r;
    while (st == KP_OK && (r = csv_next(&c, &st)) > 0) {
        char job[64], mdl[64] = "", org[64] = "none";
        int64_t cpu, gpu, workers, at, dur;
        bool h1, h2, h3, h4, h5;
        const char *p;
        size_t n;
        if ((st = name_of(&c, col[0], "job_name", job, sizeof job)) != KP_OK ||
            (st = number(&c, col[3], "cpu_request", 1000, &cpu, &h1)) != KP_OK ||
            (st = number(&c, col[4], "gpu_request", 1, &gpu, &h2)) != KP_OK ||
            (st = number(&c, col[5], "worker_num", 1, &workers, &h3)) != KP_OK ||
            (st = number(&c, col[6], "submit_time", 1, &at, &h4)) != KP_OK ||
            (st = number(&c, col[7], "duration", 1, &dur, &h5)) != KP_OK)
            break;
        if (field(&c, col[2], &p, &n) &&
            (st = name_of(&c, col[2], "gpu_model", mdl, sizeof mdl)) != KP_OK)
            break;
        if (field(&c, col[1], &p, &n) &&
            (st = name_of(&c, col[1], "organization", org, sizeof org)) != KP_OK)
            break;
        if (!h4) {
            st = csv_fail(&c, "submit_time", "required", NULL, 0);
            break;
        }
        if (!h3) workers = 1;
        if (workers < 1 || workers > 100000) {
            st = csv_fail(&c, "worker_num", "expected 1 to 100000 (the limit)", NULL, 0);
            break;
        }
        field(&c, col[8], &p, &n);
        bool hp = n == 2 && memcmp(p, "HP", 2) == 0;
        if (!hp && !(n == 4 && memcmp(p, "Spot", 4) == 0)) {
            st = csv_fail(&c, "job_type", "expected HP or Spot, got", p, n);
            break;
        }
        int64_t del = h5 && dur > 0 ? at + dur : -1;
        if (del > last) last = del;
        if (at > last) last = at;
        for (int64_t w = 0; w < workers; w++) {
            char name[96];
            snprintf(name, sizeof name, "job-%s-%lld", job, (long long)w);
            for (char *q = name; *q; q++)
                if (*q == '_' || *q == '.') *q = '-';
                else if (*q >= 'A' && *q <= 'Z') *q = (char)(*q - 'A' + 'a');
            pod(cv, at, del, name, hp ? "alibaba-hp" : "alibaba-spot", cpu, -1, "nvidia.com/gpu",
                gpu, mdl, "alibaba.com/organization", org);
        }
    }
    kp__free(c.buf);
    return st == KP_OK ? finish(cv, last + 1, err) : st;
}

kp_status kp_convert_alibaba_spot(const char *nodes_csv, const char *jobs_csv, kp_converted **out,
                                  kp_error *err) {
    *out = NULL;
    kp_converted *cv = kp__calloc(1, sizeof *cv);
    if (!cv) return kp_error_set(err, KP_ENOMEM, "out of memory");
    begin(cv);
    priority_class(cv, "alibaba-hp", 1000, "Alibaba high-priority jobs");
    priority_class(cv, "alibaba-spot", 100, "Alibaba spot jobs");
    kp_status st = spot_nodes(cv, nodes_csv, err);
    if (st == KP_OK) st = spot_jobs(cv, jobs_csv, err);
    if (st != KP_OK) {
        kp_converted_free(cv);
        return st;
    }
    *out = cv;
    return KP_OK;
}

/* ---------------------------------------------------------------- results */

const char *kp_converted_cluster(const kp_converted *c, size_t *len) {
    *len = c->cluster.n;
    return c->cluster.p ? c->cluster.p : "";
}
const char *kp_converted_scenario(const kp_converted *c, size_t *len) {
    *len = c->scenario.n;
    return c->scenario.p ? c->scenario.p : "";
}
const char *kp_converted_file(const kp_converted *c, size_t i, const char **name, size_t *len) {
    static const char *const PLAIN[] = {"cluster.json", "scenario.json"};
    static const char *const TRACE[] = {"manifest.json", "snapshot/cluster.json",
                                        "watch/simkube.json", "README"};
    const kp_tbuf *plain[] = {&c->cluster, &c->scenario},
                  *trace[] = {&c->manifest, &c->cluster, &c->watch, &c->readme};
    size_t n = c->is_trace ? 4 : 2;
    if (i >= n) return NULL;
    const kp_tbuf *b = c->is_trace ? trace[i] : plain[i];
    *name = c->is_trace ? TRACE[i] : PLAIN[i];
    *len = b->n;
    return b->p ? b->p : "";
}
void kp_converted_stats_get(const kp_converted *c, kp_converted_stats *out) { *out = c->st; }
void kp_converted_free(kp_converted *c) {
    if (!c) return;
    kp__free(c->cluster.p);
    kp__free(c->scenario.p);
    kp__free(c->manifest.p);
    kp__free(c->watch.p);
    kp__free(c->readme.p);
    kp__free(c);
}
