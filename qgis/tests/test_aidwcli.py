"""Unit tests of aidwcli, the plugin's QGIS-free half: run with any Python 3.8+,
`python3 -m unittest discover -s qgis/tests -p 'test_*.py'`."""

import os
import stat
import sys
import tempfile
import textwrap
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'aidw_processing'))

import aidwcli  # noqa: E402  (the plugin package's __init__ needs QGIS; this module does not)

import copy  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402


def family(fid):
    return aidwcli.FAMILIES_BY_ID[fid]


class AlgorithmStringTest(unittest.TestCase):
    def test_defaults_written_in_order_and_optional_keys_left_out(self):
        # README's table of aidw keys and defaults; area and nodata have no default to write.
        self.assertEqual(
            aidwcli.algorithm_string('aidw', family('aidw'), {}),
            'aidw:k=15:alphas=1.5,2,2.5,3,3.5:rmin=0:rmax=2:max_points=0:radius=0:min_points=0')
        self.assertEqual(
            aidwcli.algorithm_string('invdist', family('invdist'), {}),
            'invdist:power=2:smoothing=0:radius1=0:radius2=0:angle=0:max_points=0:min_points=0')
        self.assertEqual(
            aidwcli.algorithm_string('invdistnn', family('invdistnn'), {}),
            'invdistnn:power=2:smoothing=0:radius=1:max_points=12:min_points=0')
        self.assertEqual(aidwcli.algorithm_string('nearest', family('nearest'), {}),
                         'nearest:radius1=0:radius2=0:angle=0')
        self.assertEqual(aidwcli.algorithm_string('linear', family('linear'), {}), 'linear:radius=-1')

    def test_values_replace_defaults_and_set_optional_keys(self):
        s = aidwcli.algorithm_string('aidw', family('aidw'), {
            'K': 8, 'ALPHAS': ' 1, 1.5 ,2,2.5;3 ', 'RMAX': 2.5, 'AREA': 1e6, 'MAX_POINTS': 32,
            'RADIUS': 150.25, 'NODATA': -9999.0})
        self.assertEqual(s, 'aidw:k=8:alphas=1,1.5,2,2.5,3:rmin=0:rmax=2.5:area=1000000:'
                            'max_points=32:radius=150.25:min_points=0:nodata=-9999')

    def test_quadrant_keys_only_when_positive(self):
        f = family('average')
        self.assertEqual(aidwcli.algorithm_string('average', f, {'MAX_POINTS': 0}),
                         'average:radius1=0:radius2=0:angle=0:min_points=0')
        self.assertEqual(
            aidwcli.algorithm_string('average', f, {'MAX_POINTS': 8, 'MIN_POINTS_PER_QUADRANT': 1}),
            'average:radius1=0:radius2=0:angle=0:min_points=0:max_points=8:min_points_per_quadrant=1')

    def test_metric_chosen_from_family(self):
        f = family('datametrics')
        self.assertEqual(aidwcli.algorithm_string('count', f, {'RADIUS_1': 10, 'RADIUS_2': 10}),
                         'count:radius1=10:radius2=10:angle=0:min_points=0')
        with self.assertRaises(ValueError):
            aidwcli.algorithm_string('aidw', f, {})

    def test_every_family_has_unique_parameter_names(self):
        for f in aidwcli.FAMILIES:
            names = [o.param for o in aidwcli.family_options(f)]
            self.assertEqual(len(names), len(set(names)), f.id)
            self.assertEqual(len(f.methods), len(f.method_labels), f.id)

    def test_format_number(self):
        self.assertEqual(aidwcli.format_number(2.0), '2')
        self.assertEqual(aidwcli.format_number(-0.5), '-0.5')
        self.assertEqual(aidwcli.format_number(0.1), '0.1')
        self.assertEqual(aidwcli.format_number(440720.125), '440720.125')
        self.assertEqual(aidwcli.format_number(7), '7')
        self.assertEqual(aidwcli.format_number(1e20), '1e+20')
        self.assertEqual(float(aidwcli.format_number(1 / 3)), 1 / 3)


class GridArgumentsTest(unittest.TestCase):
    def test_all_options(self):
        req = aidwcli.GridRequest(
            algorithm='nearest', source='/d/in.gpkg', destination='/d/out.tif', layer='pts',
            zfield='elev', extent=(440720.0, 3750120.0, 441920.0, 3751320.0), pixel_size=60.0,
            srs='EPSG:26711', output_format='GTiff', data_type='Byte',
            creation_options=['COMPRESS=DEFLATE', 'TILED=YES'], device='cpu', threads=3,
            extra=['-where', 'class = 2'])
        self.assertEqual(aidwcli.grid_arguments(req), [
            'grid', '-a', 'nearest', '-l', 'pts', '-zfield', 'elev',
            '-txe', '440720', '441920', '-tye', '3750120', '3751320', '-tr', '60', '60',
            '-a_srs', 'EPSG:26711', '-ot', 'Byte', '-of', 'GTiff',
            '-co', 'COMPRESS=DEFLATE', '-co', 'TILED=YES', '-device', 'cpu', '-threads', '3',
            '-where', 'class = 2', '/d/in.gpkg', '/d/out.tif'])

    def test_template(self):
        req = aidwcli.GridRequest(algorithm='aidw', source='in.gpkg', destination='o.tif',
                                  template='dem.tif')
        self.assertEqual(aidwcli.grid_arguments(req),
                         ['grid', '-a', 'aidw', '-like', 'dem.tif', '-device', 'auto', 'in.gpkg', 'o.tif'])

    def test_refusals(self):
        base = dict(algorithm='aidw', source='in.gpkg', destination='o.tif')
        bad = [
            (dict(template='t.tif', pixel_size=10.0), 'template'),
            (dict(template='t.tif', extent=(0, 0, 1, 1)), 'template'),
            (dict(pixel_size=0.0), 'pixel size'),
            (dict(extent=(5, 0, 1, 1)), 'extent'),
            (dict(extent=(0, 1, 1, 1)), 'extent'),
            (dict(device='tpu'), 'device'),
            (dict(data_type='CFloat64'), 'data type'),
        ]
        for extra, word in bad:
            with self.subTest(extra=extra):
                with self.assertRaisesRegex(ValueError, '(?i)' + word):
                    aidwcli.grid_arguments(aidwcli.GridRequest(**base, **extra))

    def test_creation_options_and_extra(self):
        self.assertEqual(aidwcli.parse_creation_options('COMPRESS=DEFLATE| PREDICTOR=3 |'),
                         ['COMPRESS=DEFLATE', 'PREDICTOR=3'])
        self.assertEqual(aidwcli.parse_creation_options(None), [])
        self.assertEqual(aidwcli.split_extra('-where "z > 2" -z_multiply 0.3048'),
                         ['-where', 'z > 2', '-z_multiply', '0.3048'])
        self.assertEqual(aidwcli.split_extra(None), [])
        with self.assertRaisesRegex(ValueError, 'command-line'):
            aidwcli.split_extra('-where "unclosed')

    def test_text_formats_are_not_read_in_place(self):
        self.assertEqual(aidwcli.compatible_extensions(['GPKG', 'csv', 'shp', 'txt', 'vrt', 'XYZ']),
                         ['gpkg', 'shp', 'vrt'])

    def test_needs_z(self):
        self.assertTrue(aidwcli.needs_z('aidw'))
        self.assertTrue(aidwcli.needs_z('minimum'))
        self.assertFalse(aidwcli.needs_z('count'))


class CatalogTest(unittest.TestCase):
    """The dialogs' keys come from `aidw algorithms --json` (the bundled copy is checked against
    aidw's output by the Go test TestGeneratedQGISSchema)."""

    def test_bundled_catalog_is_aidws_shape(self):
        catalog = aidwcli.bundled_catalog()
        self.assertIn('aidw', catalog)
        self.assertTrue(catalog['aidw']['default'])
        for name, alg in catalog.items():
            self.assertEqual(alg['name'], name)
            self.assertIsInstance(alg['description'], str)
            self.assertIsInstance(alg['gdal_compatible'], bool)
            for o in alg['options']:
                self.assertEqual(set(o), {'name', 'type', 'default', 'min', 'max', 'min_exclusive', 'help'})
                self.assertIn(o['type'], aidwcli.KINDS)

    def test_options_come_from_the_catalog(self):
        nn = {o.key: o for o in aidwcli.family_options(family('invdistnn'))}
        self.assertEqual((nn['radius'].kind, nn['radius'].default, nn['radius'].minimum), ('double', 1, 0))
        self.assertEqual((nn['max_points'].kind, nn['max_points'].default), ('int', 12))
        self.assertTrue(nn['max_points'].help.endswith('.'))
        k = aidwcli.family_options(family('aidw'))[0]
        self.assertEqual((k.key, k.param, k.kind, k.default, k.minimum), ('k', 'K', 'int', 15, 1))
        alphas = aidwcli.family_options(family('aidw'))[1]
        self.assertEqual((alphas.kind, alphas.default), ('list', '1.5,2,2.5,3,3.5'))
        # Presentation: optional keys have no dialog default; NoData is last everywhere.
        for f in aidwcli.FAMILIES:
            self.assertEqual(aidwcli.family_options(f)[-1].param, 'NODATA')
            self.assertIsNone(aidwcli.family_options(f)[-1].default)

    def test_families_follow_another_catalog(self):
        catalog = copy.deepcopy(aidwcli.bundled_catalog())
        for o in catalog['aidw']['options']:
            if o['name'] == 'k':
                o['default'], o['min'] = 20, 2
        f = {x.id: x for x in aidwcli.build_families(catalog)}['aidw']
        self.assertTrue(aidwcli.algorithm_string('aidw', f, {}).startswith('aidw:k=20:'))
        self.assertEqual(aidwcli.family_options(f)[0].minimum, 2)
        del catalog['count']
        with self.assertRaisesRegex(ValueError, 'count'):
            aidwcli.build_families(catalog)
        catalog = copy.deepcopy(aidwcli.bundled_catalog())
        catalog['linear']['options'] = [o for o in catalog['linear']['options'] if o['name'] != 'radius']
        with self.assertRaisesRegex(ValueError, 'linear has no key radius'):
            aidwcli.build_families(catalog)

    def test_load_catalog_runs_aidw_then_falls_back(self):
        with tempfile.TemporaryDirectory() as d:
            mine = copy.deepcopy(list(aidwcli.bundled_catalog().values()))
            mine[0]['options'][0]['default'] = 30
            fixture = os.path.join(d, 'algorithms.json')
            with open(fixture, 'w') as f:
                json.dump(mine, f)
            exe = write_script(d, 'aidw', '''
                import sys
                assert sys.argv[1:] == ['algorithms', '--json'], sys.argv
                sys.stdout.write(open(%r).read())
            ''' % fixture)
            catalog, note = aidwcli.load_catalog(exe)
            self.assertEqual(note, '')
            self.assertEqual(catalog['aidw']['options'][0]['default'], 30)
            old = write_script(d, 'old_aidw', '''
                import sys
                sys.stderr.write("No help topic for 'algorithms'\\n")
                sys.exit(3)
            ''')
            catalog, note = aidwcli.load_catalog(old)
            self.assertEqual(catalog, aidwcli.bundled_catalog())
            self.assertIn('bundled', note)
            catalog, note = aidwcli.load_catalog('', path=os.path.join(d, 'empty'))
            self.assertEqual(catalog, aidwcli.bundled_catalog())
            self.assertIn('not found', note)


class RegistryTest(unittest.TestCase):
    """Every algorithm of aidw's registry has a dialog: those FAMILY_SPECS presents by hand, the
    others one generated from its declaration."""

    def catalog(self):
        # aidw's own when the test is given it (scripts/qgis-test.sh), else the bundled copy,
        # which the Go test TestGeneratedQGISSchema keeps equal to aidw's output
        exe = os.environ.get('AIDW_BIN')
        return aidwcli.executable_catalog(exe) if exe else aidwcli.bundled_catalog()

    def test_every_registry_algorithm_is_in_qgis(self):
        catalog = self.catalog()
        families = aidwcli.build_families(catalog)
        for name in catalog:
            holders = [f.id for f in families if name in f.methods]
            self.assertEqual(len(holders), 1, '%s is in the families %s' % (name, holders))
        self.assertEqual({m for f in families for m in f.methods}, set(catalog))

    def test_new_algorithm_gets_a_generated_dialog(self):
        catalog = copy.deepcopy(aidwcli.bundled_catalog())
        median = copy.deepcopy(catalog['minimum'])
        median.update(name='median', description='median of the samples in the search ellipse',
                      engines={'cpu': True, 'gpu': None})
        median['options'].append({'name': 'threads', 'type': 'int', 'default': 2, 'min': 1, 'max': None,
                                  'min_exclusive': False, 'help': 'a key named as a fixed parameter'})
        catalog['median'] = median
        f = {x.id: x for x in aidwcli.build_families(catalog)}['median']
        self.assertEqual(f.methods, ('median',))
        self.assertEqual(f.display_name, 'Grid (median)')
        self.assertIn('CPU', f.engines)
        params = [o.param for o in aidwcli.family_options(f)]
        self.assertEqual(params[-1], 'NODATA')
        self.assertEqual(len(params), len(set(params)))
        self.assertTrue(set(params).isdisjoint(aidwcli.FIXED_PARAMS), params)
        self.assertEqual(aidwcli.algorithm_string('median', f, {'RADIUS1': 5, 'RADIUS2': 5}),
                         'median:radius1=5:radius2=5:angle=0:min_points=0:min_points_per_quadrant=0:'
                         'max_points_per_quadrant=0:threads=2')
        self.assertTrue(aidwcli.algorithm_string('median', f, {'RADIUS': 3, 'KEY_THREADS': 1}).startswith(
            'median:radius=3:radius1=0'))
        self.assertIn(':threads=1', aidwcli.algorithm_string('median', f, {'KEY_THREADS': 1}))

    def test_fixed_params_are_the_providers(self):
        with open(os.path.join(os.path.dirname(aidwcli.__file__), 'algorithms.py'), encoding='utf-8') as f:
            names = set(re.findall(r"^    ([A-Z_]+) = '\1'$", f.read(), re.M))
        self.assertEqual(names | {aidwcli.METRIC_PARAM}, set(aidwcli.FIXED_PARAMS))

    def test_engines_come_from_the_catalog(self):
        by_id = aidwcli.FAMILIES_BY_ID
        self.assertIn('GPU (within 1e-5', by_id['aidw'].engines)
        self.assertIn('falls back', by_id['linear'].engines)


class DescriptionTest(unittest.TestCase):
    def test_short_description_ends_in_one_full_stop(self):
        for f in aidwcli.FAMILIES:
            s = aidwcli.short_description(f.help)
            self.assertTrue(s.endswith('.') and not s.endswith('..'), (f.id, s))
            self.assertTrue(f.help.startswith(s[:-1]), f.id)
        self.assertEqual(aidwcli.short_description('One. Two.'), 'One.')
        self.assertEqual(aidwcli.short_description('Only one.'), 'Only one.')
        self.assertEqual(aidwcli.short_description('No stop'), 'No stop.')

    def test_help_urls(self):
        for f in aidwcli.FAMILIES:
            self.assertTrue(f.help_url.startswith(aidwcli.README_URL + '#'), f.id)
        self.assertEqual(family('aidw').help_url, 'https://github.com/aidw/aidw#aidw')
        self.assertEqual(family('linear').help_url, 'https://github.com/aidw/aidw#algorithms')


class LidarTest(unittest.TestCase):
    def test_las_inputs_and_filters(self):
        req = aidwcli.GridRequest(
            algorithm='aidw:max_points=12', source='', destination='/d/dem.tif', layer='ignored',
            pixel_size=1.0, device='cpu', las=aidwcli.las_inputs('/d/a.las', '/d/tiles'),
            lidar=aidwcli.LidarFilter(classes=aidwcli.parse_classes('2, 9'), returns='last',
                                      zrange=(-5.0, 120.5), drop_withheld=True, drop_overlap=True))
        self.assertEqual(aidwcli.grid_arguments(req), [
            'grid', '-a', 'aidw:max_points=12', '-class', '2,9', '-returns', 'last',
            '-zrange', '-5', '120.5', '-drop_withheld', '-drop_overlap', '-tr', '1', '1',
            '-device', 'cpu', '/d/a.las', '/d/tiles', '/d/dem.tif'])

    def test_default_filters_add_nothing(self):
        req = aidwcli.GridRequest(algorithm='nearest', source='', destination='o.tif',
                                  las=aidwcli.las_inputs('', ' /d/tiles '), lidar=aidwcli.LidarFilter())
        self.assertEqual(aidwcli.grid_arguments(req),
                         ['grid', '-a', 'nearest', '-device', 'auto', '/d/tiles', 'o.tif'])

    def test_refusals(self):
        las = ['/d/a.laz']
        bad = [
            (las, aidwcli.LidarFilter(classes=[256]), 'classification'),
            (las, aidwcli.LidarFilter(returns='second'), 'returns'),
            (las, aidwcli.LidarFilter(zrange=(10.0, 5.0)), 'Z range'),
            ([], aidwcli.LidarFilter(drop_overlap=True), 'LAS/LAZ input'),
        ]
        for inputs, lidar, word in bad:
            with self.subTest(word=word):
                with self.assertRaisesRegex(ValueError, word):
                    aidwcli.grid_arguments(aidwcli.GridRequest(
                        algorithm='aidw', source='in.gpkg', destination='o.tif', las=inputs, lidar=lidar))
        with self.assertRaisesRegex(ValueError, 'whole numbers'):
            aidwcli.parse_classes('2,ground')
        self.assertEqual(aidwcli.parse_classes(''), [])
        self.assertEqual(aidwcli.parse_classes('2 9;17'), [2, 9, 17])


def write_script(directory, name, body):
    """An executable Python script standing in for aidw."""
    path = os.path.join(directory, name)
    with open(path, 'w') as f:
        f.write('#!%s\n' % sys.executable + textwrap.dedent(body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class FindExecutableTest(unittest.TestCase):
    def test_configured_then_path(self):
        with tempfile.TemporaryDirectory() as d:
            exe = write_script(d, 'aidw', 'pass\n')
            self.assertEqual(aidwcli.find_executable(exe, path='/nonexistent'), exe)
            self.assertEqual(aidwcli.find_executable('', path=d), exe)
            self.assertEqual(aidwcli.find_executable(None, path=os.pathsep.join(['/nonexistent', d])), exe)

    def test_missing(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(FileNotFoundError, 'Processing > Options > Providers > aidw'):
                aidwcli.find_executable('', path=d)
            with self.assertRaisesRegex(FileNotFoundError, 'does not exist'):
                aidwcli.find_executable(os.path.join(d, 'aidw'), path=d)


class ProgressParserTest(unittest.TestCase):
    GDAL = '0...10...20...30...40...50...60...70...80...90...100 - done.\n'

    def test_whole_stream(self):
        p = aidwcli.ProgressParser()
        percent, lines = p.feed(self.GDAL)
        self.assertEqual(percent, 100.0)
        self.assertEqual(lines, [])
        self.assertEqual(p.flush(), [])

    def test_char_by_char_gives_every_tick(self):
        p = aidwcli.ProgressParser()
        seen = []
        for c in self.GDAL:
            percent, lines = p.feed(c)
            self.assertEqual(lines, [])
            if percent is not None:
                seen.append(percent)
        # Every tick is reported as soon as it is certain: "0" at once, "1" only once it turns
        # out to be "10" (the next character) rather than "100".
        ticks = [2.5 * i for i in range(41)]
        self.assertEqual(sorted(set(seen)), [t for t in ticks if t != 10.0])
        self.assertEqual(seen, sorted(seen))
        self.assertEqual(seen[0], 0.0)

    def test_first_tick_reported_at_once(self):
        p = aidwcli.ProgressParser()
        self.assertEqual(p.feed('0'), (0.0, []))
        self.assertEqual(p.feed('...1'), (7.5, []))
        self.assertEqual(p.feed('0'), (None, []))
        self.assertEqual(p.feed('.'), (12.5, []))
        self.assertEqual(p.feed('..2'), (17.5, []))
        self.assertEqual(p.feed('0'), (20.0, []))

    def test_partial_and_other_text(self):
        p = aidwcli.ProgressParser()
        self.assertEqual(p.feed('0...1'), (7.5, []))
        self.assertEqual(p.feed('0.'), (12.5, []))
        percent, lines = p.feed('..20...30...40...50...60...70...80...90...100 - done.\nsomething else\n')
        self.assertEqual(percent, 100.0)
        self.assertEqual(lines, ['something else'])
        self.assertEqual(p.feed('tail without newline'), (None, []))
        self.assertEqual(p.flush(), ['tail without newline'])


class RunTest(unittest.TestCase):
    """run() against scripts that behave as aidw does on success, failure and cancel."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def run_script(self, body, cancel_after=None, grace=10.0):
        exe = write_script(self.dir.name, 'aidw', body)
        progress, messages = [], []
        start = time.monotonic()

        def canceled():
            return cancel_after is not None and len(progress) > cancel_after

        result = aidwcli.run([exe, 'grid'], progress.append, lambda t, w: messages.append((t, w)),
                             canceled, poll_seconds=0.02, stop_grace_seconds=grace)
        return result, progress, messages, time.monotonic() - start

    def test_success_reports_progress_and_messages(self):
        result, progress, messages, _ = self.run_script('''
            import sys, time
            sys.stderr.write("Transforming the samples of pts from their CRS into the template's CRS.\\n")
            sys.stderr.write("Warning: max_points is ignored\\n")
            sys.stderr.flush()
            for tick in range(41):
                sys.stdout.write(str(tick // 4 * 10) if tick % 4 == 0 else ".")
                sys.stdout.flush()
                time.sleep(0.002)
            sys.stdout.write(" - done.\\n")
        ''')
        self.assertEqual(result.returncode, 0)
        self.assertFalse(result.canceled)
        self.assertEqual(result.error, '')
        self.assertEqual(progress[-1], 100.0)
        self.assertEqual(progress, sorted(progress))
        self.assertGreater(len(progress), 10)  # streamed, not read at the end
        self.assertIn(("Transforming the samples of pts from their CRS into the template's CRS.", False),
                      messages)
        self.assertIn(('Warning: max_points is ignored', True), messages)

    def test_error_line_is_the_message(self):
        result, _, messages, _ = self.run_script('''
            import sys
            sys.stdout.write("0...")
            sys.stderr.write("ERROR: algorithm aidw: alphas=1,2: need exactly 5 numbers, got 2\\n")
            sys.exit(1)
        ''')
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.message(), 'aidw: algorithm aidw: alphas=1,2: need exactly 5 numbers, got 2')
        self.assertEqual(messages, [])

    def test_crash_without_error_line(self):
        result, _, _, _ = self.run_script('''
            import sys
            sys.stderr.write("panic: something\\n")
            sys.exit(2)
        ''')
        self.assertEqual(result.message(), 'aidw exited with code 2:\npanic: something')

    def test_cancel_terminates(self):
        marker = os.path.join(self.dir.name, 'terminated')
        result, progress, _, elapsed = self.run_script('''
            import signal, sys, time
            def stop(sig, frame):
                open(%r, "w").close()
                sys.exit(1)
            signal.signal(signal.SIGTERM, stop)
            sys.stdout.write("0.")
            sys.stdout.flush()
            time.sleep(60)
        ''' % marker, cancel_after=0)
        self.assertTrue(result.canceled)
        self.assertLess(elapsed, 20)
        self.assertTrue(os.path.exists(marker), 'aidw was not sent SIGTERM')

    def test_cancel_kills_when_terminate_is_ignored(self):
        result, _, _, elapsed = self.run_script('''
            import signal, sys, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            sys.stdout.write("0.")
            sys.stdout.flush()
            time.sleep(60)
        ''', cancel_after=0, grace=0.5)
        self.assertTrue(result.canceled)
        self.assertLess(result.returncode, 0)  # killed by a signal
        self.assertLess(elapsed, 20)


if __name__ == '__main__':
    unittest.main()
