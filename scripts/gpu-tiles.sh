#!/usr/bin/env bash
# On the device: tiled runs on the GPU equal the in-memory GPU run bit for bit. The cuda build
# of aidw with its libraries (.carry/e2e.tar.xz, scripts/gpu-bundle.sh) grids synthetic LAS
# (.carry/genlas, scripts/genlas) with -device gpu in memory, in tiles smaller than the
# neighbourhoods' reach (-tile), and compares the rasters'
# bytes (ENVI, so that nothing but the values is compared); then times 100 million points in
# memory and under -memory 2GB. Writes its log to $OUT/gpu-tiles.log when OUT is set.
set -uo pipefail
cd "$(dirname "$0")/.."
e=/tmp/aidw-e2e w=/tmp/aidw-tiles
mkdir -p "$e" "$w/in"
tar -xJf .carry/e2e.tar.xz -C "$e" || exit 1
export PROJ_DATA=$e/proj GDAL_DATA=$e/gdal
aidw=$e/aidw genlas=.carry/genlas
log=${OUT:-/tmp}/gpu-tiles.log
exec > >(tee "$log") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
fails=0
# four input tiles of a 600 m square, 2.5 points/m²
for i in 0 1; do for j in 0 1; do
	$genlas -n 225000 -size 300 -x0 $((450000 + i * 300)) -y0 $((5400000 + j * 300)) -seed $((i * 2 + j + 3)) -o "$w/in/t$i$j.las" >/dev/null
done; done
same() { # NAME A B
	if cmp -s "$2" "$3"; then echo "same  $1"; else echo "DIFF  $1"; fails=$((fails + 1)); fi
}
for alg in aidw:max_points=12 aidw:k=8:max_points=20 aidw:radius=3 "invdist:power=2:radius1=4:radius2=4" \
	"invdistnn:power=2:radius=4:max_points=12" nearest; do
	g=(grid -q -device gpu -a "$alg" -tr 0.5 0.5 -of ENVI)
	"$aidw" "${g[@]}" "$w/in" "$w/mem.bin" || { echo "FAIL $alg in memory"; fails=$((fails + 1)); continue; }
	"$aidw" "${g[@]}" -device cpu "$w/in" "$w/cpu.bin" || { echo "FAIL $alg on the CPU"; fails=$((fails + 1)); continue; }
	"$aidw" "${g[@]}" -tile 53 "$w/in" "$w/tiled.bin" 2>"$w/tiled.err" || { echo "FAIL $alg tiled"; fails=$((fails + 1)); continue; }
	cat "$w/tiled.err"
	if grep -q "running the tiles on the CPU engine" "$w/tiled.err"; then
		# the tiles ran on the CPU, as aidw said: their raster is the CPU's in-memory one
		same "$alg -tile 53 (on the CPU) against the CPU in memory" "$w/cpu.bin" "$w/tiled.bin"
	else
		same "$alg -tile 53" "$w/mem.bin" "$w/tiled.bin"
	fi
	cmp -s "$w/mem.bin" "$w/cpu.bin" && echo "      (the GPU's raster is the CPU's too)" || echo "      (the GPU's raster differs from the CPU's, as it may)"
done
if [ "${BIG:-1}" = 1 ]; then # BIG=0 skips the 100 million points
	$genlas -n 100000000 -size 6325 -o "$w/p1e8.las" >/dev/null
	for run in memory tiled memory tiled; do
		extra=()
		[ $run = tiled ] && extra=(-memory 2GB)
		t0=$(date +%s.%N)
		/usr/bin/time -f "%M" -o "$w/rss" "$aidw" grid -device gpu -a aidw:max_points=12 -tr 1 1 -ot Float32 -of ENVI "${extra[@]}" "$w/p1e8.las" "$w/big-$run.bin" >"$w/big.log" 2>&1 ||
			{ echo "FAIL 1e8 $run: $(tail -3 "$w/big.log")"; fails=$((fails + 1)); continue; }
		printf '1e8 points, %-6s %7.2f s, peak RSS %s MiB %s\n' "$run" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" \
			"$(($(cat "$w/rss") / 1024))" "$(grep -ao 'Tiled run: [^.]*' "$w/big.log")"
	done
	same "1e8 points, -memory 2GB" "$w/big-memory.bin" "$w/big-tiled.bin"
fi
echo "failures: $fails"
exit $((fails > 0))
