"""The aidw Processing provider: its algorithms and its setting, the aidw executable."""

import os

from qgis.PyQt.QtGui import QIcon
from qgis.core import QgsProcessingProvider

from processing.core.ProcessingConfig import ProcessingConfig, Setting

from qgis.core import Qgis, QgsMessageLog

from . import aidwcli
from .algorithms import EXECUTABLE_SETTING, AidwGridAlgorithm

ICON = os.path.join(os.path.dirname(__file__), 'icon.svg')


class AidwProvider(QgsProcessingProvider):
    def id(self):
        return 'aidw'

    def name(self):
        return 'aidw'

    def longName(self):
        return 'aidw (adaptive IDW and gdal_grid algorithms)'

    def icon(self):
        return QIcon(ICON)

    def svgIconPath(self):  # noqa: N802 (QGIS's name)
        return ICON

    def load(self):
        # The setting's group is the provider's name: Processing > Options > Providers > aidw.
        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(Setting(
            self.name(), EXECUTABLE_SETTING, self.tr('aidw executable (empty: aidw on PATH)'), '',
            valuetype=Setting.FILE))
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self):
        if EXECUTABLE_SETTING in ProcessingConfig.settings:
            ProcessingConfig.removeSetting(EXECUTABLE_SETTING)

    def loadAlgorithms(self):  # noqa: N802 (QGIS's name)
        # The dialogs' keys, types, defaults, ranges and help are the aidw executable's own
        # (aidw algorithms --json), else those bundled with the plugin.
        catalog, note = aidwcli.load_catalog(ProcessingConfig.getSetting(EXECUTABLE_SETTING))
        if note:
            QgsMessageLog.logMessage(note, 'aidw', Qgis.Info)
        for family in aidwcli.build_families(catalog):
            self.addAlgorithm(AidwGridAlgorithm(family))
