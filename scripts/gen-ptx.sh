#!/usr/bin/env bash
# Regenerates the two device modules from their CUDA sources with the nvcc on PATH (or $NVCC);
# any CUDA toolkit from 12.8 on will do (sm_100): the engine's, kernels/aidw.ptx and
# kernels/aidw.fatbin from kernels/aidw.cu (what `aidw grid` runs), and the papers' kernels of
# `aidw bench`, paperbench/gpu/paper.ptx from paperbench/gpu/paper.cu; beside each, ptx.sum
# records the SHA-256 of the sources (the .cu and what it includes) and of what was generated,
# which a test of each package checks. The PTX targets compute_75, so the driver compiles it at
# load for any GPU from Turing (sm_75) on. The engine's fatbin holds machine code for sm_80,
# sm_90 and sm_100, which the driver loads without compiling (no first-start JIT) on GPUs of
# those major versions; the engine falls back to the PTX on the others. The papers' module is
# PTX only: `aidw bench` pays its compilation once a host (the driver caches it). A driver loads
# code only from an nvcc no newer than itself (CUDA 13.0's needs driver 580 or later): for an
# older driver, regenerate with the matching older nvcc and rebuild.
# Usage: scripts/gen-ptx.sh [output-dir]   (default: in place; else the engine's files in
# output-dir, the papers' in output-dir/paper)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
nvcc=${NVCC:-nvcc}
# sources FILE: FILE and every file it includes with #include "...", transitively.
sources() {
	echo "$1"
	{ grep -oE '^#include "[^"]+"' "$1" || true; } | sed -E 's/^#include "(.*)"$/\1/' |
		while read -r inc; do sources "$(dirname "$1")/$inc"; done
}
# module DIR NAME OUT [fatbin]: DIR/NAME.cu into OUT/NAME.ptx, with fatbin OUT/NAME.fatbin too,
# and OUT/ptx.sum.
module() {
	local dir=$1 name=$2 out=$3 fatbin=${4:-}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	local made=("$name.ptx")
	[ -n "$fatbin" ] && made+=("$name.fatbin")
	(
		cd "$dir"
		"$nvcc" -ptx -arch=compute_75 -O3 -o "$out/$name.ptx" "$name.cu" &
		if [ -n "$fatbin" ]; then
			"$nvcc" -fatbin -O3 --threads 3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
				-gencode arch=compute_100,code=sm_100 -o "$out/$name.fatbin" "$name.cu"
		fi
		wait $!
		{
			if [ -n "$fatbin" ]; then
				echo "# SHA-256 of the sources of $name.ptx and $name.fatbin, and of both (scripts/gen-ptx.sh)"
			else
				echo "# SHA-256 of the sources of $name.ptx, and of it (scripts/gen-ptx.sh)"
			fi
			sources "$name.cu" | xargs realpath -m --relative-to=. | sort -u | xargs sha256sum
			(cd "$out" && sha256sum "${made[@]}")
		} >"$out/ptx.sum.tmp"
		mv "$out/ptx.sum.tmp" "$out/ptx.sum"
	)
	echo "wrote ${made[*]/#/$out/} and $out/ptx.sum"
}
engine=$root/kernels paper=$root/paperbench/gpu
if [ -n "${1:-}" ]; then engine=$1 paper=$1/paper; fi
module kernels aidw "$engine" fatbin &
pid=$!
module paperbench/gpu paper "$paper"
wait $pid
