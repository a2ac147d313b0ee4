#!/usr/bin/env bash
# Builds the Containerfile without a container engine and runs the image it makes
# (`make check-container`, docs/development.md "The container image"): the instructions it uses
# (FROM debian:bookworm or debian:bookworm-slim or an earlier stage, WORKDIR, COPY with --from
# and --chown, RUN, ENV, USER, ENTRYPOINT, CMD) executed in a debootstrap'ed Debian bookworm
# root under chroot, one root per stage, then the final stage's entry point run with `version`,
# and the Indexed Job of `kprio sweep --emit-job` (emitted by the image's kprio) played inside
# the image: its ConfigMap written out as the kubelet mounts it at /sweep, each shard run from the
# Job's own command line as the Job's user, and the shards merged to the bytes of a local run.
# Any other instruction, flag or form is an error naming its line.
#
# Needs root (debootstrap, chroot, mounts) and Debian's debootstrap (installed the way
# scripts/deps.sh installs packages). Downloads a Debian base (~40 MB) the first time and keeps
# it, the packages RUN steps download and the root after each RUN (a layer, keyed by everything
# before it, as an engine's build cache) in KPRIO_CONTAINER_CACHE (default
# /var/cache/kprio-container), so a rerun redoes only the steps whose inputs changed; layers a
# run did not use are removed. KPRIO_DEBIAN_MIRROR overrides the mirror (default: the one this
# machine's apt sources name for bookworm, else deb.debian.org).
#
# usage: bash scripts/check_containerfile.sh [CONTAINERFILE] [CONTEXT]
set -euo pipefail

CF=${1:-Containerfile}
CTX=$(cd "${2:-.}" && pwd)
CACHE=${KPRIO_CONTAINER_CACHE:-/var/cache/kprio-container}
DEFAULT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SUPPORTED="FROM, WORKDIR, COPY, RUN, ENV, USER, ENTRYPOINT, CMD"

die() { echo "check-container: $*" >&2; exit 1; }
say() { echo "check-container: $*" >&2; }

[ -f "$CF" ] || die "$CF: no such file"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts): run it as root or with sudo"
command -v debootstrap >/dev/null 2>&1 || sh "$(dirname "$0")/deps.sh" container
command -v unshare >/dev/null 2>&1 || die "unshare (util-linux) is missing"

# ---------------------------------------------------------------- parsing

# The instructions, one per element: continuation lines joined, comments and blank lines
# skipped; LINES[i] is where instruction i starts.
INSTR=() LINES=()
parse() {
    local n=0 cur="" start=0 line
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        line=${line%$'\r'}
        if [ -z "$cur" ]; then
            [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
            start=$n
        else
            [[ "$line" =~ ^[[:space:]]*# ]] && continue # a comment inside a continued instruction
        fi
        if [[ "$line" =~ \\[[:space:]]*$ ]]; then
            line=${line%\\*}
            cur+="$line"
            continue
        fi
        cur+="$line"
        INSTR+=("$cur")
        LINES+=("$start")
        cur=""
    done <"$CF"
    [ -z "$cur" ] || die "$CF:$start: the last instruction ends with a line continuation"
}

# JSON string array ("exec form") -> the global array JARR; false when text is not one.
JARR=()
json_array() {
    local s=$1 i=0 n c out esc
    JARR=()
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    [ "${s:0:1}" = "[" ] && [ "${s: -1}" = "]" ] || return 1
    s=${s:1:${#s}-2}
    n=${#s}
    while :; do
        while [ $i -lt $n ] && [[ "${s:$i:1}" =~ [[:space:]] ]]; do i=$((i + 1)); done
        [ $i -ge $n ] && break
        [ "${s:$i:1}" = '"' ] || return 1
        i=$((i + 1))
        out=""
        while :; do
            [ $i -lt $n ] || return 1
            c=${s:$i:1}
            if [ "$c" = '"' ]; then break; fi
            if [ "$c" = '\' ]; then
                i=$((i + 1))
                esc=${s:$i:1}
                case "$esc" in
                '"' | '\' | /) c=$esc ;;
                n) c=$'\n' ;;
                t) c=$'\t' ;;
                *) return 1 ;;
                esac
            fi
            out+="$c"
            i=$((i + 1))
        done
        JARR+=("$out")
        i=$((i + 1))
        while [ $i -lt $n ] && [[ "${s:$i:1}" =~ [[:space:]] ]]; do i=$((i + 1)); done
        [ $i -ge $n ] && break
        [ "${s:$i:1}" = , ] || return 1
        i=$((i + 1))
    done
}

# ---------------------------------------------------------------- the base

mirror() {
    if [ -n "${KPRIO_DEBIAN_MIRROR:-}" ]; then echo "$KPRIO_DEBIAN_MIRROR"; return; fi
    local m
    # deb822 (debian.sources): the URIs of the stanza whose Suites name bookworm
    m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
        /^[[:space:]]*$/ { if (suite && uri) { print uri; exit } suite = 0; uri = ""; next }
        /^URIs:/ { uri = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
        END { if (suite && uri) print uri }' | head -n 1)
    [ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" && $0 ~ / bookworm / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
    echo "${m:-http://deb.debian.org/debian}"
}

security_mirror() {
    local m
    m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
        /^[[:space:]]*$/ { if (suite && uri) { print uri; exit } suite = 0; uri = ""; next }
        /^URIs:/ { uri = $2 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm-security") suite = 1 }
        END { if (suite && uri) print uri }' | head -n 1)
    echo "${m:-http://deb.debian.org/debian-security}"
}

# The debootstrap'ed bookworm (minbase, the variant Debian's images are made from), once.
BASE=$CACHE/debian-bookworm
base() {
    [ -f "$BASE.ok" ] && return 0
    local m
    m=$(mirror)
    say "debootstrap bookworm from $m into $BASE (once)"
    rm -rf "$BASE.tmp"
    mkdir -p "$CACHE"
    debootstrap --variant=minbase bookworm "$BASE.tmp" "$m" >"$CACHE/debootstrap.log" 2>&1 ||
        die "debootstrap failed: see $CACHE/debootstrap.log"
    rm -rf "$BASE"
    mv "$BASE.tmp" "$BASE"
    echo "$m" >"$BASE.ok"
}

# A stage's root from the base: the image's apt sources (the mirror, bookworm, -updates,
# -security) and, for bookworm-slim, its dpkg excludes with the documentation gone.
new_root() {
    local root=$1 slim=$2
    rm -rf "$root"
    cp -a "$BASE" "$root"
    rm -f "$root/etc/apt/sources.list"
    cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $(cat "$BASE.ok")
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $(security_mirror)
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    if [ "$slim" = 1 ]; then
        cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
        find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
        rm -rf "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" \
            "$root/usr/share/groff" "$root/usr/share/lintian"
    fi
}

# ---------------------------------------------------------------- running in a root

mkdir -p "$CACHE/apt-archives/partial" "$CACHE/layers"

# in_root ROOT USER WORKDIR ENVFILE ARGV...: ARGV in ROOT under chroot as USER (uid[:gid]) from
# WORKDIR, the environment ENVFILE's lines alone; /proc mounted, this machine's resolv.conf and
# the cache's apt archives bound in (a private mount namespace: nothing stays mounted).
in_root() {
    local root=$1 user=$2 wd=$3 envf=$4
    shift 4
    local uid=${user%%:*} gid=0
    [[ "$user" == *:* ]] && gid=${user#*:}
    local -a envv=()
    mapfile -t envv <"$envf"
    unshare --mount --propagation private -- /bin/sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc" || exit 125
        mkdir -p "$root/dev/pts"
        mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" 2>/dev/null || :
        [ -e "$root/etc/resolv.conf" ] || : >"$root/etc/resolv.conf"
        mount --bind /etc/resolv.conf "$root/etc/resolv.conf" || exit 125
        mkdir -p "$root/var/cache/apt/archives"
        mount --bind "$0" "$root/var/cache/apt/archives" || exit 125
        exec "$@"' "$CACHE/apt-archives" "$root" \
        chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${envv[@]}" \
        /bin/sh -c 'cd "$0" || exit 126; exec "$@"' "$wd" "$@"
}

# ---------------------------------------------------------------- the stages

parse
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kprio-container.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
declare -A STAGE_NAME=() STAGE_KEY=() STAGE_ROOT=() USED=()
NSTAGE=0
KEY="" ROOT="" MATERIAL=0 FS_SRC="" SLIM=0 WD=/ USER_=0 ENVF="" PENDING=()
ENTRY=() CMD=() HAVE_CMD=0

sha() { sha256sum | cut -c1-32; }

# The root of the stage being built holds its state: from the base or a layer, then the cheap
# steps (COPY, WORKDIR) since.
materialize() {
    [ "$MATERIAL" = 1 ] && return 0
    if [ "$FS_SRC" = base ]; then new_root "$ROOT" "$SLIM"
    else rm -rf "$ROOT"; cp -a "$CACHE/layers/$FS_SRC" "$ROOT"; fi
    MATERIAL=1
    local p
    for p in "${PENDING[@]}"; do eval "$p"; done
    PENDING=()
}

# a step on the root: now when it is there, else when it is
step() {
    if [ "$MATERIAL" = 1 ]; then eval "$1"; else PENDING+=("$1"); fi
}

# A stage ends: its root is what a later COPY --from reads (a layer as it is when nothing came
# after it: no copy), and the last stage's is the image, run below.
end_stage() {
    [ "$NSTAGE" -gt 0 ] || return 0
    local last=${1:-0}
    STAGE_KEY[$((NSTAGE - 1))]=$KEY
    STAGE_ROOT[$((NSTAGE - 1))]=$ROOT
    if [ "$last" = 0 ] && [ "$MATERIAL" = 0 ] && [ ${#PENDING[@]} -eq 0 ] && [ "$FS_SRC" != base ]; then
        STAGE_ROOT[$((NSTAGE - 1))]=$CACHE/layers/$FS_SRC
        return 0
    fi
    materialize
}

abs_in() { # a path of the stage: relative ones against WORKDIR
    case "$1" in /*) echo "$1" ;; *) echo "${WD%/}/$1" ;; esac
}

do_workdir() {
    mkdir -p "$ROOT$1"
}

# COPY SRC... DEST from the context (tar, with .containerignore/.dockerignore) or a stage's root
do_copy() {
    local from=$1 own=$2 dest=$3
    shift 3
    local srcroot=$CTX multi=0 s
    [ -n "$from" ] && srcroot=$from
    [ $# -gt 1 ] && multi=1
    for s in "$@"; do
        local src=$srcroot/${s#/}
        [ -e "$src" ] || die "COPY: $s: no such file in the ${from:+stage}${from:-context}"
        local target=$ROOT$dest
        if [ -d "$src" ]; then
            mkdir -p "$target"
            if [ -z "$from" ] && [ "${s%/}" = . ]; then
                tar -C "$src" "${EXCL[@]}" --owner=0 --group=0 --numeric-owner -cf - . | tar -C "$target" -xf -
            else
                tar -C "$src" --owner=0 --group=0 --numeric-owner -cf - . | tar -C "$target" -xf -
            fi
        else
            if [[ "$dest" == */ ]] || [ "$multi" = 1 ] || [ -d "$target" ]; then
                mkdir -p "$target"
                target=$target/$(basename "$s")
            else
                mkdir -p "$(dirname "$target")"
            fi
            cp -p "$src" "$target"
            chown 0:0 "$target"
        fi
        [ -z "$own" ] || chown -R "$own" "$ROOT$dest"
    done
}

# .containerignore (else .dockerignore): its patterns, relative to the context's root
EXCL=()
for ig in "$CTX/.containerignore" "$CTX/.dockerignore"; do
    [ -f "$ig" ] || continue
    while IFS= read -r p || [ -n "$p" ]; do
        p=${p%$'\r'}
        [[ "$p" =~ ^[[:space:]]*(#|$) ]] && continue
        [ "${p:0:1}" != '!' ] || die "$ig: \"$p\": exceptions (!) are not supported"
        EXCL+=(--anchored "--exclude=./${p#/}")
    done <"$ig"
    break
done
source_hash() { # the sources' bytes, names and modes (not times), as an engine's cache sees them
    local -a names=()
    local s
    for s in "$@"; do names+=("./${s#/}"); done
    tar -C "$CTX" "${EXCL[@]}" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
        -cf - "${names[@]}" | sha
}

for i in "${!INSTR[@]}"; do
    text=${INSTR[$i]}
    at="$CF:${LINES[$i]}"
    text=${text#"${text%%[![:space:]]*}"}
    op=${text%%[[:space:]]*}
    args=${text#"$op"}
    args=${args#"${args%%[![:space:]]*}"}
    OP=${op^^}
    case "$OP" in
    FROM)
        end_stage
        read -r -a w <<<"$args"
        [[ "${w[0]}" != --* ]] || die "$at: FROM ${w[0]}: flags are not supported"
        img=${w[0]}
        name=""
        if [ ${#w[@]} -eq 3 ] && [ "${w[1]^^}" = AS ]; then name=${w[2]}
        elif [ ${#w[@]} -ne 1 ]; then die "$at: FROM IMAGE [AS NAME] expected"; fi
        base_img=${img#docker.io/}
        base_img=${base_img#library/}
        ROOT=$WORK/stage-$NSTAGE
        MATERIAL=0 PENDING=() WD=/ USER_=0 ENTRY=() CMD=(bash) HAVE_CMD=0
        ENVF=$WORK/env-$NSTAGE
        printf 'PATH=%s\nHOME=/root\n' "$DEFAULT_PATH" >"$ENVF"
        case "$base_img" in
        debian:bookworm) SLIM=0 ;;
        debian:bookworm-slim) SLIM=1 ;;
        *) die "$at: FROM $img: only debian:bookworm and debian:bookworm-slim can be built here" ;;
        esac
        base
        FS_SRC=base
        KEY=$(printf 'FROM %s\n%s\n' "$base_img" "$(cat "$BASE.ok")" | sha)
        [ -z "$name" ] || STAGE_NAME[$NSTAGE]=$name
        NSTAGE=$((NSTAGE + 1))
        say "stage $((NSTAGE - 1))${name:+ ($name)}: FROM $img"
        continue
        ;;
    esac
    [ "$NSTAGE" -gt 0 ] || die "$at: $op before FROM"
    case "$OP" in
    WORKDIR)
        [[ "$args" != *'$'* ]] || die "$at: WORKDIR: variables are not supported"
        [ -n "$args" ] || die "$at: WORKDIR needs a path"
        WD=$(abs_in "$args")
        KEY=$(printf '%s\nWORKDIR %s\n' "$KEY" "$WD" | sha)
        step "do_workdir $(printf %q "$WD")"
        ;;
    ENV)
        [[ "$args" != *'$'* && "$args" != *'`'* ]] || die "$at: ENV: variables are not supported"
        if [[ "$args" == *=* ]]; then
            eval "pairs=($args)" 2>/dev/null || die "$at: ENV: cannot read \"$args\""
        else
            k=${args%%[[:space:]]*}
            v=${args#"$k"}
            v=${v#"${v%%[![:space:]]*}"}
            pairs=("$k=$v")
        fi
        for kv in "${pairs[@]}"; do
            [[ "$kv" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "$at: ENV: \"$kv\" is not NAME=VALUE"
            grep -v "^${kv%%=*}=" "$ENVF" >"$ENVF.new" || true
            printf '%s\n' "$kv" >>"$ENVF.new"
            mv "$ENVF.new" "$ENVF"
        done
        KEY=$(printf '%s\nENV %s\n' "$KEY" "$args" | sha)
        ;;
    USER)
        [[ "$args" =~ ^[0-9]+(:[0-9]+)?$ ]] || die "$at: USER: numeric UID[:GID] only (\"$args\")"
        USER_=$args
        KEY=$(printf '%s\nUSER %s\n' "$KEY" "$args" | sha)
        ;;
    ENTRYPOINT | CMD)
        if json_array "$args"; then v=("${JARR[@]}")
        elif [ "${args:0:1}" = "[" ]; then die "$at: $OP: not a JSON array of strings: $args"
        else v=(/bin/sh -c "$args"); fi
        if [ "$OP" = ENTRYPOINT ]; then
            ENTRY=("${v[@]}")
            [ "$HAVE_CMD" = 1 ] || CMD=() # an entry point drops the base image's CMD
        else
            CMD=("${v[@]}")
            HAVE_CMD=1
        fi
        ;;
    COPY)
        read -r -a w <<<"$args"
        from="" own=""
        while [[ "${w[0]:-}" == --* ]]; do
            case "${w[0]}" in
            --from=*) from=${w[0]#--from=} ;;
            --chown=*) own=${w[0]#--chown=}
                [[ "$own" =~ ^[0-9]+(:[0-9]+)?$ ]] || die "$at: COPY --chown: numeric UID[:GID] only" ;;
            *) die "$at: COPY ${w[0]}: not supported (--from, --chown)" ;;
            esac
            w=("${w[@]:1}")
        done
        [ ${#w[@]} -ge 2 ] || die "$at: COPY SRC... DEST expected"
        [[ "$args" != *'$'* && "$args" != *'*'* && "$args" != *'?'* ]] ||
            die "$at: COPY: variables and wildcards are not supported"
        dest=$(abs_in "${w[-1]}")
        [[ "${w[-1]}" != */ ]] || dest=$dest/
        srcs=("${w[@]:0:${#w[@]}-1}")
        if [ -n "$from" ]; then
            fi=""
            for k in "${!STAGE_NAME[@]}"; do [ "${STAGE_NAME[$k]}" = "$from" ] && fi=$k; done
            [[ -n "$fi" || ! "$from" =~ ^[0-9]+$ ]] || fi=$from
            [ -n "$fi" ] && [ "$fi" -lt $((NSTAGE - 1)) ] || die "$at: COPY --from=$from: no earlier stage of that name"
            srckey=${STAGE_KEY[$fi]}
            srcroot=${STAGE_ROOT[$fi]}
        else
            srckey=$(source_hash "${srcs[@]}")
            srcroot=""
        fi
        KEY=$(printf '%s\nCOPY %s\n%s\n' "$KEY" "$args" "$srckey" | sha)
        step "do_copy $(printf '%q ' "$srcroot" "$own" "$dest" "${srcs[@]}")"
        ;;
    RUN)
        [ -n "$args" ] || die "$at: RUN needs a command"
        if json_array "$args"; then argv=("${JARR[@]}")
        elif [ "${args:0:1}" = "[" ]; then die "$at: RUN: not a JSON array of strings: $args"
        else argv=(/bin/sh -c "$args"); fi
        KEY=$(printf '%s\nRUN %s\n%s\n%s\n' "$KEY" "$args" "$USER_" "$(cat "$ENVF")" | sha)
        USED[$KEY]=1
        if [ -d "$CACHE/layers/$KEY" ]; then
            say "  $at: RUN $args (cached)"
            FS_SRC=$KEY MATERIAL=0 PENDING=()
            continue
        fi
        materialize
        say "  $at: RUN $args"
        in_root "$ROOT" "$USER_" "$WD" "$ENVF" "${argv[@]}" ||
            die "$at: RUN failed (exit $?): $args"
        rm -rf "$CACHE/layers/$KEY.tmp"
        cp -a "$ROOT" "$CACHE/layers/$KEY.tmp"
        mv "$CACHE/layers/$KEY.tmp" "$CACHE/layers/$KEY"
        FS_SRC=$KEY
        ;;
    *)
        die "$at: $op: not supported here (supported: $SUPPORTED)"
        ;;
    esac
done
[ "$NSTAGE" -gt 0 ] || die "$CF: no FROM"
end_stage 1
for l in "$CACHE"/layers/*; do # the layers this run did not use
    [ -e "$l" ] || continue
    [ -n "${USED[$(basename "$l")]:-}" ] || rm -rf "$l"
done

# ---------------------------------------------------------------- running the image

IMG=$ROOT
run_image() { # run_image OUT ARGV...: as the image's user from its WORKDIR
    local out=$1
    shift
    in_root "$IMG" "$USER_" "$WD" "$ENVF" "$@" >"$out"
}
say "image: entry point [${ENTRY[*]}], command [${CMD[*]}], user $USER_, workdir $WD"
run_image "$WORK/version" "${ENTRY[@]}" version || die "the image's entry point with 'version' failed"
grep -q '^kprio ' "$WORK/version" || die "'version' printed: $(head -c 200 "$WORK/version")"
say "  ${ENTRY[*]} version: $(head -n 1 "$WORK/version")"

# The Job of a small sweep, emitted by the image's kprio, played as a cluster would play it.
IN=/tmp/kprio-check-in
rm -rf "${IMG:?}$IN" "${IMG:?}/sweep"
mkdir -p "$IMG$IN"
cp "$CTX"/examples/sweep/*.yaml "$IMG$IN/"
chmod -R a+rX "$IMG$IN"
run_image "$WORK/job.yaml" kprio sweep -f "$IN/sweep.yaml" --emit-job --image kprio:check --shards 2 ||
    die "kprio sweep --emit-job failed in the image"
mkdir -p "$IMG/sweep"
# the ConfigMap's data written at its items' paths (the manifest as --emit-job writes it: one
# key per line, each value a double-quoted string, then the volume's key/path items)
awk -v mount="$IMG/sweep" '
function hex(h,   v, i) { v = 0; for (i = 1; i <= 4; i++) v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1; return v }
function unq(s,   out, i, c, e) {
    s = substr(s, 2, length(s) - 2); out = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c != "\\") { out = out c; continue }
        e = substr(s, ++i, 1)
        if (e == "n") out = out "\n"; else if (e == "t") out = out "\t"
        else if (e == "r") out = out "\r"; else if (e == "u") { out = out sprintf("%c", hex(substr(s, i + 1, 4))); i += 4 }
        else out = out e
    }
    return out
}
/^data:/ { indata = 1; next }
indata && /^  [a-z0-9-]+: "/ { k = $1; sub(/:$/, "", k); v = $0; sub(/^  [a-z0-9-]+: /, "", v); data[k] = unq(v); next }
indata { indata = 0 }
/^          - key: / { key = $3; next }
/^            path: / { p = unq($2); if (p !~ /^[A-Za-z0-9._\/-]+$/) { print "bad path " p > "/dev/stderr"; exit 1 }
    d = p; if (sub(/\/[^\/]*$/, "", d)) system("mkdir -p \"" mount "/" d "\"")
    printf "%s", data[key] > (mount "/" p); close(mount "/" p); n++ }
END { if (!n) { print "no ConfigMap items in the manifest" > "/dev/stderr"; exit 1 } }
' "$WORK/job.yaml" || die "cannot read the ConfigMap of the emitted Job"
chmod -R a+rX "$IMG/sweep"
line=$(grep -m1 '^        command: ' "$WORK/job.yaml") || die "no command in the emitted Job"
json_array "${line#*command: }" || die "the Job's command is not a JSON array: $line"
JOBCMD=("${JARR[@]}")
for s in 0 1; do
    argv=()
    for a in "${JOBCMD[@]}"; do argv+=("${a//\$(JOB_COMPLETION_INDEX)/$s}"); done # the kubelet's expansion
    cp "$ENVF" "$WORK/env-job"
    echo "JOB_COMPLETION_INDEX=$s" >>"$WORK/env-job"
    # the Job's securityContext: runAsUser 65532, fsGroup 65532
    in_root "$IMG" 65532:65532 "$WD" "$WORK/env-job" "${argv[@]}" >"$IMG/tmp/shard-$s.json" ||
        die "shard $s/2 failed: ${argv[*]}"
    grep -q '"kind":"SweepShard"' "$IMG/tmp/shard-$s.json" || die "shard $s/2 wrote no SweepShard"
    say "  shard $s/2: ${argv[*]}: $(wc -c <"$IMG/tmp/shard-$s.json") bytes"
done
run_image "$WORK/merged" kprio sweep merge /tmp/shard-0.json /tmp/shard-1.json || die "merge failed"
run_image "$WORK/local" kprio sweep -f /sweep/sweep.yaml -j 1 || die "the local sweep failed"
cmp -s "$WORK/merged" "$WORK/local" || die "the merged shards differ from the local run"
say "  the merged shards print the local run's $(wc -c <"$WORK/local") bytes"
say "OK: $CF builds and runs (cache: $CACHE)"
