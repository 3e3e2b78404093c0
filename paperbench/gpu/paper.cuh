// paper.cuh: the papers' own GPU kernels, rebuilt for `aidw bench` (paperbench): standard IDW
// naive, tiled and "improved CDP" (Mei 2014; Mei & Tian 2016), AIDW naive and tiled with the
// brute-force kNN inside the kernel (Mei, Xu & Xu 2015), the weighting stage of the even-grid
// version (Mei, Xu & Xu 2016), each over the data layouts SoA, AoS and AoaS in float32 and
// float64, and the bounding-box reductions of the reduction article (two-pass: bbox_partial and
// bbox_final of build.cuh; single pass with atomics; single pass with a retirement counter).
//
// The kernels follow the papers' code (one thread per node, 1/d^2 for power 2 and
// 1/pow(d^2, p/2) otherwise, tiles as large as the block) with one deliberate change: the
// float32 sums over a tile (naive: a group of PAPER_BLOCK samples) are added into float64 sums,
// since a single float32 sum over a million samples drifts by about 1e-4 of the value, past the
// benchmark's check; the cost is one float64 addition per 256 pairs.
#pragma once
#include "../../kernels/knn.cuh"

#define LAYOUT_SOA 0
#define LAYOUT_AOS 1
#define LAYOUT_AOAS 2

#define PAPER_BLOCK 256  // naive and tiled kernels: threads per block, and the tile size
#define CDP_BLOCK 1024   // improved CDP: one block of 1024 threads per node
#define PAPER_K 15       // AIDW's k in the papers

// ---- points in the three layouts -------------------------------------------------------------

template <typename R>
struct P3 {
    R x, y, z;
};

// double4a is the float64 aligned structure: 32 bytes, read as two 16-byte halves.
struct __align__(16) double4a {
    double x, y, z, w;
};

// Pts<R, L> reads points (samples: get, through the read-only cache) and reads and writes
// nodes (xy, setZ: the value goes to z, as the papers' kernels write iz[] or ipts[i].z) stored
// in layout L. The kernels take three pointers; AoS and AoaS use the first only.
template <typename R, int L>
struct Pts;

template <typename R>
struct Pts<R, LAYOUT_SOA> {
    R *a, *b, *c;
    __device__ __forceinline__ Pts(const void *p0, const void *p1, const void *p2)
        : a((R *)p0), b((R *)p1), c((R *)p2) {}
    __device__ __forceinline__ void get(i64 i, R &x, R &y, R &z) const {
        x = __ldg(a + i);
        y = __ldg(b + i);
        z = __ldg(c + i);
    }
    __device__ __forceinline__ void getXY(i64 i, R &x, R &y) const {
        x = __ldg(a + i);
        y = __ldg(b + i);
    }
    __device__ __forceinline__ void xy(i64 i, R &x, R &y) const {
        x = a[i];
        y = b[i];
    }
    __device__ __forceinline__ void setZ(i64 i, R v) const { c[i] = v; }
};

template <typename R>
struct Pts<R, LAYOUT_AOS> {
    P3<R> *p;
    __device__ __forceinline__ Pts(const void *p0, const void *, const void *) : p((P3<R> *)p0) {}
    __device__ __forceinline__ void get(i64 i, R &x, R &y, R &z) const {
        x = __ldg(&p[i].x);
        y = __ldg(&p[i].y);
        z = __ldg(&p[i].z);
    }
    __device__ __forceinline__ void getXY(i64 i, R &x, R &y) const {
        x = __ldg(&p[i].x);
        y = __ldg(&p[i].y);
    }
    __device__ __forceinline__ void xy(i64 i, R &x, R &y) const {
        x = p[i].x;
        y = p[i].y;
    }
    __device__ __forceinline__ void setZ(i64 i, R v) const { p[i].z = v; }
};

template <>
struct Pts<float, LAYOUT_AOAS> {
    float4 *p;
    __device__ __forceinline__ Pts(const void *p0, const void *, const void *) : p((float4 *)p0) {}
    __device__ __forceinline__ void get(i64 i, float &x, float &y, float &z) const {
        const float4 q = __ldg(p + i);
        x = q.x;
        y = q.y;
        z = q.z;
    }
    __device__ __forceinline__ void getXY(i64 i, float &x, float &y) const {
        float z;
        get(i, x, y, z);
    }
    __device__ __forceinline__ void xy(i64 i, float &x, float &y) const {
        const float4 q = p[i];
        x = q.x;
        y = q.y;
    }
    __device__ __forceinline__ void setZ(i64 i, float v) const { p[i].z = v; }
};

template <>
struct Pts<double, LAYOUT_AOAS> {
    double4a *p;
    __device__ __forceinline__ Pts(const void *p0, const void *, const void *) : p((double4a *)p0) {}
    __device__ __forceinline__ void get(i64 i, double &x, double &y, double &z) const {
        const double2 *q = (const double2 *)(p + i);
        const double2 u = __ldg(q), v = __ldg(q + 1);
        x = u.x;
        y = u.y;
        z = v.x;
    }
    __device__ __forceinline__ void getXY(i64 i, double &x, double &y) const {
        const double2 u = __ldg((const double2 *)(p + i));
        x = u.x;
        y = u.y;
    }
    __device__ __forceinline__ void xy(i64 i, double &x, double &y) const {
        const double2 u = *(const double2 *)(p + i);
        x = u.x;
        y = u.y;
    }
    __device__ __forceinline__ void setZ(i64 i, double v) const { p[i].z = v; }
};

// Tile<R, L, T> is a tile of T samples in shared memory, in the layout of the global array.
template <typename R, int L, int T>
struct Tile;

template <typename R, int T>
struct Tile<R, LAYOUT_SOA, T> {
    R x[T], y[T], z[T];
    __device__ __forceinline__ void put(int i, R a, R b, R c) {
        x[i] = a;
        y[i] = b;
        z[i] = c;
    }
    __device__ __forceinline__ void get(int i, R &a, R &b, R &c) const {
        a = x[i];
        b = y[i];
        c = z[i];
    }
};

template <typename R, int T>
struct Tile<R, LAYOUT_AOS, T> {
    P3<R> p[T];
    __device__ __forceinline__ void put(int i, R a, R b, R c) {
        p[i].x = a;
        p[i].y = b;
        p[i].z = c;
    }
    __device__ __forceinline__ void get(int i, R &a, R &b, R &c) const {
        a = p[i].x;
        b = p[i].y;
        c = p[i].z;
    }
};

template <int T>
struct Tile<float, LAYOUT_AOAS, T> {
    float4 p[T];
    __device__ __forceinline__ void put(int i, float a, float b, float c) { p[i] = make_float4(a, b, c, 0.0f); }
    __device__ __forceinline__ void get(int i, float &a, float &b, float &c) const {
        const float4 q = p[i];
        a = q.x;
        b = q.y;
        c = q.z;
    }
};

template <int T>
struct Tile<double, LAYOUT_AOAS, T> {
    double4a p[T];
    __device__ __forceinline__ void put(int i, double a, double b, double c) {
        double2 *q = (double2 *)(p + i);
        q[0] = make_double2(a, b);
        q[1] = make_double2(c, 0.0);
    }
    __device__ __forceinline__ void get(int i, double &a, double &b, double &c) const {
        const double2 *q = (const double2 *)(p + i);
        const double2 u = q[0], v = q[1];
        a = u.x;
        b = u.y;
        c = v.x;
    }
};

// ---- weights ---------------------------------------------------------------------------------

__device__ __forceinline__ float paper_pow(float d2, float h) { return powf(d2, h); }
__device__ __forceinline__ double paper_pow(double d2, double h) { return pow(d2, h); }

// idw_weight is the papers' weight: 1/d^2 for power 2 (no root, no pow), else 1/pow(d^2, p/2).
template <typename R, bool P2>
__device__ __forceinline__ R idw_weight(R d2, R half) {
    return P2 ? R(1) / d2 : R(1) / paper_pow(d2, half);
}

template <typename R>
__device__ __forceinline__ R sq_dist(R x, R y, R sx, R sy) {
    const R dx = x - sx, dy = y - sy;
    return dx * dx + dy * dy;
}

// ---- standard IDW --------------------------------------------------------------------------
// Every IDW kernel takes the samples (s0..s2, n of them) and the nodes (n0..n2, m of them; the
// value is written to the nodes' z) in layout L, and the power.

// idw_naive: one thread per node, every sample read from global memory.
template <typename R, int L, bool P2>
__device__ __forceinline__ void idw_naive_body(const void *s0, const void *s1, const void *s2, i64 n,
                                               const void *n0, const void *n1, const void *n2, i64 m,
                                               double power) {
    const i64 j = (i64)blockIdx.x * PAPER_BLOCK + threadIdx.x;
    if (j >= m) return;
    const Pts<R, L> S(s0, s1, s2), N(n0, n1, n2);
    R x, y;
    N.xy(j, x, y);
    const R half = (R)(power / 2);
    double W = 0, WZ = 0;
    for (i64 g = 0; g < n; g += PAPER_BLOCK) {
        const i64 e = min(g + PAPER_BLOCK, n);
        R w = 0, wz = 0;
        for (i64 i = g; i < e; i++) {
            R sx, sy, sz;
            S.get(i, sx, sy, sz);
            const R t = idw_weight<R, P2>(sq_dist(x, y, sx, sy), half);
            w += t;
            wz += t * sz;
        }
        W += w;
        WZ += wz;
    }
    N.setZ(j, (R)(WZ / W));
}

// idw_tiled: one thread per node; each tile of PAPER_BLOCK samples is loaded into shared
// memory, one sample per thread, and read by every thread of the block.
template <typename R, int L, bool P2>
__device__ __forceinline__ void idw_tiled_body(const void *s0, const void *s1, const void *s2, i64 n,
                                               const void *n0, const void *n1, const void *n2, i64 m,
                                               double power) {
    __shared__ Tile<R, L, PAPER_BLOCK> tile;
    const i64 j = (i64)blockIdx.x * PAPER_BLOCK + threadIdx.x;
    const bool ok = j < m;
    const Pts<R, L> S(s0, s1, s2), N(n0, n1, n2);
    R x = 0, y = 0;
    if (ok) N.xy(j, x, y);
    const R half = (R)(power / 2);
    double W = 0, WZ = 0;
    for (i64 t0 = 0; t0 < n; t0 += PAPER_BLOCK) {
        const int cnt = (int)min((i64)PAPER_BLOCK, n - t0);
        __syncthreads();
        if (threadIdx.x < cnt) {
            R a, b, c;
            S.get(t0 + threadIdx.x, a, b, c);
            tile.put(threadIdx.x, a, b, c);
        }
        __syncthreads();
        R w = 0, wz = 0;
#pragma unroll 4
        for (int i = 0; i < cnt; i++) {
            R sx, sy, sz;
            tile.get(i, sx, sy, sz);
            const R t = idw_weight<R, P2>(sq_dist(x, y, sx, sy), half);
            w += t;
            wz += t * sz;
        }
        W += w;
        WZ += wz;
    }
    if (ok) N.setZ(j, (R)(WZ / W));
}

template <typename R>
__device__ __forceinline__ R warp_sum(R v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
    return v;
}

// idw_cdp is the improved CDP version's work (Mei & Tian 2016) as one ordinary kernel: the
// block of CDP_BLOCK threads that the parent thread would launch for its node, each thread
// summing a strided share of the samples, then a block reduction (Harris), no atomics. Device-
// side launches with cudaDeviceSynchronize in the parent, which the papers' CDP versions need,
// no longer exist in CUDA 12 and later.
template <typename R, int L, bool P2>
__device__ __forceinline__ void idw_cdp_body(const void *s0, const void *s1, const void *s2, i64 n,
                                             const void *n0, const void *n1, const void *n2, i64 m,
                                             double power) {
    __shared__ R sw[CDP_BLOCK / 32], swz[CDP_BLOCK / 32];
    const i64 j = blockIdx.x;
    const Pts<R, L> S(s0, s1, s2), N(n0, n1, n2);
    R x, y;
    N.xy(j, x, y);
    const R half = (R)(power / 2);
    R w = 0, wz = 0;
    for (i64 i = threadIdx.x; i < n; i += CDP_BLOCK) {
        R sx, sy, sz;
        S.get(i, sx, sy, sz);
        const R t = idw_weight<R, P2>(sq_dist(x, y, sx, sy), half);
        w += t;
        wz += t * sz;
    }
    const int lane = lane_id(), warp = threadIdx.x >> 5;
    w = warp_sum(w);
    wz = warp_sum(wz);
    if (lane == 0) {
        sw[warp] = w;
        swz[warp] = wz;
    }
    __syncthreads();
    if (warp == 0) {
        w = warp_sum(sw[lane]);
        wz = warp_sum(swz[lane]);
        if (lane == 0) N.setZ(j, wz / w);
    }
}

#define IDW_KERNEL(METHOD, BLOCK, PN, P2, RN, R, LN, L)                                                      \
    extern "C" __global__ void __launch_bounds__(BLOCK)                                                      \
        idw_##METHOD##_##PN##_##RN##_##LN(const void *s0, const void *s1, const void *s2, i64 n,            \
                                          const void *n0, const void *n1, const void *n2, i64 m,            \
                                          double power) {                                                    \
        idw_##METHOD##_body<R, L, P2>(s0, s1, s2, n, n0, n1, n2, m, power);                                 \
    }
#define IDW_LAYOUTS(METHOD, BLOCK, PN, P2, RN, R)                      \
    IDW_KERNEL(METHOD, BLOCK, PN, P2, RN, R, soa, LAYOUT_SOA)          \
    IDW_KERNEL(METHOD, BLOCK, PN, P2, RN, R, aos, LAYOUT_AOS)          \
    IDW_KERNEL(METHOD, BLOCK, PN, P2, RN, R, aoas, LAYOUT_AOAS)
#define IDW_ALL(METHOD, BLOCK)                                 \
    IDW_LAYOUTS(METHOD, BLOCK, p2, true, f32, float)           \
    IDW_LAYOUTS(METHOD, BLOCK, p2, true, f64, double)          \
    IDW_LAYOUTS(METHOD, BLOCK, pw, false, f32, float)          \
    IDW_LAYOUTS(METHOD, BLOCK, pw, false, f64, double)

IDW_ALL(naive, PAPER_BLOCK)
IDW_ALL(tiled, PAPER_BLOCK)
IDW_ALL(cdp, CDP_BLOCK)

// ---- AIDW ------------------------------------------------------------------------------------

template <typename R>
__device__ __forceinline__ R inf_of();
template <>
__device__ __forceinline__ float inf_of<float>() {
    return __int_as_float(0x7f800000);
}
template <>
__device__ __forceinline__ double inf_of<double>() {
    return INF_D;
}

// KBest keeps the PAPER_K smallest squared distances in ascending order, in registers: the
// papers' "replace the k-th and swap down", done as one branch-free pass.
template <typename R>
struct KBest {
    R d[PAPER_K];
    __device__ __forceinline__ void init() {
#pragma unroll
        for (int i = 0; i < PAPER_K; i++) d[i] = inf_of<R>();
    }
    __device__ __forceinline__ void add(R dd) {
        if (!(dd < d[PAPER_K - 1])) return;
#pragma unroll
        for (int e = PAPER_K - 1; e > 0; e--) {
            const bool shift = d[e - 1] > dd;
            const bool here = !shift && d[e] > dd;
            d[e] = shift ? d[e - 1] : (here ? dd : d[e]);
        }
        if (d[0] > dd) d[0] = dd;
    }
    // alpha is AIDW's adaptive power from the k nearest (interp's rules, knn.cuh's aidw_alpha).
    __device__ __forceinline__ double alpha(const Problem &P) const {
        double dd[PAPER_K];
#pragma unroll
        for (int i = 0; i < PAPER_K; i++) dd[i] = (double)d[i];
        return aidw_alpha(P, dd, PAPER_K);
    }
};

// aidw_body is AIDW for one node per thread in two passes over every sample: the k nearest
// (brute force, 2015) or the power given by the even-grid kNN stage (GIVEN, 2016), then the
// weighting with 1/pow(d^2, alpha/2); TILED reads the samples through shared-memory tiles in
// both passes. P holds AIDW's parameters (k = PAPER_K, r_exp, rmin, rmax, alphas).
template <typename R, int L, bool TILED, bool GIVEN>
__device__ __forceinline__ void aidw_body(const Problem *__restrict__ pp, const void *s0, const void *s1,
                                          const void *s2, i64 n, const void *n0, const void *n1,
                                          const void *n2, i64 m, const double *__restrict__ alphaIn) {
    __shared__ Tile<R, L, PAPER_BLOCK> tile;
    const i64 j = (i64)blockIdx.x * PAPER_BLOCK + threadIdx.x;
    const bool ok = j < m;
    if (!TILED && !ok) return;
    const Pts<R, L> S(s0, s1, s2), N(n0, n1, n2);
    R x = 0, y = 0;
    if (ok) N.xy(j, x, y);
    double alpha = 2;
    if (GIVEN) {
        if (ok) alpha = alphaIn[j];
    } else {
        KBest<R> kb;
        kb.init();
        if (TILED) {
            for (i64 t0 = 0; t0 < n; t0 += PAPER_BLOCK) {
                const int cnt = (int)min((i64)PAPER_BLOCK, n - t0);
                __syncthreads();
                if (threadIdx.x < cnt) {
                    R a, b, c;
                    S.get(t0 + threadIdx.x, a, b, c);
                    tile.put(threadIdx.x, a, b, c);
                }
                __syncthreads();
                for (int i = 0; i < cnt; i++) {
                    R sx, sy, sz;
                    tile.get(i, sx, sy, sz);
                    kb.add(sq_dist(x, y, sx, sy));
                }
            }
        } else {
            for (i64 i = 0; i < n; i++) {
                R sx, sy;
                S.getXY(i, sx, sy);
                kb.add(sq_dist(x, y, sx, sy));
            }
        }
        if (ok) alpha = kb.alpha(*pp);
    }
    const R half = (R)(alpha / 2);
    double W = 0, WZ = 0;
    for (i64 t0 = 0; t0 < n; t0 += PAPER_BLOCK) {
        const int cnt = (int)min((i64)PAPER_BLOCK, n - t0);
        R w = 0, wz = 0;
        if (TILED) {
            __syncthreads();
            if (threadIdx.x < cnt) {
                R a, b, c;
                S.get(t0 + threadIdx.x, a, b, c);
                tile.put(threadIdx.x, a, b, c);
            }
            __syncthreads();
#pragma unroll 4
            for (int i = 0; i < cnt; i++) {
                R sx, sy, sz;
                tile.get(i, sx, sy, sz);
                const R t = R(1) / paper_pow(sq_dist(x, y, sx, sy), half);
                w += t;
                wz += t * sz;
            }
        } else {
            for (int i = 0; i < cnt; i++) {
                R sx, sy, sz;
                S.get(t0 + i, sx, sy, sz);
                const R t = R(1) / paper_pow(sq_dist(x, y, sx, sy), half);
                w += t;
                wz += t * sz;
            }
        }
        W += w;
        WZ += wz;
    }
    if (ok) N.setZ(j, (R)(WZ / W));
}

#define AIDW_KERNEL(NAME, TILED, GIVEN, R, L)                                                                \
    extern "C" __global__ void __launch_bounds__(PAPER_BLOCK)                                                \
        NAME(const Problem *P, const void *s0, const void *s1, const void *s2, i64 n, const void *n0,        \
             const void *n1, const void *n2, i64 m, const double *alphaIn) {                                  \
        aidw_body<R, L, TILED, GIVEN>(P, s0, s1, s2, n, n0, n1, n2, m, alphaIn);                              \
    }
#define AIDW_LAYOUTS(METHOD, TILED, RN, R)                                \
    AIDW_KERNEL(aidw_##METHOD##_##RN##_soa, TILED, false, R, LAYOUT_SOA)   \
    AIDW_KERNEL(aidw_##METHOD##_##RN##_aos, TILED, false, R, LAYOUT_AOS)   \
    AIDW_KERNEL(aidw_##METHOD##_##RN##_aoas, TILED, false, R, LAYOUT_AOAS)

AIDW_LAYOUTS(naive, false, f32, float)
AIDW_LAYOUTS(naive, false, f64, double)
AIDW_LAYOUTS(tiled, true, f32, float)
AIDW_LAYOUTS(tiled, true, f64, double)
// The weighting stage of the even-grid version (2016): SoA only, as in the paper.
AIDW_KERNEL(aidw_grid_naive_f32, false, true, float, LAYOUT_SOA)
AIDW_KERNEL(aidw_grid_naive_f64, false, true, double, LAYOUT_SOA)
AIDW_KERNEL(aidw_grid_tiled_f32, true, true, float, LAYOUT_SOA)
AIDW_KERNEL(aidw_grid_tiled_f64, true, true, double, LAYOUT_SOA)

// aidw_grid_alpha is the kNN stage of the even-grid version: the engine's exact ring search
// (knn.cuh) on the grid build's index, then each node's adaptive power.
extern "C" __global__ void aidw_grid_alpha(const Problem *__restrict__ pp, const double *__restrict__ nx,
                                           const double *__restrict__ ny, i64 count, double *alpha) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    Knn<16> s;
    s.init(P, nx[j], ny[j], (int)P.k);
    knn_search(P, s);
    alpha[j] = aidw_alpha(P, s.d2, (int)P.k);
}

// ---- bounding box: the reduction article's single-pass variants --------------------------------

// ord_key maps a double onto an unsigned integer of the same order, so that 64-bit integer
// atomicMin and atomicMax (there are none for double) reduce doubles.
__device__ __forceinline__ u64 ord_key(double v) {
    const u64 b = (u64)__double_as_longlong(v);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

// bbox_block reduces a grid-strided share of the samples to the block's box in out[0..3]
// (thread 0 only).
__device__ __forceinline__ void bbox_block(const double *__restrict__ x, const double *__restrict__ y, i64 n,
                                           double *scratch, double *out) {
    double a = INF_D, b = a, c = -a, d = -a;
    for (i64 i = (i64)blockIdx.x * BBOX_BLOCK + threadIdx.x; i < n; i += (i64)gridDim.x * BBOX_BLOCK) {
        const double xi = x[i], yi = y[i];
        a = fmin(a, xi);
        b = fmin(b, yi);
        c = fmax(c, xi);
        d = fmax(d, yi);
    }
    BlockMinMax<BBOX_BLOCK>::reduce(a, b, c, d, scratch, out);
}

// bbox_atomic: each block's box joins the result through 64-bit atomics on ord_key values;
// keys[0..1] start at all ones and keys[2..3] at zero.
extern "C" __global__ void __launch_bounds__(BBOX_BLOCK)
bbox_atomic(const double *__restrict__ x, const double *__restrict__ y, i64 n, u64 *keys) {
    __shared__ double scratch[4 * BBOX_BLOCK / 32];
    __shared__ double box[4];
    bbox_block(x, y, n, scratch, box);
    if (threadIdx.x == 0) {
        atomicMin(&keys[0], ord_key(box[0]));
        atomicMin(&keys[1], ord_key(box[1]));
        atomicMax(&keys[2], ord_key(box[2]));
        atomicMax(&keys[3], ord_key(box[3]));
    }
}

// bbox_retire: each block writes its box to part, and the last block to finish (counted by the
// retirement counter, after a memory fence) reduces the boxes into out and resets the counter.
extern "C" __global__ void __launch_bounds__(BBOX_BLOCK)
bbox_retire(const double *__restrict__ x, const double *__restrict__ y, i64 n, double *part,
            unsigned *counter, double *out) {
    __shared__ double scratch[4 * BBOX_BLOCK / 32];
    __shared__ bool last;
    bbox_block(x, y, n, scratch, part + 4 * blockIdx.x);
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    double a = INF_D, b = a, c = -a, d = -a;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BBOX_BLOCK) {
        a = fmin(a, __ldcg(part + 4 * i + 0));
        b = fmin(b, __ldcg(part + 4 * i + 1));
        c = fmax(c, __ldcg(part + 4 * i + 2));
        d = fmax(d, __ldcg(part + 4 * i + 3));
    }
    BlockMinMax<BBOX_BLOCK>::reduce(a, b, c, d, scratch, out);
    if (threadIdx.x == 0) *counter = 0;
}
