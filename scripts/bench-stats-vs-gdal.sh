#!/usr/bin/env bash
# Issue 17's bars: the moving-window statistics of aidw grid (CPU engine) against gdal_grid, and
# against a baseline aidw binary when one is given, on bench-vs-gdal.sh's inputs (1,000,000
# uniform samples over a 10 km square onto 1000x1000 nodes, radius 50), all cores for every
# tool. The tools run interleaved, round after round, so that a shared machine's changing load
# falls on all of them alike; the table has each tool's median wall time (read, grid, write).
# Usage: scripts/bench-stats-vs-gdal.sh [rounds (default 5)] [baseline aidw binary]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} base=${2:-}
scripts/deps.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
go build -o "$work/aidw" ./cmd/aidw
go run ./scripts/gensamples -n 1000000 -o "$work/big.csv"
ext="-txe 450000 460000 -tye 5400000 5410000 -outsize 1000 1000"
export GDAL_NUM_THREADS=ALL_CPUS

secs() { # runs a command, prints its wall time in seconds
  local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}'
}
run() { # round, case, tool, -a string: one line of the log
  local t
  case $3 in
    gdal_grid) t=$(secs gdal_grid -q $ext -a "$4" "$work/big.vrt" "$work/g.tif") ;;
    aidw) t=$(secs "$work/aidw" grid -q $ext -a "$4" "$work/big.csv" "$work/a.tif") ;;
    baseline) t=$(secs "$base" grid -q $ext -a "$4" "$work/big.csv" "$work/b.tif") ;;
  esac
  echo "$1 $2 $3 $t $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/log" >&2
}
tools="gdal_grid aidw"
[ -n "$base" ] && tools="gdal_grid baseline aidw"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
  for alg in "average:radius1=50:radius2=50:max_points=12" "minimum:radius1=50:radius2=50" \
             "maximum:radius1=50:radius2=50" "range:radius1=50:radius2=50" "count:radius1=50:radius2=50" \
             "average_distance:radius1=50:radius2=50"; do
    order=$tools
    [ $((i % 2)) = 0 ] && order=$(echo "$tools" | tr ' ' '\n' | tac | xargs)
    for tool in $order; do run "$i" "${alg%%:*}" "$tool" "$alg"; done
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
# Medians per case and tool, and gdal_grid's time over each aidw's.
awk -v base="$base" '
  { t[$2 " " $3] = t[$2 " " $3] " " $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
  function median(s,   a, k, i, j, x) {
    k = split(s, a, " ")
    for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
    return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
  }
  END {
    if (base != "") {
      print "| case | gdal_grid s | aidw before s | aidw after s | before vs gdal_grid | after vs gdal_grid | after vs before |"
      print "|---|---|---|---|---|---|---|"
    } else {
      print "| case | gdal_grid s | aidw s | speed-up |"
      print "|---|---|---|---|"
    }
    for (i = 1; i <= n; i++) {
      c = order[i]; g = median(t[c " gdal_grid"]); a = median(t[c " aidw"])
      if (base != "") {
        b = median(t[c " baseline"])
        printf "| %s | %.2f | %.2f | %.2f | %.1fx | %.1fx | %.1fx |\n", c, g, b, a, g/b, g/a, b/a
      } else printf "| %s | %.2f | %.2f | %.1fx |\n", c, g, a, g/a
    }
  }' "$work/log"
