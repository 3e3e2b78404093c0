#!/usr/bin/env bash
# Regenerates kernels/aidw.ptx, kernels/aidw.fatbin and kernels/ptx.sum from the CUDA sources
# with the nvcc on PATH (or $NVCC); any CUDA toolkit from 12.8 on will do (sm_100). The PTX
# targets compute_75, so the driver compiles it at load for any GPU from Turing (sm_75) on. The
# fatbin holds machine code for sm_80, sm_90 and sm_100, which the driver loads without
# compiling (no first-start JIT) on GPUs of those major versions; the engine falls back to the
# PTX on the others. A driver loads code only from an nvcc no newer than itself (CUDA 13.0's
# needs driver 580 or later): for an older driver, regenerate with the matching older nvcc and
# rebuild.
# Usage: scripts/gen-ptx.sh [output-dir]   (default: kernels/)
set -euo pipefail
cd "$(dirname "$0")/../kernels"
mkdir -p "${1:-.}"
out=$(cd "${1:-.}" && pwd)
nvcc=${NVCC:-nvcc}
"$nvcc" -ptx -arch=compute_75 -O3 -o "$out/aidw.ptx" aidw.cu &
ptx=$!
"$nvcc" -fatbin -O3 --threads 3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_100,code=sm_100 -o "$out/aidw.fatbin" aidw.cu
wait $ptx
{
	echo "# SHA-256 of the sources of aidw.ptx and aidw.fatbin, and of both (scripts/gen-ptx.sh)"
	sha256sum aidw.cu ./*.cuh | sed 's#  \./#  #'
	(cd "$out" && sha256sum aidw.ptx aidw.fatbin)
} >"$out/ptx.sum"
echo "wrote $out/aidw.ptx, $out/aidw.fatbin and $out/ptx.sum"
