// Package report draws what aidw shows a person besides the raster: a hillshaded quick look
// of a band as it streams out (-preview), and the predicted-against-observed plot of
// cross-validation. It needs no GDAL: PNGs are drawn in Go.
package report
