#!/usr/bin/env bash
# On a GPU host: the first GPU command of a cuda build of aidw against the same command warm.
# Usage: scripts/gpu-cold-start.sh LABEL AIDW GENLAS [FIRST]   (FIRST=1: this is the host's
# first GPU command). Runs `AIDW grid -device gpu -a aidw:max_points=12 -tr 1 1 -of ENVI` on
# 1e6 genlas points (a 1 km square) three times: with the driver's JIT cache
# (~/.nv/ComputeCache) emptied first, then warm, then warm again; prints one line a run.
set -uo pipefail
label=$1 aidw=$2 genlas=$3 first=${4:-0}
w=/tmp/aidw-cold
mkdir -p "$w"
[ -f "$w/p.las" ] || "$genlas" -n 1000000 -size 1000 -o "$w/p.las" >/dev/null
rm -rf ~/.nv/ComputeCache
for run in cold warm warm; do
	t0=$(date +%s.%N)
	"$aidw" grid -q -device gpu -a aidw:max_points=12 -tr 1 1 -of ENVI "$w/p.las" "$w/$label.bin" || echo "FAIL $label $run"
	what=$run
	[ "$run" = cold ] && [ "$first" = 1 ] && what="cold (the host's first GPU command)"
	printf '%-12s %-40s %6.2f s\n' "$label" "$what" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
	first=0
done
