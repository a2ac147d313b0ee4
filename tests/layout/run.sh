#!/bin/sh
# Self-test of scripts/check_layout.sh: builds a tiny tree that keeps every rule (it must pass),
# then breaks each rule once and checks that each break is reported with its rule number.
# Runs in a temporary directory; needs cc and nm only.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
chk="$here/scripts/check_layout.sh"
t=$(mktemp -d "${TMPDIR:-/tmp}/kp-layout-test.XXXXXX")
trap 'rm -rf "$t"' EXIT INT TERM
fail=0
put() { mkdir -p "$(dirname "$t/tree/$1")"; cat > "$t/tree/$1"; }
build() {
    rm -rf "$t/build"
    (cd "$t/tree" && find src -name '*.c' | while read -r f; do
        mkdir -p "$t/build/$(dirname "$f")"
        cc -std=c11 -O0 -w -Isrc -c "$f" -o "$t/build/${f%.c}.o" || exit 1
    done)
}
# the real rules' data, plus one group of rule 5 (two modules designed as one unit)
{ cat "$here/scripts/layout.conf"; echo 'CIRCLE_GROUPS="$CIRCLE_GROUPS
test-pair src/io/pair_a src/io/pair_b"'; } > "$t/layout.conf"
run() { KP_LAYOUT_CONF="$t/layout.conf" sh "$chk" "$t/build" "$t/tree" > "$t/out" 2> "$t/err" && echo 0 > "$t/rc" || echo $? > "$t/rc"; }
expect() { # rule pattern
    if grep "^check-layout: RULE $1: " "$t/out" | grep -q -- "$2"; then :; else
        echo "FAIL: rule $1 not reported: $2"; fail=1; fi
}

# --- a clean tree: one file per layer, each calling the one below --------------------------
put src/base/b.h <<'X'
int kp__base_f(int x);
X
put src/base/b.c <<'X'
#include <stdlib.h>
#include "base/b.h"
int kp__base_f(int x) { char *p = malloc(4); free(p); return x + 1; }
X
put src/base/civil.h <<'X'
static inline int kp__days(int y) { return y * 365; }
X
put src/base/fileio.h <<'X'
int kp__file_write(const char *path, int x);
X
put src/base/fileio.c <<'X'
#include <stdio.h>
#include "base/fileio.h"
int kp__file_write(const char *path, int x) { FILE *f = fopen(path, "w"); if (!f) return -1; fprintf(f, "%d\n", x); return fclose(f); }
X
put src/core/c.h <<'X'
int kp__core_f(int x);
X
put src/core/state.h <<'X'
typedef struct { int n; } kp_state;
static inline void kp__state_add(kp_state *s) { s->n++; }
X
put src/core/c2.h <<'X'
int kp__core_g2(int x);
X
put src/core/c2.c <<'X'
#include "core/c.h"
#include "core/c2.h"
#include "core/state.h"
int kp__core_g2(int x) { kp_state s = {x}; kp__state_add(&s); return kp__core_f(s.n); }
X
put src/core/c.c <<'X'
#include "base/b.h"
#include "core/c.h"
int kp__core_f(int x) { return kp__base_f(x); }
X
put src/io/a.h <<'X'
int kp__io_a(int x);
X
put src/io/a.c <<'X'
#include <stdio.h>
#include "core/c.h"
#include "io/a.h"
int kp__io_a(int x) { FILE *f = fopen("x", "r"); if (f) fclose(f); return kp__core_f(x); }
X
put src/sched/s.c <<'X'
#include "core/c.h"
int kp_sched_f(int x);
int kp_sched_f(int x) { return kp__core_f(x); }
X
put src/ctrl/rs.c <<'X'
#include "core/c.h"
int kp_ctrl_rs_sync(int x);
int kp_ctrl_rs_sync(int x) { return kp__core_f(x); }
X
put src/io/pair_a.h <<'X'
int kp__io_pair_a(int n);
X
put src/io/pair_a.c <<'X'
#include "io/pair_a.h"
#include "io/pair_b.h"
int kp__io_pair_a(int n) { return n ? kp__io_pair_b(n - 1) : 0; }
X
put src/io/pair_b.h <<'X'
int kp__io_pair_b(int n);
X
put src/io/pair_b.c <<'X'
#include "io/pair_a.h"
#include "io/pair_b.h"
int kp__io_pair_b(int n) { return n ? kp__io_pair_a(n - 1) : 1; }
X
put src/sim/s.c <<'X'
#include "base/civil.h"
#include "sim/s.h"
int kp_sim_f(int y) { return kp__days(y); }
X
put src/sim/s.h <<'X'
int kp_sim_f(int y);
X
put src/kubelet/k.h <<'X'
int kp_kubelet_f(int x);
X
put src/kubelet/k.c <<'X'
#include "core/c.h"
#include "kubelet/k.h"
int kp_kubelet_f(int x) { return kp__core_f(x); }
X
put src/render/r.c <<'X'
#include <stdio.h>
int kp_render_f(int x);
int kp_render_f(int x) { return printf("%d\n", x); }
X
put src/render/r.h <<'X'
int kp_render_f(int x);
X
put src/cli/main.c <<'X'
#include <stdio.h>
#include "base/fileio.h"
#include "render/r.h"
int main(void)
{
    return kp_render_f(1) < 0 || kp__file_write("out", 1) != 0;
}
X
build; run
if [ "$(cat "$t/rc")" != 0 ]; then echo "FAIL: the clean tree is reported:"; cat "$t/out" "$t/err"; fail=1; fi

# --- break each rule once -------------------------------------------------------------------
put src/cli/main.c <<'X'
#include <stdio.h>
#include "core/c.h"
#include "base/b.h"
int kp_render_f(int x);
int main(void)
{
    return kp_render_f(1) < 0 || kp__core_f(2) < 0 || kp__base_f(3) < 0;
}
X
put src/render/r.c <<'X'
#include <stdio.h>
#include "cli/cli.h"
int kp_render_f(int x);
int kp_render_f(int x) { return printf("%d\n", x); }
X
put src/cli/cli.h <<'X'
int kp_cli_nothing(void);
X
put src/sim/s2.c <<'X'
#include "base/b.h"
int kp_sim_g(int y);
int kp_sim_g(int y) { return kp__base_f(y); }
X
put src/base/b.c <<'X'
#include <stdio.h>
#include <stdlib.h>
#include "base/b.h"
int kp__base_f(int x) { char *p = malloc(4); FILE *f = fopen("x", "r"); if (f) fclose(f); free(p); return x + 1; }
X
put src/ctrl/rs.c <<'X'
#include "core/c.h"
#include "kubelet/k.h"
int kp_ctrl_rs_sync(int x);
int kp_ctrl_rs_sync(int x) { return kp__core_f(x) + kp_kubelet_f(x); }
X
put src/kubelet/m.h <<'X'
typedef struct { int n; } kp_mgr;
static inline void kp__mgr_add(kp_mgr *m) { m->n++; }
int kp_kubelet_m(int x);
X
put src/kubelet/m.c <<'X'
#include "kubelet/l.h"
#include "kubelet/m.h"
int kp_kubelet_m(int x) { return kp__kubelet_l(x); }
X
put src/kubelet/l.h <<'X'
int kp__kubelet_l(int x);
X
put src/kubelet/l.c <<'X'
#include "kubelet/l.h"
#include "kubelet/m.h"
int kp__kubelet_l(int x) { kp_mgr m = {x}; kp__mgr_add(&m); return m.n; }
X
put src/sched/fw.h <<'X'
typedef struct { int n; } kp_fw;
int kp__fw_run(kp_fw *f);
X
put src/sched/fw.c <<'X'
#include "sched/fw.h"
#include "sched/plug.h"
int kp__fw_run(kp_fw *f) { return kp__plug_filter(f->n); }
X
put src/sched/plug.h <<'X'
int kp__plug_filter(int n);
X
put src/sched/plug.c <<'X'
#include "sched/fw.h"
#include "sched/plug.h"
int kp__plug_filter(int n) { kp_fw f = {n}; return f.n; }
X
put src/sched/s.c <<'X'
#include "core/c.h"
#include "kubelet/k.h"
int kp_sched_f(int x);
int kp_sched_f(int x) { return kp__core_f(x); }
X
put src/sim/sim.c <<'X'
#include "core/c.h"
int kp_sim_f(void);
int kp_sim_f(void) { return 0; }
X
put src/core/c.c <<'X'
#include <stdio.h>
#include <stdlib.h>
#include "base/b.h"
#include "core/c.h"
#include "io/a.h"
int kp__core_f(int x) { return kp__base_f(x); }
int kp__core_g(void);
int kp__core_g(void) {
    FILE *f = fopen("/etc/hostname", "r");
    char *p = malloc(8);
    free(p);
    if (f) fclose(f);
    return kp__io_a(1);
}
X
put src/io/p.c <<'X'
int kp__io_p(int n);
int kp__io_q(int n);
int kp__io_p(int n) { return n ? kp__io_q(n - 1) : 0; }
X
put src/io/q.c <<'X'
int kp__io_p(int n);
int kp__io_q(int n);
int kp__io_q(int n) { return n ? kp__io_p(n - 1) : 1; }
/* A bound that cannot be reached.
 * rule 8: read, not a limit. */
#define KP_MAX_REVIEWED 4
#define KP_MAX_REVIEWED2 4 /* rule 8: an upstream constant */
int kp__io_rv[KP_MAX_REVIEWED + KP_MAX_REVIEWED2];
X
{
    echo '#define KP_MAX_THINGS 4'
    echo 'static int things[KP_MAX_THINGS];'
    echo 'int kp__io_long(int x);'
    echo 'int kp__io_long(int x)'
    echo '{'
    echo '    /* a brace in a comment { and in a string: */'
    echo '    const char *s = "}{";'
    i=0; while [ $i -lt 150 ]; do echo "    x += things[$((i % 4))] + (int)s[0]; /* $i */"; i=$((i + 1)); done
    echo '    return x;'
    echo '}'
    i=0; while [ $i -lt 660 ]; do echo "/* filler $i */"; i=$((i + 1)); done
} | put src/io/big.c
build; run
[ "$(cat "$t/rc")" = 1 ] || { echo "FAIL: broken tree: exit $(cat "$t/rc"), want 1"; fail=1; }
expect 1 'src/cli/main.c:2: includes core/c.h'
expect 1 'src/cli/main.c: calls kp__core_f defined in src/core/c.c'
expect 1 'src/cli/main.c:3: includes base/b.h'
expect 1 'src/cli/main.c: calls kp__base_f defined in src/base/b.c'
expect 1 'src/render/r.c:2: includes cli/cli.h'
expect 2 'src/sim/s2.c:1: includes base/b.h'
expect 2 'src/sim/s2.c: calls kp__base_f defined in src/base/b.c'
expect 3 'src/base/b.c: calls fopen'
expect 2 'src/sched/s.c:2: includes kubelet/k.h'
expect 2 'src/sim/sim.c:1: includes core/c.h'
expect 3 'src/core/c.c: calls fopen'
expect 4 'src/core/c.c: calls malloc'
expect 4 'src/core/c.c: calls free'
expect 5 'src/io/p: in a circle with src/io/q (src/io/p -> src/io/q: calls kp__io_q; src/io/q -> src/io/p: calls kp__io_p)'
expect 5 'src/kubelet/l: in a circle with src/kubelet/m (src/kubelet/l -> src/kubelet/m: uses kp__mgr_add'
expect 5 'src/sched/fw: in a circle with src/sched/plug (src/sched/fw -> src/sched/plug: calls kp__plug_filter; src/sched/plug -> src/sched/fw: includes sched/fw.h (line 1))'
expect 6 'src/io/big.c: 8[0-9][0-9] lines'
expect 6 'src/io/big.c:4: function kp__io_long is 156 lines'
expect 7 'src/core/c.c:5: includes io/a.h (layer io is above core)'
expect 7 'src/core/c.c: uses kp__io_a of src/io/a.c'
expect 7 'src/ctrl/rs.c:2: includes kubelet/k.h (kubelet and ctrl are siblings)'
expect 7 'src/ctrl/rs.c: uses kp_kubelet_f of src/kubelet/k.c (kubelet and ctrl are siblings)'
expect 7 'src/render/r.c:2: includes cli/cli.h (layer cli is above render)'
if grep -q 'pair_a\|pair_b' "$t/out"; then echo "FAIL: a circle inside a group of rule 5 is reported"; fail=1; fi
if grep -q 'src/base/fileio.c\|src/sim/s.c\|src/core/c2\|src/core/state' "$t/out"; then
    echo "FAIL: a clean file is reported:"; grep 'src/base/fileio.c\|src/sim/s.c\|src/core/c2\|src/core/state' "$t/out"; fail=1
fi
if grep -q 'src/sim: folder is in no layer' "$t/out"; then echo "FAIL: sim reported as no layer"; fail=1; fi
grep -q 'WARNING: RULE 8: src/io/big.c:1: KP_MAX_THINGS' "$t/out" || { echo "FAIL: rule 8 warning missing"; fail=1; }
if grep -q 'KP_MAX_REVIEWED' "$t/out"; then echo "FAIL: a macro marked 'rule 8:' is reported"; fail=1; fi
# the clean files stay clean
if grep -q 'RULE [0-9]: src/kubelet/k.c\|src/io/a.c: calls fopen' "$t/out"; then
    echo "FAIL: a clean file is reported:"; grep 'RULE [0-9]: src/kubelet/k.c\|src/io/a.c: calls fopen' "$t/out"; fail=1
fi
if [ $fail != 0 ]; then echo "--- check_layout output:"; cat "$t/out" "$t/err"; echo "test-layout: FAILED"; exit 1; fi
echo "test-layout: $(grep -c '^check-layout: RULE' "$t/out") violations found as expected, clean tree passes"
