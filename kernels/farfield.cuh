// farfield.cuh: the global weighting by far field (interp/farfield.DeviceTree, whose Go
// emulation deviceSums in interp/farfield/device_test.go sums loop for loop as far_weigh does).
// A node sums the samples of the 5 x 5 leaves around its own one by one, and at every level
// from 2 the interaction list of its box (up to 75 boxes) from their charges at ORD x ORD
// Chebyshev points: some tens of thousands of weights a node instead of every sample.
//
// Weights are 2^(c log2 d2 + c0), relative to the nearest sample's as in weigh.cuh. Within a
// level, squared distances are taken in that level's box units (4 to 72 for a far box, so
// float32 keeps them exact to an ulp whatever the coordinates' scale) and the level's scale
// 2^(c log2 w_l^2 + c0) is applied in float64; near samples' differences are float64 before
// their square is scaled to leaf units and rounded to float32. Sums run in float32 over a box
// and in float64 above; the near samples' in float64, the NEAR_CORR nearest with float64
// weights, as weigh_finish corrects the brute force's.
#pragma once
#include "knn.cuh"
#include "weigh.cuh"

#define FF_BLOCK 128
// FF_NEAR is interp/farfield's nearR: the near field's reach in leaves.
#define FF_NEAR 2

// FarTree mirrors kernels.farTree in Go field for field, each 8 bytes.
struct FarTree {
    double ox, oy, side;      // the square, in the samples' coordinates (relative to their origin)
    i64 depth;                // leaves: 2^depth x 2^depth
    const double2 *xy;        // samples by leaf, leaves in row-major order
    const double *z;
    const int *leafStart;     // 4^depth + 1
    const i64 *levelStart;    // level l's first box in count and charges
    int *count;               // samples per box, boxes of each level in row-major order
    float2 *charges;          // ORD^2 (z, 1) a box, point (a, b) at a*ORD+b
    double2 *charges64;       // the same in float64, for the parents'
    const float *cheb;        // ORD Chebyshev points on [0, 1]
    const double *points;     // cheb[ORD], their barycentric weights[ORD], child0[ORD^2], child1[ORD^2]
};

// far_tree_size lets Go check that both sides agree on the layout.
extern "C" __global__ void far_tree_size(i64 *out) { *out = sizeof(FarTree); }

// FF_BATCH samples at a time have their basis values computed into shared memory, two threads
// a sample (x and y), before the ORD^2 threads of a leaf's block add them to their charges.
#define FF_BATCH 32

// far_leaves_ORD computes each leaf's charges from its samples, one block (blockIdx.x: the leaf,
// row-major) of max(ORD^2, 2 FF_BATCH) threads, thread a*ORD+b summing point (a, b)'s over
// the samples in order: Q = sum L_a(x) L_b(y) z and sum L_a(x) L_b(y), with the barycentric
// Lagrange basis L of the Chebyshev points in the leaf's own unit square (interp/farfield's
// upward pass).
template <int ORD>
__device__ __forceinline__ void far_leaves_body(const FarTree *__restrict__ tp) {
    __shared__ double lb[FF_BATCH][2][ORD];
    __shared__ double zs[FF_BATCH];
    const FarTree &T = *tp;
    const int d = (int)T.depth, n = 1 << d, k = blockIdx.x, t = threadIdx.x;
    const int ix = k & (n - 1), iy = k >> d;
    const int s = T.leafStart[k], e = T.leafStart[k + 1];
    const double inv = n / T.side;
    const double *cheb = T.points, *bw = T.points + ORD;
    double qz = 0, q1 = 0;
    for (int g = s; g < e; g += FF_BATCH) {
        const int m = min(FF_BATCH, e - g);
        __syncthreads();
        if (t < 2 * m) {
            const int i = g + t / 2, dim = t & 1;
            const double2 p = T.xy[i];
            const double u = dim ? (p.y - T.oy) * inv - iy : (p.x - T.ox) * inv - ix;
            double *L = lb[t / 2][dim];
            double sum = 0;
            int at = -1;
            for (int a = 0; a < ORD; a++) {
                const double du = u - cheb[a];
                if (du == 0) at = a;
                L[a] = bw[a] / du;
                sum += L[a];
            }
            for (int a = 0; a < ORD; a++) L[a] = at < 0 ? L[a] / sum : (a == at ? 1.0 : 0.0);
            if (dim == 0) zs[t / 2] = T.z[i];
        }
        __syncthreads();
        if (t < ORD * ORD) {
            const int a = t / ORD, b = t % ORD;
            for (int j = 0; j < m; j++) {
                const double v = lb[j][0][a] * lb[j][1][b];
                qz = fma(v, zs[j], qz);
                q1 += v;
            }
        }
    }
    const i64 box = T.levelStart[d] + k;
    if (t < ORD * ORD) {
        T.charges64[box * (ORD * ORD) + t] = make_double2(qz, q1);
        T.charges[box * (ORD * ORD) + t] = make_float2((float)qz, (float)q1);
    }
    if (t == 0) T.count[box] = e - s;
}

// far_parents_ORD computes the charges of level l's boxes (one block of ORD^2 threads a box,
// blockIdx.x row-major) from their four children's: Q[a,b] = sum over the children h and their
// points (k, l) of child_hx[a,k] child_hy[b,l] Q_h[k,l], children in a fixed order.
template <int ORD>
__device__ __forceinline__ void far_parents_body(const FarTree *__restrict__ tp, i64 l) {
    __shared__ double2 qc[4][ORD * ORD];
    const FarTree &T = *tp;
    const int nb = 1 << l, p = blockIdx.x, t = threadIdx.x;
    const int px = p & (nb - 1), py = p >> l;
    const i64 c0 = T.levelStart[l + 1];
    for (int h = 0; h < 4; h++) {
        const i64 child = c0 + (i64)(2 * py + (h >> 1)) * (2 * nb) + 2 * px + (h & 1);
        qc[h][t] = T.charges64[child * (ORD * ORD) + t];
    }
    __syncthreads();
    const int a = t / ORD, b = t % ORD;
    const double *child = T.points + 2 * ORD;
    double qz = 0, q1 = 0;
    for (int h = 0; h < 4; h++) {
        const double *sx = child + (h & 1) * ORD * ORD + a * ORD, *sy = child + (h >> 1) * ORD * ORD + b * ORD;
        for (int kx = 0; kx < ORD; kx++) {
            double rz = 0, r1 = 0;
            for (int ky = 0; ky < ORD; ky++) {
                const double2 q = qc[h][kx * ORD + ky];
                rz = fma(sy[ky], q.x, rz);
                r1 = fma(sy[ky], q.y, r1);
            }
            qz = fma(sx[kx], rz, qz);
            q1 = fma(sx[kx], r1, q1);
        }
    }
    const i64 box = T.levelStart[l] + p;
    T.charges64[box * (ORD * ORD) + t] = make_double2(qz, q1);
    T.charges[box * (ORD * ORD) + t] = make_float2((float)qz, (float)q1);
    if (t == 0) {
        int cnt = 0;
        for (int h = 0; h < 4; h++) cnt += T.count[c0 + (i64)(2 * py + (h >> 1)) * (2 * nb) + 2 * px + (h & 1)];
        T.count[box] = cnt;
    }
}

// near_weight is a near sample's float32 weight at squared distance d2, scaled to leaf units
// by invw2 (see far_weigh_body).
__device__ __forceinline__ double near_weight(double d2, double invw2, float c, float c0n) {
    return (double)ex2_approx(fmaf(c, lg2_approx((float)(d2 * invw2)), c0n));
}

template <int ORD>
__device__ __forceinline__ void far_weigh_body(const Problem *__restrict__ pp, const FarTree *__restrict__ tp,
                                               const double *__restrict__ px, const double *__restrict__ py,
                                               const double *__restrict__ pc, const double *__restrict__ pc0,
                                               const int *__restrict__ hit, const int *__restrict__ nearPos,
                                               const double *__restrict__ nearD2, i64 count, double *out) {
    const Problem &P = *pp;
    const FarTree &T = *tp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count || settled(P, hit, j, out)) return;
    const double x = px[j], y = py[j], c = pc[j], c0 = pc0[j];
    const float cf = (float)c;
    const int d = (int)T.depth, n = 1 << d;
    const int ix = min(max((int)((x - T.ox) / T.side * n), 0), n - 1);
    const int iy = min(max((int)((y - T.oy) / T.side * n), 0), n - 1);
    double num = 0, den = 0;

    // near field: FF_NEAR leaves around the node's, a row of leaves (one run of samples) at a
    // time, summed in float64 (they are a few percent of the weights, and the largest)
    const double wd = T.side / n, invw2 = 1.0 / (wd * wd);
    const float c0n = (float)(c * log2(wd * wd) + c0);
    const int x0 = max(ix - FF_NEAR, 0), x1 = min(ix + FF_NEAR, n - 1);
    for (int jy = max(iy - FF_NEAR, 0); jy <= min(iy + FF_NEAR, n - 1); jy++) {
        const int s = T.leafStart[jy * n + x0], e = T.leafStart[jy * n + x1 + 1];
        for (int i = s; i < e; i++) {
            const double2 p = T.xy[i];
            const double dx = p.x - x, dy = p.y - y;
            const double d2 = fma(dx, dx, dy * dy);
            if (d2 < P.hitD2) continue;  // only a hit node meets it, and takes its value
            const double w = near_weight(d2, invw2, cf, c0n);
            den += w;
            num = fma(w, __ldg(&T.z[i]), num);
        }
    }
    // the NEAR_CORR nearest samples, which weigh most, get float64 weights instead
    for (int i = 0; i < NEAR_CORR; i++) {
        const int q = nearPos[i * count + j];
        if (q < 0) break;
        const double d2 = nearD2[i * count + j], w32 = near_weight(d2, invw2, cf, c0n);
        const double w64 = weight(d2, c, c0);
        den += w64 - w32;
        num += (w64 - w32) * P.z[q];
    }

    // far field: each level's interaction list, the children of the parent's neighbours that
    // are not the box's own
    float ch[ORD];
#pragma unroll
    for (int a = 0; a < ORD; a++) ch[a] = T.cheb[a];
    for (int l = 2; l <= d; l++) {
        const int nb = 1 << l, sh = d - l, bx = ix >> sh, by = iy >> sh;
        const double wl = T.side / nb, u = (x - T.ox) / wl, v = (y - T.oy) / wl;
        const int sx0 = max(2 * ((bx >> 1) - FF_NEAR), 0), sx1 = min(2 * ((bx >> 1) + FF_NEAR) + 1, nb - 1);
        const int sy0 = max(2 * ((by >> 1) - FF_NEAR), 0), sy1 = min(2 * ((by >> 1) + FF_NEAR) + 1, nb - 1);
        double sz = 0, s1 = 0;
        for (int sy = sy0; sy <= sy1; sy++) {
            const float dv = (float)(v - sy);
            for (int sx = sx0; sx <= sx1; sx++) {
                const i64 b = T.levelStart[l] + (i64)sy * nb + sx;
                if (abs(sx - bx) <= FF_NEAR && abs(sy - by) <= FF_NEAR || __ldg(&T.count[b]) == 0) continue;
                const float du = (float)(u - sx);
                const float2 *q = T.charges + b * (ORD * ORD);
                float gz = 0.0f, g1 = 0.0f;
#pragma unroll
                for (int a = 0; a < ORD; a++) {
                    const float ex = du - ch[a], ex2 = ex * ex;
#pragma unroll
                    for (int k = 0; k < ORD; k++) {
                        const float ey = dv - ch[k];
                        const float w = ex2_approx(cf * lg2_approx(fmaf(ey, ey, ex2)));
                        const float2 qk = __ldg(&q[a * ORD + k]);
                        gz = fmaf(w, qk.x, gz);
                        g1 = fmaf(w, qk.y, g1);
                    }
                }
                sz += gz;
                s1 += g1;
            }
        }
        const double scale = exp2(c * log2(wl * wl) + c0);
        num = fma(sz, scale, num);
        den = fma(s1, scale, den);
    }
    out[j] = num / den;
}

// far_leaves_ORD and far_parents_ORD compute the tree's charges (the leaves', then level by
// level up to 2 the parents'); far_weigh_ORD weighs count prepared nodes (node_prep's coordinates, power constants, hits and
// nearest samples) by the far field of tree tp, whose boxes have ORD x ORD points.
#define FAR_KERNEL(ORD)                                                                                  \
    extern "C" __global__ void far_leaves_##ORD(const FarTree *T) { far_leaves_body<ORD>(T); }            \
    extern "C" __global__ void far_parents_##ORD(const FarTree *T, i64 l) { far_parents_body<ORD>(T, l); } \
    extern "C" __global__ void far_weigh_##ORD(const Problem *P, const FarTree *T, const double *px,     \
                                               const double *py, const double *pc, const double *pc0,    \
                                               const int *hit, const int *nearPos, const double *nearD2, \
                                               i64 count, double *out) {                                 \
        far_weigh_body<ORD>(P, T, px, py, pc, pc0, hit, nearPos, nearD2, count, out);                   \
    }

FAR_KERNEL(7)
FAR_KERNEL(8)
FAR_KERNEL(9)
FAR_KERNEL(10)
FAR_KERNEL(11)
FAR_KERNEL(12)
