#!/usr/bin/env bash
# Set-up and tests in one: installs the dependencies, then vets and tests every package
# (the CPU build; GPU tests need the cuda tag and a device: see README), then runs the papers'
# benchmark on its smallest case (`aidw bench -quick`, well under two minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# LASzip's own decoder (laz-perf, WebAssembly) is the LAZ tests' independent oracle
if command -v npm >/dev/null; then
	scripts/lazperf/setup.sh >/dev/null
	export AIDW_LAZPERF=1
fi
go vet ./...
# gofmt reads every file, those of the cuda build too, which vet here does not compile
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.*'))
[[ -z $unformatted ]] || { echo "not gofmt-formatted: $unformatted" >&2; exit 1; }
# an explicit timeout per package: Go's default of 10 minutes is too short for cmd/aidw on a
# busy 2-core machine (4 other busy processes); latency bounds in the tests scale with the
# machine's measured load, and AIDW_TEST_SLOWDOWN (a factor) scales them further
go test -count=1 -timeout "${TEST_TIMEOUT:-45m}" ./...
bench=$(mktemp -d)
trap 'rm -rf "$bench"' EXIT
go run ./cmd/aidw bench -quick -o "$bench/quick"
