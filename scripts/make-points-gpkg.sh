#!/bin/sh
# Regenerates testdata/points.gpkg, the GeoPackage of the README's first example: the 2,500
# samples of testdata/n43_samples.csv (longitude, latitude, elevation) as 3D points (Z = the
# elevation) in UTM zone 17N (EPSG:32617), one layer "points". OGR_CURRENT_DATE fixes the
# timestamps GeoPackage records, so the file is the same every time.
set -e
cd "$(dirname "$0")/.."
rm -f testdata/points.gpkg
OGR_CURRENT_DATE=2026-01-01T00:00:00Z ogr2ogr -f GPKG -s_srs EPSG:4326 -t_srs EPSG:32617 \
    -oo X_POSSIBLE_NAMES=x -oo Y_POSSIBLE_NAMES=y -oo Z_POSSIBLE_NAMES=elevation -oo AUTODETECT_TYPE=YES \
    -oo KEEP_GEOM_COLUMNS=NO -nln points -lco SPATIAL_INDEX=NO \
    testdata/points.gpkg testdata/n43_samples.csv
