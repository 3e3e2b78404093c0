#!/usr/bin/env bash
# Set-up and main job in one: installs the dependencies, builds aidw and grids the sample
# survey (testdata/n43_samples.csv, 2,500 clustered DEM samples) into out/n43_aidw.tif by AIDW.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -buildvcs=auto -o aidw ./cmd/aidw # stamps the git revision for --version
mkdir -p out
./aidw grid -a aidw -zfield elevation -a_srs EPSG:4326 \
  -txe -80.0041667 -78.9958333 -tye 42.9958333 44.0041667 -outsize 121 121 -ot Float32 \
  testdata/n43_samples.csv out/n43_aidw.tif
gdalinfo -stats out/n43_aidw.tif | grep -E 'Size is|Origin|Pixel Size|STATISTICS_(MIN|MAX|MEAN)'
