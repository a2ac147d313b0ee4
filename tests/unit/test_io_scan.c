/* The List splitter's block scanner against its byte-at-a-time reference, the string interner,
 * and mapped input files. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "harness.h"
#include "io/events.h"
#include "io/input.h"
#include "io/jscan.h"
#include "kprio/cluster.h"

static uint64_t rng = 88172645463325252u;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* Random JSON-shaped text: nested containers, strings holding brackets, quotes and escape runs
 * (so quotes and backslash runs fall on every position of a 64-byte block), whitespace runs. */
static void gen_value(char *b, size_t *n, size_t cap, int depth) {
    if (*n + 200 > cap) {
        b[(*n)++] = '0';
        return;
    }
    uint32_t k = depth > 12 ? 3 : rnd(5);
    if (k <= 1) {
        char o = k == 0 ? '{' : '[', c = k == 0 ? '}' : ']';
        b[(*n)++] = o;
        uint32_t m = rnd(5);
        for (uint32_t i = 0; i < m; i++) {
            if (i) b[(*n)++] = ',';
            for (uint32_t w = rnd(70); w; w--) b[(*n)++] = ' ';
            if (o == '{') {
                b[(*n)++] = '"';
                b[(*n)++] = 'k';
                b[(*n)++] = '"';
                b[(*n)++] = ':';
            }
            gen_value(b, n, cap, depth + 1);
        }
        b[(*n)++] = c;
    } else if (k == 2) {
        b[(*n)++] = '"';
        for (uint32_t m = rnd(90); m; m--) {
            static const char alpha[] = "ab{}[]:, ";
            uint32_t t = rnd(12);
            if (t == 0) {
                for (uint32_t r = 1 + rnd(4); r; r--) {
                    b[(*n)++] = '\\';
                    b[(*n)++] = '\\';
                }
            } else if (t == 1) {
                b[(*n)++] = '\\';
                b[(*n)++] = '"';
            } else {
                b[(*n)++] = alpha[rnd(sizeof alpha - 1)];
            }
        }
        b[(*n)++] = '"';
    } else {
        b[(*n)++] = '1';
    }
}

KT_TEST(scan_matches_reference_on_random_text) {
    size_t cap = 1 << 16;
    char *b = malloc(cap + KP_JSON_PADDING);
    int checked = 0, mismatched = 0;
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 0;
        b[n++] = iter % 2 ? '{' : '[';
        if (b[0] == '{') {
            memcpy(b + n, "\"a\":", 4);
            n += 4;
        }
        gen_value(b, &n, cap - 4, 1);
        b[n++] = b[0] == '{' ? '}' : ']';
        size_t full = n;
        /* trailing bytes after the value, then sometimes truncate the text */
        memcpy(b + n, ",{}", 3);
        n += 3;
        if (iter % 7 == 0) n = full - 1 - rnd((uint32_t)(full - 1));
        memset(b + n, 0, KP_JSON_PADDING);
        const char *fast = kp__json_skip_container(b, b + n);
        const char *base = kp__json_skip_container_base(b, b + n);
        const char *ref = kp__json_skip_container_ref(b, b + n);
        checked++;
        if (fast != ref || base != ref) mismatched++;
        if (iter % 7 != 0) KT_CHECK(ref == b + full);
    }
    KT_CHECK_INT(mismatched, 0);
    KT_CHECK_INT(checked, 3000);
    free(b);
}

KT_TEST(scan_handles_escapes_across_block_edges) {
    /* an escaped quote whose backslash is the last byte of the first 64-byte block */
    char b[256 + KP_JSON_PADDING];
    memset(b, 0, sizeof b);
    size_t n = 0;
    b[n++] = '[';
    b[n++] = '"';
    while (n < 63) b[n++] = 'x';
    b[n++] = '\\'; /* offset 63 */
    b[n++] = '"'; /* escaped: the string goes on */
    memcpy(b + n, "]\"]", 3); /* the ']' inside the string does not close */
    n += 3;
    const char *end = kp__json_skip_container(b, b + n);
    KT_CHECK(end == b + n);
    KT_CHECK(kp__json_skip_container_base(b, b + n) == b + n);
    KT_CHECK(kp__json_skip_container_ref(b, b + n) == b + n);
    /* "\\" then a quote that does end the string */
    memcpy(b + 62, "\\\\\"]", 4);
    KT_CHECK(kp__json_skip_container(b, b + 66) == b + 66);
    KT_CHECK(kp__json_skip_container_ref(b, b + 66) == b + 66);
}

KT_TEST(scan_gives_up_on_depth_and_truncation) {
    char b[400 + KP_JSON_PADDING];
    memset(b, 0, sizeof b);
    for (int i = 0; i < 200; i++) b[i] = '[';
    for (int i = 200; i < 400; i++) b[i] = ']';
    KT_CHECK(kp__json_skip_container(b, b + 400) == NULL);
    KT_CHECK(kp__json_skip_container(b + 100, b + 300) == b + 300);
    KT_CHECK(kp__json_skip_container(b, b + 100) == NULL);
    KT_CHECK(kp__json_skip_container(b + 200, b + 400) == NULL); /* not at a container */
}

/* The check of skipped members (issue 17 item 7): the block version agrees with the token-at-a-
 * time reference on valid text and on every kind of single-byte damage to it. */
static bool check_ok(const char *(*fn)(const char *, const char *, int, const char **),
                     const char *p, size_t n) {
    const char *what = NULL;
    return fn(p, p + n, KP_MAX_DEPTH, &what) == NULL;
}

KT_TEST(check_matches_reference_on_random_and_damaged_text) {
    size_t cap = 1 << 16;
    char *b = malloc(cap);
    int mismatched = 0, invalid = 0;
    static const char damage[] = "{}[]:,\"\\ tfn0-1.eE+xu\x01\t";
    for (int iter = 0; iter < 4000; iter++) {
        size_t n = 0;
        gen_value(b, &n, cap - 4, 1);
        if (iter % 3 == 0) b[n++] = '\n';
        KT_CHECK(check_ok(kp__json_check_value_ref, b, n));
        KT_CHECK(check_ok(kp__json_check_value, b, n));
        KT_CHECK(check_ok(kp__json_check_value_base, b, n));
        /* one damaged byte (or a truncation) */
        if (iter % 5 == 0) n = rnd((uint32_t)n);
        else b[rnd((uint32_t)n)] = damage[rnd(sizeof damage - 1)];
        bool ref = check_ok(kp__json_check_value_ref, b, n);
        if (check_ok(kp__json_check_value, b, n) != ref ||
            check_ok(kp__json_check_value_base, b, n) != ref)
            mismatched++;
        if (!ref) invalid++;
    }
    KT_CHECK_INT(mismatched, 0);
    KT_CHECK(invalid > 1000); /* the damage is mostly caught, by both */
    free(b);
}

KT_TEST(check_rejects_what_json_rejects) {
    static const char *const bad[] = {
        "[tru]",
        "{\"a\":1,,}",
        "{\"a\":1,}",
        "[1,]",
        "[01]",
        "[1.]",
        "[.5]",
        "[1e]",
        "[-]",
        "[\"\\q\"]",
        "[\"\\u12G4\"]",
        "[\"\\u12\"]",
        "{\"a\" 1}",
        "{1:2}",
        "[1 2]",
        "[\"a\"\"b\"]",
        "{\"a\":1}}",
        "[[1]",
        "[\"a\x01\"]",
        "\"abc",
        "[nul]",
        "[true false]",
        "{\"a\":}",
        "[1]x",
        "{\"a\":1]",
        "[1}",
        "\\",
        "[\"a\"\\]",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = strlen(bad[i]);
        if (check_ok(kp__json_check_value, bad[i], n) ||
            check_ok(kp__json_check_value_ref, bad[i], n)) {
            fprintf(stderr, "  accepted: %s\n", bad[i]);
            KT_CHECK(0);
        }
    }
    static const char *const good[] = {
        "[true,false,null,0,-0,1.5e+3,-2E-2,\"\\u00e9\\n\\/\"]",
        " { } ",
        "[]",
        "{\"a\":{\"b\":[{}]}}\n",
        "\"x\"",
        "12",
        "[\"\\\\\"]",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        size_t n = strlen(good[i]);
        KT_CHECK(check_ok(kp__json_check_value, good[i], n));
        KT_CHECK(check_ok(kp__json_check_value_ref, good[i], n));
    }
    /* nesting: the limit given, as the parser's */
    char deep[300];
    for (int i = 0; i < 150; i++) {
        deep[i] = '[';
        deep[299 - i] = ']';
    }
    const char *what = NULL;
    KT_CHECK(kp__json_check_value(deep, deep + 300, KP_MAX_DEPTH, &what) != NULL);
    KT_CHECK_STR(what, "nesting deeper than 128 levels");
    KT_CHECK(kp__json_check_value(deep + 30, deep + 270, KP_MAX_DEPTH, &what) == NULL);
}

KT_TEST(intern_round_trips_many_strings) {
    kp_arena a;
    kp__arena_init(&a);
    kp_interner in;
    KT_CHECK(kp__intern_init(&in, &a));
    char buf[64];
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        int len = snprintf(buf, sizeof buf, "pod-%d-%s", i,
                           i % 3 ? "x" : "a-much-longer-suffix-beyond-8");
        kp_str id = kp__intern(&in, buf, (size_t)len);
        if (id == UINT32_MAX || kp__intern(&in, buf, (size_t)len) != id) bad++;
        if (kp__intern_find(&in, buf, (size_t)len) != id || strcmp(in.ptr[id], buf) != 0) bad++;
    }
    KT_CHECK_INT(bad, 0);
    KT_CHECK(kp__intern_find(&in, "pod-200000-x", 12) == UINT32_MAX);
    KT_CHECK(kp__intern_find(&in, "", 0) == 0);
    /* same bytes, different lengths are different strings */
    KT_CHECK(kp__intern(&in, "abc", 2) != kp__intern(&in, "abc", 3));
    kp__intern_fini(&in);
    kp__arena_fini(&a);
}

static void check_mapped_file(size_t size) {
    char path[] = "/tmp/kprio-test-input-XXXXXX";
    int fd = mkstemp(path);
    KT_CHECK(fd >= 0);
    if (fd < 0) return;
    char *data = malloc(size);
    for (size_t i = 0; i < size; i++) data[i] = (char)('a' + i % 26);
    KT_CHECK(write(fd, data, size) == (ssize_t)size);
    close(fd);
    kp_input in;
    kp_error err = {0};
    KT_CHECK_INT(kp__input_open(path, (size_t)1 << 30, &in, &err), KP_OK);
    KT_CHECK(in.map != NULL);
    KT_CHECK_INT(in.len, size);
    KT_CHECK(memcmp(in.buf, data, size) == 0);
    int nonzero = 0;
    for (int i = 0; i < KP_JSON_PADDING; i++) nonzero |= in.buf[size + (size_t)i];
    KT_CHECK_INT(nonzero, 0);
    KT_CHECK_INT(kp__input_advance(&in, in.buf + size / 2, &err), KP_OK);
    KT_CHECK_INT(kp__input_advance(&in, in.buf + size, &err), KP_OK);
    KT_CHECK(memcmp(in.buf, data, size) == 0); /* released pages read back from the file */
    kp__input_close(&in);
    KT_CHECK_INT(kp__input_open(path, size - 1, &in, &err), KP_ELIMIT);
    unlink(path);
    free(data);
}

KT_TEST(mapped_input_is_padded_with_zeros) {
    long pg = sysconf(_SC_PAGESIZE);
    check_mapped_file((size_t)pg * 300); /* ends exactly on a page boundary */
    check_mapped_file((size_t)pg * 300 - 10); /* padding crosses into the next page */
    check_mapped_file(KP_INPUT_MAP_MIN + 12345);
}

/* A List big enough to be mapped (> KP_INPUT_MAP_MIN) loads through the splitter with pages
 * released behind it; an error deep inside still names the right line, and a field error the
 * right item. */
static char *write_list(int n_pods, int bad_item, const char *bad_text, size_t *len_out) {
    size_t cap = (size_t)n_pods * 700 + 4096, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n, "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
    for (int i = 0; i < n_pods; i++) {
        n += (size_t)snprintf(
            b + n, cap - n,
            "        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\",\n"
            "            \"metadata\": {\"name\": \"p%d\", \"namespace\": \"ns\", "
            "\"annotations\": {\"note\": \"braces } ] and \\\" quotes \\\\\"}},\n"
            "            \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": "
            "{\"requests\": {\"cpu\": \"%s\"}}}]}\n        }%s\n",
            i, i == bad_item && bad_text ? bad_text : "100m", i + 1 < n_pods ? "," : "");
    }
    n += (size_t)snprintf(b + n, cap - n, "    ],\n    \"kind\": \"List\"\n}\n");
    *len_out = n;
    return b;
}

static kp_status load_text_file(const char *text, size_t len, kp_error *err, uint32_t *pods) {
    char path[] = "/tmp/kprio-test-list-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) return KP_EIO;
    close(fd);
    kp_cluster *cl = kp_cluster_new();
    kp_error_clear(err);
    kp_status st = kp_cluster_load_path(cl, path, false, err);
    if (st == KP_OK) st = kp_cluster_finalize(cl, err);
    *pods = st == KP_OK ? (uint32_t)kp_cluster_pod_count(cl) : 0;
    kp_cluster_free(cl);
    unlink(path);
    return st;
}

KT_TEST(mapped_list_loads_and_reports_errors) {
    size_t len;
    uint32_t pods = 0;
    kp_error err;
    char *t = write_list(4000, -1, NULL, &len);
    KT_CHECK(len > KP_INPUT_MAP_MIN);
    KT_CHECK_INT(load_text_file(t, len, &err, &pods), KP_OK);
    KT_CHECK_INT(pods, 4000);
    free(t);
    /* a field error in item 3500 */
    t = write_list(4000, 3500, "1.2.3", &len);
    KT_CHECK_INT(load_text_file(t, len, &err, &pods), KP_EINVAL);
    KT_CHECK(strstr(err.msg, "items[3500]") != NULL);
    KT_CHECK(strstr(err.msg, "invalid quantity \"1.2.3\"") != NULL);
    free(t);
    /* a syntax error (unquoted value) in item 3000, which starts on line 4 + 3000 * 6 */
    t = write_list(4000, 3000, "\", \"x\": nope, \"y\": \"1", &len);
    KT_CHECK_INT(load_text_file(t, len, &err, &pods), KP_ESYNTAX);
    KT_CHECK_INT(err.line, 4 + 3000 * 6 + 4);
    free(t);
}

typedef struct {
    int calls;
    uint64_t last_done, total;
    int backwards;
} progress_log;

static void on_progress(void *ctx, const char *source, uint64_t done, uint64_t total) {
    progress_log *pl = ctx;
    (void)source;
    if (done < pl->last_done) pl->backwards++;
    pl->calls++;
    pl->last_done = done;
    pl->total = total;
}

/* A load reports progress about every 32 MB of a file and closes with done == total. */
KT_TEST(progress_reported_during_a_large_load) {
    size_t len;
    char *t = write_list(150000, -1, NULL, &len); /* ~44 MB */
    char path[] = "/tmp/kprio-test-progress-XXXXXX";
    int fd = mkstemp(path);
    KT_CHECK(fd >= 0 && write(fd, t, len) == (ssize_t)len);
    if (fd >= 0) close(fd);
    free(t);
    kp_cluster *cl = kp_cluster_new();
    progress_log pl = {0, 0, 0, 0};
    kp_cluster_set_progress(cl, on_progress, &pl);
    kp_error err;
    kp_error_clear(&err);
    KT_CHECK_INT(kp_cluster_load_path(cl, path, false, &err), KP_OK);
    KT_CHECK(pl.calls >= (int)(len / ((size_t)32 << 20)));
    KT_CHECK(pl.calls <= (int)(len / ((size_t)32 << 20)) + 2);
    KT_CHECK_INT(pl.backwards, 0);
    KT_CHECK_INT(pl.total, len);
    KT_CHECK_INT(pl.last_done, len);
    kp_cluster_free(cl);
    unlink(path);
}

KT_MAIN(KT_CASE(scan_matches_reference_on_random_text),
        KT_CASE(check_matches_reference_on_random_and_damaged_text),
        KT_CASE(check_rejects_what_json_rejects), KT_CASE(scan_handles_escapes_across_block_edges),
        KT_CASE(scan_gives_up_on_depth_and_truncation), KT_CASE(intern_round_trips_many_strings),
        KT_CASE(mapped_input_is_padded_with_zeros), KT_CASE(mapped_list_loads_and_reports_errors),
        KT_CASE(progress_reported_during_a_large_load))
