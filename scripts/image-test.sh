#!/usr/bin/env bash
# End-to-end test of aidw's container image (scripts/image.sh) on a cluster simulated by
# podman on this machine:
#   1. builds the image from Debian 12 packages (skipped with AIDW_IMAGE_TEST_BUILD=0);
#   2. plans a job in a container, over a survey in a folder that every container mounts at
#      /data (the shared file system), and grids it in one process, the reference;
#   3. two long-lived containers, "hosts" node-a and node-b (each its own PID namespace, so
#      that their workers have equal PIDs), compute the tiles at once, even tiles on node-a,
#      odd ones on node-b, each worker started by `podman exec` as the Slurm array task
#      SLURM_ARRAY_TASK_ID=i;
#   4. leftovers of killed workers, named as temporary files of either host (a dead PID, and
#      PID 1 of an earlier container), and a truncated tile: a rerun on node-a recomputes the
#      tile and removes node-a's dead writers' files only, one on node-b then node-b's;
#   5. aidw mosaic, which must equal the reference byte for byte (raw band dumps through
#      gdal_translate -of ENVI);
#   6. a LAS whose header declares more points than half of a 512 MiB memory cgroup
#      (podman run --memory 512m) is tiled automatically and equals the unlimited run.
# Bounded: the build about 4 minutes (downloads), the rest about a minute; fails after 10.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
IMAGE=${AIDW_IMAGE:-localhost/aidw:latest}
START=$SECONDS
say() { printf 'image-test [%3ds]: %s\n' $((SECONDS - START)) "$*"; }
fail() {
	say "FAIL: $*"
	exit 1
}

if [[ ${AIDW_IMAGE_TEST_BUILD:-1} == 1 ]]; then
	timeout 480 scripts/image.sh
fi
T_BUILD=$((SECONDS - START))

WORK=$(mktemp -d /var/tmp/aidw-image-test.XXXXXX)
HOSTS=(aidw-test-node-a aidw-test-node-b)
cleanup() {
	podman rm -f "${HOSTS[@]}" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
# runc: crun refuses this machine's hybrid cgroups; limits at most the host's: podman's
# defaults raise them, which a container without CAP_SYS_RESOURCE may not
PODMAN=(podman --runtime runc)
RUN=(run --rm --ulimit nofile=20000:20000 --ulimit nproc=20000:20000 -v "$WORK/data:/data")
aidw() { timeout 300 "${PODMAN[@]}" "${RUN[@]}" "$IMAGE" "$@"; }

mkdir "$WORK/data"
go build -o "$WORK/genlas" ./scripts/genlas
"$WORK/genlas" -o "$WORK/data/west.las" -n 60000 -size 200 -seed 1 >/dev/null
"$WORK/genlas" -o "$WORK/data/east.las" -n 60000 -size 200 -x0 450200 -seed 2 >/dev/null
GRID=(-a aidw:max_points=12 -tr 1 1 -ot Float32)
aidw grid -q "${GRID[@]}" /data/west.las /data/east.las /data/want.tif
aidw plan -q "${GRID[@]}" -tile 64 /data/west.las /data/east.las /data/plan.json
N=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tiles"]))' "$WORK/data/plan.json")
((N >= 8)) || fail "$N tiles, want 8 or more"
say "plan of $N tiles; hosts ${HOSTS[*]}"

for h in "${HOSTS[@]}"; do
	"${PODMAN[@]}" run -d --name "$h" --hostname "$h" --ulimit nofile=20000:20000 --ulimit nproc=20000:20000 \
		-v "$WORK/data:/data" --entrypoint /bin/sleep "$IMAGE" 600 >/dev/null
done
# worker HOST TILE: one Slurm array task on a host, started in the host container's
# namespaces with the PID 5000 of that namespace (ns_last_pid set just before the fork), so
# that both hosts' workers have equal PIDs
worker() {
	local pid
	pid=$("${PODMAN[@]}" inspect -f '{{.State.Pid}}' "$1")
	timeout 300 nsenter -t "$pid" -p -- /bin/sh -c 'echo 4999 >/proc/sys/kernel/ns_last_pid &&
		nsenter -t '"$pid"' -m -u -i -n -w -- /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin \
			SLURM_ARRAY_TASK_ID='"$2"' /bin/sh -c "echo \$\$ >/data/pid-'"$2"'; exec aidw grid --manifest /data/plan.json -q"
		exit $?'
}
for ((i = 0; i < N; i += 2)); do
	worker "${HOSTS[0]}" $i &
	a=$!
	if ((i + 1 < N)); then worker "${HOSTS[1]}" $((i + 1)); fi
	wait $a
done
pids=$(cat "$WORK"/data/pid-* | sort -u | tr '\n' ' ')
[[ $pids == "5000 " ]] || fail "the workers' PIDs: $pids, want 5000 for all"
say "tiles done, every worker of both hosts PID 5000"

# leftovers of killed workers on the shared folder, named as each host names them, and a tile
# cut short after it was proven
hostid() { "${PODMAN[@]}" exec "$1" sh -c 'echo "$(hostname)-$(readlink /proc/self/ns/pid | tr -dc 0-9)"'; }
A=$(hostid "${HOSTS[0]}")
B=$(hostid "${HOSTS[1]}")
T=$WORK/data/plan.tiles
touch "$T/tile-00001.aidwtmp-${A}_999_1_a1.tif" "$T/tile-00001.aidwtmp-${A}_1_1_a2.tif" \
	"$T/tile-00001.aidwtmp-${B}_999_1_b1.tif" "$T/tile-00001.aidwtmp-${B}_1_1_b2.tif"
truncate -s 100 "$T/tile-00001.tif"
if aidw mosaic -q /data/plan.json /data/got.tif 2>"$WORK/err"; then fail "a mosaic with a truncated tile"; fi
grep -q "1 damaged (1: " "$WORK/err" || fail "the mosaic's refusal: $(cat "$WORK/err")"
worker "${HOSTS[0]}" 1
left=$(cd "$T" && ls | grep aidwtmp | sort | tr '\n' ' ')
[[ $left == "tile-00001.aidwtmp-${B}_1_1_b2.tif tile-00001.aidwtmp-${B}_999_1_b1.tif " ]] ||
	fail "node-a's rerun left: $left"
rm "$T/tile-00001.tif.done" # computed again on node-b, which removes its own dead writers' files
worker "${HOSTS[1]}" 1
left=$(cd "$T" && ls | grep -c aidwtmp || true)
((left == 0)) || fail "node-b's rerun left $(ls "$T" | grep aidwtmp)"
say "a truncated tile recomputed; each host removed its dead writers' temporary files only"

aidw mosaic -q /data/plan.json /data/got.tif
same() {
	gdal_translate -q -of ENVI "$1" "$1.bin" && gdal_translate -q -of ENVI "$2" "$2.bin" && cmp -s "$1.bin" "$2.bin"
}
same "$WORK/data/got.tif" "$WORK/data/want.tif" || fail "the mosaic differs from the one-process raster"
say "the mosaic of two hosts equals the one-process raster"

# a memory cgroup: 6e6 points declared, half of 512 MiB holds about 3.2e6
"$WORK/genlas" -o "$WORK/data/big.las" -n 6000000 -size 600 -seed 3 >/dev/null
aidw grid -q -a aidw:max_points=12 -tr 1 1 /data/big.las /data/free.tif
timeout 300 "${PODMAN[@]}" "${RUN[@]}" --memory 512m --memory-swap 512m "$IMAGE" \
	grid -a aidw:max_points=12 -tr 1 1 /data/big.las /data/held.tif >"$WORK/held.log" 2>&1 ||
	fail "under --memory 512m: $(tail -3 "$WORK/held.log")"
grep -q "cgroup v[12] memory" "$WORK/held.log" || fail "the budget did not come from the cgroup: $(head -3 "$WORK/held.log")"
grep -q "Tiled run" "$WORK/held.log" || fail "not tiled under --memory 512m"
same "$WORK/data/held.tif" "$WORK/data/free.tif" || fail "the run under --memory 512m differs"
say "under podman --memory 512m: tiled, equal to the unlimited run"
say "PASS (image build ${T_BUILD} s, the rest $((SECONDS - START - T_BUILD)) s)"
