#!/bin/sh
# Tests of the kubectl plugin (scripts/kubectl-kprio) against a fake kubectl (tests/plugin/bin/
# kubectl) that serves the recorded outputs of tests/plugin/data and logs its arguments: the
# flags passed to every call, the set of calls, the answers (the same as kprio's on the recorded
# files), the one-line errors and the partial-access warning. No cluster needed.
#     sh tests/plugin/run.sh [BUILD_DIR]      prints "ok NAME" / "plugin NAME: ..." lines and
#                                             "PLUGIN PASSED FAILED" last
B=$(cd "${1:-build}" && pwd)
T=$(cd "$(dirname "$0")" && pwd)
R=$(cd "$T/../.." && pwd)
PLUGIN=$R/scripts/kubectl-kprio
D=$T/data
W=$(mktemp -d "${TMPDIR:-/tmp}/kprio-plugin-test.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
export KPRIO="$B/kprio" FAKE_KUBECTL_LOG="$W/log" PATH="$T/bin:$PATH"
KINDS=nodes,pods,priorityclasses.scheduling.k8s.io,poddisruptionbudgets.policy,namespaces,services,replicationcontrollers,replicasets.apps,statefulsets.apps,deployments.apps,daemonsets.apps,jobs.batch,cronjobs.batch,persistentvolumes,persistentvolumeclaims,storageclasses.storage.k8s.io,csinodes.storage.k8s.io,csidrivers.storage.k8s.io,volumeattachments.storage.k8s.io
pass=0 fail=0 name="" ok=1

start() { name=$1; ok=1; : >"$W/log"; mkdir -p "$W/tmp"; rm -rf "$W/tmp"/*; }
bad() { echo "plugin $name: $*"; ok=0; }
end() {
    # the temporary snapshot is removed whatever happened
    [ -z "$(ls -A "$W/tmp")" ] || bad "temporary files left: $(ls "$W/tmp")"
    if [ $ok = 1 ]; then echo "ok $name"; pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
# plugin ARGS...: runs the plugin; stdout in $W/out, stderr in $W/err, status in $rc.
plugin() { TMPDIR=$W/tmp sh "$PLUGIN" "$@" >"$W/out" 2>"$W/err"; rc=$?; }
want_rc() { [ "$rc" = "$1" ] || bad "exit $rc, expected $1; stderr: $(cat "$W/err")"; }
# same_out CMD...: stdout equals kprio's own answer on the recorded files
same_out() {
    (cd "$D" && "$KPRIO" "$@") >"$W/want" 2>/dev/null
    diff -u "$W/want" "$W/out" >"$W/diff" || { bad "stdout differs from kprio $*"; cat "$W/diff"; }
}
# calls LINE...: the kubectl calls logged, in order, exactly
calls() {
    printf '%s\n' "$@" >"$W/want-calls"
    diff -u "$W/want-calls" "$W/log" >"$W/diff" || { bad "kubectl calls differ"; cat "$W/diff"; }
}
# err_line TEXT: stderr is exactly one line, and that line is TEXT
err_line() {
    [ "$(wc -l <"$W/err")" = 1 ] || bad "stderr is not one line: $(cat "$W/err")"
    [ "$(cat "$W/err")" = "$1" ] || bad "stderr: got '$(cat "$W/err")', want '$1'"
}
no_out() { [ -s "$W/out" ] && bad "stdout not empty: $(cat "$W/out")"; }
has_err() { grep -qF -- "$1" "$W/err" || bad "stderr lacks '$1': $(cat "$W/err")"; }

G="--context=prod --kubeconfig=/etc/k.conf --request-timeout=5s"
SNAP="$G get $KINDS -A -o json"

start evict-live
plugin --context prod --kubeconfig /etc/k.conf evict --node node-b1 --request-timeout=5s
want_rc 0
calls "$SNAP" "$G get --raw /api/v1/nodes/node-b1/proxy/stats/summary" \
    "$G get --raw /api/v1/nodes/node-b1/proxy/configz"
same_out evict -f cluster.json --node node-b1 --summary node-b1-summary.json \
    --config node-b1-configz.json
[ -s "$W/err" ] && bad "stderr not empty: $(cat "$W/err")"
end

start evict-own-summary-and-config
plugin evict --node=node-b1 --summary "$D/node-b1-summary.json" --config "$D/node-b1-configz.json"
want_rc 0
calls "get $KINDS -A -o json"
same_out evict -f cluster.json --node node-b1 --summary node-b1-summary.json \
    --config node-b1-configz.json
end

start evict-no-configz
FAKE_KUBECTL_MODE=no-configz plugin evict --node node-b1
want_rc 0
same_out evict -f cluster.json --node node-b1 --summary node-b1-summary.json
has_err "kubectl-kprio: warning: kubectl get --raw /api/v1/nodes/node-b1/proxy/configz failed (Error from server (NotFound): the server could not find the requested resource): node node-b1's kubelet configuration is unknown, the kubelet's default eviction thresholds are used: evictions may change"
end

start evict-forbidden-proxy
FAKE_KUBECTL_MODE=forbidden-proxy plugin --context prod evict --node node-b1
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get --raw /api/v1/nodes/node-b1/proxy/stats/summary: forbidden: you may not get nodes/proxy; kprio needs RBAC verb "get" on "nodes/proxy" cluster-wide (check: kubectl auth can-i get nodes --subresource=proxy)'
end

start evict-needs-node
plugin evict
want_rc 2
has_err "kubectl-kprio: evict: --node NODE is required"
[ -s "$W/log" ] && bad "kubectl called: $(cat "$W/log")"
end

start schedule-one-call
plugin schedule --request-timeout 5s -o json
want_rc 0
calls "--request-timeout=5s get $KINDS -A -o json"
same_out schedule -f cluster.json -o json
end

start why-namespace
plugin -n batch why etl-3 --seed 1
want_rc 0
calls "--namespace=batch get $KINDS -A -o json"
same_out why batch/etl-3 -f cluster.json --seed 1
end

start why-qualified-name-kept
plugin --namespace=shop why --seed 1 batch/etl-3
want_rc 0
same_out why --seed 1 batch/etl-3 -f cluster.json
end

start inspect-whatif-file
plugin inspect -f "$R/examples/whatif-critical.yaml"
want_rc 0
same_out inspect -f cluster.json -f "$R/examples/whatif-critical.yaml"
end

start partial-pdb-forbidden
FAKE_KUBECTL_MODE=forbidden-pdb plugin schedule
want_rc 0
same_out schedule -f cluster-nopdb.json
err_line 'kubectl-kprio: warning: forbidden to list poddisruptionbudgets (API group policy), continuing without them: PodDisruptionBudgets are ignored: preemption victims (schedule, why, simulate) may change (needs RBAC verb "list" on "poddisruptionbudgets" cluster-wide)'
end

start pods-forbidden
FAKE_KUBECTL_MODE=forbidden-pods plugin schedule
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: forbidden: you may not list pods; kprio needs RBAC verb "list" on "pods" cluster-wide (check: kubectl auth can-i list pods -A)'
end

start unreachable
FAKE_KUBECTL_MODE=unreachable plugin inspect
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: cannot reach the cluster (Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout): check --context, the network (VPN) or raise --request-timeout'
end

start no-context
FAKE_KUBECTL_MODE=no-context plugin inspect
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: no cluster to talk to (error: current-context is not set): pick one with --context NAME or --kubeconfig FILE (kubectl config get-contexts lists them)'
end

start unauthorized
FAKE_KUBECTL_MODE=unauthorized plugin why batch/etl-3
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: not authenticated (error: You must be logged in to the server (Unauthorized)): renew the credentials of this context (log in again)'
end

start no-kubectl
KUBECTL=kubectl-not-installed plugin schedule
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl-not-installed: not found: install kubectl or name it with $KUBECTL (kprio itself never talks to a cluster)'
end

start snapshot-dir
plugin --context prod snapshot -o "$W/snap" --node node-b1
want_rc 0
calls "--context=prod get $KINDS -A -o json" \
    "--context=prod get --raw /api/v1/nodes/node-b1/proxy/stats/summary" \
    "--context=prod get --raw /api/v1/nodes/node-b1/proxy/configz"
for f in cluster.json kubelet/node-b1-summary.json kubelet/node-b1-configz.json README; do
    [ -f "$W/snap/$f" ] || bad "snapshot lacks $f"
done
grep -q '^context: prod$' "$W/snap/README" || bad "README does not name the context: $(cat "$W/snap/README")"
cmp -s "$D/cluster.json" "$W/snap/cluster.json" || bad "cluster.json is not kubectl's output"
# offline, later: the directory gives the same answer as the live run
"$KPRIO" evict -f "$W/snap" --node node-b1 >"$W/out" 2>"$W/err"
same_out evict -f cluster.json --node node-b1 --summary node-b1-summary.json \
    --config node-b1-configz.json
"$KPRIO" schedule -f "$W/snap" >"$W/out" 2>"$W/err"
same_out schedule -f cluster.json
plugin snapshot -o "$W/snap"
want_rc 1
has_err "kubectl-kprio: snapshot: $W/snap exists and is not empty"
end

start snapshot-all-nodes
plugin snapshot -o "$W/snap2" --all-nodes
want_rc 0
calls "get $KINDS -A -o json" "get nodes -o name" \
    "get --raw /api/v1/nodes/node-a1/proxy/stats/summary" \
    "get --raw /api/v1/nodes/node-a1/proxy/configz" \
    "get --raw /api/v1/nodes/node-a2/proxy/stats/summary" \
    "get --raw /api/v1/nodes/node-a2/proxy/configz" \
    "get --raw /api/v1/nodes/node-b1/proxy/stats/summary" \
    "get --raw /api/v1/nodes/node-b1/proxy/configz" "config current-context"
[ "$(ls "$W/snap2/kubelet")" = "node-b1-configz.json
node-b1-summary.json" ] || bad "kubelet/ holds $(ls "$W/snap2/kubelet")"
grep -q '^context: fake-context$' "$W/snap2/README" || bad "README: $(cat "$W/snap2/README")"
end

# Node names reach paths and URLs only when the API server would accept them; `*` is a name,
# never a glob; one line, exit 1, nothing written.
start snapshot-hostile-node-names
FAKE_KUBECTL_MODE=hostile-nodes plugin snapshot -o "$W/snap3" --all-nodes
want_rc 1
err_line "kubectl-kprio: node name \"../../x\" is not a DNS subdomain (lowercase letters, digits, '-' and '.'): refused"
[ -e "$W/snap3" ] && bad "a snapshot was written: $(ls -R "$W/snap3")"
grep -q 'x/proxy' "$W/log" && bad "kubectl asked for a hostile path: $(cat "$W/log")"
for n in '*' 'a b' 'Node-1' 'a/b' ''; do
    plugin snapshot -o "$W/snap4" --node "$n"
    want_rc 1
    has_err "kubectl-kprio: node name \"$n\" is not a DNS subdomain"
    [ -e "$W/snap4" ] && bad "a snapshot was written for node '$n'"
done
plugin evict --node '../x'
want_rc 1
has_err 'kubectl-kprio: node name "../x" is not a DNS subdomain'
end

# Generated node names (a fixed seed; hostile characters, newlines, lengths about the 253 limit)
# judged by the plugin's valid_node and by an independent reading of the DNS subdomain rule
# (awk): both must agree on every name. A name with a newline passed before: grep -x matched
# its first line.
start node-names-generated
eval "$(sed -n '/^valid_node() {$/,/^}$/p' "$PLUGIN")"
LC_ALL=C awk 'BEGIN {
    srand(30)
    A = "abcxyz0189-.-.aZ/* _?[\t\n"
    for (i = 0; i < 80; i++) {
        long = i % 10 == 0
        len = long ? 250 + int(rand() * 6) : 1 + int(rand() * 12)
        s = ""
        for (k = 0; k < len; k++) {
            if (long) c = (k % 9 == 8 && k < len - 1) ? "." : "a"
            else if (rand() < 0.85) c = substr(A, 1 + int(rand() * 14), 1)
            else c = substr(A, 15 + int(rand() * 10), 1)
            s = s c
        }
        ok = length(s) <= 253 && s !~ /[^a-z0-9.-]/
        n = split(s, part, ".")
        for (k = 1; k <= n && ok; k++)
            ok = part[k] ~ /^[a-z0-9]/ && part[k] ~ /[a-z0-9]$/
        e = s
        gsub(/\t/, "\\t", e)
        gsub(/\n/, "\\n", e)
        print (ok ? 1 : 0) "\t" e
    }
}' >"$W/names"
seen_bad=0 seen_ok=0
while IFS="$(printf '\t')" read -r want enc; do
    n=$enc
    case $enc in *\\*) n=$(printf '%bx' "$enc") && n=${n%x} ;; esac # \t, \n: decoded
    if valid_node "$n"; then got=1; seen_ok=1; else got=0; seen_bad=1; fi
    [ "$got" = "$want" ] || bad "valid_node says $got, the rule $want, for \"$enc\""
done <"$W/names"
[ $seen_ok = 1 ] && [ $seen_bad = 1 ] || bad "the generated names are all valid or all invalid"
end

# kubectl's answer must be JSON: empty output and an HTML page stop with one line; a cut-off
# document is kprio's parse error naming what it read, not a deleted temporary file.
start kubectl-output-not-json
FAKE_KUBECTL_MODE=empty plugin schedule
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: kubectl printed nothing (expected a JSON List)'
FAKE_KUBECTL_MODE=html plugin inspect
want_rc 1
no_out
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: kubectl did not print JSON (it begins "<!DOCTYPE html> <html><body>Sign in</bod")'
FAKE_KUBECTL_MODE=truncated plugin inspect
want_rc 1
no_out
has_err 'kprio: the output of kubectl get'
grep -q "$W/tmp" "$W/err" && bad "the error names a temporary path: $(cat "$W/err")"
end

# control characters of kubectl's messages are not echoed
start kubectl-stderr-escapes
FAKE_KUBECTL_MODE=escape-stderr plugin inspect
want_rc 1
err_line 'kubectl-kprio: kubectl get nodes,pods,... (19 kinds) -A -o json: error: ]0;owned[2Jbadthings'
end

# a signal that ends the plugin removes the temporary snapshot (end checks) and exits 128+N
start signals-clean-up
for sig in USR1 ALRM PIPE; do
    FAKE_KUBECTL_MODE=slow TMPDIR=$W/tmp sh "$PLUGIN" inspect >"$W/out" 2>"$W/err" &
    pid=$!
    i=0
    while [ -z "$(ls -A "$W/tmp")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.2
    kill -s "$sig" $pid
    wait $pid
    rc=$?
    case $sig in USR1) want=138 ;; ALRM) want=142 ;; PIPE) want=141 ;; esac
    [ $rc = $want ] || bad "SIG$sig: exit $rc, expected $want"
    [ -z "$(ls -A "$W/tmp")" ] || { bad "SIG$sig left $(ls "$W/tmp")"; rm -rf "$W/tmp"/*; }
done
pkill -f 'tests/plugin/bin/kubectl' 2>/dev/null
end

start usage-errors
plugin frobnicate
want_rc 2
has_err 'kubectl-kprio: unknown command "frobnicate"'
plugin
want_rc 2
plugin snapshot
want_rc 2
has_err "kubectl-kprio: snapshot: -o DIR is required"
[ -s "$W/log" ] && bad "kubectl called: $(cat "$W/log")"
end

start installed-next-to-kprio
mkdir -p "$W/prefix/bin"
cp "$PLUGIN" "$W/prefix/bin/kubectl-kprio"
ln -s "$KPRIO" "$W/prefix/bin/kprio"
(unset KPRIO; TMPDIR=$W/tmp PATH="$T/bin:/usr/bin:/bin" "$W/prefix/bin/kubectl-kprio" inspect \
    >"$W/out" 2>"$W/err"); rc=$?
want_rc 0
same_out inspect -f cluster.json
end

# Obfuscation: every decision on the obfuscated snapshot is the original's with the names mapped
# (kprio obfuscate --map gives the mapping), and no name of the original is left in it.
start snapshot-obfuscated
plugin snapshot -o "$W/obf" --node node-b1 --obfuscate-key s3cret
want_rc 0
NAMES=$(sed -n 's/^ *"\(name\|namespace\|nodeName\|priorityClassName\)": "\([^"]*\)",\{0,1\}$/\2/p' \
    "$D/cluster.json" | sort -u)
KPRIO_OBFUSCATE_KEY=s3cret "$KPRIO" obfuscate --map $NAMES >"$W/mapped" || bad "--map failed"
printf '%s\n' $NAMES | paste -d ' ' - "$W/mapped" >"$W/map"
mb1=$(awk '$1 == "node-b1" { print $2 }' "$W/map")
echo "node-b1-summary.json $mb1-summary.json" >>"$W/map"
[ "$(ls "$W/obf/kubelet")" = "$mb1-configz.json
$mb1-summary.json" ] || bad "kubelet/ holds $(ls "$W/obf/kubelet"), want $mb1-*"
for n in $NAMES; do
    grep -rqw --include='*.json' -- "$n" "$W/obf" &&
        bad "\"$n\" is left in the obfuscated snapshot: $(grep -rlw -- "$n" "$W/obf")"
done
# rename: the tokens of stdin that are original names become their mapped names
rename() {
    awk 'NR == FNR { m[$1] = $2; next } {
        out = ""; s = $0
        while (match(s, /[A-Za-z0-9][A-Za-z0-9.-]*/)) {
            t = substr(s, RSTART, RLENGTH)
            out = out substr(s, 1, RSTART - 1) ((t in m) ? m[t] : t)
            s = substr(s, RSTART + RLENGTH)
        }
        print out s }' "$W/map" -
}
(cd "$D" && "$KPRIO" schedule -f cluster.json -o json) | rename >"$W/want"
"$KPRIO" schedule -f "$W/obf" -o json >"$W/out" 2>&1
diff -u "$W/want" "$W/out" >"$W/diff" || { bad "schedule differs"; cat "$W/diff"; }
grep -q Nominated "$W/out" || bad "no preemption in the schedule compared"
# (inspect lists nodes by name: the same lines, in another order)
(cd "$D" && "$KPRIO" inspect -f cluster.json -o json) | rename | sort >"$W/want"
# (a PDB's name is its hash behind its rank in name order, "xp00001-": the rank dropped)
"$KPRIO" inspect -f "$W/obf" -o json 2>&1 | sed 's/xp[0-9][0-9][0-9][0-9][0-9]-x/x/g' | sort >"$W/out"
diff -u "$W/want" "$W/out" >"$W/diff" || { bad "inspect differs"; cat "$W/diff"; }
(cd "$D" && "$KPRIO" why batch/etl-3 -f cluster.json -o json) | rename >"$W/want"
"$KPRIO" why "$(echo batch/etl-3 | rename)" -f "$W/obf" -o json >"$W/out" 2>&1
diff -u "$W/want" "$W/out" >"$W/diff" || { bad "why differs"; cat "$W/diff"; }
(cd "$D" && "$KPRIO" evict -f cluster.json --node node-b1 --summary node-b1-summary.json \
    --config node-b1-configz.json --explain -o json) | rename | sed "s|\"$mb1-summary.json\"|\"$W/obf/kubelet/$mb1-summary.json\"|" >"$W/want"
"$KPRIO" evict -f "$W/obf" --node "$mb1" --explain -o json >"$W/out" 2>&1
diff -u "$W/want" "$W/out" >"$W/diff" || { bad "evict differs"; cat "$W/diff"; }
grep -q "\"$(echo shop/web-2 | rename | cut -d/ -f2)\"" "$W/out" || bad "no eviction compared"
grep -q '^context:' "$W/obf/README" && bad "README names the context"
end

start obfuscate-key-rules
KPRIO_OBFUSCATE_KEY=a "$KPRIO" obfuscate --map node-b1 >"$W/a1"
KPRIO_OBFUSCATE_KEY=a "$KPRIO" obfuscate --map node-b1 >"$W/a2"
KPRIO_OBFUSCATE_KEY=b "$KPRIO" obfuscate --map node-b1 >"$W/b1"
cmp -s "$W/a1" "$W/a2" || bad "the same key gives different names"
cmp -s "$W/a1" "$W/b1" && bad "two keys give the same name"
# without a key: random, so two runs differ; the key is never printed
(cd "$D" && "$KPRIO" obfuscate -f cluster.json) >"$W/r1" 2>&1
(cd "$D" && "$KPRIO" obfuscate -f cluster.json) >"$W/r2" 2>&1
cmp -s "$W/r1" "$W/r2" && bad "two random keys give the same output"
"$KPRIO" obfuscate --map x >"$W/out" 2>"$W/err"; rc=$?
want_rc 2
end

# the tool's part of `make install` (the library's is tests/install.sh, `make test-install`)
start make-install
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -s -C "$R" install-tool BUILD="$B" \
    PREFIX="$W/usr" >"$W/out" 2>&1 || bad "make install-tool failed: $(cat "$W/out")"
for f in bin/kprio bin/kubectl-kprio bin/kubectl_complete-kprio \
    share/bash-completion/completions/kprio share/zsh/site-functions/_kprio; do
    [ -f "$W/usr/$f" ] || bad "make install did not install $f"
done
for f in bin/kprio bin/kubectl-kprio bin/kubectl_complete-kprio; do
    [ -x "$W/usr/$f" ] || bad "$f is not executable"
done
end

# Completions: commands and flags come from kprio's own --help texts.
start completion-bash
cat >"$W/c.bash" <<'EOS'
source "$1"
COMP_WORDS=(kprio sch); COMP_CWORD=1; _kprio; echo "1 ${COMPREPLY[*]}"
COMP_WORDS=(kprio evict --eviction-s); COMP_CWORD=2; _kprio; echo "2 ${COMPREPLY[*]}"
COMP_WORDS=(kprio inspect -o ''); COMP_CWORD=3; _kprio; echo "3 ${COMPREPLY[*]}"
COMP_WORDS=(kprio admit --no-h); COMP_CWORD=2; _kprio; echo "4 ${COMPREPLY[*]}"
COMP_WORDS=(kubectl-kprio sn); COMP_CWORD=1; _kubectl_kprio; echo "5 ${COMPREPLY[*]}"
EOS
PATH="$B:$PATH" bash "$W/c.bash" "$R/scripts/completion/kprio.bash" >"$W/out" 2>&1
printf '%s\n' "1 schedule" "2 --eviction-soft --eviction-soft-grace-period" \
    "3 table wide json yaml" "4 --no-headers" "5 snapshot" >"$W/want"
diff -u "$W/want" "$W/out" >"$W/diff" || { bad "bash completion"; cat "$W/diff"; }
end

start completion-kubectl-plugin
C=$R/scripts/kubectl_complete-kprio
{ sh "$C" --context x ev; sh "$C" -n shop why --se; sh "$C" snapshot -o ''; sh "$C" snapshot --all
  sh "$C" rec; sh "$C" record --dur
} >"$W/out" 2>&1
printf '%s\n' evict --seed :4 :16 --all-nodes :4 record --duration :4 >"$W/want"
diff -u "$W/want" "$W/out" >"$W/diff" || { bad "kubectl_complete-kprio"; cat "$W/diff"; }
end

# record: a snapshot, one watch per kind (through the same kubectl flags), the trace directory
start record-trace
plugin --context prod record -o "$W/trace" --duration 1s
want_rc 0
WK="pods nodes deployments.apps replicasets.apps statefulsets.apps daemonsets.apps jobs.batch cronjobs.batch poddisruptionbudgets.policy priorityclasses.scheduling.k8s.io events"
sort "$W/log" >"$W/log-sorted"
{ echo "--context=prod get $KINDS -A -o json"
  for k in $WK; do echo "--context=prod get $k -A --watch --output-watch-events -o json"; done
} | sort >"$W/want-calls"
diff -u "$W/want-calls" "$W/log-sorted" >"$W/diff" || { bad "kubectl calls differ"; cat "$W/diff"; }
[ "$(head -n 1 "$W/log")" = "--context=prod get $KINDS -A -o json" ] || bad "the snapshot is not first"
cmp -s "$D/cluster.json" "$W/trace/snapshot/cluster.json" || bad "snapshot/cluster.json differs"
for k in $WK; do [ -f "$W/trace/watch/${k%%.*}.json" ] || bad "no watch/${k%%.*}.json"; done
grep -q '^  "kind": "Trace",$' "$W/trace/manifest.json" || bad "manifest: $(cat "$W/trace/manifest.json")"
grep -q '^  "start": "[0-9-]*T[0-9:]*Z",$' "$W/trace/manifest.json" || bad "manifest has no start"
# kubectl's indented documents become one line each, the arrival time in front, strings intact
[ "$(wc -l <"$W/trace/watch/pods.json")" = 2 ] || bad "pods.json: $(cat "$W/trace/watch/pods.json")"
grep -q '^{"recorded":"[0-9-]*T[0-9:]*Z","type": "DELETED","object": {"apiVersion": "v1",.*"image": "busybox \\"quoted\\" {braces}"}\]},"status": {"phase": "Pending"}}}$' \
    "$W/trace/watch/pods.json" || bad "pods.json: $(cat "$W/trace/watch/pods.json")"
has_err "kubectl-kprio: trace written to $W/trace"
end

start record-watch-forbidden
FAKE_KUBECTL_MODE=watch-forbidden-events plugin record -o "$W/trace2" --duration 1m
want_rc 1
[ -e "$W/trace2" ] && bad "a trace was written"
has_err 'kubectl-kprio: kubectl get events -A --watch: forbidden: you may not watch events; kprio needs RBAC verb "watch" on "events" cluster-wide (check: kubectl auth can-i watch events -A)'
end

start record-usage
plugin record -o "$W/trace3"
want_rc 2
has_err "kubectl-kprio: record: --duration D is required"
plugin record -o "$W/trace3" --duration 5x
want_rc 2
has_err 'kubectl-kprio: record: --duration: "5x" is not a duration'
[ -s "$W/log" ] && bad "kubectl called: $(cat "$W/log")"
end

# a signal stops the watches (no kubectl left running) and removes the temporary files
start record-signal
TMPDIR=$W/tmp sh "$PLUGIN" record -o "$W/trace4" --duration 1h >"$W/out" 2>"$W/err" &
pid=$!
i=0
while ! grep -q recording "$W/err" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -s TERM $pid
wait $pid
rc=$?
want_rc 143
[ -e "$W/trace4" ] && bad "a trace was written"
sleep 0.2
[ "$(grep -c 'watch' "$W/log")" = 11 ] || bad "watches: $(cat "$W/log")"
ps -eo args | grep -q '^sleep 600$' && bad "a watching kubectl is still running"
end

echo "PLUGIN $pass $fail"
