/* The JSON/YAML emitter and the table writer (render/emit.h): output shape, no depth limit, long
 * cells, and allocation failures that stay sticky and come back as KP_ENOMEM. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"
#include "render/emit.h"

static char *slurp(FILE *f) {
    static char buf[1 << 16];
    fflush(f);
    rewind(f);
    buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
    fclose(f);
    return buf;
}

static void doc(kp_emit *e, int depth) {
    kp_emit_obj_begin(e);
    kp_emit_kv_str(e, "name", "a b");
    kp_emit_kv_int(e, "n", -3);
    kp_emit_kv_bool(e, "ok", true);
    kp_emit_key(e, "list");
    kp_emit_arr_begin(e);
    kp_emit_str(e, "yes");
    kp_emit_null(e);
    kp_emit_arr_end(e);
    kp_emit_key(e, "deep");
    for (int i = 0; i < depth; i++) kp_emit_arr_begin(e);
    kp_emit_int(e, 1);
    for (int i = 0; i < depth; i++) kp_emit_arr_end(e);
    kp_emit_obj_end(e);
}

KT_TEST(json_and_yaml_shape) {
    FILE *f = tmpfile();
    kp_emit *e = kp_emit_new(f, KP_OUT_JSON);
    doc(e, 1);
    KT_CHECK_INT(kp_emit_status(e), KP_OK);
    kp_emit_free(e);
    KT_CHECK_STR(slurp(f), "{\n    \"name\": \"a b\",\n    \"n\": -3,\n    \"ok\": true,\n    "
                           "\"list\": [\n        \"yes\",\n"
                           "        null\n    ],\n    \"deep\": [\n        1\n    ]\n}\n");
    f = tmpfile();
    e = kp_emit_new(f, KP_OUT_YAML);
    doc(e, 1);
    kp_emit_free(e);
    KT_CHECK_STR(slurp(f),
                 "name: a b\n\"n\": -3\nok: true\nlist:\n- \"yes\"\n- null\ndeep:\n- 1\n");
}

/* Nesting deeper than the inline stack grows it: every bracket is written. */
KT_TEST(no_depth_limit) {
    FILE *f = tmpfile();
    kp_emit *e = kp_emit_new(f, KP_OUT_JSON);
    doc(e, 50);
    KT_CHECK_INT(kp_emit_status(e), KP_OK);
    kp_emit_free(e);
    const char *out = slurp(f);
    size_t open = 0, close = 0;
    for (const char *p = out; *p; p++) open += *p == '[', close += *p == ']';
    KT_CHECK_INT(open, 51);
    KT_CHECK_INT(close, 51);
}

/* Each allocation in turn fails: the status is KP_ENOMEM and stays so; a NULL writer is accepted
 * by every call. */
KT_TEST(emitter_out_of_memory_is_sticky) {
    KT_CHECK_INT(kp_emit_status(NULL), KP_ENOMEM);
    bool done = false;
    for (long n = 0; n < 100 && !done; n++) {
        FILE *f = tmpfile();
        unsigned long before = kp__alloc_count();
        kp__alloc_fail_after(n, false);
        kp_emit *e = kp_emit_new(f, KP_OUT_JSON);
        doc(e, 40);
        kp_status st = kp_emit_status(e);
        kp_emit_free(e);
        kp__alloc_fail_after(-1, false);
        done = kp__alloc_count() - before <= (unsigned long)n;
        KT_CHECK_INT(st, done ? KP_OK : KP_ENOMEM);
        fclose(f);
    }
    KT_CHECK(done);
}

KT_TEST(table_layout_and_long_cells) {
    FILE *f = tmpfile();
    kp_table *t = kp_table_new(2);
    kp_table_add(t, "A");
    kp_table_add(t, "B");
    kp_table_addf(t, "%s-%d", "xy", 1);
    kp_table_add(t, NULL);
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    kp_table_addf(t, "%s", big); /* longer than any fixed formatting buffer */
    kp_table_add(t, "z");
    KT_CHECK_INT(kp_table_print(t, f), KP_OK);
    kp_table_free(t);
    const char *out = slurp(f);
    KT_CHECK(strncmp(out, "A", 1) == 0);
    KT_CHECK_INT(strlen(out), (2999 + 3 + 1 + 1) * 3 - 1); /* the empty cell */
    KT_CHECK(strstr(out, big) != NULL);
    kp_table_free(NULL);
    KT_CHECK_INT(kp_table_print(NULL, stdout), KP_ENOMEM);
}

/* A table whose allocation failed reports KP_ENOMEM from kp_table_print and prints nothing. */
KT_TEST(table_out_of_memory_prints_nothing) {
    bool done = false;
    for (long n = 0; n < 1000 && !done; n++) {
        FILE *f = tmpfile();
        unsigned long before = kp__alloc_count();
        kp__alloc_fail_after(n, false);
        kp_table *t = kp_table_new(3);
        for (int i = 0; i < 100; i++) kp_table_addf(t, "cell %d", i);
        kp_status st = kp_table_status(t);
        kp__alloc_fail_after(-1, false);
        done = kp__alloc_count() - before <= (unsigned long)n;
        KT_CHECK_INT(st, done ? KP_OK : KP_ENOMEM);
        KT_CHECK_INT(kp_table_print(t, f), st);
        if (!done) KT_CHECK_INT(ftell(f), 0);
        kp_table_free(t);
        fclose(f);
    }
    KT_CHECK(done);
}

/* --sort-by (kp_table_set_sort_by): numbers (integers, Go durations) before text, <none> last,
 * equal cells in the renderer's order, the header first; a table without the column as added. */
KT_TEST(table_sort_by_column) {
    static const char *rows[][2] = {{"a", "10"},  {"b", "9"}, {"c", "<none>"}, {"d", "1m"},
                                    {"e", "90s"}, {"f", "9"}, {"g", "x"},      {"h", "-2"}};
    kp_table *t = kp_table_new(2);
    kp_table_add(t, "NAME");
    kp_table_add(t, "VAL");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kp_table_add(t, rows[i][0]);
        kp_table_add(t, rows[i][1]);
    }
    FILE *f = tmpfile();
    kp_table_set_sort_by("val");
    KT_CHECK_INT(kp_table_print(t, f), KP_OK);
    char *out = slurp(f);
    /* 1m = 60e9 ns and 90s = 90e9 ns: durations compare as numbers among the integers */
    KT_CHECK_STR(out, "NAME   VAL\nh      -2\nb      9\nf      9\na      10\nd      1m\n"
                      "e      90s\ng      x\nc      <none>\n");
    f = tmpfile();
    kp_table_set_sort_by("NODE"); /* not a column: the order as added */
    KT_CHECK_INT(kp_table_print(t, f), KP_OK);
    out = slurp(f);
    KT_CHECK(strncmp(out, "NAME   VAL\na      10\nb      9\n", 30) == 0);
    kp_table_set_sort_by(NULL);
    kp_table_free(t);
}

KT_MAIN(KT_CASE(json_and_yaml_shape), KT_CASE(no_depth_limit),
        KT_CASE(emitter_out_of_memory_is_sticky), KT_CASE(table_layout_and_long_cells),
        KT_CASE(table_out_of_memory_prints_nothing), KT_CASE(table_sort_by_column))
