#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build sked's Debian package from a CMake build: install the build under
# /usr into a staging root (DESTDIR), add what a package has beyond
# "make install" (the unit for /usr/bin, the example configuration as a
# conffile, the maintainer scripts, the copyright), compress the man
# pages, compute Depends with dpkg-shlibdeps, and pack it with dpkg-deb.
#
#   scripts/deb.sh BUILD_DIR [OUT_DIR]     prints the .deb's path
#
# The build is installed with --prefix /usr whatever it was configured
# with, so a test can reuse its build; "make deb" configures one for /usr.
set -euo pipefail

build=${1:?usage: scripts/deb.sh BUILD_DIR [OUT_DIR]}
out=${2:-.}
src=$(cd "$(dirname "$0")/.." && pwd)
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || {
        echo "deb: $tool is missing (Debian: apt-get install dpkg-dev)" >&2
        exit 1
    }
done
version=$(sed -n 's/^project(sked VERSION \([0-9.]*\).*/\1/p' \
    "$src/CMakeLists.txt")
[ -n "$version" ] || { echo "deb: no version in CMakeLists.txt" >&2; exit 1; }
revision=${DEB_REVISION:-1}
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-sked maintainers <maintainers@sked.invalid>}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
DESTDIR=$root cmake --install "$build" --prefix /usr >/dev/null

# The unit names the binary where the package puts it.
unit=$root/usr/lib/systemd/system/sked.service
mkdir -p "$(dirname "$unit")"
sed 's|@SKED_BINDIR@|/usr/bin|g' "$src/packaging/systemd/sked.service.in" \
    >"$unit"
install -D -m 644 "$src/packaging/debian/sked.yaml" "$root/etc/sked/sked.yaml"
install -D -m 644 "$src/packaging/debian/copyright" \
    "$root/usr/share/doc/sked/copyright"
# Debian's ways: man pages gzipped, no debugging sections in what ships.
find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} +
strip --strip-unneeded "$root/usr/bin/sked"
find "$root/usr/lib" -name 'libsked.so.*' -type f \
    -exec strip --strip-unneeded {} +
find "$root/usr/lib" -name 'libsked.a' -exec strip --strip-debug {} +

# Depends: from the libraries the binary and libsked.so link, as
# dpkg-shlibdeps maps them to packages (it reads debian/control).
mkdir -p "$stage/debian"
printf 'Source: sked\n\nPackage: sked\nArchitecture: any\n' \
    >"$stage/debian/control"
libs=$(find "$root/usr/lib" -name 'libsked.so.*' -type f)
# shellcheck disable=SC2086
depends=$(cd "$stage" && dpkg-shlibdeps -O -e"$root/usr/bin/sked" \
    $(printf -- '-e%s ' $libs) 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no Depends" >&2; exit 1; }

mkdir -p "$root/DEBIAN"
install -m 755 "$src/packaging/debian/postinst" "$src/packaging/debian/postrm" \
    "$root/DEBIAN/"
echo /etc/sked/sked.yaml >"$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
    sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: sked
Version: $version-$revision
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Section: admin
Priority: optional
Description: durable workflow scheduler
 sked fires schedules (cron expressions, intervals, one-time instants,
 RFC 5545 rules, with time zones, calendars and catch-up policies) exactly
 once across every server sharing a SQLite or PostgreSQL database, and
 runs workflows of steps with retries, timeouts and compensations.
 .
 This package holds the sked command and server, its systemd unit, man
 pages and shell completions, and libsked with its headers, pkg-config
 file and CMake package.
CONTROL

mkdir -p "$out"
deb="$out/sked_${version}-${revision}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
