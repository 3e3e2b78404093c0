#!/usr/bin/env bash
# Issue 25's CPU bars: aidw grid (CPU engine) against gdal_grid on one thread, CPU time
# (user+sys of /usr/bin/time), for nearest, linear and average_distance_pts on
# bench-vs-gdal.sh's 1,000,000 uniform samples over a 10 km square onto 1000x1000 nodes
# (radius 50), and all-samples invdist on its 20,000 samples, also with every thread in wall
# time. aidw runs with its AVX-512 loops and without them (GODEBUG=cpu.avx512f=off, as on a
# CPU without AVX-512). The tools run interleaved, round after round (the order reversed every
# other round), so that a shared machine's load falls on all alike; the tables have medians and
# every round. aidw's rasters with and without AVX-512 are compared byte for byte (ENVI
# Float64), and with those of a baseline aidw binary when one is given.
# Usage: scripts/bench-cpu-single.sh [rounds (default 3)] [baseline aidw binary] > report.md
#   QUICK=1: 100,000 samples onto 300x300 nodes (and 5,000 for invdist), to try the script.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} base=${2:-}
scripts/deps.sh >&2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
commit="$(git rev-parse --short HEAD)$(git diff --quiet -- . ':!bench/results' || echo ' (uncommitted changes)')"
go build -o "$work/aidw" ./cmd/aidw
n=1000000 size=1000 n_all=20000
[ -n "${QUICK:-}" ] && n=100000 size=300 n_all=5000
go run ./scripts/gensamples -n $n -o "$work/big.csv"
go run ./scripts/gensamples -n $n_all -seed 2 -o "$work/small.csv"
ext="-txe 450000 460000 -tye 5400000 5410000 -outsize $size $size"
out="-of ENVI -ot Float64"

cpu() { # runs a command; prints user+sys and wall seconds
  /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '{printf "%.2f %.2f", $1+$2, $3}' "$work/time"
}
run() { # round, case, tool, -a string, input, threads (1 or all): one line of the log
  local r=$1 c=$2 tool=$3 alg=$4 in=$5 th=$6 t
  local gth=1 ath=(-threads 1)
  [ "$th" = all ] && gth=ALL_CPUS ath=()
  case $tool in
    gdal_grid) t=$(cpu gdal_grid --config GDAL_NUM_THREADS $gth -q $ext $out -a "$alg" "$work/$in.vrt" "$work/g.bin") ;;
    aidw) t=$(cpu "$work/aidw" grid -q "${ath[@]}" $ext $out -a "$alg" "$work/$in.csv" "$work/a-$c-$th.bin") ;;
    aidw-avx2) t=$(GODEBUG=cpu.avx512f=off cpu "$work/aidw" grid -q "${ath[@]}" $ext $out -a "$alg" "$work/$in.csv" "$work/n-$c-$th.bin") ;;
    baseline) t=$(cpu "$base" grid -q "${ath[@]}" $ext $out -a "$alg" "$work/$in.csv" "$work/b-$c-$th.bin") ;;
  esac
  echo "$r $c $th $tool $t $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/log" >&2
}
tools="gdal_grid aidw aidw-avx2"
[ -n "$base" ] && tools="gdal_grid baseline aidw aidw-avx2"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$rounds"); do
  order=$tools
  [ $((i % 2)) = 0 ] && order=$(echo "$tools" | tr ' ' '\n' | tac | xargs)
  for c in "nearest:radius1=50:radius2=50 big 1" "linear big 1" "average_distance_pts:radius1=50:radius2=50 big 1" \
           "invdist:power=2 small 1" "invdist:power=2 small all"; do
    set -- $c
    for tool in $order; do run "$i" "${1%%:*}" "$tool" "$1" "$2" "$3"; done
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
# The last round's rasters: aidw's against the baseline's, and without AVX-512 against with it.
same="" avx=""
for f in "$work"/a-*.bin; do
  c=$(basename "$f" .bin); c=${c#a-}
  if [ -n "$base" ]; then
    cmp -s "$f" "$work/b-$c.bin" && same="$same $c: identical;" || same="$same $c: DIFFERENT;"
  fi
  cmp -s "$f" "$work/n-$c.bin" && avx="$avx $c: identical;" || avx="$avx $c: different;"
done

echo "# aidw grid (CPU engine) vs gdal_grid $(gdal_grid --version | cut -d, -f1 | cut -d' ' -f2), one thread, CPU time"
echo
echo "- date: $(date -u '+%F %H:%M UTC'), commit: $commit"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB, shared with other work; load average $load0 at the start, $load1 at the end"
echo "- command: \`scripts/bench-cpu-single.sh $rounds${base:+ <baseline>}\`: $rounds interleaved rounds, medians; CPU time is user+sys of the whole command (read, index, grid, write ENVI Float64), seconds"
echo "- one thread: \`gdal_grid --config GDAL_NUM_THREADS 1\`, \`aidw grid -threads 1\`; every thread: GDAL_NUM_THREADS=ALL_CPUS and aidw's default, wall time"
echo "- inputs: $n uniform samples over a 10 km square (UTM) onto ${size}x${size} nodes, \`$ext\`; all-samples invdist: $n_all samples"
[ -n "$base" ] && echo "- aidw's rasters against the baseline's (ENVI Float64, cmp):$same"
echo "- aidw's rasters without AVX-512 against those with it:$avx"
echo
awk -v base="$base" '
  function median(s,   a, k, i, j, x) {
    k = split(s, a, " ")
    for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
    return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
  }
  { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    cpu[key " " $4] = cpu[key " " $4] " " $5; wall[key " " $4] = wall[key " " $4] " " $6
    line[key] = line[key] sprintf("%s %s: %s s cpu, %s s wall (load %s); ", $1, $4, $5, $6, $7) }
  END {
    printf "| case | threads | measure | gdal_grid s |%s aidw s | aidw, no AVX-512 s | gdal_grid / aidw | gdal_grid / aidw, no AVX-512 |\n", base != "" ? " baseline aidw s |" : ""
    printf "|---|---|---|---|%s---|---|---|---|\n", base != "" ? "---|" : ""
    for (i = 1; i <= n; i++) {
      k = order[i]; split(k, p, " ")
      m = p[2] == "all" ? "wall" : "cpu"
      g = median(m == "wall" ? wall[k " gdal_grid"] : cpu[k " gdal_grid"])
      a = median(m == "wall" ? wall[k " aidw"] : cpu[k " aidw"])
      v = median(m == "wall" ? wall[k " aidw-avx2"] : cpu[k " aidw-avx2"])
      b = base != "" ? sprintf(" %.2f |", median(m == "wall" ? wall[k " baseline"] : cpu[k " baseline"])) : ""
      printf "| %s | %s | %s | %.2f |%s %.2f | %.2f | %.1fx | %.1fx |\n", p[1], p[2], m == "wall" ? "wall" : "user+sys", g, b, a, v, g/a, g/v
    }
    print ""
    print "Every round (round, tool: CPU time, wall time, 1-minute load average at its end):"
    print ""
    for (i = 1; i <= n; i++) printf "- %s, %s thread(s): %s\n", order[i] == "" ? "" : substr(order[i], 1, index(order[i], " ") - 1), substr(order[i], index(order[i], " ") + 1), line[order[i]]
  }' "$work/log"
