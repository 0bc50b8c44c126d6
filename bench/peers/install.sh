#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the compiled cron peers of bench_cron from Debian when they are
# missing: Go with robfig/cron and gorhill/cronexpr, and Quartz's
# CronExpression. Only `make bench` calls this; `make test` never needs
# them (scripts/deps.sh leaves them out). Without root or sudo, or when
# apt-get fails, nothing is installed and each peer the bench then lacks
# is skipped with a line saying so. Always exits 0.
set -u

pkgs=(golang-go golang-github-robfig-cron-dev golang-github-gorhill-cronexpr-dev
      libquartz2-java default-jdk-headless)
missing=()
for p in "${pkgs[@]}"; do
    # A JDK already on PATH serves as well as Debian's default one.
    if [ "$p" = default-jdk-headless ] && command -v javac >/dev/null; then
        continue
    fi
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
        missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null || {
    echo "bench peers: no apt-get; not installing ${missing[*]}"
    exit 0
}
if [ "$(id -u)" = 0 ]; then
    sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    echo "bench peers: not root and no sudo; not installing ${missing[*]}"
    exit 0
fi
echo "bench peers: installing ${missing[*]}"
log=$(mktemp)
install() {
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
        --no-install-recommends "${missing[@]}" >"$log" 2>&1
}
if ! install; then
    # A machine whose package lists are stale: refresh them once.
    "${sudo[@]}" apt-get update -q >/dev/null 2>&1
    install || { echo "bench peers: apt-get install failed:"; tail -5 "$log"; }
fi
rm -f "$log"
exit 0
