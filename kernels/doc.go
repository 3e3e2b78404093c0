// Package kernels is the GPU engine (build tag cuda): CUDA kernels for the even-grid build
// (bounding box, cell keys, a stable LSD radix sort, reduce-by-key and scan), the exact kNN by
// ring expansion, and AIDW/IDW weighting over all samples or a neighbourhood, in float32 and
// float64, or by far field (a treecode the device builds, farfield.cuh, to 1e-6), driven from
// Go through kernels/cuda (its own small binding to the CUDA driver API) behind the
// interp.Engine interface.
//
// The engine knows no algorithm by name: an algorithm a device can run implements
// interp.DeviceAlgorithm, and the engine reads only its interp.DeviceParams (form, k,
// max_points, radius, powers, study area, exact-hit distance, nodata, min_points), which it maps
// onto the kernels' Problem (problem.go); Engine.WhyNot says why an algorithm does not run here.
//
// Layout: shapes.go holds the constants Go and CUDA share (block shapes, NEAR_CORR, MaxK and
// the compiled neighbour-list sizes, the float32 weighting variants), checked against the
// sources' #defines and kernel instantiations by tests that need no GPU (defines_test.go,
// problem_test.go; weighting_test.go checks the mapping onto the Problem); launch.go has one
// typed launcher per kernel; build.go the grid build, nodes.go the per-node and weighting
// kernels in chunks, far.go and far_cuda.go the far field (when it runs, its tree), forms.go
// and forms_cuda.go gdal_grid's forms (forms.cuh), quadtree_cuda.go gdal's quadtree order that
// their ties need, built on the device, engine.go the interp.Engine; export.go what the papers'
// experiments (paperbench/gpu) use of the engine's kernels. The device, buffers, launches and
// timelines are package kernels/cuda, shared with paperbench/gpu.
//
// The kernels' sources are aidw.cu and the *.cuh it includes, only what `aidw grid` runs (the
// papers' own kernels are paperbench/gpu's module); aidw.fatbin (machine code for sm_80, sm_90
// and sm_100) and aidw.ptx, generated from them by scripts/gen-ptx.sh, are embedded in the cuda
// build, which loads the fatbin and falls back to the PTX, and ptx.sum records the sources they
// came from so that a test (which needs no GPU) catches stale device code. AIDW_PTX=/path/to/file
// loads another PTX, cubin or fatbin instead of the embedded ones; AIDW_GPU_TIMES=1 prints each
// problem's phases (index, nodes, gdal's quadtree order).
package kernels
