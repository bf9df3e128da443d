#!/bin/sh
# Installs the Debian packages Shoal needs to build and test, when missing.
# Extra package names may be given as arguments (e.g. openmpi-bin for bench/).
set -eu
need="build-essential cmake pkg-config $*"
missing=""
for pkg in $need; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
