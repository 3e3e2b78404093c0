#!/usr/bin/env bash
# aidw grid on LAZ against the same points as LAS: autzen_trim.laz (point format 3, 110,000
# points) and its LAS twin written by laz-perf (scripts/lazperf), gridded by the same command,
# interleaved runs, median of RUNS (default 9) wall times each. Prints a Markdown table row.
#
# scripts/bench-laz.sh scaling [N]: LAZ decoding efficiency on N cores (default: all), that is
# rate(N) / (N x rate(1)) from BenchmarkReadLAZ (lidar's read path over a large virtual LAZ
# file: a fixture's chunks repeated), median of RUNS (default 5) interleaved runs on 1 CPU
# (taskset) and on N cores. Run it on an idle host: issue 24 asks for at least 0.85 on 16 cores. LIDAR_TEST=<binary
# of `go test -c ./lidar`> runs a prebuilt one (a GPU host has no Go).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = scaling ]; then
	n=${2:-$(nproc)}
	cd "$root"
	test=${LIDAR_TEST:-${TMPDIR:-/tmp}/lidar.test}
	[ -n "${LIDAR_TEST:-}" ] || go test -c -o "$test" ./lidar
	test=$(realpath "$test")
	# One core is one CPU (taskset): GOMAXPROCS=1 alone was seen to let a GPU host's run use
	# 15 cores (203 CPU-ns a point at 72 Mpoints/s).
	for i in $(seq "${RUNS:-5}"); do
		(cd lidar && taskset -c 0 "$test" -test.run '^$' -test.bench ReadLAZ -test.cpu 1 -test.benchtime 3x)
		(cd lidar && "$test" -test.run '^$' -test.bench ReadLAZ -test.cpu "$n" -test.benchtime 3x)
	done | awk -v n="$n" '
		/^BenchmarkReadLAZ/ {
			name = $1; cores = 1
			if (match(name, /-[0-9]+$/)) { cores = substr(name, RSTART + 1); name = substr(name, 1, RSTART - 1) }
			for (i = 1; i < NF; i++) if ($(i + 1) == "Mpoints/s") rate[name, cores, ++runs[name, cores]] = $i
			names[name] = 1
		}
		function median(name, cores,   k, m, i, j, t, v) {
			m = runs[name, cores]
			for (i = 1; i <= m; i++) v[i] = rate[name, cores, i]
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return v[int((m + 1) / 2)]
		}
		END {
			print "| case | 1 core | " n " cores | efficiency | load |"
			print "|---|---|---|---|---|"
			getline load < "/proc/loadavg"; split(load, l, " ")
			for (name in names) {
				one = median(name, 1); many = median(name, n)
				printf "| %s | %.2f Mpoints/s | %.2f Mpoints/s | %.2f | %s |\n", name, one, many, many / (n * one), l[1]
			}
		}'
	exit 0
fi
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
