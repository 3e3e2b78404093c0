/*
 * cudacompat/cuda.h lets gorgonia.org/cu v0.9.6 build against the cuda.h of CUDA 13.
 *
 * CUDA 13's cuda.h maps a few driver-API names to new entry points whose signatures differ from
 * the ones cu was written for. cu calls five of them: cuCtxCreate (-> _v4), cuMemAdvise,
 * cuMemPrefetchAsync, cuGraphAddDependencies and cuGraphGetEdges (each -> _v2). libcuda still
 * exports the legacy entry points, so this header includes the real cuda.h, drops those
 * mappings and declares the legacy prototypes. Put this directory before the toolkit's include
 * directory:
 *   CGO_CFLAGS="-I$PWD/kernels/cudacompat -I/usr/local/cuda/include"
 * With an older toolkit (CUDA 12 and before) the real header already has these declarations and
 * this one changes nothing.
 */
#ifndef AIDW_CUDACOMPAT_CUDA_H
#define AIDW_CUDACOMPAT_CUDA_H

#include_next <cuda.h>

#if CUDA_VERSION >= 13000
#ifdef __cplusplus
extern "C" {
#endif

#undef cuCtxCreate
#define cuCtxCreate cuCtxCreate_v2
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);

#undef cuMemAdvise
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);

#undef cuMemPrefetchAsync
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);

#undef cuGraphAddDependencies
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies);

#undef cuGraphGetEdges
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges);

#ifdef __cplusplus
}
#endif
#endif /* CUDA_VERSION >= 13000 */

#endif /* AIDW_CUDACOMPAT_CUDA_H */
