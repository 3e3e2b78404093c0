#!/usr/bin/env bash
# Installs what aidw needs on a fresh Debian/Ubuntu machine (GDAL's headers and tools, pkg-config),
# skipping it when they are already there. Go itself must be on PATH.
set -euo pipefail
if pkg-config --exists gdal 2>/dev/null && command -v gdalinfo >/dev/null; then
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq libgdal-dev gdal-bin pkg-config >/dev/null
