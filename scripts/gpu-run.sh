#!/usr/bin/env bash
# One full device run (see kernels/NOTES.md): regenerates the PTX with the device's nvcc,
# records kernel resources and the instruction mix of the weighting kernels, runs the cuda
# tests and benchmarks built beforehand into .carry/ (scripts/gpu-build.sh) against the fresh
# PTX, and the CUB yardstick. Everything lands in $OUT (default /tmp/aidw-out).
# With .carry/e2e.tar.xz present (scripts/gpu-bundle.sh) it ends with the end-to-end check.
# Usage: scripts/gpu-run.sh [test-regexp] [bench-regexp]   ("-" skips that part)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/aidw-out}
mkdir -p "$OUT"
tests=${1:-.}
benches=${2:-.}
{
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
	nvcc --version | tail -2
} | tee "$OUT/device.txt"
scripts/gen-ptx.sh "$OUT" 2>&1 | tee "$OUT/build.log" || exit 1
{
	echo "== ptxas, sm_90"
	nvcc -cubin -arch=sm_90 -O3 -Xptxas -v -o /tmp/aidw.cubin kernels/aidw.cu 2>&1 | grep -E "Compiling|registers|stack|spill"
	echo "== instruction mix of the weighting and kNN kernels (whole kernel)"
	for f in weigh_all_f32_4_0 weigh_all_f32_6_2 weigh_naive_f32 local_16 radix_downsweep; do
		echo "-- $f"
		cuobjdump -sass -fun "$f" /tmp/aidw.cubin | grep -E '^ +/\*[0-9a-f]+\*/' |
			sed -E 's#^ +/\*[0-9a-f]+\*/ +(@[^ ]+ +)?([A-Z0-9_]+).*#\2#' | sort | uniq -c | sort -rn | head -14 | tr '\n' ' '
		echo
	done
} >>"$OUT/build.log" 2>&1
export AIDW_PTX=$OUT/aidw.ptx
cd kernels
if [ "$tests" != "-" ]; then
	[ -x ../.carry/cuda.test ] && ../.carry/cuda.test -test.v -test.timeout 2m 2>&1 | tee "$OUT/test-driver.log"
	../.carry/kernels.test -test.v -test.run "$tests" -test.skip TestPTXMatchesSources -test.timeout 4m 2>&1 | tee "$OUT/test.log"
fi
if [ "$benches" != "-" ]; then
	../.carry/kernels.test -test.run '^$' -test.bench "$benches" -test.benchtime 1x -test.timeout 4m 2>&1 | tee "$OUT/bench.log"
	nvcc -O3 -arch=sm_90 -o /tmp/cub_bench ../scripts/cub_bench.cu && /tmp/cub_bench 2>&1 | tee -a "$OUT/bench.log"
fi
cd ..
if [ -f .carry/e2e.tar.xz ]; then
	scripts/gpu-e2e.sh 2>&1 | tee "$OUT/e2e.log"
fi
