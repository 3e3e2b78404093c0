"""Integration tests of the installed plugin inside PyQGIS (what qgis_process cannot pass:
memory layers, selections, subset filters, cancelling). Run by scripts/qgis-test.sh with
Debian's python3 and these variables:

  AIDW_PLUGIN_DIR  the folder that holds the installed aidw_processing package
  AIDW_BIN         the aidw executable (also on PATH), for reference runs of the CLI
  AIDW_TESTDATA    the repository's testdata folder
"""

import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np
from osgeo import gdal, osr

from qgis.core import (
    QgsApplication,
    QgsFeature,
    QgsField,
    QgsGeometry,
    QgsPointXY,
    QgsProcessingException,
    QgsProcessingFeatureSourceDefinition,
    QgsProcessingFeedback,
    QgsProject,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QVariant

gdal.UseExceptions()

TESTDATA = os.environ['AIDW_TESTDATA']
AIDW = os.environ['AIDW_BIN']
BYTE_TIF = os.path.join(TESTDATA, 'gdal', 'byte.tif')
GRID_CSV = os.path.join(TESTDATA, 'gdal', 'grid.csv')
GRID_VRT = os.path.join(TESTDATA, 'gdal', 'grid.vrt')
N43_TIF = os.path.join(TESTDATA, 'gdal', 'n43.tif')
N43_CSV = os.path.join(TESTDATA, 'n43_samples.csv')
BYTE_EXTENT = '440720,441920,3750120,3751320 [EPSG:26711]'  # byte.tif's: 20 x 20 cells of 60 m

app = QgsApplication([], False)
app.initQgis()
sys.path.append('/usr/share/qgis/python/plugins')
import processing  # noqa: E402
from processing.core.Processing import Processing  # noqa: E402

Processing.initialize()
sys.path.insert(0, os.environ['AIDW_PLUGIN_DIR'])
import aidw_processing  # noqa: E402

PLUGIN = aidw_processing.classFactory(None)
PLUGIN.initProcessing()


class RecordingFeedback(QgsProcessingFeedback):
    """Keeps what the algorithm reports."""

    def __init__(self):
        super().__init__()
        self.progress, self.commands, self.infos = [], [], []
        self.progressChanged.connect(self.progress.append)

    def pushCommandInfo(self, info):  # noqa: N802
        self.commands.append(info)
        super().pushCommandInfo(info)

    def pushInfo(self, info):  # noqa: N802
        self.infos.append(info)
        super().pushInfo(info)


def read(path):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    srs = osr.SpatialReference(wkt=ds.GetProjection()) if ds.GetProjection() else None
    return band.ReadAsArray().astype(np.float64), ds.GetGeoTransform(), srs, band.DataType


def byte_grid_layer(name):
    """grid.csv (byte.tif's pixel centres and values) as a memory layer with a z field."""
    layer = QgsVectorLayer('Point?crs=EPSG:26711', name, 'memory')
    layer.dataProvider().addAttributes([QgsField('z', QVariant.Double)])
    layer.updateFields()
    features = []
    with open(GRID_CSV) as f:
        for line in f:
            x, y, z = (float(v) for v in line.split(','))
            feature = QgsFeature(layer.fields())
            feature.setGeometry(QgsGeometry.fromPointXY(QgsPointXY(x, y)))
            feature.setAttributes([z])
            features.append(feature)
    layer.dataProvider().addFeatures(features)
    QgsProject.instance().addMapLayer(layer)
    return layer


def n43_layer():
    """testdata/n43_samples.csv as QGIS's delimited-text layer."""
    uri = 'file://%s?type=csv&xField=x&yField=y&crs=EPSG:4326&detectTypes=yes' % N43_CSV
    layer = QgsVectorLayer(uri, 'n43 samples', 'delimitedtext')
    assert layer.isValid(), uri
    return layer


def aidw_cli(*args):
    subprocess.run([AIDW, 'grid', '-q'] + list(args), check=True)


class PluginTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    def run_alg(self, alg, params, feedback=None):
        feedback = feedback or RecordingFeedback()
        result = processing.run(alg, params, feedback=feedback)
        return result, feedback

    def assert_byte_georeferencing(self, gt, srs):
        expected = gdal.Open(BYTE_TIF)
        np.testing.assert_allclose(gt, expected.GetGeoTransform(), rtol=0, atol=1e-6)
        self.assertTrue(srs.IsSame(osr.SpatialReference(wkt=expected.GetProjection())))

    def test_memory_layer_nearest_reproduces_byte_tif(self):
        layer = byte_grid_layer('memory points')
        result, fb = self.run_alg('aidw:nearest', {
            'INPUT': layer, 'Z_FIELD': 'z', 'EXTENT': BYTE_EXTENT, 'PIXEL_SIZE': 60,
            'DATA_TYPE': 0, 'OUTPUT': self.out('nearest.tif')})
        values, gt, srs, dtype = read(result['OUTPUT'])
        expected = read(BYTE_TIF)[0]
        np.testing.assert_array_equal(values, expected)
        self.assertEqual(dtype, gdal.GDT_Byte)
        self.assert_byte_georeferencing(gt, srs)
        # A memory layer goes through a temporary GeoPackage.
        self.assertEqual(len(fb.commands), 1)
        self.assertIn('.gpkg', fb.commands[0])
        self.assertNotIn('memory', fb.commands[0])
        # Progress reaches 100, in order (streaming is checked by the cancel test).
        self.assertEqual(fb.progress, sorted(fb.progress))
        self.assertEqual(fb.progress[-1], 100.0)

    def test_selected_features_only(self):
        layer = byte_grid_layer('selection')
        layer.selectByExpression('"z" > 150')
        selected = layer.selectedFeatureCount()
        self.assertTrue(0 < selected < layer.featureCount())
        # Each node coincides with one sample: a 1 m search counts 1 where it was selected.
        result, _ = self.run_alg('aidw:datametrics', {
            'INPUT': QgsProcessingFeatureSourceDefinition(layer.id(), True),
            'METRIC': 3, 'RADIUS_1': 1, 'RADIUS_2': 1, 'EXTENT': BYTE_EXTENT, 'PIXEL_SIZE': 60,
            'OUTPUT': self.out('count.tif')})
        counts = read(result['OUTPUT'])[0]
        np.testing.assert_array_equal(counts, (read(BYTE_TIF)[0] > 150).astype(float))
        self.assertEqual(counts.sum(), selected)

    def test_subset_filter_on_ogr_layer(self):
        layer = QgsVectorLayer(GRID_VRT, 'grid', 'ogr')
        self.assertTrue(layer.isValid())
        self.assertTrue(layer.setSubsetString('CAST(field_3 AS INTEGER) <= 150'))
        QgsProject.instance().addMapLayer(layer)
        result, fb = self.run_alg('aidw:datametrics', {
            'INPUT': layer, 'METRIC': 3, 'RADIUS_1': 1, 'RADIUS_2': 1, 'EXTENT': BYTE_EXTENT,
            'PIXEL_SIZE': 60, 'OUTPUT': self.out('count.tif')})
        self.assertNotIn('grid.vrt', fb.commands[0])  # the filter needs an export
        counts = read(result['OUTPUT'])[0]
        np.testing.assert_array_equal(counts, (read(BYTE_TIF)[0] <= 150).astype(float))

    def test_delimited_text_aidw_on_template_equals_cli(self):
        layer = n43_layer()
        self.assertEqual(layer.featureCount(), 2500)
        result, _ = self.run_alg('aidw:aidw', {
            'INPUT': layer, 'Z_FIELD': 'elevation', 'TEMPLATE': N43_TIF, 'DEVICE': 1,
            'OUTPUT': self.out('n43_aidw.tif')})
        got, gt, srs, dtype = read(result['OUTPUT'])
        aidw_cli('-a', 'aidw', '-zfield', 'elevation', '-like', N43_TIF, '-ot', 'Float32',
                 '-device', 'cpu', N43_CSV, self.out('ref.tif'))
        want = read(self.out('ref.tif'))[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
        self.assertEqual(dtype, gdal.GDT_Float32)
        template = gdal.Open(N43_TIF)
        self.assertEqual(got.shape, (template.RasterYSize, template.RasterXSize))
        np.testing.assert_allclose(gt, template.GetGeoTransform(), rtol=0, atol=1e-12)
        self.assertTrue(srs.IsSame(osr.SpatialReference(wkt=template.GetProjection())))
        # The samples were drawn from n43.tif: the surface must follow the DEM closely.
        dem = template.GetRasterBand(1).ReadAsArray().astype(np.float64)
        self.assertLess(np.abs(got - dem).mean(), 0.15 * dem.std())

    def test_default_options_are_aidw_defaults(self):
        """Every algorithm, left at its dialog defaults, equals aidw's own defaults."""
        methods = []
        for family in aidw_processing.aidwcli.FAMILIES:
            for i, method in enumerate(family.methods):
                extra = {'METRIC': i} if len(family.methods) > 1 else {}
                methods.append(('aidw:' + family.id, extra, method))
        for alg, extra, method in methods:
            with self.subTest(method=method):
                params = {'INPUT': GRID_VRT, 'EXTENT': '440700,441900,3750100,3751300 [EPSG:26711]',
                          'PIXEL_SIZE': 40, 'DATA_TYPE': 6, 'DEVICE': 1,
                          'OUTPUT': self.out(method + '.tif')}
                params.update(extra)
                result, _ = self.run_alg(alg, params)
                aidw_cli('-a', method, '-txe', '440700', '441900', '-tye', '3750100', '3751300',
                         '-tr', '40', '40', '-ot', 'Float64', '-device', 'cpu', GRID_VRT,
                         self.out(method + '_ref.tif'))
                got, gt, _, _ = read(result['OUTPUT'])
                want, want_gt, _, _ = read(self.out(method + '_ref.tif'))
                self.assertEqual(got.shape, (30, 30))
                # Not bitwise: aidw's multi-threaded invdist differs run to run in the last bits.
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
                self.assertEqual(gt, want_gt)

    def test_las_file_with_lidar_filters(self):
        """A LAS file is read by aidw itself, with the LiDAR filters passed through."""
        las = os.path.join(TESTDATA, 'Haystack_Rock.las')
        result, fb = self.run_alg('aidw:nearest', {
            'LAS_FILE': las, 'RADIUS_1': 3, 'RADIUS_2': 3, 'NODATA': -9999,
            'RETURNS': 1, 'Z_MIN': 0, 'Z_MAX': 50, 'DROP_WITHHELD': True,
            'EXTENT': '2230738,2231105,252070,252411', 'PIXEL_SIZE': 5, 'DATA_TYPE': 6,
            'DEVICE': 1, 'OUTPUT': self.out('las.tif')})
        command = fb.commands[-1]
        for part in ('-returns first', '-zrange 0 50', '-drop_withheld', las):
            self.assertIn(part, command)
        aidw_cli('-a', 'nearest:radius1=3:radius2=3:angle=0:nodata=-9999', '-returns', 'first',
                 '-zrange', '0', '50', '-drop_withheld', '-txe', '2230738', '2231105',
                 '-tye', '252070', '252411', '-tr', '5', '5', '-ot', 'Float64', '-device', 'cpu',
                 las, self.out('las_ref.tif'))
        got, gt, srs, _ = read(result['OUTPUT'])
        want, want_gt, want_srs, _ = read(self.out('las_ref.tif'))
        np.testing.assert_array_equal(got, want)
        self.assertEqual(gt, want_gt)
        self.assertTrue(srs.IsSame(want_srs))

    def test_descriptions_and_help_urls(self):
        registry = QgsApplication.processingRegistry()
        for family in aidw_processing.aidwcli.FAMILIES:
            alg = registry.algorithmById('aidw:' + family.id)
            self.assertFalse(alg.shortDescription().endswith('..'), family.id)
            self.assertTrue(alg.helpUrl().startswith('https://github.com/aidw/aidw#'), family.id)
        # The dialogs are built from the aidw executable's declarations.
        k = registry.algorithmById('aidw:aidw').parameterDefinition('K')
        self.assertEqual((k.defaultValue(), k.minimum()), (15, 1))

    def test_aidw_error_is_the_exception(self):
        with self.assertRaises(QgsProcessingException) as cm:
            self.run_alg('aidw:aidw', {'INPUT': GRID_VRT, 'ALPHAS': '1,2',
                                       'OUTPUT': self.out('bad.tif')})
        self.assertIn('aidw: algorithm aidw: alphas=1,2: need exactly 5 numbers', str(cm.exception))
        self.assertFalse(os.path.exists(self.out('bad.tif')))

    def test_template_with_extent_is_refused(self):
        with self.assertRaises(QgsProcessingException) as cm:
            self.run_alg('aidw:nearest', {'INPUT': GRID_VRT, 'TEMPLATE': BYTE_TIF, 'PIXEL_SIZE': 60,
                                          'OUTPUT': self.out('x.tif')})
        self.assertIn('template', str(cm.exception).lower())

    def test_cancel_stops_aidw(self):
        # Global AIDW of 2,500 samples on 10^8 nodes (minutes of 2 cores), cancelled after 2 s
        # as the Cancel button does it, from another thread.
        fb = RecordingFeedback()
        start = time.monotonic()
        timer = threading.Timer(2.0, fb.cancel)
        timer.start()
        self.addCleanup(timer.cancel)
        with self.assertRaises(QgsProcessingException) as cm:
            self.run_alg('aidw:aidw', {
                'INPUT': n43_layer(), 'Z_FIELD': 'elevation',
                'EXTENT': '-80.0041667,-78.9958333,42.9958333,44.0041667 [EPSG:4326]',
                'PIXEL_SIZE': 0.0001, 'DEVICE': 1, 'OUTPUT': self.out('big.tif')}, fb)
        elapsed = time.monotonic() - start
        self.assertIn('Canceled', str(cm.exception))
        self.assertLess(elapsed, 15)
        self.assertFalse(os.path.exists(self.out('big.tif')))
        self.assertEqual(children_named('aidw'), [])


def children_named(name):
    """Live child processes of this one with the given command name."""
    found = []
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % pid) as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index('(') + 1:stat.rindex(')')]
        fields = stat[stat.rindex(')') + 2:].split()
        if comm == name and int(fields[1]) == os.getpid() and fields[0] != 'Z':
            found.append(int(pid))
    return found


if __name__ == '__main__':
    result = unittest.main(exit=False, verbosity=2).result
    PLUGIN.unload()
    app.exitQgis()
    sys.exit(0 if result.wasSuccessful() else 1)
