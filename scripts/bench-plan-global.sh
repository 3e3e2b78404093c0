#!/bin/bash
# A global-AIDW plan's CPU time against one process's (issue 28): global AIDW (the far field
# in use) onto 1 m nodes over a 600 m square, from 100,000 LAS points (scripts/genlas) in 9
# tiles and from 60,000 CSV samples (scripts/gensamples; the workers read plan.samples/) in
# 16 tiles. Each case: one `aidw grid`, then `aidw plan`, every worker and `aidw mosaic`, the
# user + system CPU seconds of each (/usr/bin/time) and whether the mosaic equals the one-shot
# raster byte for byte (both as ENVI). Prints a line a case and round.
# Usage: scripts/bench-plan-global.sh [aidw binary] [rounds] [work dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/aidw
	(cd "$root" && go build -o "$bin" ./cmd/aidw)
fi
(cd "$root" && go build -o "$work/genlas" ./scripts/genlas && go build -o "$work/gensamples" ./scripts/gensamples)
mkdir -p "$work/las" "$work/csv"
[ -f "$work/las/a.las" ] || "$work/genlas" -n 100000 -size 600 -o "$work/las/a.las" >/dev/null
[ -f "$work/csv/s.csv" ] || "$work/gensamples" -n 60000 -size 600 -o "$work/csv/s.csv" >/dev/null

# cpu CMD...: runs CMD quietly and prints its user + system CPU seconds
cpu() {
	/usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
	awk '{printf "%.2f", $1 + $2}' "$work/time"
}

# one LABEL TILE ARGS...: a case, one round
one() {
	local label=$1 tile=$2 d=$work/run
	shift 2
	rm -rf "$d" && mkdir -p "$d"
	local single plan workers="" sum=0 n mosaic
	single=$(cpu "$bin" grid -q "$@" "$d/one.tif")
	plan=$(cpu "$bin" plan -q -tile "$tile" "$@" "$d/plan.json")
	n=$(grep -c '"index":' "$d/plan.json")
	for i in $(seq 0 $((n - 1))); do
		w=$(cpu "$bin" grid -q --manifest "$d/plan.json" --plan-tile "$i")
		workers="$workers $w"
		sum=$(echo "$sum + $w" | bc)
	done
	mosaic=$(cpu "$bin" mosaic -q "$d/plan.json" "$d/mosaic.tif")
	gdal_translate -q -of ENVI "$d/one.tif" "$d/one.raw"
	gdal_translate -q -of ENVI "$d/mosaic.tif" "$d/mosaic.raw"
	local same=different
	cmp -s "$d/one.raw" "$d/mosaic.raw" && same=identical
	local total
	total=$(echo "$plan + $sum + $mosaic" | bc)
	echo "$label: one process $single, plan $plan, $n workers $sum [$workers ], mosaic $mosaic; total $total = $(echo "scale=2; $total / $single" | bc)x; $same; load $(cut -d' ' -f1-3 /proc/loadavg)"
}

for r in $(seq 1 "${2:-1}"); do
	one "round $r las" 200 -a aidw -tr 1 1 "$work/las"
	one "round $r csv" 150 -a aidw -tr 1 1 "$work/csv/s.csv"
done
