#!/usr/bin/env bash
# Packs, on this (non-GPU) machine, the cuda build of aidw for the device's end-to-end check
# (scripts/gpu-e2e.sh): the binary, linked to find its libraries in ./lib; the shared libraries
# it needs except glibc's and the driver's (the device image has neither GDAL nor PROJ); PROJ's
# database and GDAL's data files. Writes .carry/e2e.tar.xz (about 44 MB; carry .carry).
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=${CUDA_HOME:-/usr/local/cuda}
inc=$cuda/include lib=$cuda/lib64/stubs
if [ -f .cuda/include/cuda.h ]; then inc=$PWD/.cuda/include lib=$PWD/.cuda/lib; fi
b=$(mktemp -d)
trap 'rm -rf "$b"' EXIT
mkdir -p "$b/lib" "$b/proj" "$b/gdal" .carry
CGO_CFLAGS="-O2 -I$inc" \
	CGO_LDFLAGS="-L$lib -Wl,-rpath,\$ORIGIN/lib -Wl,--disable-new-dtags" \
	go build -tags cuda -ldflags="-s -w" -o "$b/aidw" ./cmd/aidw
ldd "$b/aidw" | awk '/=>/ {print $1, $3}' |
	grep -vE '^(libc|libm|libpthread|libdl|librt|libresolv|libcuda)\.so|^ld-linux' |
	while read -r name path; do cp -L "$path" "$b/lib/$name"; done
cp /usr/share/proj/proj.db "$b/proj/"
# gdal_translate, for the scripts that compare rasters on the device (LD_LIBRARY_PATH=lib)
cp /usr/bin/gdal_translate "$b/"
cp -r /usr/share/gdal/. "$b/gdal/"
tar -C "$b" -cf - aidw gdal_translate lib proj gdal | xz -6 -T0 >.carry/e2e.tar.xz
ls -l .carry/e2e.tar.xz
