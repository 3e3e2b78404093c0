#!/bin/sh
# Installs laz-perf (pinned in package.json) into scripts/lazperf/node_modules for the oracle test.
set -e
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
