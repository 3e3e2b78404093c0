// Package gdalio is aidw's boundary with GDAL. It holds the readers of samples, a table by
// format (source.go: the LAS family through the lidar package, delimited text by a parallel
// parser of its own, anything else through OGR), each claiming paths, passing its samples
// through the one shared filter (-spat, -clipsrc, the z transform) and yielding them in
// batches (ScanSources) that reading collects (ReadSources, ReadInputs); the clip geometry and
// CRSs; GDAL's virtual file systems as ranged-read files; the target grid and mask of a
// template raster; and the output raster, written block of rows by block of rows into a
// temporary dataset renamed into place on success. It is the only package that uses GDAL.
package gdalio
