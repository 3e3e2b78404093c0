"""Compares rasters for scripts/qgis-test.sh (Debian's python3 with osgeo.gdal and numpy).

  check_raster.py same <got> <want> [rtol]   values (NaN-aware, relative tolerance), size,
                                             geotransform and CRS equal
  check_raster.py georef <got> <want>        size, geotransform and CRS equal

Exits 1 naming the first difference.
"""

import sys

import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()


def georef_diff(got, want):
    if (got.RasterXSize, got.RasterYSize) != (want.RasterXSize, want.RasterYSize):
        return 'size %dx%d, want %dx%d' % (got.RasterXSize, got.RasterYSize,
                                           want.RasterXSize, want.RasterYSize)
    gt, wt = got.GetGeoTransform(), want.GetGeoTransform()
    scale = max(abs(v) for v in wt)
    if any(abs(a - b) > 1e-9 * scale for a, b in zip(gt, wt)):
        return 'geotransform %s, want %s' % (gt, wt)
    got_srs = osr.SpatialReference(wkt=got.GetProjection() or '')
    want_srs = osr.SpatialReference(wkt=want.GetProjection() or '')
    if not got_srs.IsSame(want_srs):
        return 'CRS %s, want %s' % (got_srs.GetName(), want_srs.GetName())
    return ''


def values_diff(got, want, rtol):
    a = got.GetRasterBand(1).ReadAsArray().astype(np.float64)
    b = want.GetRasterBand(1).ReadAsArray().astype(np.float64)
    if not np.allclose(a, b, rtol=rtol, atol=0, equal_nan=True):
        bad = np.argwhere(~np.isclose(a, b, rtol=rtol, atol=0, equal_nan=True))
        r, c = bad[0]
        return '%d values differ; first at row %d col %d: %r, want %r' % (len(bad), r, c, a[r, c], b[r, c])
    if np.all(b == 0):
        return 'the expected raster is all zeros: not a meaningful comparison'
    return ''


def main(argv):
    mode, got_path, want_path = argv[1:4]
    got, want = gdal.Open(got_path), gdal.Open(want_path)
    problem = georef_diff(got, want)
    if not problem and mode == 'same':
        problem = values_diff(got, want, float(argv[4]) if len(argv) > 4 else 0.0)
    if problem:
        print('%s vs %s: %s' % (got_path, want_path, problem))
        return 1
    print('%s matches %s (%s)' % (got_path, want_path, 'values and georeferencing' if mode == 'same'
                                  else 'georeferencing'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
