#!/bin/sh
# make test-install: `make install` into a scratch PREFIX, then the installed library as an
# outside program sees it (docs/api.md): the shared library exports public kp_ symbols only (no
# kp__ internal, nothing else), every examples/*.c includes only kprio/ headers and builds
# against the installed copy with `pkg-config --cflags --libs kprio`, shared and static, and one
# of them runs.
#
#     sh tests/install.sh [BUILD_DIR]
set -eu
B=${1:-build}
CC=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "test-install: $*"; exit 1; }

P=$tmp/prefix
make --no-print-directory BUILD="$B" PREFIX="$P" install > "$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "make install failed"; }
for f in bin/kprio lib/libkprio.a lib/libkprio.so lib/libkprio.so.0 include/kprio/cluster.h \
    lib/pkgconfig/kprio.pc; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
[ ! -e "$P/include/kprio/emit.h" ] || fail "a renderer header is installed"

# exported: kp_ names only
nm -D --defined-only "$P/lib/libkprio.so" | awk '{ print $NF }' > "$tmp/syms"
n=$(grep -c '^kp_' "$tmp/syms" || true)
[ "$n" -gt 0 ] || fail "libkprio.so exports no kp_ symbol"
bad=$(grep -v '^kp_' "$tmp/syms" | grep -v '^KPRIO' || true)
bad="$bad$(grep '^kp__' "$tmp/syms" || true)"
[ -z "$bad" ] || fail "libkprio.so exports non-public symbols: $(echo $bad | head -c 400)"

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
cflags=$(pkg-config --cflags kprio) || fail "pkg-config --cflags kprio"
libs=$(pkg-config --libs kprio)
slibs=$(pkg-config --static --libs kprio | sed 's/-lkprio\( \|$\)/-l:libkprio.a\1/')
W="-std=c11 -Wall -Wextra -Wpedantic -Werror"
nex=0
for ex in examples/*.c; do
    name=$(basename "$ex" .c)
    if grep '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$ex" | grep -qv '"kprio/'; then
        fail "$ex includes a header outside include/kprio/"
    fi
    # shellcheck disable=SC2086
    $CC $W $cflags -o "$tmp/$name-shared" "$ex" $libs || fail "$ex: shared build failed"
    # shellcheck disable=SC2086
    $CC $W $cflags -o "$tmp/$name-static" "$ex" $slibs || fail "$ex: static build failed"
    nex=$((nex + 1))
done
# the shared build loads the installed libkprio.so.0, the static one needs none
LD_LIBRARY_PATH="$P/lib" ldd "$tmp/fullest-shared" | grep -q "$P/lib/libkprio.so.0" ||
    fail "fullest-shared does not load the installed libkprio.so.0"
! ldd "$tmp/fullest-static" | grep -q libkprio || fail "fullest-static loads libkprio.so"
LD_LIBRARY_PATH="$P/lib" "$tmp/fullest-shared" examples/cluster.yaml > "$tmp/out-shared" ||
    fail "fullest (shared) failed"
"$tmp/fullest-static" examples/cluster.yaml > "$tmp/out-static" || fail "fullest (static) failed"
cmp -s "$tmp/out-shared" "$tmp/out-static" || fail "fullest: shared and static outputs differ"
[ -s "$tmp/out-shared" ] || fail "fullest printed nothing"
echo "test-install: installed into a scratch PREFIX; libkprio.so exports $n kp_ symbols, no other;" \
    "$nex examples built shared and static with pkg-config; fullest ran"
