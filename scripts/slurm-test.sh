#!/usr/bin/env bash
# End-to-end test of aidw's tiled jobs on a real (single-node) Slurm cluster:
#   1. scripts/slurm-local.sh installs and starts Slurm on localhost (root; apt-get if needed);
#   2. builds aidw, writes a small survey (scripts/genlas, two LAS files) and grids it on one
#      process, the reference;
#   3. aidw plan cuts the job into 6 tiles; sbatch --array=0-5%2 runs aidw grid --manifest;
#      the task of one index hangs on its first attempt and is scancel'ed midway;
#   4. aidw mosaic refuses the incomplete plan; the failed index is resubmitted alone;
#   5. aidw mosaic assembles the tiles, which must equal the reference byte for byte (raw band
#      dumps through gdal_translate -of ENVI, and the georeferencing).
# Bounded: every wait has a deadline, the whole run about a minute once Slurm is installed
# (the install about 1-2 minutes more); it fails after 5 minutes at worst.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START=$SECONDS
DEADLINE=$((SECONDS + ${SLURM_TEST_TIMEOUT:-270}))
say() { printf 'slurm-test [%3ds]: %s\n' $((SECONDS - START)) "$*"; }
fail() {
	say "FAIL: $*"
	exit 1
}

t0=$SECONDS
timeout 240 scripts/slurm-local.sh
T_SLURM=$((SECONDS - t0))
export SLURM_CONF=${SLURM_LOCAL_DIR:-/var/tmp/aidw-slurm}/slurm.conf
trap '[[ -n ${JOBS:-} ]] && scancel $JOBS 2>/dev/null; [[ ${KEEP_SLURM:-} == 1 ]] || scripts/slurm-local.sh stop' EXIT

WORK=$(mktemp -d /var/tmp/aidw-slurm-test.XXXXXX)
say "work directory $WORK"
t0=$SECONDS
go build -o "$WORK/aidw" ./cmd/aidw
go build -o "$WORK/genlas" ./scripts/genlas
T_BUILD=$((SECONDS - t0))
AIDW=$WORK/aidw
cd "$WORK"
mkdir survey
./genlas -o survey/west.las -n 60000 -size 200 -seed 1 >/dev/null
./genlas -o survey/east.las -n 60000 -size 200 -x0 450200 -seed 2 >/dev/null

GRID=(-class 2 -a aidw:max_points=12 -tr 2 2 -ot Float32 -co COMPRESS=DEFLATE)
t0=$SECONDS
"$AIDW" grid -q -threads 1 "${GRID[@]}" survey/ reference.tif
T_ONE=$((SECONDS - t0))
t0=$SECONDS
"$AIDW" plan "${GRID[@]}" -tile 70 survey/ plan.json | tee plan.out
T_PLAN=$((SECONDS - t0))
N=$(sed -n 's/^plan.json: \([0-9]*\) tiles of .*/\1/p' plan.out)
[[ $N == 6 ]] || fail "the plan has $N tiles, want 6"
LAST=$((N - 1))
FAIL=3 # the index whose first attempt hangs and is cancelled

cat >tile.sbatch <<EOF
#!/bin/sh
#SBATCH --job-name=aidw-tile
#SBATCH --cpus-per-task=1
#SBATCH --output=$WORK/slurm-%A_%a.out
#SBATCH --time=00:05:00
# One tile of the plan: aidw takes the index from SLURM_ARRAY_TASK_ID.
set -e
if [ "\$SLURM_ARRAY_TASK_ID" = "$FAIL" ] && [ ! -e "$WORK/hung-once" ]; then
	touch "$WORK/hung-once"
	echo "tile $FAIL: a hung node (this attempt is cancelled)"
	sleep 120
fi
exec "$AIDW" grid --manifest "$WORK/plan.json" -threads 1 -q
EOF

wait_jobs() { # wait until the jobs leave the queue
	while [[ -n $(squeue -h -j "$1" 2>/dev/null) ]]; do
		((SECONDS < DEADLINE)) || fail "jobs $1 still queued at the deadline: $(squeue -j "$1")"
		sleep 1
	done
}
task_state() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }

t0=$SECONDS
JOB=$(sbatch --parsable --array=0-$LAST%2 tile.sbatch)
JOBS=$JOB
say "submitted array job $JOB (tiles 0-$LAST, 2 at a time)"
while [[ ! -e hung-once || $(task_state "${JOB}_$FAIL") != RUNNING ]]; do
	((SECONDS < DEADLINE)) || fail "task $FAIL never ran: $(squeue -j "$JOB")"
	sleep 0.5
done
sleep 1
say "cancelling task ${JOB}_$FAIL midway"
scancel "${JOB}_$FAIL"
wait_jobs "$JOB"
T_ARRAY=$((SECONDS - t0))
for i in $(seq 0 $LAST); do
	say "task ${JOB}_$i: $(task_state "${JOB}_$i")"
done
[[ $(task_state "${JOB}_$FAIL") == CANCELLED ]] || fail "task $FAIL was not cancelled"
[[ ! -e plan.tiles/tile-0000$FAIL.tif ]] || fail "the cancelled task left its tile"
if "$AIDW" mosaic -q plan.json incomplete.tif 2>mosaic.err; then
	fail "mosaic of an incomplete plan succeeded"
fi
grep -q "1 missing ($FAIL)" mosaic.err || fail "mosaic's error does not name tile $FAIL: $(cat mosaic.err)"
[[ ! -e incomplete.tif ]] || fail "the refused mosaic left a file"
say "mosaic refuses: $(cat mosaic.err)"

t0=$SECONDS
JOB2=$(sbatch --parsable --array=$FAIL tile.sbatch)
JOBS="$JOB $JOB2"
say "resubmitted tile $FAIL as job $JOB2"
wait_jobs "$JOB2"
T_RETRY=$((SECONDS - t0))
[[ -e plan.tiles/tile-0000$FAIL.tif ]] || fail "the resubmitted task made no tile: $(cat slurm-"${JOB2}"_$FAIL.out)"
# every task again: finished tiles are not computed twice
JOB3=$(sbatch --parsable --array=0-$LAST tile.sbatch)
JOBS="$JOB $JOB2 $JOB3"
wait_jobs "$JOB3"
for i in $(seq 0 $LAST); do
	[[ $(task_state "${JOB3}_$i") == COMPLETED ]] || fail "rerun of tile $i: $(task_state "${JOB3}_$i")"
done

t0=$SECONDS
"$AIDW" mosaic -q plan.json mosaic.tif
"$AIDW" mosaic -q plan.json mosaic.vrt
T_MOSAIC=$((SECONDS - t0))
for f in reference mosaic; do
	gdal_translate -q -of ENVI "$f.tif" "$f.raw"
	gdalinfo "$f.tif" | grep -E '^(Size is|Origin|Pixel Size|  Band|  NoData)|Type=' >"$f.info"
done
gdal_translate -q -of ENVI mosaic.vrt vrt.raw
cmp reference.raw mosaic.raw || fail "the mosaic's pixels differ from the single-process raster"
cmp reference.raw vrt.raw || fail "the VRT mosaic's pixels differ from the single-process raster"
diff reference.info mosaic.info || fail "the mosaic's georeferencing differs"
say "mosaic.tif and mosaic.vrt equal the single-process raster byte for byte ($(stat -c %s reference.raw) bytes of Float32)"
say "timings (s): slurm install+start $T_SLURM, build $T_BUILD, one process $T_ONE, plan $T_PLAN, array with a cancelled task $T_ARRAY, retry $T_RETRY, mosaics $T_MOSAIC, total $((SECONDS - START))"
cd "$ROOT"
rm -rf "$WORK"
say PASS
