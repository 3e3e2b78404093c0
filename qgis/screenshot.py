"""Saves a picture of the aidw:aidw Processing dialog, as QGIS shows it, for the README.

Run by scripts/qgis-screenshot.sh under Xvfb with Debian's python3:
  screenshot.py <folder holding aidw_processing> <testdata folder> <output.png>
The dialog opens on testdata/n43_samples.csv loaded as a delimited-text layer, with the
elevation field and n43.tif as the template, as a user would fill it in.
"""

import os
import sys

from qgis.core import QgsApplication, QgsProject, QgsRasterLayer, QgsVectorLayer
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtWidgets import QApplication, QLineEdit

plugin_dir, testdata, png = sys.argv[1:4]

app = QgsApplication([], True)
app.initQgis()
sys.path.append('/usr/share/qgis/python/plugins')
from processing.core.Processing import Processing  # noqa: E402
from processing.gui.AlgorithmDialog import AlgorithmDialog  # noqa: E402

Processing.initialize()
sys.path.insert(0, plugin_dir)
import aidw_processing  # noqa: E402

plugin = aidw_processing.classFactory(None)
plugin.initProcessing()

samples = QgsVectorLayer(
    'file://%s?type=csv&xField=x&yField=y&crs=EPSG:4326&detectTypes=yes'
    % os.path.join(testdata, 'n43_samples.csv'), 'n43_samples', 'delimitedtext')
dem = QgsRasterLayer(os.path.join(testdata, 'gdal', 'n43.tif'), 'n43')
assert samples.isValid() and dem.isValid()
QgsProject.instance().addMapLayers([samples, dem])

alg = QgsApplication.processingRegistry().createAlgorithmById('aidw:aidw')
dialog = AlgorithmDialog(alg)
dialog.setParameters({'INPUT': samples.id(), 'Z_FIELD': 'elevation', 'TEMPLATE': dem.id()})
dialog.resize(QSize(1100, 1120))
dialog.show()
for _ in range(20):
    QApplication.processEvents()
for line_edit in dialog.findChildren(QLineEdit):
    line_edit.deselect()  # the extent widget selects its 'Not set'
QApplication.processEvents()
if not dialog.grab().save(png):
    sys.exit('could not write ' + png)
print('wrote', png)
dialog.close()
plugin.unload()
app.exitQgis()
