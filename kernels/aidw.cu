// aidw.cu is the one translation unit behind the embedded PTX (scripts/gen-ptx.sh): the
// even-grid build, the kNN and per-node kernels, the global weighting, and the papers' own
// kernels that `aidw bench` times (paper.cuh). Kernels take only pointers and 8-byte scalars,
// as gorgonia.org/cu's Launch passes every parameter as 8 bytes.
#include "prim.cuh"
#include "build.cuh"
#include "knn.cuh"
#include "weigh.cuh"
#include "farfield.cuh"
#include "forms.cuh"
#include "paper.cuh"
