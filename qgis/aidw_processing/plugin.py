"""The plugin object QGIS loads: it registers the aidw Processing provider, in the desktop
application (initGui) and in qgis_process (initProcessing) alike."""

from qgis.core import QgsApplication

from .provider import AidwProvider


class AidwPlugin:
    def __init__(self, iface):
        self.iface = iface
        self.provider = None

    def initProcessing(self):  # noqa: N802 (QGIS's name)
        if self.provider is None:
            self.provider = AidwProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self):  # noqa: N802 (QGIS's name)
        self.initProcessing()

    def unload(self):
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
