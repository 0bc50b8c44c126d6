#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OpenAPI document a real "sked server" serves (GET
# /api/v1/openapi.json), checked by the linter its users run: Redocly CLI
# (pinned in tests/lint/package.json, installed by scripts/deps.sh) with
# its recommended ruleset (tests/lint/redocly.yaml) must report no error
# and no warning. A copy of the document with an operation stripped of
# its operationId and error answers must draw warnings, so that a linter
# that checked nothing would not pass. And the bodies it describes with
# no other key allowed are those the server reads, key for key. Its
# operations are the routes docs/api.md describes, both ways, and each
# kind of answer carries its content type.
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

if ! start_http a --db "sqlite:$tmp/openapi.db" --workers 0; then
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

# 3. The bodies the document describes are the bodies the server reads:
#    for each schema of a body that admits no other key, its required
#    keys alone are taken, each optional key it lists is known (never
#    refused with 400 naming it), and a key it does not list is. The
#    schedule fires every whole hour: the instants below are occurrences
#    (a skip's, a future one).
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
    -d '{"name": "lint", "workflow": "w", "every_secs": 3600,
         "anchor": "2026-01-01T00:00:00Z"}' \
    "$url_a/api/v1/schedules"
"$py" - "$doc" "$url_a" >"$tmp/bodies" <<'PY'
import datetime, json, sys, urllib.error, urllib.request
doc, url = json.load(open(sys.argv[1])), sys.argv[2]
# A whole hour to come: an occurrence of the lint schedule not yet decided.
ahead = (datetime.datetime.now(datetime.timezone.utc).replace(
    minute=0, second=0, microsecond=0) + datetime.timedelta(hours=3)
    ).strftime("%Y-%m-%dT%H:%M:%SZ")
schemas = doc["components"]["schemas"]

def send(method, path, body):
    req = urllib.request.Request(url + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"},
                                 method=method)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, {}
    except urllib.error.HTTPError as e:
        return e.code, json.load(e).get("error", {})

def value(prop, i):
    # Instants an hour apart from a past whole hour, in the order of the keys.
    if prop.get("format") == "date-time":
        return "2026-01-01T%02d:00:00Z" % (1 + 2 * i)
    t = prop.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0]
    if t in ("integer", "number"):
        return prop.get("minimum", 0)
    return {"boolean": False, "array": []}.get(t, "x")

for path, item in sorted(doc["paths"].items()):
    for method, op in sorted(item.items()):
        ref = (op.get("requestBody", {}).get("content", {})
               .get("application/json", {}).get("schema", {}).get("$ref"))
        s = schemas.get((ref or "").rsplit("/", 1)[-1], {})
        if s.get("additionalProperties") is not False or "properties" not in s:
            continue
        if s["properties"].get("schedules"):
            continue  # a set of schedules: integration.http_api's
        target = path.replace("{name}", "lint")
        req = {k: value(s["properties"][k], i)
               for i, k in enumerate(s.get("required", []))}
        if path.endswith("/skips"):
            req["at"] = ahead  # a skip is of an occurrence still to come
        st, err = send(method.upper(), target, req)
        print("%s %s required %s" % (method, path, "ok" if st < 300
                                       else "%d %s" % (st, err)))
        for k, prop in s["properties"].items():
            if k in req or prop.get("readOnly"):
                continue
            st, err = send(method.upper(), target, dict(req, **{k: value(prop, 9)}))
            unknown = st == 400 and err.get("field") == k
            print("%s %s %s %s" % (method, path, k,
                                     "unknown" if unknown else "known"))
        st, err = send(method.upper(), target, dict(req, not_a_key=1))
        print("%s %s not_a_key %d %s" % (method, path, st, err.get("field")))
PY
while read -r method path what got; do
    case $what:$got in
    required:*) check "$method $path $what" "$got" ok ;;
    not_a_key:*) check "$method $path $what" "$got" "400 not_a_key" ;;
    *) check "$method $path $what" "$got" known ;;
    esac
done <"$tmp/bodies"
check_ge "bodies checked" "$(grep -c " required " "$tmp/bodies")" 2

# 4. The routes agree three ways: every operation of the document is a
#    route docs/api.md describes, and every route docs/api.md describes
#    is an operation of the document (which the router's tables make).
"$py" - "$doc" "$SKED_SOURCE_DIR/docs/api.md" >"$tmp/routes" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ops = {(m.upper(), p) for p, item in d["paths"].items() for m in item
       if m in ("get", "post", "put", "patch", "delete", "options")}
docs = set()
for line in open(sys.argv[2]):
    if line.startswith("| `"):
        cell = line.split("|")[1]
        docs |= {(m, p) for m, p in re.findall(
            r"`(GET|POST|PUT|PATCH|DELETE|OPTIONS) (/[^`?\s]*)", cell)}
for m, p in sorted(ops - docs):
    print("undocumented %s %s" % (m, p))
for m, p in sorted(docs - ops):
    print("unserved %s %s" % (m, p))
print("count %d" % len(ops))
PY
check "every served route is in docs/api.md, and every one there served" \
    "$(grep -v '^count' "$tmp/routes")" ""
check_ge "routes compared" "$(sed -n 's/^count //p' "$tmp/routes")" 50

# 5. Each kind of answer says what it is.
ctype() { curl -s -o /dev/null -w '%{content_type}' "$@"; }
check "the document's type" "$(ctype "$url_a/api/v1/openapi.json")" application/json
check "an API answer's type" "$(ctype "$url_a/api/v1/schedules")" application/json
check "an error's type" "$(ctype "$url_a/api/v1/schedules/none-such")" application/json
check "the metrics' type" "$(ctype "$url_a/metrics")" "text/plain; version=0.0.4; charset=utf-8"
check "the dashboard's type" "$(ctype "$url_a/")" "text/html; charset=utf-8"
check "a dashboard script's type" "$(ctype "$url_a/dashboard/sked.js")" "text/javascript; charset=utf-8"
check "a dashboard style's type" "$(ctype "$url_a/dashboard/sked.css")" "text/css; charset=utf-8"
check "the event stream's type" \
    "$(curl -s -o /dev/null -m 1 -w '%{content_type}' "$url_a/api/v1/events?follow=1")" \
    "text/event-stream"

stop_server a TERM
check "server exit status" "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
