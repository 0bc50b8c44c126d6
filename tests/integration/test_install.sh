#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libsked as a user gets it: install the build into a scratch prefix, then
# build a small program against it twice, with pkg-config and with CMake's
# find_package(sked), and run both. Also check that libsked.so exports the
# public API and nothing else.
set -euo pipefail

: "${SKED_BUILD_DIR:?}" "${SKED_SOURCE_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

prefix="$work/prefix"
cmake --install "$SKED_BUILD_DIR" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libsked.so -print -quit)")

cat >"$work/hello.c" <<'C'
#include <stdio.h>
#include <sked/sked.h>

int main(void)
{
    sked_cron c;
    sked_error err;
    sked_time next;
    char buf[SKED_TIME_STRLEN];

    if (sked_cron_parse("0 9 * * 1-5", &c, &err) != 0)
        return 1;
    if (sked_cron_next(&c, sked_tz_utc(), SKED_DST_ONCE, 0, &next) != 0)
        return 1;
    if (sked_time_format(next, buf, sizeof buf) < 0)
        return 1;
    printf("%s %s\n", sked_version(), buf);
    return 0;
}
C

# pkg-config
export PKG_CONFIG_PATH="$libdir/pkgconfig"
if cc -std=c11 -Wall -Werror "$work/hello.c" -o "$work/hello_pc" \
    $(pkg-config --cflags --libs sked) &&
    out=$(LD_LIBRARY_PATH="$libdir" "$work/hello_pc") &&
    [ "$out" = "$(pkg-config --modversion sked) 1970-01-01T09:00:00Z" ]; then
    ok
else
    bad "pkg-config build: ${out:-no output}"
fi

# CMake package
mkdir -p "$work/app"
cp "$work/hello.c" "$work/app/"
cat >"$work/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(hello C)
find_package(sked REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE sked::sked)
CM
if cmake -S "$work/app" -B "$work/app/build" -DCMAKE_PREFIX_PATH="$prefix" \
    >/dev/null && cmake --build "$work/app/build" >/dev/null &&
    LD_LIBRARY_PATH="$libdir" "$work/app/build/hello" | grep -q '1970-01-01T09:00:00Z'; then
    ok
else
    bad "CMake find_package build"
fi

# Only sked_ symbols leave the shared library.
leaked=$(nm -D --defined-only "$libdir/libsked.so" | awk '$2 ~ /[TDBR]/ {print $3}' |
    grep -v '^sked_' || true)
if [ -z "$leaked" ]; then ok; else bad "symbols outside the API: $leaked"; fi
if nm -D --defined-only "$libdir/libsked.so" | grep -q ' sked__'; then
    bad "internal sked__ symbols exported"
else
    ok
fi
# Installed headers include nothing from src/.
if grep -l '"base/\|"cron/\|"tz/\|"time/' "$prefix"/include/sked/*.h; then
    bad "public headers include internal ones"
else
    ok
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
