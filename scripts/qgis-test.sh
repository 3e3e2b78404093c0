#!/usr/bin/env bash
# Set-up and test of the QGIS Processing provider (qgis/aidw_processing) in one: installs Debian's
# QGIS when it is missing (as root or through sudo; about 300 MB), builds aidw, installs the
# plugin zip into a throw-away QGIS profile and runs, headless:
#   - the plugin's Python unit tests (argument building, progress parsing, the runner);
#   - qgis_process on testdata: nearest on grid.vrt must reproduce byte.tif (values and
#     georeferencing); AIDW on n43_samples.csv read as a delimited-text layer, on the grid of
#     n43.tif, must equal the aidw command line; the missing-executable message, the provider
#     setting, and aidw's ERROR line as the failure message;
#   - PyQGIS tests of what qgis_process cannot pass: memory layers, selected features, subset
#     filters, cancelling, every algorithm's defaults against aidw's.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
start=$SECONDS

if ! command -v qgis_process >/dev/null || ! /usr/bin/python3 -c 'import qgis.core' 2>/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq qgis python3-qgis qgis-providers >/dev/null
  echo "== QGIS installed in $((SECONDS - start)) s"
fi
scripts/deps.sh
test_start=$SECONDS

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
go build -buildvcs=auto -o "$tmp/bin/aidw" ./cmd/aidw
aidw="$tmp/bin/aidw"
zip=$(scripts/qgis-package.sh)

# Debian's qgis_process wrapper adds --noversioncheck, which qgis_process 3.22 refuses.
qp=qgis_process
[ -x /usr/bin/qgis_process.bin ] && qp=/usr/bin/qgis_process.bin
py=/usr/bin/python3 # Debian's, with the qgis, osgeo and numpy modules

# A throw-away profile: QGIS's settings and plugins live under $HOME.
export HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" QT_QPA_PLATFORM=offscreen
export PYTHONWARNINGS=ignore::DeprecationWarning PYTHONDONTWRITEBYTECODE=1
profile="$HOME/.local/share/QGIS/QGIS3/profiles/default"
plugins="$profile/python/plugins"
mkdir -p "$plugins" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
$py -m zipfile -e "$zip" "$plugins"
out="$tmp/out"
mkdir -p "$out"

echo "== unit tests"
AIDW_BIN="$aidw" $py -m unittest discover -s qgis/tests -p 'test_*.py'

echo "== qgis_process"
$qp plugins enable aidw_processing >/dev/null 2>&1
$qp list 2>/dev/null | grep -q 'aidw:aidw' || { echo "FAIL: qgis_process does not list aidw:aidw"; exit 1; }

fail() {
  echo "FAIL: $1"
  sed 's/^/    /' "$out/log"
  exit 1
}
# run_ok <description> <qgis_process run arguments...>: the run must succeed.
run_ok() {
  local what=$1
  shift
  PATH="$tmp/bin:$PATH" $qp run "$@" >"$out/log" 2>&1 || fail "$what: qgis_process failed"
}
# run_fails <description> <expected text> <qgis_process run arguments...>: the run must fail
# with the text in its output.
run_fails() {
  local what=$1 want=$2
  shift 2
  if $qp run "$@" >"$out/log" 2>&1; then fail "$what: qgis_process succeeded"; fi
  grep -qF -- "$want" "$out/log" || fail "$what: no \"$want\" in the output"
  echo "ok: $what"
}
settings="$profile/QGIS/QGIS3.ini"
set_executable() {
  $py -c 'import sys; from PyQt5.QtCore import QSettings
s = QSettings(sys.argv[1], QSettings.IniFormat); s.setValue("Processing/Configuration/AIDW_EXECUTABLE", sys.argv[2]); s.sync()' \
    "$settings" "$1"
}

run_ok "nearest on grid.vrt" aidw:nearest -- INPUT="$repo/testdata/gdal/grid.vrt" \
  "EXTENT=440720,441920,3750120,3751320 [EPSG:26711]" PIXEL_SIZE=60 DATA_TYPE=0 \
  OUTPUT="$out/nearest.tif"
grep -q '0\.\.\.10\.\.\.20' "$out/log" || fail "nearest: no progress reported"
$py qgis/tests/check_raster.py same "$out/nearest.tif" testdata/gdal/byte.tif

csv="delimitedtext://file://$repo/testdata/n43_samples.csv?type=csv&xField=x&yField=y&crs=EPSG:4326&detectTypes=yes"
run_ok "aidw on n43 samples" aidw:aidw -- "INPUT=$csv" Z_FIELD=elevation \
  TEMPLATE="$repo/testdata/gdal/n43.tif" DEVICE=1 OUTPUT="$out/n43_aidw.tif"
grep -q 'INPUT.gpkg' "$out/log" || fail "aidw: the delimited-text layer was not written to a GeoPackage"
"$aidw" grid -q -a aidw -zfield elevation -like testdata/gdal/n43.tif -ot Float32 -device cpu \
  testdata/n43_samples.csv "$out/n43_cli.tif"
$py qgis/tests/check_raster.py georef "$out/n43_aidw.tif" testdata/gdal/n43.tif
$py qgis/tests/check_raster.py same "$out/n43_aidw.tif" "$out/n43_cli.tif" 1e-6

PATH="$tmp/bin:$PATH" run_fails "aidw's ERROR line is the failure message" \
  "aidw: algorithm aidw: alphas=1,2: need exactly 5 numbers" \
  aidw:aidw -- INPUT="$repo/testdata/gdal/grid.vrt" ALPHAS=1,2 OUTPUT="$out/bad.tif"
[ ! -e "$out/bad.tif" ] || fail "a failed run left $out/bad.tif"

# Without aidw on PATH: the message, then the provider setting.
if PATH=/usr/bin:/bin command -v aidw >/dev/null; then
  echo "FAIL: aidw is installed in /usr/bin or /bin: cannot test the missing-executable message"
  exit 1
fi
PATH=/usr/bin:/bin run_fails "missing executable" "The aidw executable was not found" \
  aidw:nearest -- INPUT="$repo/testdata/gdal/grid.vrt" OUTPUT="$out/missing.tif"
set_executable "$aidw"
PATH=/usr/bin:/bin $qp run aidw:nearest -- INPUT="$repo/testdata/gdal/grid.vrt" \
  "EXTENT=440720,441920,3750120,3751320 [EPSG:26711]" PIXEL_SIZE=60 DATA_TYPE=0 \
  OUTPUT="$out/setting.tif" >"$out/log" 2>&1 || fail "aidw from the provider setting"
$py qgis/tests/check_raster.py same "$out/setting.tif" testdata/gdal/byte.tif
set_executable "$tmp/nowhere/aidw"
PATH=/usr/bin:/bin run_fails "wrong executable in the setting" "($tmp/nowhere/aidw) does not exist" \
  aidw:nearest -- INPUT="$repo/testdata/gdal/grid.vrt" OUTPUT="$out/missing.tif"
set_executable ""

echo "== PyQGIS"
PATH="$tmp/bin:$PATH" AIDW_PLUGIN_DIR="$plugins" AIDW_BIN="$aidw" AIDW_TESTDATA="$repo/testdata" \
  $py qgis/tests/qgis_integration.py

echo "== QGIS provider tests passed in $((SECONDS - test_start)) s (set-up and tests: $((SECONDS - start)) s)"
