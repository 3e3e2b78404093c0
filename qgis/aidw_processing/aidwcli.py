"""The aidw command line as the Processing provider drives it, without QGIS.

Everything here is plain Python so that it can be unit-tested without a QGIS install: the
algorithm families and their options, the `-a` string, the `aidw grid` argument list, the
GDAL-style progress parser, the lookup of the aidw executable and the subprocess runner that
reports progress, relays messages and stops aidw when the user cancels.
"""

import codecs
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

DATA_TYPES = ('Byte', 'Int16', 'UInt16', 'UInt32', 'Int32', 'Float32', 'Float64')
DEFAULT_DATA_TYPE = 'Float32'  # as QGIS's GDAL grid algorithms
DEVICES = ('auto', 'cpu', 'gpu')

# Text sources are exported to a GeoPackage even when QGIS reads them through OGR: QGIS opens
# them with its own options (columns, CRS), which aidw's native text reader would not share.
TEXT_EXTENSIONS = ('csv', 'tsv', 'txt', 'xyz')

# Metrics whose value does not depend on the samples' Z.
Z_FREE_METHODS = ('count', 'average_distance', 'average_distance_pts')


# The README on the project's repository: every algorithm's help page is a section of it.
README_URL = 'https://github.com/aidw/aidw'

# `aidw algorithms --json` as this version of the plugin was built against: used when the aidw
# executable cannot be run (not found yet, or too old to have the command), and by the tests.
# A Go test (cmd/aidw TestGeneratedQGISSchema) keeps it equal to aidw's output.
BUNDLED_CATALOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'algorithms.json')

# aidw's option types (`aidw algorithms --json`) as the dialogs' parameter kinds.
KINDS = {'int': 'int', 'float': 'double', 'float_list': 'list', 'bool': 'bool'}


@dataclass(frozen=True)
class Param:
    """How a dialog shows one key of an algorithm: presentation only.

    The key's type, default, range and help come from aidw (`aidw algorithms --json`).
    """
    key: str  # the key in aidw's -a string
    param: str  # the Processing parameter name (gdal's grid algorithms' names where they exist)
    label: str
    advanced: bool = False
    optional: bool = False  # no default in the dialog: the key is written only when set
    only_if_positive: bool = False  # gdal's per-quadrant keys switch a search mode on when >= 1


@dataclass(frozen=True)
class Option:
    """One key of an algorithm string and the Processing parameter that sets it."""
    key: str  # the key in aidw's -a string
    param: str  # the Processing parameter name (gdal's grid algorithms' names where they exist)
    label: str
    kind: str  # 'int', 'double', 'list' (comma-separated numbers) or 'bool'
    default: object = None  # None: optional; the key is written only when set
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    advanced: bool = False
    help: str = ''
    only_if_positive: bool = False  # gdal's per-quadrant keys switch a search mode on when >= 1


@dataclass(frozen=True)
class FamilySpec:
    """One Processing algorithm as the provider presents it: one aidw algorithm, or (data
    metrics) several chosen by a list; its keys are aidw's."""
    id: str
    display_name: str
    methods: Tuple[str, ...]
    method_labels: Tuple[str, ...]
    params: Tuple[Param, ...]
    output_label: str
    help: str
    anchor: str = 'algorithms'  # the README section of its help page


@dataclass(frozen=True)
class Family:
    """A FamilySpec with its options resolved against aidw's declarations."""
    id: str
    display_name: str
    methods: Tuple[str, ...]
    method_labels: Tuple[str, ...]
    options: Tuple[Option, ...]
    output_label: str
    help: str
    help_url: str = README_URL
    engines: str = ''  # the engines that run it, as aidw declares them (one sentence)


def _ellipse_params():
    return (
        Param('radius1', 'RADIUS_1', 'First radius of the search ellipse (X axis when angle is 0)'),
        Param('radius2', 'RADIUS_2', 'Second radius of the search ellipse (Y axis when angle is 0)'),
        Param('angle', 'ANGLE', 'Angle of the search ellipse (degrees, counter-clockwise)'),
    )


MIN_POINTS = Param('min_points', 'MIN_POINTS', 'Minimum number of samples (fewer gives NoData)')

QUADRANT_PARAMS = (
    Param('min_points_per_quadrant', 'MIN_POINTS_PER_QUADRANT',
          'Minimum number of samples per quadrant (0: no quadrant search)', advanced=True,
          only_if_positive=True),
    Param('max_points_per_quadrant', 'MAX_POINTS_PER_QUADRANT',
          'Maximum number of samples per quadrant (0: no quadrant search)', advanced=True,
          only_if_positive=True),
)

NODATA = Param('nodata', 'NODATA', 'NoData value (empty: none is set; nodes without samples get 0)',
               optional=True)

METRIC_PARAM = 'METRIC'

# The parameters every algorithm's dialog has besides its keys (see algorithms.py): a key of a
# generated family that would take one of these names is prefixed.
FIXED_PARAMS = ('INPUT', 'LAS_FILE', 'LAS_FOLDER', 'CLASSES', 'RETURNS', 'Z_MIN', 'Z_MAX', 'DROP_WITHHELD',
                'DROP_OVERLAP', 'Z_FIELD', 'EXTENT', 'PIXEL_SIZE', 'TEMPLATE', 'DATA_TYPE', 'DEVICE',
                'THREADS', 'OPTIONS', 'EXTRA', 'OUTPUT', METRIC_PARAM)

# Hand-written presentation where a family needs it: gdal's own Processing parameter names and
# labels (so that models made with QGIS's GDAL grid algorithms carry over), the data metrics
# grouped as gdal groups them, AIDW's explanation. An algorithm of aidw's without a spec gets a
# dialog generated from its declaration (generated_spec).
FAMILY_SPECS = (
    FamilySpec(
        'aidw', 'Grid (adaptive IDW)', ('aidw',), ('Adaptive IDW',),
        (
            Param('k', 'K', 'Nearest samples that measure the local density (k)'),
            Param('alphas', 'ALPHAS', 'Power levels a1..a5 (five comma-separated numbers)'),
            Param('rmin', 'RMIN', 'R at which the density index mu is 0 (rmin)'),
            Param('rmax', 'RMAX', 'R at which the density index mu is 1 (rmax)'),
            Param('area', 'AREA', 'Study area for the expected distance (empty: samples\' bounding box)',
                  advanced=True, optional=True),
            Param('max_points', 'MAX_POINTS', 'Maximum number of samples weighed (0: all samples)'),
            Param('radius', 'RADIUS', 'Search radius of the weighed samples (0: unbounded)'),
            MIN_POINTS,
        ),
        'Interpolated (adaptive IDW)',
        'Adaptive inverse distance weighting (Lu & Wong 2008): the power of the weights adapts '
        'at each node to how clustered the samples around it are. The mean distance to the k '
        'nearest samples against the distance expected of randomly spread samples gives the '
        'statistic R, mapped by a cosine ramp between rmin and rmax onto mu in [0, 1], and mu onto '
        'the power through the five levels a1..a5. With max_points or radius only the nearest '
        'samples are weighed (much faster on large surveys); otherwise every sample is.',
        anchor='aidw'),
    FamilySpec(
        'invdist', 'Grid (inverse distance to a power)', ('invdist',), ('Inverse distance to a power',),
        (
            Param('power', 'POWER', 'Weighting power'),
            Param('smoothing', 'SMOOTHING', 'Smoothing'),
        ) + _ellipse_params() + (
            Param('max_points', 'MAX_POINTS', 'Maximum number of samples (0: all)'),
            MIN_POINTS,
        ),
        'Interpolated (IDW)',
        'Inverse distance to a power, as gdal_grid\'s invdist (same keys and defaults), computed in '
        'double precision.'),
    FamilySpec(
        'invdistnn', 'Grid (IDW with nearest neighbor searching)', ('invdistnn',),
        ('IDW with nearest neighbor searching',),
        (
            Param('power', 'POWER', 'Weighting power'),
            Param('smoothing', 'SMOOTHING', 'Smoothing'),
            Param('radius', 'RADIUS', 'Radius of the search circle'),
            Param('max_points', 'MAX_POINTS', 'Maximum number of samples'),
            MIN_POINTS,
        ) + QUADRANT_PARAMS,
        'Interpolated (IDW with NN search)',
        'Inverse distance to a power over the nearest samples within a radius, as gdal_grid\'s '
        'invdistnn.'),
    FamilySpec(
        'nearest', 'Grid (nearest neighbor)', ('nearest',), ('Nearest neighbor',),
        _ellipse_params(),
        'Interpolated (nearest neighbor)',
        'The value of the nearest sample, as gdal_grid\'s nearest.'),
    FamilySpec(
        'average', 'Grid (moving average)', ('average',), ('Moving average',),
        _ellipse_params() + (
            MIN_POINTS,
            Param('max_points', 'MAX_POINTS', 'Maximum number of samples (with a quadrant search)',
                  advanced=True, only_if_positive=True),
        ) + QUADRANT_PARAMS,
        'Interpolated (moving average)',
        'The mean of the samples in the search ellipse, as gdal_grid\'s average.'),
    FamilySpec(
        'datametrics', 'Grid (data metrics)',
        ('minimum', 'maximum', 'range', 'count', 'average_distance', 'average_distance_pts'),
        ('Minimum', 'Maximum', 'Range', 'Count', 'Average distance', 'Average distance between points'),
        _ellipse_params() + (MIN_POINTS,) + QUADRANT_PARAMS,
        'Interpolated (data metrics)',
        'A statistic of the samples in the search ellipse, as gdal_grid\'s data metrics: minimum, '
        'maximum, range, count, mean distance from the node, mean distance between the samples.'),
    FamilySpec(
        'linear', 'Grid (linear)', ('linear',), ('Linear',),
        (Param('radius', 'RADIUS', 'Search distance outside the triangulation (-1: unbounded, 0: NoData)'),),
        'Interpolated (linear)',
        'Linear interpolation on the Delaunay triangulation of the samples, as gdal_grid\'s linear; '
        'outside the triangulation, the nearest sample within the search distance.'),
)


def read_catalog(text: str) -> dict:
    """`aidw algorithms --json` as a dict of algorithm name to its declaration."""
    algorithms = json.loads(text)
    if not isinstance(algorithms, list) or not all(
            isinstance(a, dict) and 'name' in a and isinstance(a.get('options'), list) for a in algorithms):
        raise ValueError('not the output of aidw algorithms --json')
    return {a['name']: a for a in algorithms}


def bundled_catalog() -> dict:
    """The declarations this plugin was built against (see BUNDLED_CATALOG)."""
    with open(BUNDLED_CATALOG, encoding='utf-8') as f:
        return read_catalog(f.read())


def executable_catalog(executable: str, timeout: float = 30.0) -> dict:
    """The declarations of the aidw executable: `aidw algorithms --json`.

    Raises RuntimeError when aidw cannot say (an aidw too old for the command, a crash).
    """
    kwargs = {}
    if sys.platform == 'win32':
        kwargs['creationflags'] = 0x08000000  # CREATE_NO_WINDOW
    try:
        out = subprocess.run([executable, 'algorithms', '--json'], stdin=subprocess.DEVNULL,
                             capture_output=True, timeout=timeout, check=True, **kwargs).stdout
        return read_catalog(out.decode('utf-8'))
    except (OSError, subprocess.SubprocessError, ValueError, UnicodeDecodeError) as e:
        raise RuntimeError('%s algorithms --json: %s' % (executable, e)) from e


def load_catalog(configured: Optional[str], path: Optional[str] = None) -> Tuple[dict, str]:
    """The declarations to build the dialogs from, and a note when they are not aidw's own.

    aidw's (`aidw algorithms --json`, the executable found as find_executable finds it) where
    it answers, else the bundled ones.
    """
    try:
        catalog = executable_catalog(find_executable(configured, path))
        build_families(catalog)  # every family must resolve against it
        return catalog, ''
    except (FileNotFoundError, RuntimeError, ValueError) as e:
        return bundled_catalog(), 'aidw\'s algorithms are those bundled with the plugin (%s)' % e


def _option(param: Param, declared: dict) -> Option:
    kind = KINDS.get(declared.get('type'))
    if kind is None:
        raise ValueError('option %s: unknown type %r' % (param.key, declared.get('type')))
    default = None if param.optional else declared.get('default')
    if kind == 'list' and isinstance(default, list):
        default = ','.join(format_number(v) for v in default)
    return Option(param.key, param.param, param.label, kind, default,
                  minimum=declared.get('min'), maximum=declared.get('max'), advanced=param.advanced,
                  help=_sentence(declared.get('help', '')), only_if_positive=param.only_if_positive)


def _sentence(text: str) -> str:
    text = (text or '').strip()
    if not text:
        return ''
    text = text[0].upper() + text[1:]
    return text if text.endswith('.') else text + '.'


def generated_spec(declared: dict) -> FamilySpec:
    """The dialog of an algorithm that FAMILY_SPECS does not present: every key of its
    declaration but nodata, labelled by its name, optional where it has no default."""
    name = declared['name']
    words = name.replace('_', ' ')
    params = []
    for o in declared['options']:
        if o['name'] == 'nodata':
            continue
        param = o['name'].upper()
        if param in FIXED_PARAMS:
            param = 'KEY_' + param
        label = o['name'].replace('_', ' ').capitalize()
        params.append(Param(o['name'], param, label, optional=o.get('default') is None))
    return FamilySpec(name, 'Grid (%s)' % words, (name,), (words.capitalize(),), tuple(params),
                      'Interpolated (%s)' % words, _sentence(declared.get('description', '')))


def engines_sentence(declared: dict) -> str:
    """The engines of an algorithm (`aidw algorithms --json`'s engines) as one sentence."""
    gpu = (declared.get('engines') or {}).get('gpu')
    if not gpu:
        return 'Runs on the CPU (the GPU device falls back to it).'
    return 'Runs on the CPU and on the GPU (%s of the CPU\'s raster): %s' % (
        gpu.get('accuracy', ''), _sentence(gpu.get('forms', '')))


def specs_for(catalog: dict) -> Tuple[FamilySpec, ...]:
    """FAMILY_SPECS, then a generated spec for each algorithm of catalog that none presents."""
    shown = {m for spec in FAMILY_SPECS for m in spec.methods}
    return FAMILY_SPECS + tuple(generated_spec(a) for name, a in catalog.items() if name not in shown)


def build_families(catalog: dict) -> Tuple[Family, ...]:
    """The Processing algorithms, one for each FamilySpec of specs_for(catalog), with their keys'
    types, defaults, ranges and help from catalog (`aidw algorithms --json`). Raises ValueError
    when catalog lacks an algorithm or a key that a family shows."""
    families = []
    for spec in specs_for(catalog):
        options = []
        for param in spec.params + (NODATA,):
            declared = []
            for method in spec.methods:
                alg = catalog.get(method)
                if alg is None:
                    raise ValueError('aidw has no algorithm %s' % method)
                found = [o for o in alg['options'] if o.get('name') == param.key]
                if not found:
                    raise ValueError('aidw\'s algorithm %s has no key %s' % (method, param.key))
                declared.append(found[0])
            options.append(_option(param, declared[0]))
        engines = ' '.join(dict.fromkeys(engines_sentence(catalog[m]) for m in spec.methods))
        families.append(Family(spec.id, spec.display_name, spec.methods, spec.method_labels,
                               tuple(options), spec.output_label, spec.help,
                               '%s#%s' % (README_URL, spec.anchor), engines))
    return tuple(families)


def family_options(family: Family) -> Tuple[Option, ...]:
    """The family's options, NoData (which every algorithm has) last."""
    return family.options


def short_description(text: str) -> str:
    """The first sentence of a help text, ending in exactly one full stop."""
    first = text.strip().split('. ')[0].rstrip('.').rstrip()
    return first + '.'


def format_number(v) -> str:
    """A number as aidw's parser reads it, without a spurious '.0' on whole numbers."""
    if isinstance(v, bool):
        raise TypeError('a boolean is not a number')
    if isinstance(v, int):
        return str(v)
    f = float(v)
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    return repr(f)


# The families as the bundled declarations give them (the provider builds its own from aidw's
# `aidw algorithms --json`, see load_catalog).
FAMILIES = build_families(bundled_catalog())

FAMILIES_BY_ID = {f.id: f for f in FAMILIES}


def _format_value(option: Option, value) -> str:
    if option.kind == 'bool':
        return 'yes' if value else 'no'
    if option.kind == 'list':
        parts = [p.strip() for p in re.split(r'[,;\s]+', str(value).strip()) if p.strip()]
        return ','.join(parts)
    if option.kind == 'int':
        return str(int(value))
    return format_number(value)


def algorithm_string(method: str, family: Family, values: dict) -> str:
    """The `-a` string: the method, then each option's key=value in the family's order.

    values maps parameter names to values; a missing or None value leaves an optional key out
    (and gives the default of a key that has one), so that aidw applies its own rule.
    """
    if method not in family.methods:
        raise ValueError('Algorithm %s is not one of %s.' % (method, ', '.join(family.methods)))
    parts = [method]
    for option in family_options(family):
        value = values.get(option.param, option.default)
        if value is None or (option.kind == 'list' and str(value).strip() == ''):
            continue
        if option.only_if_positive and float(value) <= 0:
            continue
        parts.append('%s=%s' % (option.key, _format_value(option, value)))
    return ':'.join(parts)


def needs_z(method: str) -> bool:
    """Whether the method's result depends on the samples' values."""
    return method not in Z_FREE_METHODS


RETURNS = ('all', 'first', 'last')  # -returns


@dataclass
class LidarFilter:
    """aidw's LAS point filters (-class, -returns, -zrange, -drop_withheld, -drop_overlap)."""
    classes: Sequence[int] = ()
    returns: str = 'all'
    zrange: Optional[Tuple[float, float]] = None
    drop_withheld: bool = False
    drop_overlap: bool = False

    def arguments(self) -> List[str]:
        """The filters' flags; raises ValueError on a filter aidw would refuse."""
        for c in self.classes:
            if not 0 <= c <= 255:
                raise ValueError('LAS classification %d: codes are 0 to 255.' % c)
        if self.returns not in RETURNS:
            raise ValueError('LAS returns %r: use %s.' % (self.returns, ', '.join(RETURNS)))
        args = []
        if self.classes:
            args += ['-class', ','.join(str(c) for c in self.classes)]
        if self.returns != 'all':
            args += ['-returns', self.returns]
        if self.zrange is not None:
            zmin, zmax = self.zrange
            if not zmin <= zmax:
                raise ValueError('LAS Z range %s %s: the minimum exceeds the maximum.'
                                 % (format_number(zmin), format_number(zmax)))
            args += ['-zrange', format_number(zmin), format_number(zmax)]
        if self.drop_withheld:
            args.append('-drop_withheld')
        if self.drop_overlap:
            args.append('-drop_overlap')
        return args


def parse_classes(text: str) -> List[int]:
    """LAS classification codes as written in the dialog: '2', '2,9' or '2 9'."""
    codes = []
    for part in re.split(r'[,;\s]+', (text or '').strip()):
        if not part:
            continue
        try:
            codes.append(int(part))
        except ValueError:
            raise ValueError('LAS classes %r: give whole numbers separated by commas, e.g. 2,9.'
                             % text) from None
    return codes


def las_inputs(file: str, folder: str) -> List[str]:
    """The LAS/LAZ inputs given (a file, a folder of tiles, or both: one point cloud)."""
    return [p for p in ((file or '').strip(), (folder or '').strip()) if p]


@dataclass
class GridRequest:
    """What the Processing algorithm asks of `aidw grid`, in aidw's terms."""
    algorithm: str
    source: str
    destination: str
    layer: str = ''
    zfield: str = ''
    extent: Optional[Tuple[float, float, float, float]] = None  # xmin, ymin, xmax, ymax
    pixel_size: Optional[float] = None
    template: str = ''
    srs: str = ''
    output_format: str = ''
    data_type: str = ''
    creation_options: Sequence[str] = ()
    device: str = 'auto'
    threads: int = 0
    extra: Sequence[str] = ()
    # LAS/LAZ files or folders of tiles, gridded as one point cloud instead of source.
    las: Sequence[str] = ()
    lidar: Optional[LidarFilter] = None


def grid_arguments(req: GridRequest) -> List[str]:
    """The arguments of `aidw grid` (without the executable) for req.

    Raises ValueError on a request aidw would refuse for reasons the dialog can name better.
    """
    if req.template and (req.extent is not None or req.pixel_size is not None):
        raise ValueError('A template raster gives the extent and pixel size: leave the extent '
                         'and pixel size empty when one is chosen.')
    if req.pixel_size is not None and req.pixel_size <= 0:
        raise ValueError('Pixel size %s: must be positive.' % format_number(req.pixel_size))
    if req.extent is not None:
        xmin, ymin, xmax, ymax = req.extent
        if not (xmax > xmin and ymax > ymin):
            raise ValueError('The extent %s is empty.' % ', '.join(format_number(v) for v in req.extent))
    if req.device not in DEVICES:
        raise ValueError('Device %r is not one of %s.' % (req.device, ', '.join(DEVICES)))
    if req.data_type and req.data_type not in DATA_TYPES:
        raise ValueError('Data type %r is not one of %s.' % (req.data_type, ', '.join(DATA_TYPES)))

    lidar = req.lidar.arguments() if req.lidar is not None else []
    if lidar and not req.las:
        raise ValueError('The LiDAR filters apply to LAS/LAZ input: choose a LAS/LAZ file or folder.')

    args = ['grid', '-a', req.algorithm]
    if req.layer and not req.las:
        args += ['-l', req.layer]
    if req.zfield:
        args += ['-zfield', req.zfield]
    args += lidar
    if req.template:
        args += ['-like', req.template]
    if req.extent is not None:
        xmin, ymin, xmax, ymax = req.extent
        args += ['-txe', format_number(xmin), format_number(xmax),
                 '-tye', format_number(ymin), format_number(ymax)]
    if req.pixel_size is not None:
        args += ['-tr', format_number(req.pixel_size), format_number(req.pixel_size)]
    if req.srs:
        args += ['-a_srs', req.srs]
    if req.data_type:
        args += ['-ot', req.data_type]
    if req.output_format:
        args += ['-of', req.output_format]
    for co in req.creation_options:
        args += ['-co', co]
    args += ['-device', req.device]
    if req.threads > 0:
        args += ['-threads', str(req.threads)]
    args += list(req.extra)
    args += list(req.las) if req.las else [req.source]
    args.append(req.destination)
    return args


def parse_creation_options(text: str) -> List[str]:
    """GDAL creation options as QGIS's GDAL algorithms write them: NAME=VALUE|NAME=VALUE."""
    return [p.strip() for p in (text or '').split('|') if p.strip()]


def split_extra(text: str) -> List[str]:
    """Extra command-line options, split as a POSIX shell would (quotes group words)."""
    try:
        return shlex.split(text or '')
    except ValueError as e:
        raise ValueError('Additional command-line options %r: %s.' % (text, e)) from e


def compatible_extensions(ogr_extensions: Sequence[str]) -> List[str]:
    """The vector file extensions aidw may read in place: OGR's, less the text formats."""
    return [e.lower() for e in ogr_extensions if e.lower() not in TEXT_EXTENSIONS]


def find_executable(configured: Optional[str], path: Optional[str] = None) -> str:
    """The aidw executable: the configured one, else aidw on PATH.

    Raises FileNotFoundError with a message that says where to set it.
    """
    configured = (configured or '').strip()
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured
        raise FileNotFoundError(
            'The aidw executable set in Processing > Options > Providers > aidw (%s) does not exist '
            'or is not executable.' % configured)
    found = shutil.which('aidw', path=path)
    if found:
        return found
    raise FileNotFoundError(
        'The aidw executable was not found: set its path in Processing > Options > Providers > aidw '
        '> "aidw executable", or put aidw on PATH.')


class ProgressParser:
    """Reads GDAL's terminal progress ("0...10...20...30 ... 100 - done.") as a percentage.

    Each number is a percentage; each dot after one is 2.5 % more. Text that is not progress is
    handed back line by line.
    """
    _DONE = ' - done.'
    _TICKS = tuple(str(p) for p in range(0, 101, 10))

    def __init__(self):
        self._buf = ''
        self._last = None  # last number seen
        self._dots = 0

    def feed(self, text: str) -> Tuple[Optional[float], List[str]]:
        """Consumes text; returns the latest percentage (None if unchanged) and complete lines."""
        self._buf += text
        percent, lines = None, []
        while self._buf:
            buf = self._buf
            m = re.match(r'\d+', buf)
            if m:
                if m.end() == len(buf) and any(
                        t != m.group() and t.startswith(m.group()) for t in self._TICKS):
                    break  # e.g. "1" may become "10" or "100" with the next chunk
                self._last, self._dots = int(m.group()), 0
                self._buf = buf[m.end():]
                percent = self._percent()
            elif buf[0] == '.' and self._last is not None:
                self._dots += 1
                self._buf = buf[1:]
                percent = self._percent()
            elif buf.startswith(self._DONE):
                self._buf = buf[len(self._DONE):].lstrip('\n')
                self._last, self._dots = 100, 0
                percent = 100.0
            elif self._DONE.startswith(buf):
                break  # maybe the start of " - done."
            else:
                line, sep, rest = buf.partition('\n')
                if not sep:
                    break
                self._buf = rest
                if line.strip():
                    lines.append(line.rstrip('\r'))
        return percent, lines

    def flush(self) -> List[str]:
        """Text left without a final newline."""
        rest, self._buf = self._buf.strip(), ''
        return [rest] if rest and not rest.isdigit() else []

    def _percent(self) -> float:
        return min(100.0, self._last + 2.5 * self._dots)


@dataclass
class RunResult:
    returncode: int
    canceled: bool
    error: str  # aidw's ERROR line without the prefix, or '' when it printed none
    stderr: List[str] = field(default_factory=list)

    def message(self) -> str:
        """What went wrong, for the user: aidw's own ERROR line where it gave one."""
        if self.error:
            return 'aidw: ' + self.error
        tail = '\n'.join(self.stderr[-5:])
        return 'aidw exited with code %d%s' % (self.returncode, (':\n' + tail) if tail else '')


def _pump(stream, tag, out: 'queue.Queue'):
    """Copies a pipe into the queue in chunks as they come, then None at the end."""
    try:
        while True:
            chunk = stream.read(4096)
            if not chunk:
                break
            out.put((tag, chunk))
    finally:
        out.put((tag, None))


def run(command: Sequence[str],
        on_progress: Callable[[float], None],
        on_message: Callable[[str, bool], None],
        is_canceled: Callable[[], bool],
        poll_seconds: float = 0.1,
        stop_grace_seconds: float = 10.0,
        env: Optional[dict] = None) -> RunResult:
    """Runs aidw, reporting progress (0-100) and messages (text, is_warning) as they come.

    When is_canceled() turns true, aidw is asked to stop (SIGTERM: it removes its partial
    output) and killed if it has not stopped within stop_grace_seconds.
    """
    kwargs = {}
    if sys.platform == 'win32':
        kwargs['creationflags'] = 0x08000000  # CREATE_NO_WINDOW: no console flashing up
    proc = subprocess.Popen(list(command), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0, env=env, **kwargs)
    chunks: 'queue.Queue' = queue.Queue()
    readers = [threading.Thread(target=_pump, args=(proc.stdout, 'out', chunks), daemon=True),
               threading.Thread(target=_pump, args=(proc.stderr, 'err', chunks), daemon=True)]
    for t in readers:
        t.start()

    progress = ProgressParser()
    decoders = {'out': codecs.getincrementaldecoder('utf-8')('replace'),
                'err': codecs.getincrementaldecoder('utf-8')('replace')}
    err_buf, err_lines, error = '', [], ''
    open_streams, canceled = 2, False

    def stderr_line(line):
        nonlocal error
        line = line.rstrip('\r')
        if not line.strip():
            return
        err_lines.append(line)
        if line.startswith('ERROR:'):
            error = line[len('ERROR:'):].strip()
        else:
            on_message(line, line.lower().startswith('warning'))

    try:
        while open_streams:
            if not canceled and is_canceled():
                canceled = True
                _stop(proc, stop_grace_seconds)
            try:
                tag, chunk = chunks.get(timeout=poll_seconds)
            except queue.Empty:
                continue
            if chunk is None:
                open_streams -= 1
                text = decoders[tag].decode(b'', final=True)
            else:
                text = decoders[tag].decode(chunk)
            if tag == 'out':
                percent, lines = progress.feed(text)
                if percent is not None:
                    on_progress(percent)
                for line in lines:
                    on_message(line, False)
            else:
                err_buf += text
                *complete, err_buf = err_buf.split('\n')
                for line in complete:
                    stderr_line(line)
        for line in progress.flush():
            on_message(line, False)
        stderr_line(err_buf)
        returncode = proc.wait()
    finally:
        if proc.poll() is None:
            _stop(proc, stop_grace_seconds)
        for t in readers:
            t.join(timeout=1)
        proc.stdout.close()
        proc.stderr.close()
    return RunResult(returncode, canceled, error, err_lines)


def _stop(proc: subprocess.Popen, grace_seconds: float):
    proc.terminate()
    try:
        proc.wait(timeout=grace_seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
