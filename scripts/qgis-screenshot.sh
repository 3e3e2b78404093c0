#!/usr/bin/env bash
# Writes docs/qgis-dialog.png, the aidw:aidw Processing dialog as QGIS draws it, under Xvfb.
# Installs Debian's QGIS and Xvfb when missing (as root or through sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
if ! /usr/bin/python3 -c 'import qgis.core' 2>/dev/null || ! command -v xvfb-run >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq qgis python3-qgis qgis-providers xvfb xauth >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zip=$(scripts/qgis-package.sh)
/usr/bin/python3 -m zipfile -e "$zip" "$tmp/plugins"
mkdir -p docs "$tmp/run"
chmod 700 "$tmp/run"
HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp/run" PYTHONWARNINGS=ignore::DeprecationWarning PYTHONDONTWRITEBYTECODE=1 \
  xvfb-run -a -s '-screen 0 1280x1200x24' \
  /usr/bin/python3 qgis/screenshot.py "$tmp/plugins" "$repo/testdata" "$repo/docs/qgis-dialog.png"
