#!/usr/bin/env bash
# Set-up and tests in one: installs the dependencies, then vets and tests every package
# (the CPU build; GPU tests need the cuda tag and a device: see README).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go vet ./...
go test -count=1 ./...
