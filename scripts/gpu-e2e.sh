#!/usr/bin/env bash
# End-to-end check on the device: the cuda build of aidw, with its GDAL libraries
# (.carry/e2e.tar.xz, made by scripts/gpu-bundle.sh), grids real inputs with -device cpu and
# -device gpu; scripts/gpu-compare.py checks that the GeoTIFFs agree (1e-5 relative for the
# float32 global weighting, 1e-12 otherwise) and the invdist one against GDAL's own raster.
# The global AIDW cases set farfield=no: the GPU sums every sample, and so then does the CPU.
# gdal_grid's forms (nearest, invdistnn, invdist over an ellipse, the moving-window statistics,
# average_distance_pts) must equal the CPU's raster byte for byte, in memory, in tiles and, where
# two GPUs are visible, on two (-gpus 2), on uniform, clustered, duplicated and collinear
# samples and on LAS (see exact below). The last line counts the comparisons and the failures.
# Usage: scripts/gpu-e2e.sh [GROUP...]   (default every group: global uniform clustered
# duplicated collinear las; on a 2-GPU H200 host the whole takes longer than one 10-minute
# device call: 128 comparisons took 480 s there, so split it; groups may run side by side as
# separate processes once one call has unpacked the binary and written the samples, e.g.
# `scripts/gpu-e2e.sh none` then `for g in clustered duplicated; do scripts/gpu-e2e.sh $g & done`)
# FORMS=<regex> keeps only the -a strings of gdal_grid's forms that match it.
# Needs AIDW_PTX (a PTX file the driver accepts) when the binary's embedded PTX is stale.
set -uo pipefail
cd "$(dirname "$0")/.."
e=/tmp/aidw-e2e
mkdir -p "$e/out"
[ -x "$e/aidw" ] || tar -xJf .carry/e2e.tar.xz -C "$e" || exit 1
export PROJ_DATA=$e/proj GDAL_DATA=$e/gdal
aidw=$e/aidw
fails=0 checks=0
groups=" ${*:-global uniform clustered duplicated collinear las} "
want() { [[ $groups == *" $1 "* ]]; }
gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
# grid NAME TOL ARGS... : grids with both engines (and float64 GPU weighting) and compares.
grid() {
	local name=$1 tol=$2
	shift 2
	for dev in cpu gpu gpu64; do
		local t0=$(date +%s.%N) flag=$dev
		[ $dev = gpu64 ] && flag=gpu
		if ! AIDW_GPU_FLOAT64=$([ $dev = gpu64 ] && echo 1 || echo 0) "$aidw" grid -q -device $flag "$@" "$e/out/$name-$dev.tif" 2>"$e/out/$name-$dev.err"; then
			echo "FAIL $name: aidw -device $dev: $(tail -2 "$e/out/$name-$dev.err")"
			fails=$((fails + 1))
			return
		fi
		printf '     %-34s -device %-5s %6.2f s %s\n' "$name" "$dev" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$(head -c 200 "$e/out/$name-$dev.err")"
	done
	checks=$((checks + 2))
	python3 scripts/gpu-compare.py "$name gpu" "$e/out/$name-cpu.tif" "$e/out/$name-gpu.tif" "$tol" || fails=$((fails + 1))
	python3 scripts/gpu-compare.py "$name gpu float64" "$e/out/$name-cpu.tif" "$e/out/$name-gpu64.tif" 1e-12 || fails=$((fails + 1))
}
if want global; then
n43="-zfield elevation -a_srs EPSG:4326 -txe -80.0041667 -78.9958333 -tye 42.9958333 44.0041667 -outsize 121 121 -ot Float64 testdata/n43_samples.csv"
grid n43-aidw 1e-5 -a aidw:farfield=no $n43
grid n43-aidw-maxpoints 1e-12 -a aidw:max_points=15 $n43
grid n43-aidw-radius 1e-12 -a aidw:radius=0.08:min_points=3:nodata=-9999 $n43
grid n43-invdist-p3 1e-5 -a invdist:power=3:smoothing=0.01 $n43
# LAS: compact samples (int32 quanta) on the host, the README's DEM and the global form
grid haystack-aidw-maxpoints 1e-12 -a aidw:max_points=12 -tr 1 1 -ot Float64 testdata/Haystack_Rock.las
grid haystack-aidw 1e-5 -a aidw:farfield=no -tr 2 2 -ot Float64 testdata/Haystack_Rock.las
gdalA="-l grid -txe 440720 441920 -tye 3751320 3750120 -outsize 20 20 -ot Float64 testdata/gdal/grid.vrt"
grid gdal-invdist 1e-5 -a invdist:power=2:smoothing=0:radius1=0:radius2=0:angle=0:max_points=0:min_points=0:nodata=0 $gdalA
checks=$((checks + 1))
python3 scripts/gpu-compare.py "gdal-invdist gpu vs gdal_grid" "$e/out/gdal-invdist-gpu.tif" testdata/gdal/ref_data/grid_invdist.tif 1 abs || fails=$((fails + 1))
[ -f "$e/utm.csv" ] || python3 - <<'PY'
import random
random.seed(7)
with open("/tmp/aidw-e2e/utm.csv", "w") as f:
    f.write("x,y,z\n")
    for i in range(100000):
        if i % 2:
            x, y = 452000 + 20000 * random.random(), 5401000 + 20000 * random.random()
        else:
            x, y = random.gauss(460000, 700), random.gauss(5410000, 900)
        f.write(f"{x:.3f},{y:.3f},{100 + (x % 1000) / 20 + (y % 777) / 30 + random.random():.4f}\n")
PY
grid utm100k-aidw 1e-5 -a aidw:farfield=no -outsize 300 300 -txe 452000 472000 -tye 5401000 5421000 /tmp/aidw-e2e/utm.csv
grid utm100k-aidw-maxpoints 1e-12 -a aidw:max_points=15 -outsize 1000 1000 -txe 452000 472000 -tye 5401000 5421000 /tmp/aidw-e2e/utm.csv
fi
# exact NAME ARGS... : gdal_grid's forms, which the GPU sums in the CPU engine's order: -device gpu
# in memory, in tiles (-tile 23, smaller than the neighbourhoods) and on 2 GPUs where there are
# two, against -device cpu, byte for byte (ENVI, values only), and failing if the GPU run fell
# back to the CPU engine.
exact() {
	local name=$1
	shift
	local o=$e/out/$name
	"$aidw" grid -q -device cpu -of ENVI "$@" "$o-cpu.bin" 2>"$o-cpu.err" || { echo "FAIL $name -device cpu: $(tail -1 "$o-cpu.err")"; fails=$((fails + 1)); return; }
	local runs="gpu tiled"
	[ "$gpus" -ge 2 ] && runs="$runs gpus2 tiled-gpus2"
	for run in $runs; do
		local extra=()
		case $run in
		tiled) extra=(-tile 23) ;;
		gpus2) extra=(-gpus 2) ;;
		tiled-gpus2) extra=(-tile 23 -gpus 2) ;;
		esac
		checks=$((checks + 1))
		if ! "$aidw" grid -device gpu -of ENVI "${extra[@]}" "$@" "$o-$run.bin" >"$o-$run.err" 2>&1; then
			echo "FAIL $name -device gpu ($run): $(tail -1 "$o-$run.err")"
			fails=$((fails + 1))
		elif grep -q "CPU engine" "$o-$run.err"; then
			echo "FAIL $name ($run) ran on the CPU engine: $(grep -m1 "CPU engine" "$o-$run.err")"
			fails=$((fails + 1))
		elif cmp -s "$o-cpu.bin" "$o-$run.bin"; then
			echo "ok   $name -device gpu ($run) equals -device cpu, byte for byte"
		else
			echo "FAIL $name -device gpu ($run) differs from -device cpu"
			fails=$((fails + 1))
		fi
	done
}
[ -f "$e/collinear.csv" ] || python3 - <<'PY'
import random
random.seed(11)
def write(name, pts):
    with open(f"/tmp/aidw-e2e/{name}.csv", "w") as f:
        f.write("x,y,z\n")
        for x, y in pts:
            f.write(f"{x:.2f},{y:.2f},{100 + x / 20 + y / 30 + random.random():.4f}\n")
uniform = [(1000 * random.random(), 1000 * random.random()) for _ in range(20000)]
centres = [(1000 * random.random(), 1000 * random.random(), 2 + 30 * random.random()) for _ in range(12)]
clustered = [(1000 * random.random(), 1000 * random.random()) if i % 10 == 0 else
             (lambda c: (c[0] + c[2] * random.gauss(0, 1), c[1] + c[2] * random.gauss(0, 1)))(random.choice(centres))
             for i in range(15000)]
duplicated = [p for p in ((float(random.randrange(200)) * 5, float(random.randrange(200)) * 5) if i % 3 == 0 else
                          (1000 * random.random(), 1000 * random.random()) for i in range(5000))
              for _ in range(1 + random.randrange(4))]
collinear = [p for i in range(1000) for p in ((float(i), 500.0), (500.0, float(i)), (float(i), float(i)))]
collinear += [(float(i * 25 + 2), float(j * 25 + 2)) for i in range(40) for j in range(40)]
for name, pts in (("uniform", uniform), ("clustered", clustered), ("duplicated", duplicated), ("collinear", collinear)):
    write(name, pts)
PY
for set in uniform clustered duplicated collinear; do
	want $set || continue
	for alg in nearest nearest:radius1=15:radius2=15 invdistnn:radius=30:max_points=12 \
		invdistnn:power=3:smoothing=0.5:radius=25:max_points=20:min_points=3 \
		invdistnn:radius=30:max_points=12:min_points_per_quadrant=1:max_points_per_quadrant=4 average:radius1=20:radius2=15 \
		minimum:radius1=20:radius2=20 maximum:radius1=20:radius2=12 range:radius1=20:radius2=20 \
		count:radius1=15:radius2=15 average_distance:radius1=20:radius2=20 average_distance_pts:radius1=20:radius2=20 \
		average_distance_pts:radius1=12:radius2=25:min_points=40:nodata=-2 invdist:radius1=30:radius2=20 \
		invdist:power=3:smoothing=1:radius1=25:radius2=25:min_points=2; do
		[[ $alg =~ ${FORMS:-.} ]] || continue
		exact "$set-${alg//:/_}" -a "$alg" -txe 0 1000 -tye 0 1000 -outsize 200 200 -ot Float64 "/tmp/aidw-e2e/$set.csv"
	done
done
want las && for alg in nearest:radius1=1:radius2=1 invdistnn:radius=2:max_points=12 maximum:radius1=1:radius2=1 \
	count:radius1=1:radius2=1 average:radius1=1.5:radius2=1.5 average_distance_pts:radius1=1:radius2=1 \
	invdist:radius1=2:radius2=2; do
	exact "haystack-${alg//:/_}" -a "$alg" -tr 0.5 0.5 -ot Float64 testdata/Haystack_Rock.las
done
echo "e2e: $checks comparisons, $fails failed ($gpus GPU(s) visible)"
