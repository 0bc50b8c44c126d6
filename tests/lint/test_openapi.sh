#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OpenAPI document a real "sked server" serves (GET
# /api/v1/openapi.json), checked by the linter its users run: Redocly CLI
# (pinned in tests/lint/package.json, installed by scripts/deps.sh) with
# its recommended ruleset (tests/lint/redocly.yaml) must report no error
# and no warning. A copy of the document with an operation stripped of
# its operationId and error answers must draw warnings, so that a linter
# that checked nothing would not pass.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Exits 77 when Redocly CLI is not
# installed. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
lint=$here
if [ ! -f "$lint/node_modules/@redocly/cli/package.json" ] ||
    ! command -v node >/dev/null; then
    echo "SKIP: Redocly CLI is not installed (scripts/deps.sh installs it)"
    exit 77
fi
. "$here/../integration/server_lib.sh"

# Redocly CLI, offline and quiet: no telemetry, no update notice.
redocly() {
    (cd "$lint" && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
        NO_UPDATE_NOTIFIER=1 npx --no-install redocly "$@")
}

# counts FILE: lint FILE; print "errors=E warnings=W" from the JSON report,
# the problems in the readable form on stderr when there are any.
counts() {
    redocly lint --config "$lint/redocly.yaml" --format json "$1" \
        >"$tmp/report.json" 2>"$tmp/report.err"
    "$py" - "$tmp/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except ValueError:
    print("errors=? warnings=?")
    sys.exit(0)
t = r["totals"]
print("errors=%d warnings=%d" % (t["errors"], t["warnings"]))
for p in r["problems"][:40]:
    where = p["location"][0].get("pointer", "") if p.get("location") else ""
    print("  %s %s %s: %s" % (p["severity"], p["ruleId"], where,
                              p["message"]), file=sys.stderr)
PY
}

if ! start_http a --db "sqlite:$tmp/openapi.db"; then
    cat "$tmp/a.log"
    echo "0 passed, 1 failed"
    exit 1
fi
doc=$tmp/openapi.json
code=$(curl -s -o "$doc" -w '%{http_code}' "$url_a/api/v1/openapi.json")
check "document status" "$code" 200

# 1. The served document: no error, no warning.
got=$(counts "$doc")
check "redocly lint of the served document" "$got" "errors=0 warnings=0"
[ "$got" = "errors=0 warnings=0" ] || cat "$tmp/report.err"

# 2. The linter sees a broken copy: one operation without an operationId
#    and without its 4XX answers is flagged.
"$py" - "$doc" "$tmp/broken.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
op = d["paths"]["/api/v1/schedules/{name}"]["get"]
op.pop("operationId", None)
for s in [s for s in op["responses"] if s.startswith("4")]:
    del op["responses"][s]
json.dump(d, open(sys.argv[2], "w"))
PY
got=$(counts "$tmp/broken.json" 2>/dev/null)
check "redocly lint of a broken copy" "$got" "errors=0 warnings=2"

stop_server a TERM
check "server exit status" "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
