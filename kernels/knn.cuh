// knn.cuh: the problem description shared with Go, node coordinates, the exact k-nearest
// search by ring expansion, AIDW's adaptive power, and the per-node kernels built on them:
// the neighbour list (tests, benchmarks), the node preparation of the global weighting, and
// the local weightings over the max_points nearest or within a radius.
#pragma once
#include "prim.cuh"
#include "build.cuh"

// gdal_grid's squared distance under which a node takes a sample's value as is.
#define HIT_D2 1e-13
// NEAR_CORR nearest samples of each node have their float32 weights replaced by float64 ones
// in the global weighting (weigh_finish).
#define NEAR_CORR 16
#define INF_D __longlong_as_double(0x7ff0000000000000LL)

// Problem mirrors kernels.problem in Go field for field; every field is 8 bytes, so both sides
// lay it out identically. It lives in device memory and kernels read it through a pointer.
struct Problem {
    // the even grid (grid.Layout) and the samples in cell order
    double minX, minY, cell, invCell;
    i64 cols, rows;
    i64 n;
    const int *start;    // cols*rows+1 cell starts
    const double2 *xy;   // coordinates, relative to the samples' origin
    const int *order;    // input index of each sample
    const double *z;     // values
    // target nodes: x = (gx0 + (col+0.5)*gx1 + (row+0.5)*gx2) - ox, likewise y
    // (interp.Target.Node: the geotransform, then the samples' origin)
    double gx0, gx1, gx2, gy0, gy1, gy2, ox, oy;
    i64 tcols;
    // weighting
    i64 k;          // nearest samples behind r_obs (clamped to n); 1 for a fixed power
    i64 nq;         // nearest samples searched: max(k, max_points)
    i64 maxPoints;  // 0: no bound
    double r2;      // squared radius; +inf: unbounded
    i64 minPoints;
    double nodata;
    double rExp, rmin, rmax;
    double alphas[5];
    double power;    // the fixed power when adaptive == 0
    double smooth2;  // added to every squared distance (invdist's smoothing^2)
    double hitD2;    // exact hit when d2 + smooth2 < hitD2 (HIT_D2; -1: no exact hits)
    i64 adaptive;    // 1: AIDW's power from r_obs; 0: the fixed power
    // gdal_grid's forms (forms.cuh)
    double r1s, r2s, r12s;  // the search ellipse's test: r2s*dx*dx + r1s*dy*dy <= r12s
    double half;            // half-side of the square of cells searched; 0: every sample
    double sq;              // half-side of gdal's quadtree square; +inf: none
    i64 stat;               // the window's statistic (interp.DeviceStat)
    const int *rank;        // gdal's quadtree order of the samples in cell order, or null
    int *flags;             // FLAG_* of forms.cuh, set by the nodes that need what is missing
    i64 minPerQuad, maxPerQuad;  // invdistnn's quadrant search (both 0: none)
    // 1: a tie in distance goes by the samples' (y, x, z) order (sample.Canonicalize's), read
    // from their coordinates, so that the samples may come in any order (compact samples,
    // whose coordinates order them as their quanta do); 0: by input index (order)
    i64 tieByCoords;
};

// problem_size lets Go check that both sides agree on the layout.
extern "C" __global__ void problem_size(i64 *out) { *out = sizeof(Problem); }

// node_index is the index within the block of rows of the j-th node of a chunk.
__device__ __forceinline__ i64 node_index(i64 first, const int *list, i64 j) {
    return list ? (i64)list[first + j] : first + j;
}

// node_xy is interp.Target.Node, rounded as Go rounds it.
__device__ __forceinline__ void node_xy(const Problem &P, i64 row0, i64 i, double &x, double &y) {
    double c = (double)(i % P.tcols) + 0.5, r = (double)(row0 + i / P.tcols) + 0.5;
    x = __dsub_rn(__dadd_rn(__dadd_rn(P.gx0, __dmul_rn(c, P.gx1)), __dmul_rn(r, P.gx2)), P.ox);
    y = __dsub_rn(__dadd_rn(__dadd_rn(P.gy0, __dmul_rn(c, P.gy1)), __dmul_rn(r, P.gy2)), P.oy);
}

__device__ __forceinline__ double dist2(double2 p, double qx, double qy) {
    double dx = __dsub_rn(p.x, qx), dy = __dsub_rn(p.y, qy);
    return __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
}

// total_order maps a double onto an integer of the same order, -0 before +0 (sample.totalOrder).
__device__ __forceinline__ unsigned long long total_order(double f) {
    unsigned long long b = (unsigned long long)__double_as_longlong(f);
    return (b >> 63) ? ~b : (b | (1ULL << 63));
}

// Knn keeps the best k candidates sorted by (d2, the samples' order), as grid's kNN does, and
// the first sample in that order within the exact-hit distance (smoothing included, as gdal's).
// The samples' order is their input index, or their (y, x, z) order when P.tieByCoords: the
// same order for samples in canonical order.
template <int KMAX>
struct Knn {
    double d2[KMAX];
    int pos[KMAX];  // positions in cell order
    int cnt, k;
    double kd2;  // the k-th d2 once k are found, else +inf
    int hitPos;
    double qx, qy, hitD2, smooth2;
    double lim2;  // samples beyond this squared distance are not candidates
    const double2 *xy;
    const int *order;
    const double *z;
    bool byCoords;

    __device__ __forceinline__ void init(const Problem &P, double x, double y, int kk) {
        cnt = 0;
        k = kk;
        kd2 = INF_D;
        hitPos = -1;
        qx = x;
        qy = y;
        hitD2 = P.hitD2;
        smooth2 = P.smooth2;
        lim2 = INF_D;
        xy = P.xy;
        order = P.order;
        z = P.z;
        byCoords = P.tieByCoords != 0;
    }

    // after says whether the sample at position a comes after the one at b in the samples' order.
    __device__ __forceinline__ bool after(int a, int b) const {
        if (!byCoords) return order[a] > order[b];
        const double2 pa = xy[a], pb = xy[b];
        const unsigned long long ya = total_order(pa.y), yb = total_order(pb.y);
        if (ya != yb) return ya > yb;
        const unsigned long long xa = total_order(pa.x), xb = total_order(pb.x);
        if (xa != xb) return xa > xb;
        return total_order(z[a]) > total_order(z[b]);
    }

    __device__ __forceinline__ void scan(int lo, int hi) {
        for (int j = lo; j < hi; j++) {
            double dd = dist2(xy[j], qx, qy);
            if (dd + smooth2 < hitD2 && (hitPos < 0 || after(hitPos, j))) hitPos = j;
            if (dd > kd2 || dd > lim2) continue;
            if (cnt == k && dd == kd2 && after(j, pos[k - 1])) continue;
            int i = cnt < k ? cnt++ : k - 1;
            while (i > 0) {
                double pd = d2[i - 1];
                if (dd > pd || (dd == pd && after(j, pos[i - 1]))) break;
                d2[i] = pd;
                pos[i] = pos[i - 1];
                i--;
            }
            d2[i] = dd;
            pos[i] = j;
            if (cnt == k) kd2 = d2[k - 1];
        }
    }
};

// knn_search scans rings of cells around the node's cell (clamped to the grid) until the k-th
// distance found does not exceed the distance to any cell not yet scanned, and every sample
// within the exact-hit distance has been seen. The bound is shrunk by the same slack as grid's
// inflate, so rounding in keys and cell edges never ends a search early. It also ends once
// every cell within sqrt(lim2) has been scanned.
template <class S>
__device__ __forceinline__ void knn_search(const Problem &P, S &s) {
    const int cols = (int)P.cols, rows = (int)P.rows;
    const int *start = P.start;
    const int ci = clamp_cell(cell_coord(s.qx, P.minX, P.invCell), P.cols);
    const int cj = clamp_cell(cell_coord(s.qy, P.minY, P.invCell), P.rows);
    for (int r = 0;; r++) {
        const int c0 = ci - r, c1 = ci + r, r0 = cj - r, r1 = cj + r;
        const int cl = max(c0, 0), ch = min(c1, cols - 1);
        if (r0 >= 0) s.scan(start[(i64)r0 * cols + cl], start[(i64)r0 * cols + ch + 1]);
        if (r > 0 && r1 < rows) s.scan(start[(i64)r1 * cols + cl], start[(i64)r1 * cols + ch + 1]);
        const int ml = max(r0 + 1, 0), mh = min(r1 - 1, rows - 1);
        for (int row = ml; row <= mh; row++) {
            const i64 rb = (i64)row * cols;
            if (c0 >= 0) s.scan(start[rb + c0], start[rb + c0 + 1]);
            if (c1 < cols) s.scan(start[rb + c1], start[rb + c1 + 1]);
        }
        const bool moreL = c0 > 0, moreR = c1 < cols - 1, moreB = r0 > 0, moreT = r1 < rows - 1;
        if (!(moreL || moreR || moreB || moreT)) return;
        if (s.cnt < s.k && s.lim2 == INF_D) continue;
        double b = INF_D;
        if (moreL) b = fmin(b, s.qx - (P.minX + c0 * P.cell));
        if (moreR) b = fmin(b, (P.minX + (c1 + 1) * P.cell) - s.qx);
        if (moreB) b = fmin(b, s.qy - (P.minY + r0 * P.cell));
        if (moreT) b = fmin(b, (P.minY + (r1 + 1) * P.cell) - s.qy);
        b = b * (1.0 - 1e-9) - P.cell * 1e-6;
        if (!(b > 0)) continue;
        const double b2 = b * b;
        if (s.cnt == s.k && s.kd2 <= b2 && (s.d2[0] >= s.hitD2 || b2 >= s.hitD2)) return;
        if (b2 >= s.lim2 && b2 >= s.hitD2) return;
    }
}

// ---- AIDW's power -------------------------------------------------------------------------

// alpha_of is interp's r_obs -> R -> MuFromR -> AlphaFromMu, rounded as Go rounds it (the
// cosine may differ from Go's in the last bit).
__device__ __forceinline__ double aidw_alpha(const Problem &P, const double *d2, int k) {
    double robs = 0;
    for (int i = 0; i < k; i++) robs = __dadd_rn(robs, __dsqrt_rn(d2[i]));
    robs = __ddiv_rn(robs, (double)k);
    const double R = __ddiv_rn(robs, P.rExp);
    double mu;
    if (R <= P.rmin) {
        mu = 0;
    } else if (R >= P.rmax) {
        mu = 1;
    } else {
        double a = __ddiv_rn(__dmul_rn(3.141592653589793, __dsub_rn(R, P.rmin)), __dsub_rn(P.rmax, P.rmin));
        mu = __dsub_rn(0.5, __dmul_rn(0.5, cos(a)));
    }
    const double knots[5] = {0.1, 0.3, 0.5, 0.7, 0.9};
    if (mu <= knots[0]) return P.alphas[0];
#pragma unroll
    for (int i = 1; i < 5; i++) {
        if (mu <= knots[i]) {
            double u = __dsub_rn(mu, knots[i - 1]);
            return __dadd_rn(__dmul_rn(P.alphas[i - 1], __dsub_rn(1.0, __dmul_rn(5.0, u))),
                             __dmul_rn(__dmul_rn(5.0, P.alphas[i]), u));
        }
    }
    return P.alphas[4];
}

// power_of is the node's power: adaptive (AIDW) or fixed.
template <int KMAX>
__device__ __forceinline__ double power_of(const Problem &P, const Knn<KMAX> &s) {
    return P.adaptive ? aidw_alpha(P, s.d2, (int)P.k) : P.power;
}

// weight is 2^(c*log2(d2) + c0) clamped below at 2^-1000, as interp's CPU weighting: with
// c = -power/2 and c0 = -c*log2(d2 of the nearest), weights are relative to the nearest's.
__device__ __forceinline__ double weight(double d2, double c, double c0) {
    double t = __dadd_rn(__dmul_rn(c, log2(d2)), c0);
    return exp2(fmax(t, -1000.0));
}

// ---- per-node kernels ---------------------------------------------------------------------
// Each takes a chunk of nodes of a block of rows: node j (0 <= j < count) is node
// list[first+j] (or first+j without a list) of the block starting at row row0.

template <int KMAX>
__device__ __forceinline__ void knn_list_body(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                              const int *__restrict__ list, int *outID, double *outD2,
                                              int *outCnt) {
    const Problem &P = *pp;
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    Knn<KMAX> s;
    s.init(P, x, y, (int)P.nq);
    knn_search(P, s);
    for (int i = 0; i < s.cnt; i++) {
        outID[i * count + j] = P.order[s.pos[i]];
        outD2[i * count + j] = s.d2[i];
    }
    outCnt[j] = s.cnt;
}

// node_prep finds, for the global weighting, each node's coordinates, power constants
// c = -power/2 and c0 = -c*log2(nearest d2 + smoothing^2), that nearest squared distance
// (smoothing included), its exact hit (cell-order position, or -1), and its NEAR_CORR nearest
// samples (positions, -1 past the last, and squared distances).
template <int KMAX>
__device__ __forceinline__ void node_prep_body(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                               const int *__restrict__ list, double *outX, double *outY,
                                               double *outC, double *outC0, double *outD2, int *outHit,
                                               int *nearPos, double *nearD2) {
    const Problem &P = *pp;
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    Knn<KMAX> s;
    s.init(P, x, y, (int)P.nq);
    knn_search(P, s);
    const double c = -power_of(P, s) / 2;
    const double dmin = s.d2[0] + P.smooth2;
    outX[j] = x;
    outY[j] = y;
    outC[j] = c;
    outC0[j] = dmin > 0 ? -c * log2(dmin) : 0.0;
    outD2[j] = dmin;
    outHit[j] = s.hitPos;
#pragma unroll
    for (int i = 0; i < NEAR_CORR; i++) {
        nearPos[i * count + j] = i < s.cnt ? s.pos[i] : -1;
        nearD2[i * count + j] = i < s.cnt ? s.d2[i] : 0.0;
    }
}

// reach_of is the node's reach (interp.Block.Reach) once its search found s: the distance of its
// k-th nearest, at least the exact-hit distance it searched and the radius r2 it weighs within
// (0: none), as the CPU engine's scratch.reached widens it; +inf when the search found fewer
// than k, having seen every sample.
template <int KMAX>
__device__ __forceinline__ double reach_of(const Problem &P, const Knn<KMAX> &s, double r2) {
    return s.cnt < s.k ? INF_D : __dsqrt_rn(fmax(fmax(s.kd2, P.hitD2), r2));
}

// local weighs the max_points nearest (within the radius, if any); reach, when not null,
// receives each node's reach.
template <int KMAX>
__device__ __forceinline__ void local_body(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                           const int *__restrict__ list, double *out, double *reach) {
    const Problem &P = *pp;
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    Knn<KMAX> s;
    s.init(P, x, y, (int)P.nq);
    knn_search(P, s);
    if (reach) reach[j] = reach_of(P, s, 0);
    if (s.hitPos >= 0) {
        out[j] = P.z[s.hitPos];
        return;
    }
    int m = min(s.cnt, (int)P.maxPoints);
    while (m > 0 && s.d2[m - 1] > P.r2) m--;
    if (m == 0 || m < P.minPoints) {
        out[j] = P.nodata;
        return;
    }
    const double c = -power_of(P, s) / 2;
    const double c0 = -c * log2(s.d2[0] + P.smooth2);
    double sw = 0, swz = 0;
    for (int i = 0; i < m; i++) {
        double w = weight(s.d2[i] + P.smooth2, c, c0);
        sw += w;
        swz = fma(w, P.z[s.pos[i]], swz);
    }
    out[j] = swz / sw;
}

// radius weighs every sample within the radius (no max_points): r_obs from the k nearest,
// then every cell meeting the disk's bounding square; reach as local's (an exact hit weighs
// nothing within the radius).
template <int KMAX>
__device__ __forceinline__ void radius_body(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                            const int *__restrict__ list, double *out, double *reach) {
    const Problem &P = *pp;
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    Knn<KMAX> s;
    s.init(P, x, y, (int)P.k);
    knn_search(P, s);
    if (reach) reach[j] = reach_of(P, s, s.hitPos >= 0 ? 0 : P.r2);
    if (s.hitPos >= 0) {
        out[j] = P.z[s.hitPos];
        return;
    }
    const double c = -power_of(P, s) / 2;
    const double c0 = -c * log2(s.d2[0] + P.smooth2);
    const double rad = sqrt(P.r2) * (1 + 1e-9) + P.cell * 1e-6;
    const int cl = clamp_cell(cell_coord(x - rad, P.minX, P.invCell), P.cols);
    const int ch = clamp_cell(cell_coord(x + rad, P.minX, P.invCell), P.cols);
    const int rl = clamp_cell(cell_coord(y - rad, P.minY, P.invCell), P.rows);
    const int rh = clamp_cell(cell_coord(y + rad, P.minY, P.invCell), P.rows);
    double sw = 0, swz = 0;
    int m = 0;
    for (int row = rl; row <= rh; row++) {
        const i64 rb = row * P.cols;
        const int lo = P.start[rb + cl], hi = P.start[rb + ch + 1];
        for (int q = lo; q < hi; q++) {
            double dd = dist2(P.xy[q], x, y);
            if (dd > P.r2) continue;
            double w = weight(dd + P.smooth2, c, c0);
            sw += w;
            swz = fma(w, P.z[q], swz);
            m++;
        }
    }
    out[j] = (m == 0 || m < P.minPoints) ? P.nodata : swz / sw;
}

#define NODE_KERNELS(K)                                                                                  \
    extern "C" __global__ void knn_list_##K(const Problem *P, i64 row0, i64 first, i64 count,            \
                                            const int *list, int *outID, double *outD2, int *outCnt) {   \
        knn_list_body<K>(P, row0, first, count, list, outID, outD2, outCnt);                              \
    }                                                                                                    \
    extern "C" __global__ void node_prep_##K(const Problem *P, i64 row0, i64 first, i64 count,           \
                                             const int *list, double *outX, double *outY, double *outC,  \
                                             double *outC0, double *outD2, int *outHit, int *nearPos,    \
                                             double *nearD2) {                                           \
        node_prep_body<K>(P, row0, first, count, list, outX, outY, outC, outC0, outD2, outHit, nearPos,  \
                          nearD2);                                                                       \
    }                                                                                                    \
    extern "C" __global__ void local_##K(const Problem *P, i64 row0, i64 first, i64 count,               \
                                         const int *list, double *out, double *reach) {                  \
        local_body<K>(P, row0, first, count, list, out, reach);                                          \
    }                                                                                                    \
    extern "C" __global__ void radius_##K(const Problem *P, i64 row0, i64 first, i64 count,              \
                                          const int *list, double *out, double *reach) {                 \
        radius_body<K>(P, row0, first, count, list, out, reach);                                         \
    }

NODE_KERNELS(16)
NODE_KERNELS(32)
NODE_KERNELS(64)
