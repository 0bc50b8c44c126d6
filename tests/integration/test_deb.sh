#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package as an administrator gets it: scripts/deb.sh packs
# this build (installed under /usr, as "make deb" does from a build of
# its own); dpkg-deb lists the control fields, the Depends on the shared
# libraries sked links, the conffile and the files a package must hold;
# dpkg -x puts it in a throwaway root, where the binary runs, the man
# pages render, the example configuration changes nothing, the unit
# starts /usr/bin/sked and libsked builds a program through pkg-config.
set -euo pipefail

: "${SKED_BUILD_DIR:?}" "${SKED_SOURCE_DIR:?}"
for tool in dpkg-deb dpkg-shlibdeps man; do
    command -v "$tool" >/dev/null || {
        echo "SKIP: $tool missing"
        exit 77
    }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

version=$(sed -n 's/^project(sked VERSION \([0-9.]*\).*/\1/p' \
    "$SKED_SOURCE_DIR/CMakeLists.txt")
start=$(date +%s)
deb=$("$SKED_SOURCE_DIR/scripts/deb.sh" "$SKED_BUILD_DIR" "$work/out")
echo "built $(basename "$deb") in $(($(date +%s) - start)) s," \
    "$(stat -c %s "$deb") bytes"
[ -f "$deb" ] && ok || bad "no package at $deb"
case $(basename "$deb") in
"sked_${version}-1_$(dpkg --print-architecture).deb") ok ;;
*) bad "package named $(basename "$deb")" ;;
esac

# The control file.
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = sked ] && ok || bad "Package: $(field Package)"
[ "$(field Version)" = "$version-1" ] && ok || bad "Version: $(field Version)"
depends=$(field Depends)
for lib in libc6 libsqlite3-0 libpq5 libmicrohttpd12 libcurl4 libjansson4 \
    libfyaml0 libical3 libssl3; do
    case ", $depends," in
    *", $lib "* | *", $lib,"*) ok ;;
    *) bad "Depends lacks $lib: $depends" ;;
    esac
done
dpkg-deb --info "$deb" conffiles | grep -qx /etc/sked/sked.yaml && ok ||
    bad "/etc/sked/sked.yaml is no conffile"

# The files.
dpkg-deb --contents "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' \
    >"$work/contents"
for f in /usr/bin/sked /usr/include/sked/sked.h /usr/include/sked/version.h \
    /usr/lib/pkgconfig/sked.pc /usr/lib/cmake/sked/skedConfig.cmake \
    /usr/lib/libsked.a /usr/lib/systemd/system/sked.service \
    /usr/share/man/man1/sked.1.gz /usr/share/man/man8/sked-server.8.gz \
    /usr/share/man/man5/sked.yaml.5.gz /usr/share/man/man5/sked-workflows.5.gz \
    /usr/share/bash-completion/completions/sked \
    /usr/share/zsh/site-functions/_sked \
    /usr/share/fish/vendor_completions.d/sked.fish \
    /usr/share/doc/sked/copyright /etc/sked/sked.yaml; do
    # A multiarch build puts the libraries under /usr/lib/TRIPLET.
    pat=$(sed 's|^/usr/lib/|/usr/lib/([^/]+/)?|' <<<"$f")
    grep -Eqx -- "$pat" "$work/contents" && ok || bad "the package lacks $f"
done
grep -Eq '^/usr/lib/([^/]+/)?libsked\.so\.0' "$work/contents" && ok ||
    bad "the package lacks libsked.so.0"
if grep -q '^/usr/local' "$work/contents"; then
    bad "files under /usr/local: $(grep '^/usr/local' "$work/contents" | head -3)"
else
    ok
fi

# Unpacked into a throwaway root.
root=$work/root
dpkg -x "$deb" "$root"
libdir=$(dirname "$(find "$root/usr/lib" -name 'libsked.so.0' | head -1)")
out=$(LD_LIBRARY_PATH=$libdir "$root/usr/bin/sked" --version)
[ "$out" = "sked $version" ] && ok || bad "sked --version: $out"
for page in man1/sked.1.gz man8/sked-server.8.gz man5/sked.yaml.5.gz; do
    f=$root/usr/share/man/$page
    warnings=$(MANWIDTH=80 man --warnings=w -l "$f" 2>&1 >/dev/null || true)
    text=$(MANWIDTH=80 man -l "$f" 2>/dev/null || true)
    if [ -z "$warnings" ] && grep -q '^NAME' <<<"$text"; then ok; else
        bad "man -l $page: ${warnings:-no NAME section}"
    fi
done
# The example configuration changes nothing: every entry is commented out.
if out=$("$root/usr/bin/sked" server --config "$root/etc/sked/sked.yaml" \
    --check-config 2>&1) && [ "$out" = "configuration ok: $root/etc/sked/sked.yaml" ] &&
    ! grep -Eq '^[a-z_]+:' "$root/etc/sked/sked.yaml"; then
    ok
else
    bad "the example configuration: $out"
fi
grep -qx 'ExecStart=/usr/bin/sked server' \
    "$root/usr/lib/systemd/system/sked.service" && ok ||
    bad "the unit's ExecStart: $(grep ExecStart "$root/usr/lib/systemd/system/sked.service")"
# The shipped binary is stripped, the library carries no debug sections.
if ! readelf -S "$root/usr/bin/sked" | grep -q '\.debug_'; then ok; else
    bad "the binary has debug sections"
fi
# The bash completion it ships is the binary's own.
if cmp -s "$root/usr/share/bash-completion/completions/sked" \
    <("$root/usr/bin/sked" completion bash); then ok; else
    bad "the bash completion differs from sked completion bash"
fi

# libsked from the package, through pkg-config. sked.pc finds its prefix
# from its own place, so the unpacked tree works where it lies.
cat >"$work/hello.c" <<'C'
#include <stdio.h>
#include <sked/sked.h>
int main(void) { printf("%s\n", sked_version()); return 0; }
C
pc=$(dirname "$(find "$root/usr/lib" -name sked.pc | head -1)")
if cc -std=c11 "$work/hello.c" -o "$work/hello" \
    $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs sked) &&
    out=$(LD_LIBRARY_PATH=$libdir "$work/hello") && [ "$out" = "$version" ]; then
    ok
else
    bad "a program built against the package's libsked: ${out:-}"
fi

echo "deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
