#!/usr/bin/env bash
# Builds, on a machine without a GPU, what a device run needs: the cuda-tagged test binaries of
# packages kernels and kernels/cuda in .carry/ (git-ignored; name it in the run's carry). CUDA's cuda.h and the
# libcuda stub are looked for in .cuda/ (fetched once from a device: see README), else in
# $CUDA_HOME (default /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=${CUDA_HOME:-/usr/local/cuda}
inc=$cuda/include lib=$cuda/lib64/stubs
if [ -f .cuda/include/cuda.h ]; then inc=$PWD/.cuda/include lib=$PWD/.cuda/lib; fi
export CGO_CFLAGS="-O2 -g -I$inc" CGO_LDFLAGS="-L$lib"
mkdir -p .carry
go vet -tags cuda ./kernels ./kernels/cuda
go test -c -tags cuda -o .carry/kernels.test ./kernels
go test -c -tags cuda -o .carry/cuda.test ./kernels/cuda
echo "built .carry/kernels.test .carry/cuda.test"
