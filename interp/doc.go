// Package interp holds the gridding algorithms, each declaring its options in the one registry
// table (registry.go), and the engines' shared contract: given samples, a target raster and a
// parsed algorithm, an engine computes node values block of rows by block of rows. The CPU
// engine is here (an algorithm binds to a problem, computes a node or a span of a row, and may
// hold a sample out for cross-validation); so are Multi, which spreads a problem over several
// engines (the GPUs of a host), and what an algorithm tells a GPU engine (DeviceParams). It
// knows nothing of GDAL or files.
package interp
