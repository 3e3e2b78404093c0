#!/usr/bin/env bash
# aidw grid on LAZ against the same points as LAS: autzen_trim.laz (point format 3, 110,000
# points) and its LAS twin written by laz-perf (scripts/lazperf), gridded by the same command,
# interleaved runs, median of RUNS (default 9) wall times each. Prints a Markdown table row.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/aidw" ./cmd/aidw
scripts/lazperf/setup.sh >/dev/null
laz=testdata/laz/autzen_trim.laz
node scripts/lazperf/laz2las.js --las "$laz" "$work/autzen.las" >/dev/null
runs=${RUNS:-9}
cmd=(-q ${ARGS:--a aidw:max_points=12 -outsize 1000 1000 -ot Float32})
declare -a tlaz tlas
for i in $(seq "$runs"); do
	for kind in laz las; do
		src=$laz
		[ "$kind" = las ] && src=$work/autzen.las
		s=$(date +%s.%N)
		"$work/aidw" grid ${cmd[@]} "$src" "$work/$kind.tif"
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ "$kind" = laz ]; then tlaz+=("$t"); else tlas+=("$t"); fi
	done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
ml=$(median "${tlaz[@]}")
ms=$(median "${tlas[@]}")
echo "| aidw grid ${cmd[*]} | $(median "${tlas[@]}") s | $ml s | $(echo "scale=2; $ml / $ms" | bc) | load $(cut -d' ' -f1 /proc/loadavg) |"
