#!/usr/bin/env bash
# Side-by-side timings of aidw grid (CPU engine) and gdal_grid on the same inputs and outputs,
# all cores for both (issue 3's bars, plus issue 2's AIDW bars). Writes
# bench/results/cpu-vs-gdal_grid.md. Usage: scripts/bench-vs-gdal.sh [quick]
#   quick: 100,000 samples onto 300x300 nodes instead of 1,000,000 onto 1000x1000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -o aidw ./cmd/aidw
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
n=1000000 size=1000 n_all=20000
if [ "${1:-}" = quick ]; then n=100000 size=300 n_all=5000; fi
go run ./scripts/gensamples -n $n -o "$work/big.csv"
go run ./scripts/gensamples -n $n_all -seed 2 -o "$work/small.csv"
go run ./scripts/gensamples -n 102400 -seed 3 -o "$work/global.csv"
ext="-txe 450000 460000 -tye 5400000 5410000 -outsize $size $size"
export GDAL_NUM_THREADS=ALL_CPUS
out=bench/results/cpu-vs-gdal_grid.md
[ "${1:-}" = quick ] && out=$work/quick.md

secs() { # runs a command, prints its wall time in seconds
  local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; echo fail; return; }
  t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}'
}
row() { # name, gdal_grid -a string, input base name
  local name=$1 alg=$2 in=$3 g a
  g=$(secs gdal_grid -q $ext -a "$alg" "$work/$in.vrt" "$work/g.tif")
  a=$(secs ./aidw grid -q $ext -a "$alg" "$work/$in.csv" "$work/a.tif")
  printf '| %s | `%s` | %s | %s | %s |\n' "$name" "$alg" "$g" "$a" \
    "$(awk -v g="$g" -v a="$a" 'BEGIN{if (a+0 > 0 && g+0 > 0) printf "%.1fx", g/a; else print "-"}')" | tee -a "$out"
}
{
  echo "# aidw grid (CPU engine) vs gdal_grid $(gdal_grid --version | cut -d, -f1 | cut -d' ' -f2)"
  echo
  echo "- date: $(date -u +%F), commit: $(git rev-parse --short HEAD 2>/dev/null || echo none)$(git diff --quiet -- . ':!bench/results' 2>/dev/null || echo ' (uncommitted changes)')"
  echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- command: \`scripts/bench-vs-gdal.sh ${1:-}\`; GDAL_NUM_THREADS=ALL_CPUS; wall time of the whole command (read, grid, write), seconds"
  echo "- inputs: $n uniform samples over a 10 km square (UTM) onto ${size}x${size} nodes; all-samples invdist: $n_all samples"
  echo
  echo "| case | -a | gdal_grid s | aidw s | speed-up |"
  echo "|---|---|---|---|---|"
} > "$out"
for alg in "invdistnn:power=2:radius=50:max_points=12" "average:radius1=50:radius2=50:max_points=12" \
           "minimum:radius1=50:radius2=50" "maximum:radius1=50:radius2=50" "range:radius1=50:radius2=50" \
           "count:radius1=50:radius2=50" "average_distance:radius1=50:radius2=50" \
           "nearest:radius1=50:radius2=50" "linear"; do
  row "${alg%%:*}" "$alg" big
done
row "invdist, all samples" "invdist:power=2" small
echo >> "$out"
echo "## AIDW (aidw only)" >> "$out"
echo >> "$out"
echo "| case | command | aidw s |" >> "$out"
echo "|---|---|---|" >> "$out"
t=$(secs ./aidw grid -q $ext -a aidw:max_points=15 "$work/big.csv" "$work/a.tif")
echo "| local AIDW, $n samples | \`aidw grid $ext -a aidw:max_points=15\` | $t |" | tee -a "$out"
t=$(secs ./aidw grid -q -txe 450000 460000 -tye 5400000 5410000 -outsize 320 320 -a aidw "$work/global.csv" "$work/a.tif")
echo "| global AIDW, 102,400 samples x 102,400 nodes | \`aidw grid -outsize 320 320 -a aidw\` | $t |" | tee -a "$out"
echo "wrote $out"
