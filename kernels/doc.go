// Package kernels is the GPU engine (build tag cuda): CUDA kernels for the even-grid build
// (bounding box, cell keys, a stable LSD radix sort, reduce-by-key and scan), the exact kNN by
// ring expansion, and AIDW/IDW weighting over all samples or a neighbourhood, in float32 and
// float64, driven from Go through gorgonia.org/cu behind the interp.Engine interface.
//
// The kernels' sources are aidw.cu and the *.cuh it includes; aidw.ptx, generated from them by
// scripts/gen-ptx.sh, is embedded in the cuda build, and ptx.sum records the sources it came
// from so that a test (which needs no GPU) catches a stale PTX. AIDW_PTX=/path/to/file.ptx
// loads another PTX instead of the embedded one.
package kernels
