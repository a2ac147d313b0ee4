/* spec.schedulingGates of a Pod: the API server's validation of the gate names
 * (ValidatePodSpec: qualified names, no duplicates), split out of decode_pod.c. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cluster.h"
#include "core/pod.h"
#include "io/dctx.h"
#include "io/decode_common.h"
#include "io/decode_pod_gates.h"

#define TRY(x)                        \
    do {                              \
        kp_status st_ = (x);          \
        if (st_ != KP_OK) return st_; \
    } while (0)

/* mirrors IsQualifiedName (apimachinery validation): "[prefix/]name", the prefix a lowercase RFC
 * 1123 subdomain of at most 253 characters, the name 1..63 alphanumerics, '-', '_' or '.',
 * starting and ending with an alphanumeric. NULL when valid, else upstream's message. */
static const char *qualified_name_error(const char *s, size_t len) {
    static const char *const name_fmt =
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const char *slash = memchr(s, '/', len);
    const char *name = s;
    size_t nlen = len;
    if (slash) {
        size_t plen = (size_t)(slash - s);
        name = slash + 1;
        nlen = len - plen - 1;
        if (memchr(name, '/', nlen))
            return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                   "'my.name',  or '123-abc', regex used for validation is "
                   "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
                   "prefix and '/' (e.g. 'example.com/MyName')";
        if (plen == 0) return "prefix part must be non-empty";
        if (plen > 253) return "prefix part must be no more than 253 characters";
        bool ok = true; /* dot-separated labels of [a-z0-9-], alphanumeric at both ends */
        for (size_t i = 0; i < plen && ok; i++) {
            char c = s[i];
            bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            bool first = i == 0 || s[i - 1] == '.', last = i == plen - 1 || s[i + 1] == '.';
            ok = alnum || ((c == '-' || c == '.') && !first && !last);
        }
        if (!ok)
            return "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
                   "alphanumeric characters, '-' or '.', and must start and end with an "
                   "alphanumeric character (e.g. 'example.com', regex used for validation is "
                   "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    }
    if (nlen == 0) return "name part must be non-empty";
    if (nlen > 63) return "name part must be no more than 63 characters";
    for (size_t i = 0; i < nlen; i++) {
        char c = name[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        bool inner = c == '-' || c == '_' || c == '.';
        if (!alnum && !(inner && i > 0 && i < nlen - 1)) return name_fmt;
    }
    return NULL;
}

const char *kp__qualified_name_error(const char *s, size_t len) {
    return qualified_name_error(s, len);
}

typedef struct {
    const char *s;
    size_t len;
    uint32_t idx;
} gate_name;

static int gate_name_cmp(const void *a, const void *b) {
    const gate_name *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* spec.schedulingGates: validated as the API server does (validateSchedulingGates: qualified
 * names, no duplicates) and kept as the text the SchedulingGates plugin prints with %v, "[a b]"
 * (p->gates; 0 = no gate). */
kp_status kp__decode_pod_gates(kp_dctx *d, kp_cluster *cl, const kp_tnode *spec, kp_pod *p) {
    const kp_tnode *a;
    TRY(kp__dget_arr(d, spec, "schedulingGates", &a));
    if (!a || a->n == 0) return KP_OK;
    gate_name *names = kp__malloc(a->n * sizeof *names);
    if (!names) return kp__dctx_fail(d, a, KP_ENOMEM, "schedulingGates", "out of memory");
    size_t saved = kp__dctx_push(d, "schedulingGates"), total = 2;
    kp_status st = KP_OK;
    uint32_t i = 0;
    for (const kp_tnode *t = a->first; t && st == KP_OK; t = t->next, i++) {
        size_t s2 = kp__dctx_push_index(d, i);
        const char *name = "";
        if (t->type != KP_T_OBJ) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "expected an object");
        if (st == KP_OK) st = kp__dget_str(d, t, "name", &name, NULL);
        const kp_tnode *nn = st == KP_OK ? kp__tree_get(t, "name") : NULL;
        size_t len = nn ? nn->len : 0;
        if (st == KP_OK) st = kp__d_no_nul(d, t, "name", name, len);
        const char *bad = st == KP_OK ? qualified_name_error(name, len) : NULL;
        if (bad) st = kp__dctx_fail(d, t, KP_EINVAL, NULL, "Invalid value: \"%s\": %s", name, bad);
        names[i] = (gate_name){name, len, i};
        total += len + 1;
        kp__dctx_pop(d, s2);
    }
    char *text = st == KP_OK ? kp__malloc(total) : NULL;
    if (st == KP_OK && !text) st = kp__dctx_fail(d, a, KP_ENOMEM, NULL, "out of memory");
    if (st == KP_OK) {
        size_t off = 0;
        text[off++] = '[';
        for (uint32_t k = 0; k < i; k++) {
            if (k) text[off++] = ' ';
            memcpy(text + off, names[k].s, names[k].len);
            off += names[k].len;
        }
        text[off++] = ']';
        st = kp__d_intern(d, cl, a, NULL, text, off, &p->gates);
        /* a name given twice: the later entry is the duplicate (the first such index) */
        qsort(names, i, sizeof *names, gate_name_cmp);
        uint32_t dup = UINT32_MAX;
        for (uint32_t k = 1; k < i; k++)
            if (names[k].len == names[k - 1].len &&
                memcmp(names[k].s, names[k - 1].s, names[k].len) == 0 && names[k].idx < dup)
                dup = names[k].idx;
        for (uint32_t k = 0; st == KP_OK && dup != UINT32_MAX && k < i; k++) {
            if (names[k].idx != dup) continue;
            size_t s2 = kp__dctx_push_index(d, dup);
            st = kp__dctx_fail(d, a, KP_EINVAL, NULL, "Duplicate value: \"%s\"", names[k].s);
            kp__dctx_pop(d, s2);
        }
    }
    kp__free(text);
    kp__free(names);
    kp__dctx_pop(d, saved);
    return st;
}
