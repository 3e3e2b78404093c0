// Package interp holds the gridding algorithms, the CPU engine and the Engine interface that a GPU
// engine implements too: given samples, a target raster and a parsed algorithm, it computes node
// values block of rows by block of rows. It knows nothing of GDAL or files.
package interp
