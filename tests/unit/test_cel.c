/* Unit tests for the CEL evaluator of DRA device selectors (src/core/cel*.c, core/cel.h).
 *
 * Rows name their source: "compile_test.go NAME" are the cases of upstream's
 * staging/src/k8s.io/dynamic-resource-allocation/cel/compile_test.go (TestCEL), "quantity_test.go
 * NAME" and "semver_test.go NAME" those of k8s.io/apiserver/pkg/cel/library; "driver: ..." are
 * DeviceClass selectors of real DRA drivers; the rest are CEL's language rules and our error
 * rows (position and text). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core/cel.h"
#include "core/cluster.h"
#include "harness.h"

/* A device from a compact spec: attrs "id=b:true;dom/id=i:1;id=s:text;id=v:1.0.0", caps
 * "id=1Mi;dom/id=2". Unqualified names take the driver as domain (as dra.h stores them). */
typedef struct {
    kp_cluster *cl;
    kp_dra_device dev;
    kp_dra_attr attrs[40];
    kp_dra_capacity caps[40];
    kp_cel_device d;
} tdev;

static kp_str in(kp_cluster *cl, const char *s, size_t n) { return kp__intern(&cl->strs, s, n); }

static void split_name(tdev *t, const char *driver, const char *s, size_t n, kp_str *dom,
                       kp_str *id) {
    const char *slash = memchr(s, '/', n);
    if (slash) {
        *dom = in(t->cl, s, (size_t)(slash - s));
        *id = in(t->cl, slash + 1, n - (size_t)(slash - s) - 1);
    } else {
        *dom = in(t->cl, driver, strlen(driver));
        *id = in(t->cl, s, n);
    }
}

static void build(tdev *t, const char *driver, const char *attrs, const char *caps) {
    memset(t, 0, sizeof *t);
    t->cl = kp_cluster_new();
    t->dev.attrs = t->attrs;
    t->dev.caps = t->caps;
    for (const char *p = attrs; p && *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        kp_dra_attr *a = &t->attrs[t->dev.n_attrs++];
        split_name(t, driver, p, (size_t)(eq - p), &a->domain, &a->name);
        const char *v = eq + 3;
        size_t vl = len - (size_t)(v - p);
        switch (eq[1]) {
        case 'b': a->type = KP_DRA_ATTR_BOOL, a->b = v[0] == 't'; break;
        case 'i': a->type = KP_DRA_ATTR_INT, a->i = strtoll(v, NULL, 10); break;
        case 's': a->type = KP_DRA_ATTR_STRING, a->s = in(t->cl, v, vl); break;
        default: a->type = KP_DRA_ATTR_VERSION, a->s = in(t->cl, v, vl); break;
        }
        p = end ? end + 1 : p + len;
    }
    for (const char *p = caps; p && *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        kp_dra_capacity *c = &t->caps[t->dev.n_caps++];
        split_name(t, driver, p, (size_t)(eq - p), &c->domain, &c->name);
        kp_quantity_parse(eq + 1, len - (size_t)(eq + 1 - p), &c->value, NULL);
        p = end ? end + 1 : p + len;
    }
    t->d.cl = t->cl;
    t->d.driver = in(t->cl, driver, strlen(driver));
    t->d.dev = &t->dev;
}

typedef struct {
    const char *src; /* where the row comes from */
    const char *expr;
    const char *driver, *attrs, *caps;
    int match; /* 1 true, 0 false */
    const char *compile_err, *eval_err; /* substrings of the error */
    bool multi; /* allowMultipleAllocations */
} row;

static int run_rows(const row *rows, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        tdev t;
        build(&t, r->driver ? r->driver : "", r->attrs, r->caps);
        t.dev.allow_multiple = r->multi;
        kp_cel_program *p = NULL;
        kp_error err;
        kp_error_clear(&err);
        kp_status st = kp__cel_compile(r->expr, strlen(r->expr), &p, &err);
        int before = kt_failed_checks;
        if (r->compile_err) {
            KT_CHECK_INT(st, KP_EINVAL);
            KT_CHECK_CONTAINS(err.msg, r->compile_err);
        } else {
            KT_CHECK_INT(st, KP_OK);
            if (st != KP_OK) fprintf(stderr, "  compile: %s\n", err.msg);
            bool m = true;
            kp_error_clear(&err);
            st = p ? kp__cel_eval_device(p, &t.d, &m, &err) : KP_EINVAL;
            if (r->eval_err) {
                KT_CHECK_INT(st, KP_EINVAL);
                KT_CHECK_CONTAINS(err.msg, r->eval_err);
                KT_CHECK(!m);
            } else {
                KT_CHECK_INT(st, KP_OK);
                if (st != KP_OK) fprintf(stderr, "  eval: %s\n", err.msg);
                KT_CHECK_INT(m, r->match);
            }
        }
        if (kt_failed_checks != before) {
            fprintf(stderr, "  row %zu (%s): %s\n", i, r->src, r->expr);
            bad++;
        }
        kp__cel_free(p);
        kp_cluster_free(t.cl);
    }
    return bad;
}
#define RUN(rows) run_rows(rows, sizeof rows / sizeof rows[0])

#define DRA "dra.example.com"

KT_TEST(test_cel_upstream_compile_test) {
    static const row rows[] = {
        {"compile_test.go true", "true", .match = 1},
        {"compile_test.go false", "false", .match = 0},
        {"compile_test.go syntax-error", "?!", .compile_err = "Syntax error"},
        {"compile_test.go type-error", "1",
         .compile_err = "must evaluate to bool or the unknown type, not int"},
        {"compile_test.go runtime-error-lookup-identifier",
         "device.attributes[\"no-such-domain\"].noSuchAttr.isGreaterThan(quantity(\"0\"))",
         .eval_err = "no such key: noSuchAttr"},
        {"compile_test.go runtime-error-lookup-map",
         "device.attributes[\"no-such-domain\"][\"noSuchAttr\"].isGreaterThan(quantity(\"0\"))",
         .eval_err = "no such key: noSuchAttr"},
        {"compile_test.go domain-check-negative", "\"no-such-domain\" in device.attributes",
         .match = 0},
        {"compile_test.go domain-check-positive", "\"dra.example.com\" in device.attributes",
         .attrs = "dra.example.com/something=b:true", .match = 1},
        {"compile_test.go empty-driver-name", "device.driver == \"\"", .match = 1},
        {"compile_test.go real-driver-name", "device.driver == \"dra.example.com\"", DRA,
         .match = 1},
        {"compile_test.go driver-name-qualifier", "device.attributes[\"dra.example.com\"].name",
         DRA, "name=b:true", .match = 1},
        {"compile_test.go driver-name-qualifier-map-lookup",
         "device.attributes[\"dra.example.com\"][\"name\"]", DRA, "name=b:true", .match = 1},
        {"compile_test.go bind", "cel.bind(dra, device.attributes[\"dra.example.com\"], dra.name)",
         DRA, "name=b:true", .match = 1},
        {"compile_test.go qualified-attribute-name",
         "device.attributes[\"other.example.com\"].name", DRA, "other.example.com/name=b:true",
         .match = 1},
        {"compile_test.go int", "device.attributes[\"dra.example.com\"].name > 0", DRA, "name=i:1",
         .match = 1},
        {"compile_test.go string", "device.attributes[\"dra.example.com\"].name == \"fish\"", DRA,
         "name=s:fish", .match = 1},
        {"compile_test.go macro-exists-on-int",
         "device.attributes[\"dra.example.com\"].name.exists(x, x > 0)", DRA, "name=i:1",
         .eval_err = "got 'types.Int', expected iterable type"},
        {"compile_test.go macro-exists-on-bool",
         "device.attributes[\"dra.example.com\"].name.exists(x, x == true)", DRA, "name=b:true",
         .eval_err = "got 'types.Bool', expected iterable type"},
        {"compile_test.go macro-exists-on-string",
         "device.attributes[\"dra.example.com\"].name.exists(x, x == \"fish\")", DRA, "name=s:fish",
         .eval_err = "got 'types.String', expected iterable type"},
        {"compile_test.go includes-function-on-bool-scalar-positive",
         "device.attributes[\"dra.example.com\"].name.includes(true)", DRA, "name=b:true",
         .match = 1},
        {"compile_test.go includes-function-on-bool-scalar-negative",
         "device.attributes[\"dra.example.com\"].name.includes(true)", DRA, "name=b:false",
         .match = 0},
        {"compile_test.go includes-function-on-int-scalar-negative",
         "device.attributes[\"dra.example.com\"].name.includes(1)", DRA, "name=i:2", .match = 0},
        {"compile_test.go includes-function-on-string-scalar-positive",
         "device.attributes[\"dra.example.com\"].name.includes(\"fish\")", DRA, "name=s:fish",
         .match = 1},
        {"compile_test.go includes-function-on-semver-scalar-positive",
         "device.attributes[\"dra.example.com\"].name.includes(semver(\"1.0.0\"))", DRA,
         "name=v:1.0.0", .match = 1},
        {"compile_test.go includes-function-on-semver-scalar-negative",
         "device.attributes[\"dra.example.com\"].name.includes(semver(\"2.0.0\"))", DRA,
         "name=v:1.0.0", .match = 0},
        {"compile_test.go version",
         "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"0.0.1\"))", DRA,
         "name=v:1.0.0", .match = 1},
        {"compile_test.go version_v",
         "device.attributes[\"dra.example.com\"].name.isGreaterThan(semver(\"v0.0.1\", true)) && "
         "isSemver(\"v1.0.0\", true)",
         DRA, "name=v:1.0.0", .match = 1},
        {"compile_test.go macro-exists-on-version",
         "device.attributes[\"dra.example.com\"].name.exists(x, "
         "x.isGreaterThan(semver(\"0.0.1\")))",
         DRA, "name=v:1.0.0", .eval_err = "got 'cel.Semver', expected iterable type"},
        {"compile_test.go quantity",
         "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))", DRA, NULL,
         "name=1Mi", .match = 1},
        {"compile_test.go check-positive",
         "\"name\" in device.capacity[\"dra.example.com\"] && "
         "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
         DRA, NULL, "name=1Mi", .match = 1},
        {"compile_test.go check-negative",
         "!(\"name\" in device.capacity[\"dra.example.com\"]) || "
         "device.capacity[\"dra.example.com\"].name.isGreaterThan(quantity(\"1Ki\"))",
         .match = 1},
        {"compile_test.go all",
         "\ndevice.capacity[\"dra.example.com\"].quantity.isGreaterThan(quantity(\"1Ki\")) &&\n"
         "device.attributes[\"dra.example.com\"].bool &&\n"
         "device.attributes[\"dra.example.com\"].int > 0 &&\n"
         "device.attributes[\"dra.example.com\"].string == \"fish\" &&\n"
         "device.attributes[\"dra.example.com\"].version.isGreaterThan(semver(\"0.0.1\")) &&\n"
         "device.capacity[\"dra.example.com\"][\"quantity\"].isGreaterThan(quantity(\"1Ki\")) &&\n"
         "device.attributes[\"dra.example.com\"][\"bool\"] &&\n"
         "device.attributes[\"dra.example.com\"][\"int\"] > 0 &&\n"
         "device.attributes[\"dra.example.com\"][\"string\"] == \"fish\" &&\n"
         "device.attributes[\"dra.example.com\"][\"version\"].isGreaterThan(semver(\"0.0.1\"))\n",
         DRA, "bool=b:true;int=i:1;string=s:fish;version=v:1.0.0", "quantity=1Mi", .match = 1},
        {"compile_test.go many",
         "device.attributes[\"dra.example.com\"].a && device.attributes[\"dra.example.com\"].b && "
         "device.attributes[\"dra.example.com\"].c",
         DRA, "a=b:true;b=b:true;c=b:true", .match = 1},
        {"compile_test.go check_attribute_domains",
         "device.attributes.exists_one(x, x == \"dra.example.com\")", DRA,
         "services=s:some_example_value", .match = 1},
        {"compile_test.go check_attribute_ids",
         "device.attributes[\"dra.example.com\"].exists_one(x, x == \"services\")", DRA,
         "services=s:some_example_value", .match = 1},
        {"compile_test.go split_attribute",
         "device.attributes[\"dra.example.com\"].services.split(\"example\").size() >= 2", DRA,
         "services=s:some_example_value", .match = 1},
        {"compile_test.go regexp_attribute",
         "device.attributes[\"dra.example.com\"].services.matches(\"[^a]?sym\")", DRA,
         "services=s:asymetric", .match = 1},
        {"compile_test.go check_capacity_domains",
         "device.capacity.exists_one(x, x == \"dra.example.com\")", DRA, NULL, "memory=1Mi",
         .match = 1},
        {"compile_test.go check_capacity_ids",
         "device.capacity[\"dra.example.com\"].exists_one(x, x == \"memory\")", DRA, NULL,
         "memory=1Mi", .match = 1},
        {"compile_test.go expensive",
         "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, "
         "4, "
         "5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, "
         "8, "
         "9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
         "10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
         DRA, .eval_err = "actual cost limit exceeded"},
        {"compile_test.go allow_multiple_allocations", "device.allowMultipleAllocations == true",
         DRA, .match = 1, .multi = true},
        {"compile_test.go allow_multiple_allocations_default",
         "device.allowMultipleAllocations == false", DRA, .match = 1},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_drivers) {
    static const row rows[] = {
        /* NVIDIA k8s-dra-driver-gpu, DeviceClass gpu.nvidia.com */
        {"driver: nvidia gpu.nvidia.com",
         "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
         "gpu.nvidia.com",
         "type=s:gpu;productName=s:NVIDIA A100-SXM4-40GB;driverVersion=v:550.54.15", "memory=40Gi",
         .match = 1},
        {"driver: nvidia mig.nvidia.com",
         "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
         "gpu.nvidia.com", "type=s:gpu", .match = 0},
        /* NVIDIA's ComputeDomain channel class */
        {"driver: nvidia compute-domain-default-channel",
         "device.driver == 'compute-domain.nvidia.com' && "
         "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
         "device.attributes['compute-domain.nvidia.com'].id == 0",
         "compute-domain.nvidia.com", "type=s:channel;id=i:0", .match = 1},
        /* Intel intel-resource-drivers-for-kubernetes, DeviceClass gpu.intel.com */
        {"driver: intel gpu.intel.com", "device.driver == 'gpu.intel.com'", "gpu.intel.com",
         "model=s:Max 1550;family=s:Data Center Max", "memory=65536Mi", .match = 1},
        {"driver: intel gaudi.intel.com (selector)",
         "device.driver == 'gaudi.intel.com' && "
         "device.attributes['gaudi.intel.com'].model == 'Gaudi2'",
         "gaudi.intel.com", "model=s:Gaudi2;healthy=b:true", .match = 1},
        /* kubernetes-sigs/dra-example-driver, DeviceClass gpu.example.com and its demo claims */
        {"driver: dra-example-driver gpu.example.com", "device.driver == 'gpu.example.com'",
         "gpu.example.com",
         "index=i:0;model=s:LATEST-GPU-MODEL;uuid=s:gpu-18db;driverVersion=v:1.0.0", "memory=80Gi",
         .match = 1},
        {"driver: dra-example-driver demo gpu-test5",
         "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL' && "
         "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
         "gpu.example.com", "model=s:LATEST-GPU-MODEL", "memory=80Gi", .match = 1},
        {"driver: dra-example-driver driverVersion",
         "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('0.9.0'))",
         "gpu.example.com", "driverVersion=v:1.0.0", .match = 1},
        /* a claim selector on a memory capacity in another domain is false, not an error, when
         * guarded with `in` */
        {"selector: guarded capacity",
         "'memory' in device.capacity['other.example.com'] && "
         "device.capacity['other.example.com'].memory.isGreaterThan(quantity('1Gi'))",
         "gpu.example.com", NULL, "memory=80Gi", .match = 0},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_quantity_library) {
    static const row rows[] = {
        {"quantity_test.go parse", "quantity(\"12Mi\") == quantity(\"12582912\")", .match = 1},
        {"quantity_test.go parseInvalidSuffix", "quantity(\"10Mo\") == quantity(\"1\")",
         .eval_err = "quantities must match the regular expression"},
        {"quantity_test.go parseInvalidSuffixPassesRegex", "quantity(\"10Mm\") == quantity(\"1\")",
         .eval_err = "unable to parse quantity's suffix"},
        {"quantity_test.go isQuantity", "isQuantity(\"20\")", .match = 1},
        {"quantity_test.go isQuantity_megabytes", "isQuantity(\"20M\")", .match = 1},
        {"quantity_test.go isQuantity_mebibytes", "isQuantity(\"20Mi\")", .match = 1},
        {"quantity_test.go isQuantity_invalidSuffix", "isQuantity(\"20Mo\")", .match = 0},
        {"quantity_test.go isQuantity_passingRegex", "isQuantity(\"10Mm\")", .match = 0},
        {"quantity_test.go isQuantity_noOverload", "isQuantity([1, 2, 3])",
         .compile_err = "found no matching overload for 'isQuantity' applied to '(list(int))'"},
        {"quantity_test.go equality_reflexivity", "quantity(\"200M\") == quantity(\"200M\")",
         .match = 1},
        {"quantity_test.go equality_symmetry",
         "quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")",
         .match = 1},
        {"quantity_test.go equality_transitivity",
         "quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && "
         "quantity(\"0.002G\") == quantity(\"2000k\")",
         .match = 1},
        {"quantity_test.go inequality", "quantity(\"200M\") == quantity(\"0.3G\")", .match = 0},
        {"quantity_test.go quantity_less", "quantity(\"50M\").isLessThan(quantity(\"50Mi\"))",
         .match = 1},
        {"quantity_test.go quantity_less_obvious",
         "quantity(\"50M\").isLessThan(quantity(\"100M\"))", .match = 1},
        {"quantity_test.go quantity_less_false", "quantity(\"100M\").isLessThan(quantity(\"50M\"))",
         .match = 0},
        {"quantity_test.go quantity_greater", "quantity(\"50Mi\").isGreaterThan(quantity(\"50M\"))",
         .match = 1},
        {"quantity_test.go quantity_greater_false",
         "quantity(\"50M\").isGreaterThan(quantity(\"100M\"))", .match = 0},
        {"quantity_test.go compare_equal", "quantity(\"200M\").compareTo(quantity(\"0.2G\")) == 0",
         .match = 1},
        {"quantity_test.go compare_less", "quantity(\"50M\").compareTo(quantity(\"50Mi\")) == -1",
         .match = 1},
        {"quantity_test.go compare_greater", "quantity(\"50Mi\").compareTo(quantity(\"50M\")) == 1",
         .match = 1},
        {"quantity_test.go add_quantity",
         "quantity(\"50k\").add(quantity(\"20\")) == quantity(\"50.02k\")", .match = 1},
        {"quantity_test.go add_int", "quantity(\"50k\").add(20).isLessThan(quantity(\"50020\"))",
         .match = 0},
        {"quantity_test.go sub_quantity",
         "quantity(\"50k\").sub(quantity(\"20\")) == quantity(\"49.98k\")", .match = 1},
        {"quantity_test.go sub_int", "quantity(\"50k\").sub(20) == quantity(\"49980\")",
         .match = 1},
        {"quantity_test.go arith_chain_1",
         "quantity(\"50k\").add(20).sub(quantity(\"100k\")).asInteger() == -49980", .match = 1},
        {"quantity_test.go arith_chain",
         "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger() == 20",
         .match = 1},
        {"quantity_test.go as_integer", "quantity(\"50k\").asInteger() == 50000", .match = 1},
        {"quantity_test.go as_integer_error (an amount kprio holds)",
         "quantity(\"1.5\").asInteger() == 1", .eval_err = "cannot convert value to integer"},
        {"quantity_test.go is_integer", "quantity(\"50\").isInteger()", .match = 1},
        {"quantity_test.go is_integer (fraction)", "quantity(\"500m\").isInteger()", .match = 0},
        {"quantity_test.go as_float", "quantity(\"50.703k\").asApproximateFloat() == 50703.0",
         .match = 1},
        {"quantity.go sign (a global overload)",
         "sign(quantity(\"-1\")) == -1 && sign(quantity(\"0\")) == 0", .match = 1},
        {"quantity.go sign is not receiver-style", "quantity(\"1\").sign() == 1",
         .compile_err =
             "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"},
        {"quantity_test.go multiply", "quantity(\"50k\").mul(2) == quantity(\"100000\")",
         .match = 1},
        {"quantity_test.go divide_scaled (refused)",
         "quantity(\"10k\").div(2) == quantity(\"5000\")",
         .compile_err = "unsupported function 'div'"},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_semver_library) {
    static const row rows[] = {
        {"semver_test.go parse", "semver(\"1.2.3\") == semver(\"1.2.3\")", .match = 1},
        {"semver_test.go parseInvalidVersion", "semver(\"v1.0\") == semver(\"1.0.0\")",
         .eval_err = "invalid semantic version"},
        {"semver_test.go isSemver", "isSemver(\"1.2.3-beta.1+build.1\")", .match = 1},
        {"semver_test.go isSemver_false", "isSemver(\"v1.0.0\")", .match = 0},
        {"semver_test.go isSemver_leading_zero", "isSemver(\"01.0.0\")", .match = 0},
        {"semver_test.go isSemver_normalize", "isSemver(\"v01.02\", true)", .match = 1},
        {"semver_test.go isSemver_normalize_short_prerelease", "isSemver(\"v1.0-alpha\", true)",
         .match = 0},
        {"semver_test.go isSemver_noOverload", "isSemver([1, 2, 3])",
         .compile_err = "found no matching overload for 'isSemver' applied to '(list(int))'"},
        {"semver_test.go equality_reflexivity", "semver(\"1.2.3\") == semver(\"1.2.3\")",
         .match = 1},
        {"semver_test.go inequality", "semver(\"1.2.3\") == semver(\"1.0.0\")", .match = 0},
        {"semver_test.go semver_less", "semver(\"1.0.0\").isLessThan(semver(\"1.2.3\"))",
         .match = 1},
        {"semver_test.go semver_less_false", "semver(\"1.0.0\").isLessThan(semver(\"1.0.0\"))",
         .match = 0},
        {"semver_test.go semver_greater", "semver(\"1.2.3\").isGreaterThan(semver(\"1.0.0\"))",
         .match = 1},
        {"semver_test.go compare_equal", "semver(\"1.2.3\").compareTo(semver(\"1.2.3\")) == 0",
         .match = 1},
        {"semver_test.go compare_less", "semver(\"1.2.3\").compareTo(semver(\"2.0.0\")) == -1",
         .match = 1},
        {"semver_test.go compare_greater", "semver(\"1.2.3\").compareTo(semver(\"0.1.2\")) == 1",
         .match = 1},
        {"semver_test.go major", "semver(\"1.2.3\").major() == 1", .match = 1},
        {"semver_test.go minor", "semver(\"1.2.3\").minor() == 2", .match = 1},
        {"semver_test.go patch", "semver(\"1.2.3\").patch() == 3", .match = 1},
        {"semver_test.go normalize", "semver(\"v01.002.0003\", true) == semver(\"1.2.3\")",
         .match = 1},
        {"semverlib.go normalizeAndParse: a part starting with a non-digit gets a 0",
         "semver('1.2.-beta', true) == semver('1.2.0-beta') && !isSemver('\\xc3v1.2', true) && "
         "semver('v1.02.3-rc.1', true).isLessThan(semver('1.2.3'))",
         .match = 1},
        {"semver_test.go normalize_short", "semver(\"v1\", true) == semver(\"1.0.0\")", .match = 1},
        {"semver.org 11: prerelease order",
         "semver(\"1.0.0-alpha\").isLessThan(semver(\"1.0.0-alpha.1\")) && "
         "semver(\"1.0.0-alpha.1\").isLessThan(semver(\"1.0.0-alpha.beta\")) && "
         "semver(\"1.0.0-beta.2\").isLessThan(semver(\"1.0.0-beta.11\")) && "
         "semver(\"1.0.0-rc.1\").isLessThan(semver(\"1.0.0\"))",
         .match = 1},
        {"semver build metadata is ignored", "semver(\"1.0.0+a\") == semver(\"1.0.0+b\")",
         .match = 1},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_language) {
    static const row rows[] = {
        /* && and || are commutative and absorb errors (CEL spec, cel-go logicalAnd/logicalOr) */
        {"cel spec: false && error", "false && 1 / 0 == 1", .match = 0},
        {"cel spec: error && false", "1 / 0 == 1 && false", .match = 0},
        {"cel spec: true || error", "1 / 0 == 1 || true", .match = 1},
        {"cel spec: error && true", "1 / 0 == 1 && true", .eval_err = "division by zero"},
        {"cel spec: missing key && false", "device.attributes['d'].x && false", .match = 0},
        {"cel spec: int overflow", "9223372036854775807 + 1 > 0", .eval_err = "integer overflow"},
        {"cel spec: int min literal", "-9223372036854775808 < 0", .match = 1},
        {"cel spec: int min negation", "-(-9223372036854775808) < 0",
         .eval_err = "integer overflow"},
        {"cel spec: uint underflow", "1u - 2u > 0u", .eval_err = "unsigned integer overflow"},
        {"cel spec: modulus by zero", "1 % 0 == 0", .eval_err = "modulus by zero"},
        {"cel spec: double division", "1.0 / 0.0 > 1e308", .match = 1},
        {"cel spec: heterogeneous equality", "dyn(1) == 1.0 && dyn(1u) == 1 && dyn('a') != 1",
         .match = 1},
        {"cel spec: cross-type ordering", "1 < 1.5 && 2u > 1 && -1 < 0u", .match = 1},
        {"cel spec: ternary", "(1 < 2 ? 'a' : 'b') == 'a'", .match = 1},
        {"cel spec: in list", "2 in [1, 2, 3] && !(4 in [1, 2, 3])", .match = 1},
        {"cel spec: in map", "'a' in {'a': 1} && !('b' in {'a': 1})", .match = 1},
        {"cel spec: map index", "{'a': 1, 'b': 2}['b'] == 2", .match = 1},
        {"cel spec: map missing key", "{'a': 1}['model'] == 1", .eval_err = "no such key: model"},
        {"cel spec: list index out of range", "[1, 2][2] == 1",
         .eval_err = "index '2' out of range in list size '2'"},
        {"cel spec: size",
         "size('héllo') == 5 && size(b'h\\xff') == 2 && [1, 2].size() == 2 && "
         "size({'a': 1}) == 1",
         .match = 1},
        {"cel spec: string concat", "'ab' + 'cd' == 'abcd' && [1] + [2] == [1, 2]", .match = 1},
        {"cel spec: string escapes", "'\\x41\\u00e9\\101\\n' == 'Aé' + 'A\\n' && r'\\n' == '\\\\n'",
         .match = 1},
        {"cel spec: triple-quoted", "'''a'b''' == \"a'b\"", .match = 1},
        {"cel spec: has on map", "has({'a': 1}.a) && !has({'a': 1}.b)", .match = 1},
        {"cel spec: has on a device domain", "has(device.attributes.dom.x)", "dom", "x=i:1",
         .match = 1},
        {"cel spec: has on a missing attribute", "has(device.attributes.dom.y)", "dom", "x=i:1",
         .match = 0},
        {"cel spec: all", "[1, 2, 3].all(x, x > 0)", .match = 1},
        {"cel spec: all with an error and a false", "[0, 1].all(x, 1 / x > 5)", .match = 0},
        {"cel spec: exists with an error and a true", "[0, 1].exists(x, 1 / x == 1)", .match = 1},
        {"cel spec: exists with an error only", "[0].exists(x, 1 / x == 1)",
         .eval_err = "division by zero"},
        {"cel spec: exists_one",
         "[1, 2, 3].exists_one(x, x > 2) && ![1, 2, 3].exists_one(x, x > 1)", .match = 1},
        {"cel spec: map", "[1, 2, 3].map(x, x * 2) == [2, 4, 6]", .match = 1},
        {"cel spec: map with filter", "[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]", .match = 1},
        {"cel spec: filter", "[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]", .match = 1},
        {"cel spec: nested macros shadow", "[1, 2].all(x, [3].all(x, x == 3))", .match = 1},
        {"cel spec: map keys iterate", "{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])", .match = 1},
        {"cel spec: conversions",
         "int('42') == 42 && uint(3) == 3u && double(1) == 1.0 && string(1.5) == '1.5' && "
         "string(true) == 'true' && bool('true') && int(2.9) == 2 && string(b'ab') == 'ab'",
         .match = 1},
        {"cel-go string(double): Go's shortest %g",
         "string(1000000.0) == '1e+06' && string(123456.0) == '123456' && string(0.0001) == "
         "'0.0001' && string(0.00001) == '1e-05' && string(-2.5) == '-2.5'",
         .match = 1},
        {"cel spec: bad int conversion", "int('4x') == 4", .eval_err = "invalid syntax"},
        {"cel spec: comments and whitespace", "// a comment\n  true // another\n", .match = 1},
        {"cel spec: even negation", "!!true", .match = 1},
        {"cel spec: string ordering", "'a' < 'b' && 'B' < 'a' && b'a' < b'b'", .match = 1},
        {"cel spec: non-bool result", "device.attributes['d'].x", "d", "x=i:3",
         .eval_err = "CEL result of type int could not be converted to bool"},
        {"cel spec: dyn comparison with a string attribute", "device.attributes['d'].x > 1", "d",
         "x=s:3", .eval_err = "no such overload"},
        {"cel spec: device map equality", "device.attributes['d'] == {'x': 3}", "d", "x=i:3",
         .match = 1},
        {"cel spec: size of a device map", "size(device.attributes['d']) == 2", "d",
         "x=i:3;y=b:true", .match = 1},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_strings_and_regex) {
    static const row rows[] = {
        {"strings ext: charAt", "'tacocat'.charAt(3) == 'o' && 'tacocat'.charAt(7) == ''",
         .match = 1},
        {"strings ext: charAt out of range", "'abc'.charAt(4) == ''",
         .eval_err = "index out of range: 4"},
        {"strings ext: indexOf",
         "'hello mellow'.indexOf('ello') == 1 && 'hello mellow'.indexOf('ello', "
         "2) == 7 && 'hello'.indexOf('') == 0 && 'hello'.indexOf('z') == -1",
         .match = 1},
        {"strings ext: indexOf unicode",
         "'ta©o©αT'.indexOf('©') == 2 && 'ta©o©αT'.lastIndexOf('©') == 4", .match = 1},
        {"strings ext: lastIndexOf",
         "'hello mellow'.lastIndexOf('ello') == 7 && 'hello "
         "mellow'.lastIndexOf('ello', 6) == 1 && 'abc'.lastIndexOf('') == 3",
         .match = 1},
        {"strings ext: lowerAscii upperAscii",
         "'TacoCÆt'.lowerAscii() == 'tacocÆt' && "
         "'tacoCat'.upperAscii() == 'TACOCAT'",
         .match = 1},
        {"strings ext: replace",
         "'hello hello'.replace('he', 'we') == 'wello wello' && 'hello "
         "hello'.replace('he', 'we', 1) == 'wello hello' && "
         "'abc'.replace('', '-') == '-a-b-c-'",
         .match = 1},
        {"strings ext: split",
         "'hello hello hello'.split(' ') == ['hello', 'hello', 'hello'] && 'hello "
         "hello hello'.split(' ', 2) == ['hello', 'hello hello'] && "
         "'abc'.split('') == ['a', 'b', 'c'] && 'a'.split(' ', 0) == []",
         .match = 1},
        {"strings ext: substring",
         "'tacocat'.substring(4) == 'cat' && 'tacocat'.substring(0, 4) == 'taco'", .match = 1},
        {"strings ext: substring range", "'tacocat'.substring(4, 2) == ''",
         .eval_err = "invalid substring range. start: 4, end: 2"},
        {"strings ext: trim", "'  \\ttrim\\n    '.trim() == 'trim'", .match = 1},
        {"strings ext: join",
         "['x', 'y'].join() == 'xy' && ['x', 'y'].join('-') == 'x-y' && "
         "[].join(',') == ''",
         .match = 1},
        {"strings ext: quote", "strings.quote('a\"b\\n') == '\"a\\\\\"b\\\\n\"'", .match = 1},
        {"stdlib: contains startsWith endsWith",
         "'gpu-a100'.contains('a1') && 'gpu-a100'.startsWith('gpu') && 'gpu-a100'.endsWith('100')",
         .match = 1},
        {"regex: matches is a search",
         "'gpu-a100'.matches('a1') && matches('gpu-a100', '^gpu-[a-z]\\\\d+$')", .match = 1},
        {"regex: anchors and classes",
         "!'xgpu'.matches('^gpu') && 'A100'.matches('(?i)^a\\\\d{3}$') && "
         "'a_1'.matches('^\\\\w+$')",
         .match = 1},
        {"regex: alternation and groups",
         "'h100'.matches('^(a|h)(?:100|200)$') && "
         "!'b100'.matches('^(a|h)(?:100|200)$')",
         .match = 1},
        {"regex: find", "'abc 123'.find('[0-9]+') == '123' && 'abc'.find('[0-9]+') == ''",
         .match = 1},
        {"regex: leftmost-first",
         "'aaa'.find('a|aa') == 'a' && 'aaa'.find('a+?') == 'a' && "
         "'aaa'.find('a*') == 'aaa'",
         .match = 1},
        {"regex: findAll",
         "'123 abc 456'.findAll('[0-9]+') == ['123', '456'] && '123 abc "
         "456'.findAll('[0-9]+', 1) == ['123']",
         .match = 1},
        {"regex: findAll empty matches", "'abc'.findAll('x*') == ['', '', '', '']", .match = 1},
        {"regex: word boundary", "'a gpu'.matches('\\\\bgpu\\\\b') && !'agpu'.matches('\\\\bgpu')",
         .match = 1},
        {"regex: an assertion that fails at the first positions",
         "'ab'.matches('$') && 'xa'.matches('\\\\Ba') && 'a b'.find('\\\\bb') == 'b' && "
         "'aa'.find('(?:a*)*') == 'aa'",
         .match = 1},
        {"regex: nested repetition", "'aa'.matches('a**')",
         .compile_err = "invalid regular expression: invalid nested repetition operator"},
        {"regex: dynamic pattern", "'abc'.matches(device.driver)", "b.", .match = 1},
        {"regex: dynamic bad pattern", "'abc'.matches(device.driver)", "(",
         .eval_err = "invalid regular expression: missing closing )"},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_lists_and_sets) {
    static const row rows[] = {
        {"lists.go isSorted", "[1, 2, 3].isSorted() && !['b', 'a'].isSorted() && [].isSorted()",
         .match = 1},
        {"lists.go sum", "[1, 2, 3].sum() == 6 && [1.5, 2.5].sum() == 4.0 && [].sum() == 0",
         .match = 1},
        {"lists.go min max",
         "[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3 && ['b', 'a'].min() == 'a'", .match = 1},
        {"lists.go max of empty", "[].max() == 1", .eval_err = "max called on empty list"},
        {"lists.go indexOf",
         "[1, 2, 2].indexOf(2) == 1 && [1, 2, 2].lastIndexOf(2) == 2 && "
         "[1].indexOf(5) == -1",
         .match = 1},
        {"ext sets",
         "sets.contains([1, 2, 3], [2, 3]) && !sets.contains([1], [2]) && "
         "sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1, 2], [2, 5])",
         .match = 1},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

/* Compile errors: "at LINE:COL: reason", cel-go's wording where it has one. */
KT_TEST(test_cel_compile_errors) {
    static const row rows[] = {
        {"undeclared", "x == 1",
         .compile_err = "at 1:1: undeclared reference to 'x' (in container '')"},
        {"undeclared after newline", "true &&\n  foo",
         .compile_err = "at 2:3: undeclared reference to 'foo'"},
        {"no matching overload", "device.driver > 1",
         .compile_err = "at 1:15: found no matching overload for '_>_' applied to '(string, int)'"},
        {"no matching overload, member", "device.driver.startsWith(1)",
         .compile_err =
             "at 1:25: found no matching overload for 'startsWith' applied to 'string.(int)'"},
        {"unknown function", "device.driver.frobnicate()",
         .compile_err = "at 1:25: undeclared reference to 'frobnicate'"},
        {"unsupported function", "isURL(device.driver)",
         .compile_err = "at 1:6: unsupported function 'isURL'"},
        {"undefined field", "device.model == 'x'",
         .compile_err = "at 1:7: undefined field 'model'"},
        {"syntax: unterminated", "device.driver == 'abc",
         .compile_err = "at 1:18: Syntax error: token recognition error"},
        {"syntax: missing operand",
         "device.driver ==", .compile_err = "at 1:17: Syntax error: mismatched input '<EOF>'"},
        {"syntax: single =", "device.driver = 'a'",
         .compile_err = "at 1:15: Syntax error: token recognition error at: '='"},
        {"reserved word", "if", .compile_err = "at 1:1: reserved identifier: if"},
        {"result type", "device.driver",
         .compile_err = "must evaluate to bool or the unknown type, not string"},
        {"heterogeneous list", "[1, 'a'].size() == 2",
         .compile_err = "at 1:5: expected type 'int' but found 'string'"},
        {"equality across types", "1 == 'a'",
         .compile_err = "found no matching overload for '_==_' applied to '(int, string)'"},
        {"has needs a field", "has(device)",
         .compile_err = "at 1:5: invalid argument to has() macro"},
        {"macro variable", "[1].all(1, true)", .compile_err = "argument must be a simple name"},
        {"two-variable macros", "{'a': 1}.all(k, v, v > 0)",
         .compile_err = "unsupported macro 'all'"},
        {"optional syntax", "device.?driver",
         .compile_err = "unsupported: optional field selection"},
        {"regex: unsupported class", "device.driver.matches('\\\\pL')",
         .compile_err = "at 1:23: invalid regular expression: unsupported: Unicode classes"},
        {"regex: lookahead", "device.driver.matches('a(?=b)')",
         .compile_err = "invalid regular expression: invalid or unsupported Perl syntax"},
        {"regex: missing paren", "device.driver.matches('(a')",
         .compile_err = "invalid regular expression: missing closing )"},
        {"regex: repeat count", "device.driver.matches('a{1001}')",
         .compile_err = "invalid regular expression: invalid repeat count"},
        {"int literal range", "9223372036854775808 > 0", .compile_err = "invalid int literal"},
        {"comprehension range", "1.all(x, true)",
         .compile_err = "expression of type 'int' cannot be range of a comprehension"},
    };
    KT_CHECK_INT(RUN(rows), 0);
}

KT_TEST(test_cel_limits) {
    kp_cel_program *p = NULL;
    kp_error err;
    /* CELSelectorExpressionMaxLength: 10 Ki bytes */
    size_t n = 10 * 1024 + 1;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    memcpy(big, "true", 4);
    big[n] = '\0';
    KT_CHECK_INT(kp__cel_compile(big, n, &p, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "may not be more than 10240");
    KT_CHECK_INT(kp__cel_compile(big, n - 1, &p, &err), KP_OK);
    kp__cel_free(p);
    /* nesting deeper than the parser's limit is an error, not a stack overflow */
    size_t depth = 3000;
    char *deep = malloc(depth * 2 + 8);
    size_t k = 0;
    for (size_t i = 0; i < depth; i++) deep[k++] = '(';
    deep[k++] = '1';
    for (size_t i = 0; i < depth; i++) deep[k++] = ')';
    KT_CHECK_INT(kp__cel_compile(deep, k, &p, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "expression recursion limit exceeded: 250");
    /* a long && chain is balanced (cel-go's parser balancer), not refused */
    char *chain = malloc(10 * 1024);
    k = 0;
    for (size_t i = 0; i < 1500; i++) k += (size_t)snprintf(chain + k, 16, "%strue", i ? "&&" : "");
    KT_CHECK_INT(kp__cel_compile(chain, k, &p, &err), KP_OK);
    kp__cel_free(p);
    /* a long + chain is as deep as it is long: refused past the limit */
    k = 0;
    for (size_t i = 0; i < 1500; i++) k += (size_t)snprintf(chain + k, 16, "%s1", i ? "+" : "");
    KT_CHECK_INT(kp__cel_compile(chain, k, &p, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "expression recursion limit exceeded");
    /* so is a long selection chain */
    k = (size_t)snprintf(chain, 16, "device");
    for (size_t i = 0; i < 1500; i++) k += (size_t)snprintf(chain + k, 16, ".a");
    KT_CHECK_INT(kp__cel_compile(chain, k, &p, &err), KP_EINVAL);
    KT_CHECK_CONTAINS(err.msg, "expression recursion limit exceeded");
    /* a long regular expression (alternation, concatenation) compiles and matches */
    k = (size_t)snprintf(chain, 32, "'x9'.matches('");
    for (size_t i = 0; i < 1000; i++)
        k += (size_t)snprintf(chain + k, 16, "%sx%zu", i ? "|" : "", i);
    k += (size_t)snprintf(chain + k, 16, "')");
    tdev t;
    build(&t, "d", NULL, NULL);
    bool m = false;
    KT_CHECK_INT(kp__cel_compile(chain, k, &p, &err), KP_OK);
    KT_CHECK_INT(kp__cel_eval_device(p, &t.d, &m, &err), KP_OK);
    KT_CHECK(m);
    kp__cel_free(p);
    kp_cluster_free(t.cl);
    free(chain);
    free(deep);
    free(big);
    /* kp__cel_free(NULL) is a no-op */
    kp__cel_free(NULL);
}

/* Allocation failures reach the caller as KP_ENOMEM, never a crash or a wrong answer. */
KT_TEST(test_cel_alloc_fail) {
    const char *expr =
        "device.attributes['d'].s.split(',').map(x, x + '!').exists(y, y == 'b!') && "
        "'abc'.matches('b+') && [1, 2] + [3] == [1, 2, 3]";
    for (long fail = 0; fail < 40; fail++) {
        tdev t;
        build(&t, "d", "s=s:a,b,c", NULL);
        kp_cel_program *p = NULL;
        kp_error err;
        kp__alloc_fail_after(fail, true);
        kp_status st = kp__cel_compile(expr, strlen(expr), &p, &err);
        bool m = false;
        if (st == KP_OK) st = kp__cel_eval_device(p, &t.d, &m, &err);
        kp__alloc_fail_after(-1, false);
        KT_CHECK(st == KP_OK || st == KP_ENOMEM);
        if (st == KP_OK) KT_CHECK(m);
        kp__cel_free(p);
        kp_cluster_free(t.cl);
    }
}

KT_MAIN(KT_CASE(test_cel_upstream_compile_test), KT_CASE(test_cel_drivers),
        KT_CASE(test_cel_quantity_library), KT_CASE(test_cel_semver_library),
        KT_CASE(test_cel_language), KT_CASE(test_cel_strings_and_regex),
        KT_CASE(test_cel_lists_and_sets), KT_CASE(test_cel_compile_errors),
        KT_CASE(test_cel_limits), KT_CASE(test_cel_alloc_fail))
