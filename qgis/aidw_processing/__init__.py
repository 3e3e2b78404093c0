"""QGIS plugin aidw_processing: the aidw Processing provider."""


def classFactory(iface):  # noqa: N802 (QGIS's name)
    from .plugin import AidwPlugin
    return AidwPlugin(iface)
