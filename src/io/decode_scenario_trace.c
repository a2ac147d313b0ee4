/* The `trace` usage model's CSV (docs/scenario.md "Usage"): lines `time,value`, read when the
 * scenario is loaded. Errors name the scenario's entry, the CSV, its line and the field:
 *     scenario.yaml: usage[2]: trace.file: trace.csv: line 3: value: invalid quantity "12Q"
 * time: a Go duration ("90s", "1m30s") or a plain number of seconds ("90", "1.5"), at least 0,
 * strictly increasing, a whole number of milliseconds; value: a quantity ("512Mi", "100"), not
 * negative. Blank lines and lines starting with '#' are skipped; the first other line may be the
 * header `time,value`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/gosyntax.h"
#include "io/decode_scenario.h"
#include "io/input.h"
#include "kprio/quantity.h"

#define TRACE_MAX_BYTES ((size_t)1 << 30)

static void trim(const char **p, const char **e) {
    while (*p < *e && (**p == ' ' || **p == '\t')) (*p)++;
    while (*e > *p && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r')) (*e)--;
}

static bool plain_number(const char *p, size_t n) {
    bool digit = false;
    for (size_t i = 0; i < n; i++) {
        if (p[i] >= '0' && p[i] <= '9') digit = true;
        else if (p[i] != '.') return false;
    }
    return digit;
}

/* one `time,value` line into (*t, *v); a message into msg / field on error */
static bool parse_line(const char *p, const char *e, int64_t *t, int64_t *v, const char **field,
                       char *msg, size_t cap) {
    const char *comma = memchr(p, ',', (size_t)(e - p));
    *field = "time";
    if (!comma) {
        snprintf(msg, cap, "expected \"time,value\"");
        return false;
    }
    const char *tp = p, *te = comma, *vp = comma + 1, *ve = e;
    trim(&tp, &te);
    trim(&vp, &ve);
    char buf[96];
    size_t tl = (size_t)(te - tp);
    if (tl + 2 > sizeof buf) {
        snprintf(msg, cap, "too long");
        return false;
    }
    memcpy(buf, tp, tl);
    if (plain_number(tp, tl)) buf[tl++] = 's';
    buf[tl] = 0;
    int64_t ns = 0;
    char m[200];
    if (kp__go_parse_duration(buf, tl, &ns, m, sizeof m) != KP_OK) {
        snprintf(msg, cap, "%s", strncmp(m, "time: ", 6) == 0 ? m + 6 : m);
        return false;
    }
    if (ns < 0 || ns % 1000000 != 0) {
        snprintf(msg, cap, "\"%.*s\" %s", (int)(te - tp), tp,
                 ns < 0 ? "must not be negative" : "is not a whole number of milliseconds");
        return false;
    }
    *t = ns / 1000000;
    *field = "value";
    kp_quantity q;
    kp_error qe;
    kp_error_clear(&qe);
    if (memchr(vp, ',', (size_t)(ve - vp))) {
        snprintf(msg, cap, "expected \"time,value\" (one comma)");
        return false;
    }
    if (kp_quantity_parse(vp, (size_t)(ve - vp), &q, &qe) != KP_OK) {
        snprintf(msg, cap, "invalid quantity \"%.*s\": %.200s", (int)(ve - vp > 64 ? 64 : ve - vp),
                 vp, qe.msg);
        return false;
    }
    if (kp_quantity_value(&q, v) != KP_OK || *v == INT64_MAX || *v == INT64_MIN) {
        snprintf(msg, cap, "quantity \"%.*s\" is too large", (int)(ve - vp > 64 ? 64 : ve - vp),
                 vp);
        return false;
    }
    if (*v < 0) {
        snprintf(msg, cap, "must not be negative");
        return false;
    }
    return true;
}

static kp_status parse(kp_dctx *d, scen *s, const kp_tnode *fn, const char *path, const char *buf,
                       size_t len, kp_scenario_usage *u) {
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    u->trace_ms = kp__arena_alloc(&s->arena, lines * sizeof *u->trace_ms);
    u->trace_v = kp__arena_alloc(&s->arena, lines * sizeof *u->trace_v);
    if (!u->trace_ms || !u->trace_v) return kp__sc_nomem(d);
    const char *p = buf, *end = buf + len;
    bool header_ok = true;
    for (size_t line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *q = p, *qe = e;
        p = nl ? nl + 1 : end;
        trim(&q, &qe);
        if (q == qe || *q == '#') continue;
        bool header = header_ok && (size_t)(qe - q) == 10 && memcmp(q, "time,value", 10) == 0;
        header_ok = false;
        if (header) continue;
        int64_t t = 0, v = 0;
        const char *field = "";
        char msg[512];
        if (!parse_line(q, qe, &t, &v, &field, msg, sizeof msg))
            return kp__dctx_fail(d, fn, KP_EINVAL, "file", "%s: line %zu: %s: %s", path, line,
                                 field, msg);
        if (u->n_trace && t <= u->trace_ms[u->n_trace - 1])
            return kp__dctx_fail(d, fn, KP_EINVAL, "file",
                                 "%s: line %zu: time: must be after the previous line's", path,
                                 line);
        u->trace_ms[u->n_trace] = t;
        u->trace_v[u->n_trace++] = v;
    }
    if (!u->n_trace) return kp__dctx_fail(d, fn, KP_EINVAL, "file", "%s: no time,value line", path);
    return KP_OK;
}

kp_status kp__sc_read_trace(kp_dctx *d, scen *s, const char *base_dir, const kp_tnode *fn,
                            kp_scenario_usage *u) {
    const char *f = u->trace_file;
    char *path = kp__sc_path(base_dir, f);
    if (!path) return kp__sc_nomem(d);
    char *buf = NULL;
    size_t len = 0;
    kp_error e;
    kp_error_clear(&e);
    struct stat sb;
    kp_status st;
    if (stat(path, &sb) != 0) st = kp_error_set(&e, KP_EIO, "cannot open: %s", strerror(errno));
    else if (!S_ISREG(sb.st_mode)) st = kp_error_set(&e, KP_EIO, "not a regular file");
    else st = kp__read_file(path, TRACE_MAX_BYTES, &buf, &len, &e);
    if (st == KP_ENOMEM) st = kp__sc_nomem(d);
    else if (st != KP_OK) st = kp__dctx_fail(d, fn, st, "file", "%s: %s", path, e.msg);
    else st = parse(d, s, fn, path, buf, len, u);
    if (st == KP_OK) st = kp__sc_name_file(d, s, "file", f);
    kp__free(buf);
    kp__free(path);
    return st;
}
