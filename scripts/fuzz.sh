#!/usr/bin/env bash
# Runs every native fuzz target (the LAS/LAZ readers, LAZ's decoder, the text reader and the
# algorithm parser) for FUZZTIME each (default 20s), seeded by the fixtures and the corpus kept
# in each package's testdata/fuzz. With KEEP=1 it then copies the small inputs that found new
# paths from Go's fuzz cache into testdata/fuzz, so they seed every later run and CI.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-20s}
targets=(
	"./lidar FuzzReadFile"
	"./lidar/laz FuzzDecode"
	"./gdalio FuzzTextReader"
	"./interp FuzzParseAlgorithm"
)
cache=$(go env GOCACHE)/fuzz/github.com/aidw/aidw
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "== $pkg $name ($time)"
	# minimising large inputs would take the whole budget: a few tries each
	log=$(mktemp)
	if ! go test -timeout "${TEST_TIMEOUT:-45m}" -run '^$' -fuzz "^$name\$" -fuzztime "$time" -fuzzminimizetime 10x "$pkg" >"$log" 2>&1; then
		# Go's fuzz coordinator can report its own -fuzztime deadline as a failure, with no
		# input written (go.dev/issue/75804, fixed in Go 1.27): that is no finding.
		if grep -q '^    context deadline exceeded$' "$log" && ! grep -q 'Failing input written\|panic:' "$log"; then
			echo "   (the fuzz coordinator's deadline race, go.dev/issue/75804: no failing input)"
		else
			tail -40 "$log" # the failure's reason and, when the fuzzer could write it, its input
			rm -f "$log"
			exit 1
		fi
	fi
	tail -2 "$log"
	rm -f "$log"
	if [ "${KEEP:-}" = 1 ] && [ -d "$cache/${pkg#./}/$name" ]; then
		mkdir -p "$pkg/testdata/fuzz/$name"
		# the smallest 40 under 16 KiB: paths found, without bloating the repository
		find "$cache/${pkg#./}/$name" -type f -size -16k -printf '%s %p\n' | sort -n | head -40 |
			while read -r _ f; do cp "$f" "$pkg/testdata/fuzz/$name/"; done
	fi
done
