#!/usr/bin/env bash
# Builds the QGIS plugin zip out/aidw_processing-<version>.zip from qgis/aidw_processing
# (install it with Plugins > Manage and Install Plugins > Install from ZIP). Prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version=//p' qgis/aidw_processing/metadata.txt)
mkdir -p out
zip="out/aidw_processing-${version}.zip"
python3 - "$zip" <<'PY'
import os, sys, zipfile
dst = sys.argv[1]
with zipfile.ZipFile(dst + '.tmp', 'w', zipfile.ZIP_DEFLATED) as z:
    for root, dirs, files in os.walk('qgis/aidw_processing'):
        dirs[:] = sorted(d for d in dirs if d != '__pycache__')
        for f in sorted(files):
            if f.endswith('.pyc'):
                continue
            path = os.path.join(root, f)
            z.write(path, os.path.relpath(path, 'qgis'))
os.replace(dst + '.tmp', dst)
PY
echo "$zip"
