#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install every Debian package that sked's build, tests and benchmarks need,
# the npm oracle (croner) used by the differential tests, the npm peer
# (graphile-worker) of the execution benchmark, playwright-core, which
# drives Debian's chromium in the dashboard's tests, and the official MCP
# SDK, whose client drives the MCP tests. Idempotent and quiet when
# everything is already there. Run as root or with sudo.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)

packages=(
    build-essential cmake pkg-config git
    clang libclang-rt-14-dev llvm clang-format
    libcmocka-dev
    libsqlite3-dev sqlite3
    libpq-dev postgresql
    libmicrohttpd-dev libcurl4-openssl-dev curl
    libjansson-dev libfyaml-dev
    libical-dev # RFC 5545 recurrence rules: calendars and rrule schedules
    libssl-dev  # libcrypto's HMAC-SHA256: the webhooks' signatures
    tzdata
    prometheus # its promtool: the metrics' linter (tests/lint)
    python3 python3-croniter python3-dateutil python3-requests
    wrk hyperfine valgrind
    chromium
    scdoc man-db # the man pages: built from docs/man, checked with man -l
    systemd      # its systemd-analyze: the unit's check (tests/integration)
    dpkg-dev     # make deb
    zsh fish     # their completion scripts, checked by tests/integration
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
# Node.js: any recent node with npm will do; take Debian's when none.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Only its promtool is wanted (tests/lint): the Prometheus server the
    # package starts where services start on install is stopped and kept
    # from starting at boot.
    case " ${missing[*]} " in
    *" prometheus "*)
        if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
            $sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
        elif [ -x /etc/init.d/prometheus ]; then
            $sudo /etc/init.d/prometheus stop >/dev/null 2>&1 || true
        fi
        ;;
    esac
fi

# npm packages pinned by a package-lock.json: installed when missing, and
# again when the lock file is newer than the install (npm ci rewrites
# node_modules/.package-lock.json, so it is then up to date).
npm_ci() { # DIR PACKAGE
    local dir=$here/$1
    if [ ! -f "$dir/node_modules/$2/package.json" ] ||
        [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        echo "deps: installing $2 (npm)"
        # Playwright drives the system's chromium: it downloads no browser.
        (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
            npm ci --silent --no-audit --no-fund >/dev/null)
    fi
}
# Redocly CLI, the OpenAPI document's linter (tests/lint).
npm_ci tests/lint @redocly/cli
npm_ci tests/oracle croner
npm_ci bench/peers graphile-worker
npm_ci tests/dashboard playwright-core
npm_ci tests/mcp @modelcontextprotocol/sdk
