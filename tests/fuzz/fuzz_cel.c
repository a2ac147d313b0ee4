/* libFuzzer harness for the CEL evaluator of DRA device selectors (src/core/cel*.c, core/cel.h).
 *
 * For every input (an expression): kp__cel_compile must not crash, hang or leak; a refusal is
 * KP_EINVAL or KP_ENOMEM with a message and no program. A compiled
 * expression is evaluated against a fixed device (attributes of every type in two domains,
 * capacities): KP_OK with a result, or KP_EINVAL with a message and no match; evaluating it again
 * gives the same status, result and message (no hidden state). Any violation aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cel.h"
#include "core/cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kp_cluster *cl;
static kp_dra_device dev;
static kp_dra_attr attrs[6];
static kp_dra_capacity caps[2];
static kp_cel_device cdev;

static kp_str in(const char *s) { return kp__intern(&cl->strs, s, strlen(s)); }

static void setup(void) {
    cl = kp_cluster_new();
    if (!cl) abort();
    kp_str drv = in("dra.example.com"), other = in("other.example.com");
    attrs[0] = (kp_dra_attr){drv, in("model"), KP_DRA_ATTR_STRING, false, 0, in("LATEST-GPU")};
    attrs[1] = (kp_dra_attr){drv, in("index"), KP_DRA_ATTR_INT, false, 3, 0};
    attrs[2] = (kp_dra_attr){drv, in("healthy"), KP_DRA_ATTR_BOOL, true, 0, 0};
    attrs[3] =
        (kp_dra_attr){drv, in("driverVersion"), KP_DRA_ATTR_VERSION, false, 0, in("1.2.3-rc.1")};
    attrs[4] = (kp_dra_attr){other, in("x"), KP_DRA_ATTR_INT, false, -7, 0};
    attrs[5] = (kp_dra_attr){other, in("name"), KP_DRA_ATTR_STRING, false, 0, in("a,b,c")};
    caps[0].domain = drv;
    caps[0].name = in("memory");
    kp_quantity_parse("80Gi", 4, &caps[0].value, NULL);
    caps[1].domain = drv;
    caps[1].name = in("cores");
    kp_quantity_parse("1500m", 5, &caps[1].value, NULL);
    dev.attrs = attrs;
    dev.n_attrs = 6;
    dev.caps = caps;
    dev.n_caps = 2;
    dev.allow_multiple = true;
    cdev.cl = cl;
    cdev.driver = drv;
    cdev.dev = &dev;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!cl) setup();
    /* an exact-size heap copy so ASan flags any read past size */
    char *expr = malloc(size ? size : 1);
    if (!expr) return 0;
    if (size) memcpy(expr, data, size);
    kp_cel_program *p = NULL;
    kp_error err;
    kp_error_clear(&err);
    kp_status st = kp__cel_compile(expr, size, &p, &err);
    if (st != KP_OK) {
        free(expr);
        if (p || (st != KP_EINVAL && st != KP_ENOMEM) || err.msg[0] == '\0' || err.code != st)
            abort();
        return 0;
    }
    free(expr); /* the program does not point into the expression */
    bool m1 = true, m2 = true;
    kp_error e1, e2;
    kp_error_clear(&e1);
    kp_error_clear(&e2);
    kp_status s1 = kp__cel_eval_device(p, &cdev, &m1, &e1);
    kp_status s2 = kp__cel_eval_device(p, &cdev, &m2, &e2);
    kp__cel_free(p);
    if (s1 != KP_OK && s1 != KP_EINVAL && s1 != KP_ENOMEM) abort();
    if (s1 != KP_OK && (m1 || e1.msg[0] == '\0')) abort();
    if (s1 != s2 || m1 != m2 || strcmp(e1.msg, e2.msg) != 0) abort();
    return 0;
}
