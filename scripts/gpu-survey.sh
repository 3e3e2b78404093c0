#!/usr/bin/env bash
# Issue 24's table: the 1e9-point survey (16 LAS files of 62.5 million points from
# scripts/genlas, 5 km tiles of a 20 km square, format 6: 28 GB) to the 1 m DEM
# (`-a aidw:max_points=12 -tr 1 1 -ot Float32 -of ENVI`), in memory and under -memory (streamed
# into the GPUs, which hold the survey; tiled on the CPU engine), on 1 and 4 GPUs: wall, CPU (user + system) and peak RSS of each run, and each raster compared with the
# first, bit for bit. Two steps:
#   here (no GPU):   scripts/gpu-survey.sh pack             -> .carry/e2e.tar.xz, .carry/genlas
#   on the device:   scripts/gpu-survey.sh run [work dir]   (carry .carry); prints a Markdown table
# The survey is made in the work dir (kept there: a second run reuses it). Settings (environment):
#   POINTS   points a file (62500000); the side of a file's square follows at 2.5 points/m²
#   GPUS     the GPU counts of the rows ("1 4"; counts beyond the host's are left out)
#   MEMORY   the budget of the tiled rows (8GB)
#   PROFILES a folder: each row writes its Go CPU profile there (AIDW_CPUPROFILE)
#   DEVICE   gpu; cpu runs the same rows on the CPU engine (one row a budget), to try the script
#            on a machine without a GPU, with AIDW the aidw to run (else the bundle's)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
case ${1:-} in
pack)
	scripts/gpu-bundle.sh
	go build -o .carry/genlas ./scripts/genlas
	;;
run)
	work=${2:-$(mktemp -d)}
	mkdir -p "$work/survey"
	points=${POINTS:-62500000} memory=${MEMORY:-8GB} device=${DEVICE:-gpu}
	aidw=${AIDW:-}
	if [[ -z $aidw ]]; then
		tar -C "$work" -xJf .carry/e2e.tar.xz
		export PROJ_DATA=$work/proj GDAL_DATA=$work/gdal
		aidw=$work/aidw
	fi
	genlas=.carry/genlas
	[[ -x $genlas ]] || { genlas=$work/genlas; go build -o "$genlas" ./scripts/genlas; }
	counts=()
	if [[ $device == gpu ]]; then
		nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
		have=$(nvidia-smi --list-gpus | wc -l)
		for n in ${GPUS:-1 4}; do [[ $n -le $have ]] && counts+=("$n"); done
	else
		counts=(cpu)
	fi
	side=$(python3 -c "import math; print(round(math.sqrt($points / 2.5)))")
	# genlas is one thread: the 16 files are made side by side
	for i in 0 1 2 3; do for j in 0 1 2 3; do
		f=$work/survey/tile_${i}_${j}.las
		[[ -s $f ]] && continue
		while [[ $(jobs -rp | wc -l) -ge $(nproc) ]]; do wait -n; done
		{
			"$genlas" -n "$points" -size "$side" -x0 $((400000 + i * side)) -y0 $((5400000 + j * side)) \
				-seed $((i * 4 + j + 11)) -o "$f.part" >/dev/null
			mv "$f.part" "$f"
		} &
	done; done
	wait
	[[ $(ls "$work"/survey/tile_*.las | wc -l) -eq 16 ]] || { echo "genlas failed" >&2; exit 1; }
	echo "$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; survey: 16 x $points points, $(du -sh "$work/survey" | cut -f1)"
	echo
	echo "aidw grid -device $device [-gpus N] -a aidw:max_points=12 -tr 1 1 -ot Float32 -of ENVI [-memory $memory] survey/ dem.img"
	echo
	echo "| run | GPUs | wall s | CPU s (user + system) | peak RSS GB | raster |"
	echo "|---|---|---|---|---|---|"
	first=
	# row LABEL N [ARGS...]: runs the command (on N GPUs) under rusage and prints its line
	row() {
		local label=$1 n=$2
		shift 2
		local gpus=()
		[[ $n == cpu ]] || gpus=(-gpus "$n")
		local out=$work/dem_${label// /_}_$n.img
		local m prof=()
		[[ -z ${PROFILES:-} ]] || prof=(env "AIDW_CPUPROFILE=$PROFILES/${label//[ -]/_}_$n.prof")
		m=$(python3 - "${prof[@]}" "$aidw" grid -q -device "$device" "${gpus[@]}" -a aidw:max_points=12 -tr 1 1 -ot Float32 -of ENVI "$@" "$work/survey" "$out" <<'EOF'
import resource, subprocess, sys, time
t = time.time()
if subprocess.run(sys.argv[1:]).returncode != 0:
    sys.exit(1)
wall = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.1f} {r.ru_utime:.0f} + {r.ru_stime:.0f} {r.ru_maxrss / 1e6:.2f}")
EOF
		)
		local same=first
		if [[ -z $first ]]; then
			first=$out
		elif cmp -s "$first" "$out"; then
			same=identical
		else
			same=DIFFERENT
		fi
		set -- $m
		echo "| $label | $n | $1 | $2 $3 $4 | $5 | $same |"
	}
	# the first GPU command of a fresh host compiles its kernels: a short one first
	[[ $device == gpu ]] && "$aidw" grid -q -device gpu -outsize 8 8 "$work/survey/tile_0_0.las" "$work/warm.img" >/dev/null 2>&1 || true
	for n in "${counts[@]}"; do row "in memory" "$n"; done
	for n in "${counts[@]}"; do row "-memory $memory" "$n" -memory "$memory"; done
	;;
*)
	echo "usage: scripts/gpu-survey.sh pack | run [work dir]" >&2
	exit 2
	;;
esac
