#!/usr/bin/env bash
# The GPU run of `aidw bench` (bench/results/gpu-paper-bench.md and .json) on a device whose
# image has the CUDA toolkit but neither GDAL nor Go.
#
#   scripts/gpu-bench.sh pack
#       here (no GPU needed): builds the cuda aidw, linked to find its libraries in ./lib, and
#       packs it with the shared libraries it needs (except glibc's and the driver's) into
#       .carry/paperbench.tar.xz (about 25 MB; carry that file).
#   scripts/gpu-bench.sh run [aidw bench flags...]
#       on the device: regenerates kernels/aidw.ptx and ptx.sum with the device's nvcc into $OUT
#       (the binary loads that PTX through AIDW_PTX, so a stale embedded PTX does not matter),
#       then runs `aidw bench -device gpu -o $OUT/gpu-paper-bench` with the flags given.
#   scripts/gpu-bench.sh start [flags...] / wait SECONDS
#       the same run in the background (setsid; logs in /tmp/aidw-bench), for runs longer than
#       one device command may last; `wait` waits up to SECONDS for it to end and copies its
#       results to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
bundle=.carry/paperbench.tar.xz
work=/tmp/aidw-bench

pack() {
	set -e
	local cuda=${CUDA_HOME:-/usr/local/cuda}
	local inc=$cuda/include lib=$cuda/lib64/stubs
	if [ -f .cuda/include/cuda.h ]; then inc=$PWD/.cuda/include lib=$PWD/.cuda/lib; fi
	b=$(mktemp -d)
	trap 'rm -rf "$b"' EXIT
	mkdir -p "$b/lib" .carry
	CGO_CFLAGS="-O2 -I$inc" \
		CGO_LDFLAGS="-L$lib -Wl,-rpath,\$ORIGIN/lib -Wl,--disable-new-dtags" \
		go build -tags cuda -ldflags="-s -w" -o "$b/aidw" ./cmd/aidw
	ldd "$b/aidw" | awk '/=>/ {print $1, $3}' |
		grep -vE '^(libc|libm|libpthread|libdl|librt|libresolv|libcuda)\.so|^ld-linux' |
		while read -r name path; do cp -L "$path" "$b/lib/$name"; done
	tar -C "$b" -cf - aidw lib | xz -6 -T0 >"$bundle"
	ls -l "$bundle"
}

# prepare unpacks the bundle and regenerates the PTX into $work.
prepare() {
	mkdir -p "$work"
	tar -xJf "$bundle" -C "$work" || return 1
	{
		nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
		nvcc --version | tail -2
	} >"$work/device.txt" 2>&1
	cat "$work/device.txt"
	scripts/gen-ptx.sh "$work" >"$work/gen-ptx.log" 2>&1 || {
		cat "$work/gen-ptx.log"
		return 1
	}
}

# bench runs aidw bench in the foreground, writing into $work.
bench() {
	AIDW_PTX=$work/aidw.ptx "$work/aidw" bench -device gpu -o "$work/gpu-paper-bench" "$@" 2>&1 | tee "$work/bench.log"
	echo "exit ${PIPESTATUS[0]}" >"$work/done"
}

# collect copies the results to $OUT. The device's copy of the checkout has no .git, so the
# report says commit "unknown": AIDW_COMMIT (given by the caller) replaces it.
collect() {
	local out=${OUT:-/tmp/aidw-out}
	mkdir -p "$out"
	if [ -n "${AIDW_COMMIT:-}" ] && [ -f "$work/done" ]; then
		sed -i "s/^| commit | unknown |/| commit | $AIDW_COMMIT |/" "$work/gpu-paper-bench.md"
		sed -i "s/\"commit\": \"unknown\"/\"commit\": \"$AIDW_COMMIT\"/" "$work/gpu-paper-bench.json"
	fi
	for f in device.txt gen-ptx.log aidw.ptx ptx.sum bench.log gpu-paper-bench.md gpu-paper-bench.json done; do
		[ -f "$work/$f" ] && cp "$work/$f" "$out/"
	done
	return 0
}

case ${1:-} in
pack) pack ;;
run)
	shift
	prepare || exit 1
	bench "$@"
	collect
	cat "$work/done"
	;;
start)
	shift
	rm -rf "$work"
	prepare || exit 1
	setsid nohup bash "$0" _bench "$@" >/dev/null 2>&1 </dev/null &
	echo "started"
	;;
_bench)
	shift
	bench "$@" >/dev/null
	;;
wait)
	end=$((SECONDS + ${2:-500}))
	while [ ! -f "$work/done" ] && [ $SECONDS -lt $end ]; do sleep 5; done
	tail -c 3000 "$work/bench.log"
	collect
	[ -f "$work/done" ] && cat "$work/done" || echo "still running"
	;;
*)
	echo "usage: $0 pack | run [flags] | start [flags] | wait SECONDS" >&2
	exit 2
	;;
esac
