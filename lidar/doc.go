// Package lidar reads the ASPRS LAS family, LAS 1.0-1.4 (point formats 0-10) and LAZ, into
// samples, with no GDAL: Debian's GDAL 3.6 has no LAS driver, and GDAL's own point-cloud
// support would copy every point through OGR features. A file is read from a Source (a local
// file or, through gdalio, any of GDAL's virtual file systems) in large chunks decoded on every
// core; the point filters (classes, returns, flags, z range) and the attribute gridded apply
// while decoding, so memory follows the points kept.
package lidar
