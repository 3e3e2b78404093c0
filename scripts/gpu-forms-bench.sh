#!/usr/bin/env bash
# On a GPU host: issue 25's table. 1e8 genlas points (a 6 km square) onto 6000 x 6000 nodes,
# `aidw grid -device gpu|cpu -a ALG -tr 1 1 -ot Float32 -of ENVI`, for aidw, invdistnn, nearest and
# maximum: wall time and peak RSS (/usr/bin/time), the rasters compared byte for byte, and a
# read-and-index baseline per device (count onto 100 x 100) whose time, taken from the wall
# time, estimates the gridding phase. The GPU runs set AIDW_GPU_TIMES=1: their last column is
# the engine's own phases (indexing on the device, computing the nodes, and within that gdal's
# quadtree order on the host). average_distance_pts (radius 2) closes the table.
# Usage: scripts/gpu-forms-bench.sh AIDW GENLAS
set -uo pipefail
aidw=$1 genlas=$2
w=/tmp/aidw-forms
mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
t0=$(date +%s.%N)
[ -f "$w/p.las" ] || "$genlas" -n 100000000 -size 6000 -o "$w/p.las" >/dev/null
printf 'genlas: %.1f s\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
run() { # NAME DEVICE ARGS...
	local name=$1 dev=$2
	shift 2
	t0=$(date +%s.%N)
	if ! AIDW_GPU_TIMES=1 /usr/bin/time -f "%M %U %S" -o "$w/rss" "$aidw" grid -q -device "$dev" "$@" >"$w/log" 2>&1; then
		echo "FAIL $name $dev: $(tail -2 "$w/log")"
		return
	fi
	read -r rss user sys <"$w/rss"
	printf '| %-36s | %-3s | %7.2f | %7.1f | %6d |%s\n' "$name" "$dev" \
		"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')" \
		"$((rss / 1024))" "$(grep -m1 -o "CPU engine[^.]*" "$w/log" | sed 's/^/ /')$(grep -m1 -o ': index .*' "$w/log" | sed 's/^:/ /')"
}
echo "| algorithm | device | wall s | CPU s | peak RSS MiB |"
echo "|---|---|---|---|---|"
for dev in gpu cpu; do
	run "count:radius1=1:radius2=1 onto 100x100" $dev -a count:radius1=1:radius2=1 -outsize 100 100 -of ENVI "$w/p.las" "$w/base.bin"
done
for alg in aidw:max_points=12 invdistnn:radius=3:max_points=12 nearest:radius1=3:radius2=3 maximum:radius1=2:radius2=2 \
	average_distance_pts:radius1=2:radius2=2; do
	for dev in gpu cpu; do
		run "$alg" $dev -a "$alg" -tr 1 1 -ot Float32 -of ENVI "$w/p.las" "$w/$dev.bin"
	done
	if cmp -s "$w/gpu.bin" "$w/cpu.bin"; then echo "same  $alg: GPU and CPU rasters byte for byte"; else echo "DIFF  $alg: the GPU and CPU rasters differ"; fi
done
