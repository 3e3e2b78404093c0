#!/usr/bin/env python3
"""Compares two GeoTIFFs for the device's end-to-end check (scripts/gpu-e2e.sh): same size,
same georeferencing tags and nodata, nodata at the same nodes, and values within a tolerance,
relative (|a-b| <= tol*max(|a|,1)) or, with "abs", absolute. Prints one line; exits 1 on a
mismatch. Needs numpy and tifffile (both on the device image).
Usage: gpu-compare.py NAME A.tif B.tif TOL [abs]"""
import sys

import numpy as np
import tifffile

GEO_TAGS = (33550, 33922, 34264, 34735, 34736, 34737, 42113)  # scale, tiepoint, matrix, geokeys, nodata


def read(path):
    with tifffile.TiffFile(path) as tif:
        page = tif.pages[0]
        tags = {k: page.tags[k].value for k in GEO_TAGS if k in page.tags}
        return page.asarray().astype(np.float64), tags


def main():
    name, pa, pb, tol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    absolute = len(sys.argv) > 5 and sys.argv[5] == "abs"
    a, ta = read(pa)
    b, tb = read(pb)
    problems = []
    if a.shape != b.shape:
        problems.append(f"shapes {a.shape} and {b.shape}")
    elif not absolute and ta != tb:
        problems.append(f"georeferencing differs: {ta} vs {tb}")
    worst = float("nan")
    if a.shape == b.shape:
        nd = float(ta[42113]) if 42113 in ta else None
        ma = np.isnan(a) if nd is None else (a == nd)
        mb = np.isnan(b) if nd is None else (b == nd)
        if (ma != mb).any():
            problems.append(f"{int((ma != mb).sum())} nodes nodata in one only")
        ok = ~(ma | mb)
        d = np.abs(a - b)[ok]
        if not absolute:
            d = d / np.maximum(np.abs(a[ok]), 1)
        worst = float(d.max()) if d.size else 0.0
        if not worst <= tol:
            problems.append(f"max {'absolute' if absolute else 'relative'} difference {worst:.3g} > {tol:g}")
    status = "FAIL" if problems else "ok"
    print(f"{status:4} {name:34} {a.shape[1]}x{a.shape[0]} max diff {worst:.3g} (tol {tol:g})"
          + ("" if not problems else ": " + "; ".join(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
