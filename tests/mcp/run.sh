#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one MCP test (tests/mcp/test_*.mjs) under node's test runner, or
# skip it (exit 77) when node or the SDK is missing: scripts/deps.sh
# installs the SDK from package-lock.json.
# Usage: tests/mcp/run.sh tests/mcp/test_stdio.mjs   (env: SKED_BIN, SKED_SOURCE_DIR)
set -u
here=$(cd "$(dirname "$0")" && pwd)
skip() {
    echo "SKIP: $1 (scripts/deps.sh installs it)"
    exit 77
}
command -v node >/dev/null || skip "node missing"
[ -f "$here/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
    skip "@modelcontextprotocol/sdk missing in tests/mcp/node_modules"
exec node --test-reporter=spec "${1:?usage: run.sh TEST.mjs}"
