#!/bin/sh
# Installs the Debian 12 packages kprio builds with, if any is missing. Idempotent: does nothing
# when everything is present. Needs root (or sudo) only when something must be installed.
# usage: sh scripts/deps.sh [all|build|container]
#   all (default): what every target uses (chromium: the HTML report's browser test,
#                  tests/html/run.sh, headless)
#   build:         what `make install` needs alone (the Containerfile's build stage)
#   container:     what `make check-container` needs (scripts/check_containerfile.sh)
set -e
case "${1:-all}" in
all) PKGS="build-essential g++ clang libclang-rt-14-dev libsimdjson-dev libyaml-dev libmsgpack-dev valgrind cppcheck clang-format chromium" ;;
build) PKGS="build-essential g++ libsimdjson-dev libyaml-dev libmsgpack-dev" ;;
container) PKGS="debootstrap" ;;
*) echo "usage: sh scripts/deps.sh [all|build|container]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "kprio: installing missing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# (waits for another apt or dpkg to finish instead of failing at once)
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
