#!/usr/bin/env bash
# The LiDAR bar's command on a GPU machine: 10 million synthetic LAS points (scripts/genlas) to a
# 1 m DEM with local AIDW (max_points = 12), end to end, with -device gpu and -device cpu, and the
# two DEMs compared. Two steps:
#   here (no GPU):   scripts/gpu-lidar.sh pack    -> .carry/e2e.tar.xz (scripts/gpu-bundle.sh), .carry/genlas
#   on the device:   scripts/gpu-lidar.sh run     (carry .carry); prints a Markdown table
# With BIG=1 the run goes on with 100 million points (a 6 km square) on both devices, with the
# peak resident size of each run.
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
pack)
	scripts/gpu-bundle.sh
	go build -o .carry/genlas ./scripts/genlas
	;;
run)
	b=$(mktemp -d)
	tar -C "$b" -xJf .carry/e2e.tar.xz
	export PROJ_DATA=$b/proj GDAL_DATA=$b/gdal
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	.carry/genlas -n 10000000 -o "$b/pts.las" >/dev/null
	n=0
	echo "| device | run | wall s |"
	echo "|---|---|---|"
	for dev in gpu gpu gpu cpu; do
		t0=$(date +%s.%N)
		"$b/aidw" grid -q -device "$dev" -a aidw:max_points=12 -tr 1 1 -ot Float32 "$b/pts.las" "$b/dem_$dev.tif"
		t1=$(date +%s.%N)
		echo "| $dev | $((++n)) | $(python3 -c "print(f'{$t1-$t0:.2f}')") |"
	done
	python3 - "$b/dem_gpu.tif" "$b/dem_cpu.tif" <<'PY'
import sys, numpy as np, tifffile
g, c = (tifffile.imread(p).astype(np.float64) for p in sys.argv[1:3])
rel = np.abs(g - c) / np.maximum(np.abs(c), 1e-300)
print(f"DEM {c.shape[1]}x{c.shape[0]}: GPU vs CPU max relative difference {rel.max():.3g}")
PY
	if [[ ${BIG:-0} == 1 ]]; then
		.carry/genlas -n 100000000 -size 6000 -o "$b/big.las" >/dev/null
		for dev in gpu gpu cpu; do
			/usr/bin/time -f "100M points, -device $dev: %e s, peak %M KB" \
				"$b/aidw" grid -q -device "$dev" -a aidw:max_points=12 -tr 1 1 -ot Float32 "$b/big.las" "$b/big_$dev.tif"
		done
		python3 - "$b/big_gpu.tif" "$b/big_cpu.tif" <<'PY'
import sys, numpy as np, tifffile
g, c = (tifffile.imread(p).astype(np.float64) for p in sys.argv[1:3])
print(f"DEM {c.shape[1]}x{c.shape[0]}: GPU vs CPU max relative difference {(np.abs(g - c) / np.maximum(np.abs(c), 1e-300)).max():.3g}")
PY
	fi
	;;
*)
	echo "usage: $0 pack|run" >&2
	exit 2
	;;
esac
