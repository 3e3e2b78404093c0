#!/bin/bash
# Tiled runs at survey scale (issue 14's bars), local AIDW (max_points=12) to a 1 m DEM from
# synthetic LAS (scripts/genlas: format 6, 2.5 points/m², 30 bytes a point on disk):
#   tiles1e8: 100 million points in one file (3 GB; 6.3 km square), in memory and tiled under
#             -memory 600MB (at least 16 tiles), ROUNDS interleaved rounds each, wall time and
#             peak RSS (/usr/bin/time), and the two rasters compared pixel for pixel; then once
#             under -memory 1GB and 2GB, whose peak RSS must stay within the budget;
#   tiles1e9: 1e9 points in 16 files of 62.5 million (28 GB; a 20 km square) tiled under
#             -memory 4GB: wall time, CPU time, peak RSS, the load average before and after. The
#             spill file takes 16 GB under TMPDIR, the DEM 1.6 GB: about 46 GB of free disk in
#             all. The survey stays in the work dir, for a second run.
# Writes bench/results/tiles-<case>.md. Usage: scripts/bench-tiles.sh tiles1e8|tiles1e9 [work dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case=${1:?usage: bench-tiles.sh tiles1e8|tiles1e9 [work dir]}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
cd "$root"
go build -o "$work/aidw" ./cmd/aidw
go build -o "$work/genlas" ./scripts/genlas
out=$root/bench/results/$case.md
alg=(-device cpu -a aidw:max_points=12 -tr 1 1 -ot Float32)
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)

# timed LABEL CMD...: runs CMD under /usr/bin/time and prints "LABEL wall_s peak_MiB cpu_s load
# load_after" (cpu_s: user + system; load: the one-minute load average before and after the run)
timed() {
  local label=$1; shift
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  read -r wall kb user sys <"$work/time"
  echo "$label $wall $((kb / 1024)) $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') $load $(cut -d' ' -f1 /proc/loadavg)"
}

# same A B: the two rasters' pixels, bit for bit
same() {
  gdal_translate -q -of ENVI "$1" "$work/a.bin" && gdal_translate -q -of ENVI "$2" "$work/b.bin"
  cmp -s "$work/a.bin" "$work/b.bin" && echo "bit-identical" || echo "DIFFERENT"
}

header() {
  echo "# $1"
  echo
  echo "- date: $(date -u +%F), commit: $(git rev-parse --short HEAD)$(git diff --quiet -- . ':!bench/results' || echo ' (uncommitted changes)')"
  echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB; load average at the start: $load_at_start"
  echo "- command: \`scripts/bench-tiles.sh $case\`; wall time and peak RSS from /usr/bin/time"
  echo
}

case $case in
tiles1e8)
  [[ -s $work/p1e8.las ]] || "$work/genlas" -n 100000000 -size 6325 -o "$work/p1e8.las"
  rows=()
  for r in $(seq "${ROUNDS:-3}"); do
    rows+=("$(timed in-memory "$work/aidw" grid -q "${alg[@]}" "$work/p1e8.las" "$work/mem.tif")")
    rows+=("$(timed tiled "$work/aidw" grid "${alg[@]}" -memory 600MB "$work/p1e8.las" "$work/tiled.tif")")
    tiles=$(grep -a -o "Tiled run: [^.]*" "$work/log")
  done
  budgets=()
  for m in 1GB 2GB; do
    budgets+=("$(timed "$m" "$work/aidw" grid -q "${alg[@]}" -memory $m "$work/p1e8.las" "$work/tiled$m.tif") $(same "$work/mem.tif" "$work/tiled$m.tif")")
  done
  {
    header "100 million LAS points to a 1 m DEM: tiled against in memory"
    echo "aidw grid ${alg[*]} [-memory 600MB] p1e8.las dem.tif  (6325 x 6325 nodes)"
    echo
    echo "| run | wall s | peak RSS MiB | CPU s (user + system) | load average before |"
    echo "|---|---|---|---|---|"
    for row in "${rows[@]}"; do set -- $row; echo "| $1 | $2 | $3 | $4 | $5 |"; done
    echo
    echo "$tiles. Rasters: $(same "$work/mem.tif" "$work/tiled.tif")."
    echo
    echo "Peak RSS within the budget (one run each):"
    echo
    echo "| -memory | wall s | peak RSS MiB | CPU s (user + system) | load average before | raster against in memory |"
    echo "|---|---|---|---|---|---|"
    for row in "${budgets[@]}"; do set -- $row; echo "| $1 | $2 | $3 | $4 | $5 | $7 |"; done
  } | tee "$out"
  ;;
tiles1e9)
  mkdir -p "$work/survey"
  for i in 0 1 2 3; do for j in 0 1 2 3; do
    f=$work/survey/tile_${i}_${j}.las
    [[ -s $f ]] || { "$work/genlas" -n 62500000 -size 5000 -x0 $((400000 + i * 5000)) -y0 $((5400000 + j * 5000)) -seed $((i * 4 + j + 11)) -o "$f.part" && mv "$f.part" "$f"; }
  done; done
  row=$(timed tiled "$work/aidw" grid "${alg[@]}" -memory 4GB "$work/survey" "$work/dem1e9.tif")
  tiles=$(grep -a -o "Tiled run: [^.]*" "$work/log")
  set -- $row
  {
    header "1e9 LAS points to a 1 m DEM, tiled under -memory 4GB"
    echo "aidw grid ${alg[*]} -memory 4GB survey/ dem.tif   (16 files, 20000 x 20000 nodes)"
    echo
    echo "| points | wall s | peak RSS MiB | CPU s (user + system) | points/s | load average before | after |"
    echo "|---|---|---|---|---|---|---|"
    echo "| 1,000,000,000 | $2 | $3 | $4 | $(awk -v s="$2" 'BEGIN{printf "%.2e", 1e9/s}') | $5 | $6 |"
    echo
    echo "$tiles."
  } | tee "$out"
  ;;
*) echo "unknown case $case" >&2; exit 2 ;;
esac
