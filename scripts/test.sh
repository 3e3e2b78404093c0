#!/usr/bin/env bash
# Set-up and tests in one: installs the dependencies, then vets and tests every package
# (the CPU build; GPU tests need the cuda tag and a device: see README), then runs the papers'
# benchmark on its smallest case (`aidw bench -quick`, well under two minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go vet ./...
go test -count=1 ./...
bench=$(mktemp -d)
trap 'rm -rf "$bench"' EXIT
go run ./cmd/aidw bench -quick -o "$bench/quick"
