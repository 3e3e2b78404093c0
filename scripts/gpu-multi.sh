#!/usr/bin/env bash
# Several GPUs of one host (issues 15 and 16): the same command on 1, 2, 4, ... GPUs, timed, and
# the rasters compared by checksum. Two steps:
#   here (no GPU):   scripts/gpu-multi.sh pack    -> .carry/e2e.tar.xz, .carry/gensamples, .carry/genlas
#   on the device:   scripts/gpu-multi.sh run     (carry .carry); prints Markdown tables
# Cases: global AIDW, 1,024,000 samples onto 1,024,000 nodes (1000 x 1024), onto 64 (the
# command's work besides the weighting) and onto 2048 x 2048; local AIDW
# (max_points=15), 1e8 LAS points onto 10,000 x 10,000 nodes (with LOCAL=1: it needs about
# 8 GB of disk and a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
pack)
	scripts/gpu-bundle.sh
	go build -o .carry/gensamples ./scripts/gensamples
	go build -o .carry/genlas ./scripts/genlas
	;;
run)
	b=$(mktemp -d)
	tar -C "$b" -xJf .carry/e2e.tar.xz
	export PROJ_DATA=$b/proj GDAL_DATA=$b/gdal
	nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
	gpus=$(nvidia-smi --list-gpus | wc -l)
	counts=1
	for n in 2 4 8; do [ "$n" -le "$gpus" ] && counts="$counts $n"; done
	# run LABEL N ARGS...: times the command on N GPUs (the first run pays the PTX JIT once)
	run() {
		local label=$1 n=$2
		shift 2
		"$b/aidw" grid -q -device gpu -gpus "$n" "$@" "$b/warm.tif" >/dev/null 2>&1 || true
		local t0 t1
		t0=$(date +%s.%N)
		"$b/aidw" grid -q -device gpu -gpus "$n" "$@" "$b/out_$n.tif"
		t1=$(date +%s.%N)
		local sum
		sum=$(md5sum "$b/out_$n.tif" | cut -c1-12)
		echo "| $label | $n | $(python3 -c "print(f'{$t1-$t0:.2f}')") | $sum |"
	}
	.carry/gensamples -n 1024000 -o "$b/global.csv" >/dev/null
	echo "| case | GPUs | wall s | raster md5 |"
	echo "|---|---|---|---|"
	for n in $counts; do
		run "global AIDW 1,024,000 x 1,024,000" "$n" -a aidw -outsize 1000 1024 -ot Float32 "$b/global.csv"
	done
	# the same command's work besides the weighting (reading, index, writing): 64 nodes
	run "global AIDW 1,024,000 x 64 (the rest)" 1 -a aidw -outsize 8 8 -ot Float32 "$b/global.csv"
	for n in $counts; do
		run "global AIDW 1,024,000 x 4,194,304" "$n" -a aidw -outsize 2048 2048 -ot Float32 "$b/global.csv"
	done
	if [[ ${LOCAL:-0} == 1 ]]; then
		.carry/genlas -n 100000000 -size 6000 -o "$b/big.las" >/dev/null
		for n in $counts; do
			run "local AIDW 1e8 -> 10000 x 10000" "$n" -a aidw:max_points=15 -outsize 10000 10000 -ot Float32 "$b/big.las"
		done
	fi
	;;
*)
	echo "usage: scripts/gpu-multi.sh pack|run" >&2
	exit 2
	;;
esac
