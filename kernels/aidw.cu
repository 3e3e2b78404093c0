// aidw.cu is the one translation unit behind the engine's embedded PTX and fatbin
// (scripts/gen-ptx.sh): the even-grid build, the kNN and per-node kernels, the global
// weighting, the far field and gdal_grid's forms, what `aidw grid` runs (the papers' kernels
// are paperbench/gpu's module). Kernels take only pointers and 8-byte scalars, as
// kernels/cuda's launch passes every parameter as 8 bytes.
#include "prim.cuh"
#include "build.cuh"
#include "knn.cuh"
#include "weigh.cuh"
#include "farfield.cuh"
#include "forms.cuh"
