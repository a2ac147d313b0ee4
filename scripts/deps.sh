#!/bin/sh
# Installs the Debian 12 packages kprio builds with, if any is missing. Idempotent: does nothing
# when everything is present. Needs root (or sudo) only when something must be installed.
# chromium: the HTML report's browser test (tests/html/run.sh, headless).
set -e
PKGS="build-essential g++ clang libclang-rt-14-dev libsimdjson-dev libyaml-dev libmsgpack-dev valgrind cppcheck clang-format chromium"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "kprio: installing missing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
