#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sked server under systemd: the notification protocol, with this test in
# systemd's place (server_systemd.py).
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/server_systemd.py"
