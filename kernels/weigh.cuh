// weigh.cuh: the global weighting, every sample for every node (the papers' form), after
// node_prep has given each node its power constants and exact hit; and the brute-force kNN
// that is the yardstick of the grid's kNN.
//
// Weights are 2^(c*log2(d2) + c0), relative to the nearest sample's, so they never overflow
// whatever the power. Samples are split among gridDim.y blocks per node tile; each writes its
// partial sums and weigh_finish adds them in a fixed order: no atomics, repeated runs agree bit
// for bit.
#pragma once
#include "knn.cuh"

// ---- float32 --------------------------------------------------------------------------------
// Per pair: 7 FP32 operations and two MUFU ones (lg2, ex2). At 16 MUFU results per clock per
// SM the MUFU pipe is the limit, so the ex2 of NPOLY of a thread's NPT nodes is a polynomial on
// the FMA pipe instead (ex2_poly), balancing the two pipes.

__device__ __forceinline__ float lg2_approx(float x) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float ex2_approx(float x) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// ex2_poly is 2^t for t <= 127 within about 2e-7 relative, with no MUFU operation: t is
// clamped at -125 (weights below 2^-125 of the nearest's do not matter), split into an integer
// j (rounded by the 1.5*2^23 shift) and f in [-1/2, 1/2], 2^f is Cephes' exp2f polynomial, and
// j is added to its exponent field.
__device__ __forceinline__ float ex2_poly(float t) {
    t = fmaxf(t, -125.0f);
    const float r = __fadd_rn(t, 12582912.0f);
    const float f = __fsub_rn(t, __fsub_rn(r, 12582912.0f));
    float p = 1.535336188319500e-4f;
    p = fmaf(p, f, 1.339887440266574e-3f);
    p = fmaf(p, f, 9.618437357674640e-3f);
    p = fmaf(p, f, 5.550332471162809e-2f);
    p = fmaf(p, f, 2.402264791363012e-1f);
    p = fmaf(p, f, 6.931472028550421e-1f);
    p = fmaf(p, f, 1.0f);
    return __int_as_float(__float_as_int(p) + (__float_as_int(r) << 23));
}

#define WF32_BLOCK 256
#define WF32_TILE 1024

// NodeF32 holds one node's constants: d2 is offset by off (smoothing^2 plus 2^-24 of the
// nearest's d2, so that a sample that float32 puts on the node gives a large finite weight
// instead of log2(0)).
struct NodeF32 {
    float x, y, c, c0, off;
};

// node_f32 rounds node j's float64 constants (node_prep's) to float32.
__device__ __forceinline__ NodeF32 node_f32(const Problem &P, const double *px, const double *py,
                                            const double *pc, const double *pc0, const double *pd2, i64 j) {
    NodeF32 nd;
    nd.x = (float)px[j];
    nd.y = (float)py[j];
    nd.c = (float)pc[j];
    nd.c0 = (float)pc0[j];
    nd.off = (float)(P.smooth2 + pd2[j] * 0x1p-24);
    return nd;
}

// weight32 is the float32 weight of sample s at node nd; every float32 weighting computes it
// this way, operation for operation, so weigh_finish can recompute the weights of the nearest
// samples exactly as the main loop summed them.
__device__ __forceinline__ float weight32(float4 s, const NodeF32 &nd, bool poly) {
    float dx = __fsub_rn(s.x, nd.x), dy = __fsub_rn(s.y, nd.y);
    float d2 = fmaf(dx, dx, fmaf(dy, dy, nd.off));
    float t = fmaf(nd.c, lg2_approx(d2), nd.c0);
    return poly ? ex2_poly(t) : ex2_approx(t);
}

// WF32_GROUP samples are summed in float32 before their sums join the tile's, and a tile's
// sums join float64 ones: a single float32 sum over a tile would lose the far samples' small
// weights against the nearest's (up to 2e-5 of the value on clustered samples).
#define WF32_GROUP 64

template <int NPT, int NPOLY>
__device__ __forceinline__ void weigh_tile_f32(const float4 *tile, int m, const NodeF32 (&nd)[NPT],
                                               float (&tw)[NPT], float (&twz)[NPT]) {
    for (int g = 0; g < m; g += WF32_GROUP) {
        const int e = min(g + WF32_GROUP, m);
        float gw[NPT], gwz[NPT];
#pragma unroll
        for (int p = 0; p < NPT; p++) gw[p] = gwz[p] = 0.0f;
#pragma unroll 4
        for (int j = g; j < e; j++) {
            const float4 s = tile[j];
#pragma unroll
            for (int p = 0; p < NPT; p++) {
                float w = weight32(s, nd[p], p < NPOLY);
                gw[p] += w;
                gwz[p] = fmaf(w, s.z, gwz[p]);
            }
        }
#pragma unroll
        for (int p = 0; p < NPT; p++) {
            tw[p] += gw[p];
            twz[p] += gwz[p];
        }
    }
}

// weigh_all_f32 handles WF32_BLOCK*NPT nodes per block (thread t: nodes t, t+BLOCK, ...)
// against the samples of split blockIdx.y, tile by tile through shared memory, summing in three
// levels (group, tile, float64), which keeps the rounding of a million-term sum far below the
// 1e-5 the float32 path promises. The launch starts lane nodes before node 0 (lane: node 0's
// raster index modulo WF32_BLOCK*NPT), so that which exp2 a node takes (its slot p) follows its
// place in the raster, not in the chunk: any split of the raster into chunks, over any number of
// devices, gives every node the same value.
template <int NPT, int NPOLY>
__device__ __forceinline__ void weigh_all_f32_body(const Problem *__restrict__ pp, const float4 *__restrict__ s32,
                                                   const double *__restrict__ px, const double *__restrict__ py,
                                                   const double *__restrict__ pc, const double *__restrict__ pc0,
                                                   const double *__restrict__ pd2, i64 count, i64 lane,
                                                   double *partW, double *partWZ) {
    __shared__ float4 tile[WF32_TILE];
    const Problem &P = *pp;
    const int tid = threadIdx.x;
    const i64 base = (i64)blockIdx.x * (WF32_BLOCK * NPT) + tid - lane;
    NodeF32 nd[NPT];
    double W[NPT], WZ[NPT];
#pragma unroll
    for (int p = 0; p < NPT; p++) {
        const i64 j = base + p * WF32_BLOCK;
        if (j >= 0 && j < count) {
            nd[p] = node_f32(P, px, py, pc, pc0, pd2, j);
        } else {
            nd[p].x = nd[p].y = nd[p].c = nd[p].c0 = 0.0f;
            nd[p].off = 1.0f;
        }
        W[p] = WZ[p] = 0.0;
    }
    const i64 n = P.n, S = gridDim.y;
    const i64 s0 = n * blockIdx.y / S, s1 = n * (blockIdx.y + 1) / S;
    for (i64 t0 = s0; t0 < s1; t0 += WF32_TILE) {
        const int m = (int)min((i64)WF32_TILE, s1 - t0);
        __syncthreads();
        for (int j = tid; j < m; j += WF32_BLOCK) tile[j] = s32[t0 + j];
        __syncthreads();
        float tw[NPT], twz[NPT];
#pragma unroll
        for (int p = 0; p < NPT; p++) tw[p] = twz[p] = 0.0f;
        if (m == WF32_TILE) {
            weigh_tile_f32<NPT, NPOLY>(tile, WF32_TILE, nd, tw, twz);
        } else {
            weigh_tile_f32<NPT, NPOLY>(tile, m, nd, tw, twz);
        }
#pragma unroll
        for (int p = 0; p < NPT; p++) {
            W[p] += tw[p];
            WZ[p] += twz[p];
        }
    }
#pragma unroll
    for (int p = 0; p < NPT; p++) {
        const i64 j = base + p * WF32_BLOCK;
        if (j >= 0 && j < count) {
            partW[blockIdx.y * count + j] = W[p];
            partWZ[blockIdx.y * count + j] = WZ[p];
        }
    }
}

#define WEIGH_F32(NPT, NPOLY)                                                                            \
    extern "C" __global__ void __launch_bounds__(WF32_BLOCK)                                            \
        weigh_all_f32_##NPT##_##NPOLY(const Problem *P, const float4 *s32, const double *px,             \
                                      const double *py, const double *pc, const double *pc0,             \
                                      const double *pd2, i64 count, i64 lane, double *partW,             \
                                      double *partWZ) {                                                  \
        weigh_all_f32_body<NPT, NPOLY>(P, s32, px, py, pc, pc0, pd2, count, lane, partW, partWZ);         \
    }

// 6 nodes a thread, 2 of them with ex2_poly, measured fastest; 4_0 (MUFU only) and 4_1 are
// kept for the benchmark's comparison (kernels/NOTES.md).
WEIGH_F32(4, 0)
WEIGH_F32(4, 1)
WEIGH_F32(6, 2)

// weigh_naive_f32 is the untiled form: one node per thread, every sample read from global
// memory (all lanes read the same one, so the cache broadcasts it); MUFU lg2 and ex2 only. Its
// launch starts lane nodes early, as weigh_all_f32's (the same launcher starts both).
extern "C" __global__ void weigh_naive_f32(const Problem *__restrict__ pp, const float4 *__restrict__ s32,
                                           const double *__restrict__ px, const double *__restrict__ py,
                                           const double *__restrict__ pc, const double *__restrict__ pc0,
                                           const double *__restrict__ pd2, i64 count, i64 lane,
                                           double *partW, double *partWZ) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x - lane;
    if (j < 0 || j >= count) return;
    const NodeF32 nd = node_f32(P, px, py, pc, pc0, pd2, j);
    const i64 n = P.n, S = gridDim.y;
    const i64 s0 = n * blockIdx.y / S, s1 = n * (blockIdx.y + 1) / S;
    double W = 0, WZ = 0;
    for (i64 t0 = s0; t0 < s1; t0 += WF32_TILE) {
        const i64 t1 = min(t0 + WF32_TILE, s1);
        float tw = 0, twz = 0;
        for (i64 g = t0; g < t1; g += WF32_GROUP) {
            float gw = 0, gwz = 0;
            for (i64 i = g; i < min(g + WF32_GROUP, t1); i++) {
                const float4 s = __ldg(&s32[i]);
                float w = weight32(s, nd, false);
                gw += w;
                gwz = fmaf(w, s.z, gwz);
            }
            tw += gw;
            twz += gwz;
        }
        W += tw;
        WZ += twz;
    }
    partW[blockIdx.y * count + j] = W;
    partWZ[blockIdx.y * count + j] = WZ;
}

// ---- float64 --------------------------------------------------------------------------------

#define WF64_BLOCK 128
#define WF64_TILE 256

extern "C" __global__ void __launch_bounds__(WF64_BLOCK)
weigh_all_f64(const Problem *__restrict__ pp, const double *__restrict__ px, const double *__restrict__ py,
              const double *__restrict__ pc, const double *__restrict__ pc0, i64 count, double *partW,
              double *partWZ) {
    __shared__ double2 txy[WF64_TILE];
    __shared__ double tz[WF64_TILE];
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * WF64_BLOCK + threadIdx.x;
    const bool ok = j < count;
    const double x = ok ? px[j] : 0.0, y = ok ? py[j] : 0.0;
    const double c = ok ? pc[j] : 0.0, c0 = ok ? pc0[j] : 0.0;
    const double s2 = P.smooth2;
    const i64 n = P.n, S = gridDim.y;
    const i64 s0 = n * blockIdx.y / S, s1 = n * (blockIdx.y + 1) / S;
    double W = 0, WZ = 0;
    for (i64 t0 = s0; t0 < s1; t0 += WF64_TILE) {
        const int m = (int)min((i64)WF64_TILE, s1 - t0);
        __syncthreads();
        for (int i = threadIdx.x; i < m; i += WF64_BLOCK) {
            txy[i] = P.xy[t0 + i];
            tz[i] = P.z[t0 + i];
        }
        __syncthreads();
        for (int i = 0; i < m; i++) {
            double w = weight(dist2(txy[i], x, y) + s2, c, c0);
            W += w;
            WZ = fma(w, tz[i], WZ);
        }
    }
    if (ok) {
        partW[blockIdx.y * count + j] = W;
        partWZ[blockIdx.y * count + j] = WZ;
    }
}

// settled writes the value of global node j when no weighting decides it: its exact hit's
// value, or nodata when the samples are fewer than min_points; it says whether it did.
__device__ __forceinline__ bool settled(const Problem &P, const int *__restrict__ hit, i64 j, double *out) {
    if (hit[j] >= 0) {
        out[j] = P.z[hit[j]];
        return true;
    }
    if (P.n < P.minPoints) {
        out[j] = P.nodata;
        return true;
    }
    return false;
}

// weigh_finish adds the splits' partial sums in order and writes each node's value: the exact
// hit's value, nodata when the samples are fewer than min_points, else the weighted mean. After
// a float32 weighting (npt > 0: NPT and NPOLY of the kernel, which tell which exp2 each node
// used) the NEAR_CORR nearest samples' float32 weights are replaced by float64 ones: float32
// coordinates put the nearest samples, which weigh most, off by up to an ulp of the extent,
// and this keeps the result within 1e-5 wherever samples lie closer than that allows.
extern "C" __global__ void weigh_finish(const Problem *__restrict__ pp, const double *__restrict__ partW,
                                        const double *__restrict__ partWZ, const int *__restrict__ hit,
                                        i64 count, i64 splits, const float4 *__restrict__ s32,
                                        const double *__restrict__ px, const double *__restrict__ py,
                                        const double *__restrict__ pc, const double *__restrict__ pc0,
                                        const double *__restrict__ pd2, const int *__restrict__ nearPos,
                                        const double *__restrict__ nearD2, i64 npt, i64 npoly, i64 lane,
                                        double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count || settled(P, hit, j, out)) return;
    double W = 0, WZ = 0;
    for (i64 s = 0; s < splits; s++) {
        W += partW[s * count + j];
        WZ += partWZ[s * count + j];
    }
    if (npt > 0) {
        const NodeF32 nd = node_f32(P, px, py, pc, pc0, pd2, j);
        const bool poly = ((j + lane) % (WF32_BLOCK * npt)) / WF32_BLOCK < npoly;
        const double c = nd.c, c0 = nd.c0;
        for (int i = 0; i < NEAR_CORR; i++) {
            const int q = nearPos[i * count + j];
            if (q < 0) break;
            const float4 s = s32[q];
            const double w32 = weight32(s, nd, poly);
            const double w64 = exp2(fmax(c * log2(nearD2[i * count + j] + P.smooth2) + c0, -1000.0));
            W += w64 - w32;
            WZ += w64 * P.z[q] - w32 * (double)s.z;
        }
    }
    out[j] = WZ / W;
}

// ---- brute-force kNN (yardstick) --------------------------------------------------------------

#define BRUTE_BLOCK 128
#define BRUTE_TILE 512

// knn_brute_f32_K is the brute-force kNN the grid's is measured against: every sample for every
// node, float32, tiled through shared memory, the K best kept sorted in registers.
template <int K>
__device__ __forceinline__ void knn_brute_body(const Problem *__restrict__ pp, const float4 *__restrict__ s32,
                                               const double *__restrict__ px, const double *__restrict__ py,
                                               i64 count, int *outPos, float *outD2) {
    __shared__ float2 tile[BRUTE_TILE];
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * BRUTE_BLOCK + threadIdx.x;
    const bool ok = j < count;
    const float x = ok ? (float)px[j] : 0.0f, y = ok ? (float)py[j] : 0.0f;
    float d[K];
    int id[K];
#pragma unroll
    for (int i = 0; i < K; i++) {
        d[i] = __int_as_float(0x7f800000);
        id[i] = -1;
    }
    for (i64 t0 = 0; t0 < P.n; t0 += BRUTE_TILE) {
        const int m = (int)min((i64)BRUTE_TILE, P.n - t0);
        __syncthreads();
        for (int i = threadIdx.x; i < m; i += BRUTE_BLOCK) {
            float4 s = s32[t0 + i];
            tile[i] = make_float2(s.x, s.y);
        }
        __syncthreads();
        for (int i = 0; i < m; i++) {
            float dx = tile[i].x - x, dy = tile[i].y - y;
            float dd = fmaf(dx, dx, dy * dy);
            if (dd < d[K - 1]) {
                int q = (int)(t0 + i);
#pragma unroll
                for (int e = K - 1; e > 0; e--) {
                    bool shift = d[e - 1] > dd;
                    bool here = !shift && d[e] > dd;
                    float nd = shift ? d[e - 1] : (here ? dd : d[e]);
                    int ni = shift ? id[e - 1] : (here ? q : id[e]);
                    d[e] = nd;
                    id[e] = ni;
                }
                if (d[0] > dd) {
                    d[0] = dd;
                    id[0] = q;
                }
            }
        }
    }
    if (ok) {
#pragma unroll
        for (int i = 0; i < K; i++) {
            outPos[i * count + j] = id[i];
            outD2[i * count + j] = d[i];
        }
    }
}

extern "C" __global__ void __launch_bounds__(BRUTE_BLOCK)
knn_brute_f32_15(const Problem *P, const float4 *s32, const double *px, const double *py, i64 count,
                 int *outPos, float *outD2) {
    knn_brute_body<15>(P, s32, px, py, count, outPos, outD2);
}
