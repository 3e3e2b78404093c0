#!/usr/bin/env python3
"""Regenerates testdata/n43_samples.csv: 2,500 samples drawn from the cell centres of GDAL's
n43.tif DEM (testdata/gdal/n43.csv), clustered like field survey data (two thirds in three
blobs, the rest uniform). Seeded, so it gives the same file every time."""
import csv, math, os, random

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "testdata", "gdal", "n43.csv")
dst = os.path.join(here, "..", "testdata", "n43_samples.csv")
rows = [tuple(map(float, r)) for r in csv.reader(open(src))]
rng = random.Random(43)
centres = [(-79.75, 43.75), (-79.3, 43.3), (-79.2, 43.85)]
picked = set()
while len(picked) < 2500:
    if rng.random() < 2 / 3:
        cx, cy = rng.choice(centres)
        x, y = rng.gauss(cx, 0.08), rng.gauss(cy, 0.08)
    else:
        x, y = rng.uniform(-80.0, -79.0), rng.uniform(43.0, 44.0)
    col, row = round((x + 80.0) / (1 / 120)), round((44.0 - y) / (1 / 120))
    if 0 <= col < 121 and 0 <= row < 121:
        picked.add(row * 121 + col)
with open(dst, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["x", "y", "elevation"])
    for i in sorted(picked):
        x, y, z = rows[i]
        w.writerow([f"{x:.6f}", f"{y:.6f}", f"{z:g}"])
