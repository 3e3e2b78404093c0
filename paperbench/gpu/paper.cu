// paper.cu is the translation unit of paperbench's own device module, paper.ptx and
// paper.fatbin (scripts/gen-ptx.sh): the papers' kernels of paper.cuh, apart from the engine's
// module (kernels/aidw.cu), which the papers' even-grid version uses for its grid build and
// kNN on the same device.
#include "paper.cuh"
