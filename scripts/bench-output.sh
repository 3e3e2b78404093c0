#!/bin/bash
# Compressed output against plain (issue 24, "Output"): the same DEM (local AIDW, max_points=12,
# Float32) from a synthetic survey (scripts/genlas) written as plain GTiff, DEFLATE GTiff,
# DEFLATE COG and COG (LZW, the driver's default), each command timed whole (/usr/bin/time: wall, user + system CPU, peak RSS), and
# the compressed rasters' decoded pixels compared with the plain one's, and the COGs' overviews,
# level by level, with those of GDAL's own COG of the plain raster (gdal_translate -of COG).
# BASE=<aidw binary> adds the same runs of another build (e.g. one without threaded compression),
# interleaved; RUNS=<n> repeats every run n times (interleaved too).
# AIDW=<binary> and GENLAS=<binary> use prebuilt ones (a GPU host has no Go).
# Usage: scripts/bench-output.sh [points (1e6)] [nodes a side (3163: 1e7 nodes)] [work dir]
#   on a 16-core host, the issue's bar (1e8 nodes): scripts/bench-output.sh 10000000 10000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
points=${1:-1000000}
side=${2:-3163}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
cd "$root"
aidw=${AIDW:-$work/aidw}
[ -n "${AIDW:-}" ] || go build -o "$aidw" ./cmd/aidw
if [ ! -f "$work/survey.las" ]; then
	if [ -n "${GENLAS:-}" ]; then "$GENLAS" -n "$points" -o "$work/survey.las"; else go run ./scripts/genlas -n "$points" -o "$work/survey.las"; fi
fi
grid=(grid -q -a aidw:max_points=12 -outsize "$side" "$side" -ot Float32)
declare -A outputs=([plain]="" [gtiff-deflate]="-co COMPRESS=DEFLATE" [cog-deflate]="-of COG -co COMPRESS=DEFLATE"
	[cog-lzw]="-of COG")
bins=("new=$aidw")
[ -n "${BASE:-}" ] && bins+=("base=$BASE")
echo "| run | build | output | wall s | CPU s (user + sys) | peak RSS MiB | size MiB | load before |"
echo "|---|---|---|---|---|---|---|---|"
for run in $(seq "${RUNS:-1}"); do
	for out in plain gtiff-deflate cog-deflate cog-lzw; do
		for b in "${bins[@]}"; do
			name=${b%%=*} bin=${b#*=}
			load=$(cut -d' ' -f1 /proc/loadavg)
			# a new file each time: replacing the last run's would time the kernel dropping
			# its pages, 0.2-0.3 s while they are still being written back
			rm -f "$work/$name-$out.tif"
			# shellcheck disable=SC2086
			/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" "${grid[@]}" ${outputs[$out]} "$work/survey.las" "$work/$name-$out.tif"
			read -r wall user sys kb <"$work/time"
			size=$(stat -c %s "$work/$name-$out.tif")
			echo "| $run | $name | $out | $wall | $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') | $((kb / 1024)) | $((size / 1048576)) | $load |"
			gdal_translate -q -of ENVI "$work/$name-$out.tif" "$work/$name-$out.bin"
		done
	done
done
for f in "$work"/*-*.bin; do
	cmp -s "$f" "$work/new-plain.bin" || { echo "pixels differ: $f"; exit 1; }
done
echo "decoded pixels identical across outputs and builds"
gdal_translate -q -of COG -co COMPRESS=DEFLATE "$work/new-plain.tif" "$work/gdal-cog.tif"
# every overview level, until -ovr finds none (past the last, gdal_translate warns, unless -q,
# and takes the last; gdalinfo is not in the GPU host's bundle)
levels=0
while msg=$(gdal_translate -ovr "$levels" -of ENVI "$work/gdal-cog.tif" "$work/ovr_gdal.bin" 2>&1 >/dev/null) &&
	[[ $msg != *"Cannot get overview level"* ]]; do
	for b in "${bins[@]}"; do
		for c in cog-deflate cog-lzw; do
			gdal_translate -q -ovr "$levels" -of ENVI "$work/${b%%=*}-$c.tif" "$work/ovr_cog.bin"
			cmp -s "$work/ovr_cog.bin" "$work/ovr_gdal.bin" || { echo "overview $levels of ${b%%=*}'s $c differs from GDAL's"; exit 1; }
		done
	done
	levels=$((levels + 1))
done
echo "the COGs' $levels overview levels identical to gdal_translate -of COG's"
