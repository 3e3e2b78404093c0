"""The Processing algorithms: one per aidw algorithm family, all running `aidw grid`.

The dialog of each shows only its own family's options (with gdal's grid algorithms' parameter
names where they exist), then what every family shares: the output grid (extent and pixel size,
or a template raster), the data type, the device and, under Advanced, threads, creation
options and extra command-line options.
"""

import os
import shlex

from qgis.PyQt.QtCore import QCoreApplication
from qgis.PyQt.QtGui import QIcon
from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterDistance,
    QgsProcessingParameterEnum,
    QgsProcessingParameterExtent,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterField,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterDestination,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
    QgsRasterFileWriter,
    QgsWkbTypes,
)

from osgeo import gdal
from processing.core.ProcessingConfig import ProcessingConfig

from . import aidwcli

EXECUTABLE_SETTING = 'AIDW_EXECUTABLE'
ICON = os.path.join(os.path.dirname(__file__), 'icon.svg')

COMMON_HELP = (
    '<p><b>Output grid</b>: give an extent and a pixel size (the size is rounded to whole cells '
    'as gdal_grid does; empty extent: the samples\' bounding box; empty pixel size: 256 x 256 '
    'cells), or a template raster, whose size, georeferencing and CRS the output takes (nodes '
    'where the template is NoData stay NoData). The output CRS is the layer\'s, or the '
    'template\'s (samples are transformed into it).</p>'
    '<p><b>Z</b>: from a numeric field, or the points\' Z when no field is chosen.</p>'
    '<p><b>LiDAR</b>: a LAS/LAZ file or a folder of LAS/LAZ tiles is read by aidw itself, '
    'instead of the point layer (the tiles as one point cloud, with the file\'s CRS); the LiDAR '
    'filters (classes, returns, Z range, withheld and overlap points) apply to it.</p>'
    '<p><b>Device</b>: Auto runs on an NVIDIA GPU when aidw was built with CUDA and one '
    'answers, else on all CPU cores.</p>'
    '<p>Layers aidw cannot read as a file (memory, delimited text, database, filtered layers '
    'or selected features) are first written to a temporary GeoPackage. The aidw executable '
    'is set in Processing &gt; Options &gt; Providers &gt; aidw, or found on PATH.</p>')

DEVICE_LABELS = ('Auto (GPU when available, else CPU)', 'CPU', 'GPU')


def ogr_extensions():
    """The file extensions of every vector format GDAL reads (aidw reads them all)."""
    extensions = set()
    for i in range(gdal.GetDriverCount()):
        driver = gdal.GetDriver(i)
        if driver.GetMetadataItem(gdal.DCAP_VECTOR) == 'YES':
            extensions.update((driver.GetMetadataItem(gdal.DMD_EXTENSIONS) or '').split())
    return sorted(extensions)


def tr(text):
    return QCoreApplication.translate('aidw', text)


def _is_set(parameters, name):
    value = parameters.get(name)
    return value is not None and value != ''


class AidwGridAlgorithm(QgsProcessingAlgorithm):
    INPUT = 'INPUT'
    LAS_FILE = 'LAS_FILE'
    LAS_FOLDER = 'LAS_FOLDER'
    CLASSES = 'CLASSES'
    RETURNS = 'RETURNS'
    Z_MIN = 'Z_MIN'
    Z_MAX = 'Z_MAX'
    DROP_WITHHELD = 'DROP_WITHHELD'
    DROP_OVERLAP = 'DROP_OVERLAP'
    Z_FIELD = 'Z_FIELD'
    EXTENT = 'EXTENT'
    PIXEL_SIZE = 'PIXEL_SIZE'
    TEMPLATE = 'TEMPLATE'
    DATA_TYPE = 'DATA_TYPE'
    DEVICE = 'DEVICE'
    THREADS = 'THREADS'
    OPTIONS = 'OPTIONS'
    EXTRA = 'EXTRA'
    OUTPUT = 'OUTPUT'

    def __init__(self, family):
        super().__init__()
        self.family = family

    def createInstance(self):  # noqa: N802 (QGIS's name)
        return AidwGridAlgorithm(self.family)

    def name(self):
        return self.family.id

    def displayName(self):  # noqa: N802
        return tr(self.family.display_name)

    def group(self):
        return tr('Interpolation')

    def groupId(self):  # noqa: N802
        return 'interpolation'

    def icon(self):
        return QIcon(ICON)

    def shortDescription(self):  # noqa: N802
        return tr(aidwcli.short_description(self.family.help))

    def helpUrl(self):  # noqa: N802
        return self.family.help_url

    def shortHelpString(self):  # noqa: N802
        return '<p>%s</p><p>%s</p>%s' % (tr(self.family.help), tr(self.family.engines), tr(COMMON_HELP))

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterFeatureSource(
            self.INPUT, tr('Point layer'), [QgsProcessing.TypeVectorPoint], optional=True))
        las_file = QgsProcessingParameterFile(
            self.LAS_FILE, tr('LAS/LAZ point cloud (instead of the point layer)'),
            QgsProcessingParameterFile.File, fileFilter=tr('LAS/LAZ point clouds (*.las *.laz *.LAS *.LAZ)'),
            optional=True)
        las_file.setHelp(tr('Read by aidw itself, with its CRS; the LiDAR filters apply to it.'))
        self.addParameter(las_file)
        self.addParameter(QgsProcessingParameterFile(
            self.LAS_FOLDER, tr('Folder of LAS/LAZ tiles (instead of the point layer)'),
            QgsProcessingParameterFile.Folder, optional=True))
        self.addParameter(QgsProcessingParameterField(
            self.Z_FIELD, tr('Z value from field (empty: the points\' Z)'), None, self.INPUT,
            QgsProcessingParameterField.Numeric, optional=True))
        if len(self.family.methods) > 1:
            self.addParameter(QgsProcessingParameterEnum(
                aidwcli.METRIC_PARAM, tr('Metric'), [tr(m) for m in self.family.method_labels],
                defaultValue=0))
        advanced = []
        for option in aidwcli.family_options(self.family):
            param = self._option_parameter(option)
            if option.advanced:
                advanced.append(param)
            else:
                self.addParameter(param)

        self.addParameter(QgsProcessingParameterExtent(
            self.EXTENT, tr('Output extent (empty: the samples\' bounding box)'), optional=True))
        pixel = QgsProcessingParameterDistance(
            self.PIXEL_SIZE, tr('Pixel size (empty: 256 x 256 cells)'), None, self.INPUT,
            optional=True, minValue=0.0)
        pixel.setHelp(tr('Square cells, in the units of the layer\'s CRS. The extent is kept and '
                         'the size rounded to whole cells, as gdal_grid -tr.'))
        self.addParameter(pixel)
        template = QgsProcessingParameterRasterLayer(
            self.TEMPLATE, tr('Template raster (instead of extent and pixel size)'), optional=True)
        template.setHelp(tr('aidw -like: the output takes the template\'s size, georeferencing and '
                            'CRS; nodes where its first band is NoData are not computed.'))
        self.addParameter(template)
        self.addParameter(QgsProcessingParameterEnum(
            self.DATA_TYPE, tr('Output data type'), list(aidwcli.DATA_TYPES),
            defaultValue=aidwcli.DATA_TYPES.index(aidwcli.DEFAULT_DATA_TYPE)))
        self.addParameter(QgsProcessingParameterEnum(
            self.DEVICE, tr('Device'), [tr(d) for d in DEVICE_LABELS], defaultValue=0))

        classes = QgsProcessingParameterString(
            self.CLASSES, tr('LiDAR: classification codes to keep (e.g. 2 for ground; empty: all)'),
            defaultValue=None, optional=True)
        classes.setHelp(tr('Comma-separated LAS classification codes (aidw -class).'))
        self._add_advanced(classes)
        self._add_advanced(QgsProcessingParameterEnum(
            self.RETURNS, tr('LiDAR: returns to keep'), [tr(r) for r in aidwcli.RETURNS], defaultValue=0))
        for name, label in ((self.Z_MIN, 'LiDAR: lowest Z kept (with the highest)'),
                            (self.Z_MAX, 'LiDAR: highest Z kept (with the lowest)')):
            self._add_advanced(QgsProcessingParameterNumber(
                name, tr(label), QgsProcessingParameterNumber.Double, defaultValue=None, optional=True))
        self._add_advanced(QgsProcessingParameterBoolean(
            self.DROP_WITHHELD, tr('LiDAR: drop withheld points'), defaultValue=False))
        self._add_advanced(QgsProcessingParameterBoolean(
            self.DROP_OVERLAP, tr('LiDAR: drop overlap points'), defaultValue=False))
        for param in advanced:
            self._add_advanced(param)
        self._add_advanced(QgsProcessingParameterNumber(
            self.THREADS, tr('CPU threads (0: all cores)'), QgsProcessingParameterNumber.Integer,
            defaultValue=0, minValue=0))
        options = QgsProcessingParameterString(
            self.OPTIONS, tr('Additional creation options'), defaultValue='', optional=True)
        options.setMetadata({'widget_wrapper': {
            'class': 'processing.algs.gdal.ui.RasterOptionsWidget.RasterOptionsWidgetWrapper'}})
        self._add_advanced(options)
        extra = QgsProcessingParameterString(
            self.EXTRA, tr('Additional command-line options'), defaultValue=None, optional=True)
        extra.setHelp(tr('Appended to the aidw grid command line, e.g. -where "class = 2" '
                         '-z_multiply 0.3048.'))
        self._add_advanced(extra)
        self.addParameter(QgsProcessingParameterRasterDestination(
            self.OUTPUT, tr(self.family.output_label)))

    def _add_advanced(self, param):
        param.setFlags(param.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
        self.addParameter(param)

    @staticmethod
    def _option_parameter(option):
        if option.kind == 'bool':
            param = QgsProcessingParameterBoolean(option.param, tr(option.label),
                                                  defaultValue=bool(option.default))
        elif option.kind == 'list':
            param = QgsProcessingParameterString(option.param, tr(option.label),
                                                 defaultValue=option.default,
                                                 optional=option.default is None)
        else:
            kind = (QgsProcessingParameterNumber.Integer if option.kind == 'int'
                    else QgsProcessingParameterNumber.Double)
            bounds = {}
            if option.minimum is not None:
                bounds['minValue'] = option.minimum
            if option.maximum is not None:
                bounds['maxValue'] = option.maximum
            param = QgsProcessingParameterNumber(option.param, tr(option.label), kind,
                                                 defaultValue=option.default,
                                                 optional=option.default is None, **bounds)
        if option.help:
            param.setHelp(tr(option.help))
        return param

    def checkParameterValues(self, parameters, context):  # noqa: N802
        ok, message = super().checkParameterValues(parameters, context)
        if ok and not (_is_set(parameters, self.INPUT) or _is_set(parameters, self.LAS_FILE)
                       or _is_set(parameters, self.LAS_FOLDER)):
            return False, tr('Choose a point layer, or a LAS/LAZ file or folder of tiles.')
        if ok and _is_set(parameters, self.Z_MIN) != _is_set(parameters, self.Z_MAX):
            return False, tr('The LiDAR Z range needs both the lowest and the highest Z.')
        if ok and _is_set(parameters, self.TEMPLATE) and (
                _is_set(parameters, self.EXTENT) or _is_set(parameters, self.PIXEL_SIZE)):
            return False, tr('A template raster gives the extent and pixel size: leave the '
                             'output extent and pixel size empty, or the template.')
        return ok, message

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        feedback = feedback or QgsProcessingFeedback()
        try:
            executable = aidwcli.find_executable(ProcessingConfig.getSetting(EXECUTABLE_SETTING))
        except FileNotFoundError as e:
            raise QgsProcessingException(str(e)) from e

        las = aidwcli.las_inputs(self.parameterAsFile(parameters, self.LAS_FILE, context),
                                 self.parameterAsFile(parameters, self.LAS_FOLDER, context))
        source = None
        if not las:
            source = self.parameterAsSource(parameters, self.INPUT, context)
            if source is None:
                raise QgsProcessingException(self.invalidSourceError(parameters, self.INPUT))
        method = self.family.methods[0]
        if len(self.family.methods) > 1:
            method = self.family.methods[self.parameterAsEnum(parameters, aidwcli.METRIC_PARAM, context)]
        zfields = [] if las else self.parameterAsFields(parameters, self.Z_FIELD, context)
        zfield = zfields[0] if zfields else ''
        if source is not None and not zfield and aidwcli.needs_z(method) and not QgsWkbTypes.hasZ(source.wkbType()):
            # A warning, not an error: some sources (OGR VRT) declare 2D points that carry Z.
            feedback.pushWarning(tr('No Z value field is chosen and the layer\'s type has no Z: '
                                    'points without Z count as 0.'))

        values = {o.param: self._option_value(parameters, o, context)
                  for o in aidwcli.family_options(self.family)}
        template = self._template_path(parameters, context)
        request = aidwcli.GridRequest(
            algorithm=aidwcli.algorithm_string(method, self.family, values),
            source='', destination=self.parameterAsOutputLayer(parameters, self.OUTPUT, context),
            zfield=zfield, template=template,
            extent=self._extent(parameters, context, source.sourceCrs() if source is not None else None),
            pixel_size=(self.parameterAsDouble(parameters, self.PIXEL_SIZE, context)
                        if _is_set(parameters, self.PIXEL_SIZE) else None),
            srs='' if template or source is None else self._srs(source.sourceCrs()),
            data_type=aidwcli.DATA_TYPES[self.parameterAsEnum(parameters, self.DATA_TYPE, context)],
            creation_options=aidwcli.parse_creation_options(
                self.parameterAsString(parameters, self.OPTIONS, context)),
            device=aidwcli.DEVICES[self.parameterAsEnum(parameters, self.DEVICE, context)],
            threads=self.parameterAsInt(parameters, self.THREADS, context),
            las=las)
        request.output_format = QgsRasterFileWriter.driverForExtension(
            os.path.splitext(request.destination)[1])
        try:
            request.extra = aidwcli.split_extra(self.parameterAsString(parameters, self.EXTRA, context))
            if las:
                request.lidar = self._lidar_filter(parameters, context)
            aidwcli.grid_arguments(request)  # refuse a bad request before exporting the layer
        except ValueError as e:
            raise QgsProcessingException(str(e)) from e

        if not las:
            request.source, request.layer = self.parameterAsCompatibleSourceLayerPathAndLayerName(
                parameters, self.INPUT, context,
                aidwcli.compatible_extensions(ogr_extensions()),
                'gpkg', feedback)
        command = [executable] + aidwcli.grid_arguments(request)
        feedback.pushCommandInfo(' '.join(shlex.quote(a) for a in command))

        result = aidwcli.run(
            command, feedback.setProgress,
            lambda text, warning: feedback.pushWarning(text) if warning else feedback.pushInfo(text),
            feedback.isCanceled)
        if result.canceled:
            raise QgsProcessingException(tr('Canceled: aidw was stopped and wrote no output.'))
        if result.returncode != 0:
            raise QgsProcessingException(result.message())
        return {self.OUTPUT: request.destination}

    def _lidar_filter(self, parameters, context):
        zrange = None
        if _is_set(parameters, self.Z_MIN) and _is_set(parameters, self.Z_MAX):
            zrange = (self.parameterAsDouble(parameters, self.Z_MIN, context),
                      self.parameterAsDouble(parameters, self.Z_MAX, context))
        return aidwcli.LidarFilter(
            classes=aidwcli.parse_classes(self.parameterAsString(parameters, self.CLASSES, context)),
            returns=aidwcli.RETURNS[self.parameterAsEnum(parameters, self.RETURNS, context)],
            zrange=zrange,
            drop_withheld=self.parameterAsBool(parameters, self.DROP_WITHHELD, context),
            drop_overlap=self.parameterAsBool(parameters, self.DROP_OVERLAP, context))

    def _option_value(self, parameters, option, context):
        if option.default is None and not _is_set(parameters, option.param):
            return None
        if option.kind == 'bool':
            return self.parameterAsBool(parameters, option.param, context)
        if option.kind == 'list':
            return self.parameterAsString(parameters, option.param, context)
        if option.kind == 'int':
            return self.parameterAsInt(parameters, option.param, context)
        return self.parameterAsDouble(parameters, option.param, context)

    def _template_path(self, parameters, context):
        if not _is_set(parameters, self.TEMPLATE):
            return ''
        layer = self.parameterAsRasterLayer(parameters, self.TEMPLATE, context)
        if layer is None:
            raise QgsProcessingException(self.invalidRasterError(parameters, self.TEMPLATE))
        if layer.providerType() != 'gdal':
            raise QgsProcessingException(
                tr('The template raster must be a file GDAL reads, not a %s layer.') % layer.providerType())
        return layer.source()

    def _extent(self, parameters, context, crs):
        """The extent in crs (the layer's), or as given (LAS input, whose CRS QGIS does not know)."""
        if not _is_set(parameters, self.EXTENT):
            return None
        if crs is None:
            r = self.parameterAsExtent(parameters, self.EXTENT, context)
        else:
            r = self.parameterAsExtent(parameters, self.EXTENT, context, crs)
        return (r.xMinimum(), r.yMinimum(), r.xMaximum(), r.yMaximum())

    @staticmethod
    def _srs(crs):
        """The layer's CRS for -a_srs: QGIS's view of it wins over what the file says."""
        if not crs.isValid():
            return ''
        if crs.authid().upper().startswith('EPSG:'):
            return crs.authid()
        return crs.toWkt(QgsCoordinateReferenceSystem.WKT_PREFERRED_GDAL)
