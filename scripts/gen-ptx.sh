#!/usr/bin/env bash
# Regenerates kernels/aidw.ptx and kernels/ptx.sum from the CUDA sources with the nvcc on PATH
# (or $NVCC); any CUDA toolkit from 11.0 on will do. The PTX targets compute_75, so the driver
# compiles it at load for any GPU from Turing (sm_75) on, Hopper included. A driver loads PTX
# only from an nvcc no newer than itself (CUDA 13.0's needs driver 580 or later): for an older
# driver, regenerate with the matching older nvcc and rebuild.
# Usage: scripts/gen-ptx.sh [output-dir]   (default: kernels/)
set -euo pipefail
cd "$(dirname "$0")/../kernels"
mkdir -p "${1:-.}"
out=$(cd "${1:-.}" && pwd)
"${NVCC:-nvcc}" -ptx -arch=compute_75 -O3 -o "$out/aidw.ptx" aidw.cu
{
	echo "# SHA-256 of the sources of aidw.ptx, and of the PTX itself (scripts/gen-ptx.sh)"
	sha256sum aidw.cu ./*.cuh | sed 's#  \./#  #'
	(cd "$out" && sha256sum aidw.ptx)
} >"$out/ptx.sum"
echo "wrote $out/aidw.ptx and $out/ptx.sum"
