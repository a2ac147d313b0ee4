/* Unit tests for the static cost estimate of DRA device selectors (src/core/cel_cost.c).
 *
 * Rows "compile_test.go NAME" are the expectCost of upstream's
 * staging/src/k8s.io/dynamic-resource-allocation/cel/compile_test.go (TestCEL) for the device type
 * of the v1.37 line; the rest are our rows for the estimators the upstream rows do not reach,
 * each computed by hand from cel-go's checker/cost.go and the Kubernetes library's cost.go. */
#include <string.h>

#include "base/alloc.h"
#include "core/cel.h"
#include "harness.h"

typedef struct {
    const char *name, *expr;
    uint64_t cost;
} row;

static int run(const row *rows, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        kp_cel_program *p = NULL;
        kp_error err;
        memset(&err, 0, sizeof err);
        kp_status st = kp__cel_compile(rows[i].expr, strlen(rows[i].expr), &p, &err);
        uint64_t got = 0;
        if (st == KP_OK) st = kp__cel_cost_estimate(p, &got);
        if (st != KP_OK || got != rows[i].cost) {
            fprintf(stderr, "  %s: cost %llu, expected %llu (%s)\n", rows[i].name,
                    (unsigned long long)got, (unsigned long long)rows[i].cost,
                    st == KP_OK ? "" : err.msg);
            bad++;
        }
        kp__cel_free(p);
    }
    return bad;
}
#define RUN(r) run(r, sizeof r / sizeof r[0])

KT_TEST(test_cost_upstream_compile_test) {
    static const row rows[] = {
        {"compile_test.go true", "true", 0},
        {"compile_test.go runtime-error-lookup-identifier",
         "device.attributes[\"no-such-domain\"].noSuchAttr.isGreaterThan(quantity(\"0\"))", 6},
        {"compile_test.go runtime-error-lookup-map",
         "device.attributes[\"no-such-domain\"][\"noSuchAttr\"].isGreaterThan(quantity(\"0\"))", 6},
        {"compile_test.go domain-check-negative", "\"no-such-domain\" in device.attributes", 3},
        {"compile_test.go empty-driver-name", "device.driver == \"\"", 2},
        {"compile_test.go real-driver-name", "device.driver == \"dra.example.com\"", 4},
        {"compile_test.go driver-name-qualifier", "device.attributes[\"dra.example.com\"].name", 4},
        {"compile_test.go driver-name-qualifier-map-lookup",
         "device.attributes[\"dra.example.com\"][\"name\"]", 4},
        {"compile_test.go bind", "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name)",
         15},
        {"compile_test.go int", "device.attributes[\"dra.example.com\"].name > 0", 5},
        {"compile_test.go string", "device.attributes[\"dra.example.com\"].name == \"fish\"", 5},
        {"compile_test.go version",
         "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"0.0.1\"))", 6},
        {"compile_test.go version_v",
         "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"v0.0.1\", true)) && "
         "isSemver(\"v1.0.0\", true)",
         7},
        {"compile_test.go quantity",
         "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))", 6},
        {"compile_test.go check-positive",
         "\"name\" in device.capacity[\"dra.example.com\"] && "
         "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
         10},
        {"compile_test.go check-negative",
         "!(\"name\" in device.capacity[\"dra.example.com\"]) || "
         "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
         11},
        {"compile_test.go all",
         "device.capacity[\"dra.example.com\"].quantity.isGreaterThan(quantity(\"1Ki\")) &&\n"
         "device.attributes[\"dra.example.com\"].bool &&\n"
         "device.attributes[\"dra.example.com\"].int > 0 &&\n"
         "device.attributes[\"dra.example.com\"].string == \"fish\" &&\n"
         "device.attributes[\"dra.example.com\"].version.isGreaterThan(semver(\"0.0.1\")) &&\n"
         "device.capacity[\"dra.example.com\"][\"quantity\"].isGreaterThan(quantity(\"1Ki\")) &&\n"
         "device.attributes[\"dra.example.com\"][\"bool\"] &&\n"
         "device.attributes[\"dra.example.com\"][\"int\"] > 0 &&\n"
         "device.attributes[\"dra.example.com\"][\"string\"] == \"fish\" &&\n"
         "device.attributes[\"dra.example.com\"][\"version\"].isGreaterThan(semver(\"0.0.1\"))",
         52},
        {"compile_test.go many",
         "device.attributes[\"dra.example.com\"].a && device.attributes[\"dra.example.com\"].b && "
         "device.attributes[\"dra.example.com\"].c",
         12},
        {"compile_test.go check_attribute_domains",
         "device.attributes.exists_one(x, x == \"dra.example.com\")", 164},
        {"compile_test.go check_attribute_ids",
         "device.attributes[\"dra.example.com\"].exists_one(x, x == \"services\")", 133},
        {"compile_test.go split_attribute",
         "device.attributes[\"dra.example.com\"].services.split(\"example\").size() >= 2", 19},
        {"compile_test.go regexp_attribute",
         "device.attributes[\"dra.example.com\"].services.matches(\"[^a]?sym\")", 18},
        {"compile_test.go check_capacity_domains",
         "device.capacity.exists_one(x, x == \"dra.example.com\")", 164},
        {"compile_test.go check_capacity_ids",
         "device.capacity[\"dra.example.com\"].exists_one(x, x == \"memory\")", 133},
        {"compile_test.go expensive",
         "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, "
         "4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, "
         "7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
         "10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
         85555551},
        {"compile_test.go allow_multiple_allocations", "device.allowMultipleAllocations == true",
         3},
        {"compile_test.go in-operator-on-list", "1 in device.attributes[\"dra.example.com\"].names",
         4 + 64},
        {"compile_test.go macro-on-list-of-int",
         "device.attributes[\"dra.example.com\"].names.exists(x, x > 0)", 5 + (3 + 3) * 64},
        {"compile_test.go macro-on-list-of-string",
         "device.attributes[\"dra.example.com\"].names.all(x, x != \"\")", 5 + (2 + 2) * 64},
        {"compile_test.go macro-on-list-of-semver",
         "device.attributes[\"dra.example.com\"].names.all(x, x.isGreaterThan(semver(\"0.0.1\")))",
         5 + (2 + 4) * 64},
        {"compile_test.go includes-function-on-bool-scalar-positive",
         "device.attributes[\"dra.example.com\"].name.includes(true)", 4 + 48},
        {"compile_test.go includes-function-on-semver-scalar-positive",
         "device.attributes[\"dra.example.com\"].name.includes(semver(\"1.0.0\"))", 4 + 48 + 1},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

/* The estimators the upstream rows do not reach: macros, strings, lists, sets. */
KT_TEST(test_cost_estimators) {
    static const row rows[] = {
        /* all: range 2 + result 1 + 32 * (2 + 1 + (1 + ceil(min(63, 3) / 10))) */
        {"all over domains", "device.attributes.all(d, d != \"abc\")", 3 + 32 * 5},
        /* exists: range 2 + result 1 + 32 * (3 + 1 + 2) */
        {"exists over domains", "device.capacity.exists(d, d == \"a\")", 3 + 32 * 6},
        /* filter then size: range 2, init 10, result 1, 32 * (2 + 13); size() 1; == 1 */
        {"filter", "device.attributes.filter(d, d == \"a\").size() == 1", 13 + 32 * 15 + 1 + 1},
        /* map: range 2, init 10, result 1, 32 * (12 + 1) */
        {"map", "device.attributes.map(d, d).size() > 0", 13 + 32 * 13 + 2},
        /* string contains: ceil(64 / 10) * ceil(3 / 10) + 4 */
        {"contains", "device.attributes[\"a\"].s.contains(\"abc\")", 4 + 7 * 1},
        /* startsWith: the argument's size: ceil(3 / 10) */
        {"startsWith", "device.attributes[\"a\"].s.startsWith(\"abc\")", 4 + 1},
        /* lowerAscii: ceil(64 / 10); its result 64 long: == "x" ceil(1 / 10) */
        {"lowerAscii", "device.attributes[\"a\"].s.lowerAscii() == \"x\"", 4 + 7 + 1},
        /* string concatenation: ceil((63 + 1) / 10) + 2; == ceil(min(64, 3) / 10) */
        {"add strings", "device.driver + \"x\" == \"abc\"", 2 + 7 + 1},
        /* a list literal: 10; in: its size 2 */
        {"in list", "device.driver in [\"a\", \"b\"]", 2 + 10 + 2},
        /* a map literal: 30 */
        {"map literal", "{\"a\": 1}[device.driver] == 1", 30 + 2 + 1 + 1},
        /* sets.contains: 2 * 1 + 1 over two list literals (10 each) */
        {"sets", "sets.contains([1, 2], [1])", 20 + 3},
        /* a conditional: the costlier branch */
        {"conditional", "device.driver == \"a\" ? device.attributes[\"a\"].b : true", 3 + 4},
        /* indexOf of a list of strings: the elements' size is unknown (UINT64_MAX), a tenth of
         * it per element: far past the limit (upstream's float rounding gives another far
         * figure) */
        {"indexOf strings", "[\"a\"].indexOf(\"a\") == 0", 1844674407370955174u},
        /* has(): 1 + its operand */
        {"has", "has(device.attributes.a)", 1 + 2},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cost_over_limit) {
    bool over = true;
    uint64_t est = 0;
    const char *ok = "device.driver == \"gpu.example.com\"";
    KT_CHECK_INT(kp__cel_over_cost(ok, strlen(ok), &over, &est), KP_OK);
    KT_CHECK(!over);
    KT_CHECK_INT(est, 4);
    /* three nested comprehensions over the attribute maps: 32^3 iterations */
    const char *big = "device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, "
                      "device.attributes[a].exists(x, device.attributes[b].exists(y, x == y)))))";
    KT_CHECK_INT(kp__cel_over_cost(big, strlen(big), &over, &est), KP_OK);
    KT_CHECK(over);
    KT_CHECK(est > 1000000);
    /* an expression that does not compile is not refused here: the evaluation reports it */
    const char *bad = "device.nope(";
    KT_CHECK_INT(kp__cel_over_cost(bad, strlen(bad), &over, &est), KP_OK);
    KT_CHECK(!over);
}

KT_TEST(test_cost_alloc_fail) {
    const char *e = "device.attributes.all(a, cel.bind(v, a, v == \"x\"))";
    for (int n = 0; n < 40; n++) {
        bool over = false;
        uint64_t est = 0;
        kp__alloc_fail_after(n, false);
        kp_status st = kp__cel_over_cost(e, strlen(e), &over, &est);
        kp__alloc_fail_after(-1, false);
        KT_CHECK(st == KP_OK || st == KP_ENOMEM);
        KT_CHECK(!over);
    }
}

KT_MAIN(KT_CASE(test_cost_upstream_compile_test), KT_CASE(test_cost_estimators),
        KT_CASE(test_cost_over_limit), KT_CASE(test_cost_alloc_fail))
