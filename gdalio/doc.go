// Package gdalio does every read and write of files for aidw: samples from OGR vector sources
// (through GDAL), from delimited text (a parallel parser of its own) and from LAS point clouds;
// the target grid and mask of a template raster; CRS transformation of samples; and the output
// raster, written row block by row block into a temporary dataset that is renamed into place
// on success. It is, with main, the only package that uses GDAL.
package gdalio
