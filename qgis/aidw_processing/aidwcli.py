"""The aidw command line as the Processing provider drives it, without QGIS.

Everything here is plain Python so that it can be unit-tested without a QGIS install: the
algorithm families and their options, the `-a` string, the `aidw grid` argument list, the
GDAL-style progress parser, the lookup of the aidw executable and the subprocess runner that
reports progress, relays messages and stops aidw when the user cancels.
"""

import codecs
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


@dataclass(frozen=True)
class Option:
    """One key of an algorithm string and the Processing parameter that sets it."""
    key: str  # the key in aidw's -a string
    param: str  # the Processing parameter name (gdal's grid algorithms' names where they exist)
    label: str
    kind: str  # 'int', 'double' or 'list' (comma-separated numbers)
    default: object = None  # None: optional; the key is written only when set
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    advanced: bool = False
    help: str = ''
    only_if_positive: bool = False  # gdal's per-quadrant keys switch a search mode on when >= 1


@dataclass(frozen=True)
class Family:
    """One Processing algorithm: one aidw algorithm, or (data metrics) several chosen by a list."""
    id: str
    display_name: str
    methods: Tuple[str, ...]
    method_labels: Tuple[str, ...]
    options: Tuple[Option, ...]
    output_label: str
    help: str


def _radius1():
    return Option('radius1', 'RADIUS_1', 'First radius of the search ellipse (X axis when angle is 0)',
                  'double', 0.0, minimum=0.0,
                  help='0 searches every sample. In the units of the layer (or template) CRS.')


def _radius2():
    return Option('radius2', 'RADIUS_2', 'Second radius of the search ellipse (Y axis when angle is 0)',
                  'double', 0.0, minimum=0.0, help='0 searches every sample.')


def _angle():
    return Option('angle', 'ANGLE', 'Angle of the search ellipse (degrees, counter-clockwise)',
                  'double', 0.0, minimum=0.0, maximum=360.0)


def _min_points(default=0):
    return Option('min_points', 'MIN_POINTS', 'Minimum number of samples (fewer gives NoData)',
                  'int', default, minimum=0)


def _quadrant_options():
    return (
        Option('min_points_per_quadrant', 'MIN_POINTS_PER_QUADRANT',
               'Minimum number of samples per quadrant (0: no quadrant search)', 'int', 0,
               minimum=0, advanced=True, only_if_positive=True),
        Option('max_points_per_quadrant', 'MAX_POINTS_PER_QUADRANT',
               'Maximum number of samples per quadrant (0: no quadrant search)', 'int', 0,
               minimum=0, advanced=True, only_if_positive=True),
    )


NODATA = Option('nodata', 'NODATA', 'NoData value (empty: none is set; nodes without samples get 0)',
                'double', None,
                help='Written into the algorithm string and set as the band\'s NoData value.')

METRIC_PARAM = 'METRIC'

FAMILIES = (
    Family(
        'aidw', 'Grid (adaptive IDW)', ('aidw',), ('Adaptive IDW',),
        (
            Option('k', 'K', 'Nearest samples that measure the local density (k)', 'int', 15, minimum=1,
                   help='r_obs is the mean distance from a node to its k nearest samples.'),
            Option('alphas', 'ALPHAS', 'Power levels a1..a5 (five comma-separated numbers)', 'list',
                   '1.5,2,2.5,3,3.5',
                   help='The power ramps from a1 (clustered samples) to a5 (dispersed samples).'),
            Option('rmin', 'RMIN', 'R at which the density index mu is 0 (rmin)', 'double', 0.0),
            Option('rmax', 'RMAX', 'R at which the density index mu is 1 (rmax)', 'double', 2.0),
            Option('area', 'AREA', 'Study area for the expected distance (empty: samples\' bounding box)',
                   'double', None, minimum=0.0, advanced=True,
                   help='In squared CRS units.'),
            Option('max_points', 'MAX_POINTS', 'Maximum number of samples weighed (0: all samples)',
                   'int', 0, minimum=0),
            Option('radius', 'RADIUS', 'Search radius of the weighed samples (0: unbounded)',
                   'double', 0.0, minimum=0.0),
            _min_points(),
        ),
        'Interpolated (adaptive IDW)',
        'Adaptive inverse distance weighting (Lu & Wong 2008): the power of the weights adapts '
        'at each node to how clustered the samples around it are. The mean distance to the k '
        'nearest samples against the distance expected of randomly spread samples gives the '
        'statistic R, mapped by a cosine ramp between rmin and rmax onto mu in [0, 1], and mu onto '
        'the power through the five levels a1..a5. With max_points or radius only the nearest '
        'samples are weighed (much faster on large surveys); otherwise every sample is.'),
    Family(
        'invdist', 'Grid (inverse distance to a power)', ('invdist',), ('Inverse distance to a power',),
        (
            Option('power', 'POWER', 'Weighting power', 'double', 2.0, minimum=0.0, maximum=100.0),
            Option('smoothing', 'SMOOTHING', 'Smoothing', 'double', 0.0, minimum=0.0),
            _radius1(), _radius2(), _angle(),
            Option('max_points', 'MAX_POINTS', 'Maximum number of samples (0: all)', 'int', 0, minimum=0),
            _min_points(),
        ),
        'Interpolated (IDW)',
        'Inverse distance to a power, as gdal_grid\'s invdist (same keys and defaults), computed in '
        'double precision.'),
    Family(
        'invdistnn', 'Grid (IDW with nearest neighbor searching)', ('invdistnn',),
        ('IDW with nearest neighbor searching',),
        (
            Option('power', 'POWER', 'Weighting power', 'double', 2.0, minimum=0.0, maximum=100.0),
            Option('smoothing', 'SMOOTHING', 'Smoothing', 'double', 0.0, minimum=0.0),
            Option('radius', 'RADIUS', 'Radius of the search circle', 'double', 1.0, minimum=0.0),
            Option('max_points', 'MAX_POINTS', 'Maximum number of samples', 'int', 12, minimum=0),
            _min_points(),
        ) + _quadrant_options(),
        'Interpolated (IDW with NN search)',
        'Inverse distance to a power over the nearest samples within a radius, as gdal_grid\'s '
        'invdistnn.'),
    Family(
        'nearest', 'Grid (nearest neighbor)', ('nearest',), ('Nearest neighbor',),
        (_radius1(), _radius2(), _angle()),
        'Interpolated (nearest neighbor)',
        'The value of the nearest sample, as gdal_grid\'s nearest.'),
    Family(
        'average', 'Grid (moving average)', ('average',), ('Moving average',),
        (
            _radius1(), _radius2(), _angle(), _min_points(),
            Option('max_points', 'MAX_POINTS', 'Maximum number of samples (with a quadrant search)',
                   'int', 0, minimum=0, advanced=True, only_if_positive=True),
        ) + _quadrant_options(),
        'Interpolated (moving average)',
        'The mean of the samples in the search ellipse, as gdal_grid\'s average.'),
    Family(
        'datametrics', 'Grid (data metrics)',
        ('minimum', 'maximum', 'range', 'count', 'average_distance', 'average_distance_pts'),
        ('Minimum', 'Maximum', 'Range', 'Count', 'Average distance', 'Average distance between points'),
        (_radius1(), _radius2(), _angle(), _min_points()) + _quadrant_options(),
        'Interpolated (data metrics)',
        'A statistic of the samples in the search ellipse, as gdal_grid\'s data metrics: minimum, '
        'maximum, range, count, mean distance from the node, mean distance between the samples.'),
    Family(
        'linear', 'Grid (linear)', ('linear',), ('Linear',),
        (
            Option('radius', 'RADIUS', 'Search distance outside the triangulation (-1: unbounded, 0: NoData)',
                   'double', -1.0, minimum=-1.0),
        ),
        'Interpolated (linear)',
        'Linear interpolation on the Delaunay triangulation of the samples, as gdal_grid\'s linear; '
        'outside the triangulation, the nearest sample within the search distance.'),
)

FAMILIES_BY_ID = {f.id: f for f in FAMILIES}


def family_options(family: Family) -> Tuple[Option, ...]:
    """The family's options followed by NoData, which every algorithm has."""
    return family.options + (NODATA,)


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


def _format_value(option: Option, value) -> str:
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

    args = ['grid', '-a', req.algorithm]
    if req.layer:
        args += ['-l', req.layer]
    if req.zfield:
        args += ['-zfield', req.zfield]
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
    args += [req.source, req.destination]
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
