// forms.cuh: gdal_grid's neighbourhood forms (interp/device_forms.go): the nearest sample,
// the moving-window statistics, invdist over a search ellipse and invdistnn. A node visits the
// cells of its search square row by row, each row's cells one range of the cell order, and
// tests each sample with gdal's operations in Go's rounding (no fused multiply-add), as the CPU
// engine does on the same layout: sums in float64 in that order are the CPU's bit for bit.
// Ties that gdal breaks by its quadtree order read P.rank; a node that needs it while it is
// null sets FLAG_RANKS, and the host computes the order and runs the chunk again.
#pragma once
#include "knn.cuh"

#define FLAG_RANKS 1

// need_ranks flags that a node met a tie that only gdal's quadtree order breaks.
__device__ __forceinline__ void need_ranks(const Problem &P) { atomicOr(P.flags, FLAG_RANKS); }

// CellSpan is the cells that meet the square of half-side h around (x,y), widened against
// rounding as interp's eachCellRange.
struct CellSpan {
    int c0, c1, r0, r1;
};

__device__ __forceinline__ CellSpan cell_span(const Problem &P, double x, double y, double h) {
    h = __dadd_rn(__dmul_rn(h, 1 + 1e-9), __dmul_rn(P.cell, 1e-6));
    CellSpan s;
    s.c0 = clamp_cell(__dmul_rn(__dsub_rn(__dsub_rn(x, h), P.minX), P.invCell), P.cols);
    s.c1 = clamp_cell(__dmul_rn(__dsub_rn(__dadd_rn(x, h), P.minX), P.invCell), P.cols);
    s.r0 = clamp_cell(__dmul_rn(__dsub_rn(__dsub_rn(y, h), P.minY), P.invCell), P.rows);
    s.r1 = clamp_cell(__dmul_rn(__dsub_rn(__dadd_rn(y, h), P.minY), P.invCell), P.rows);
    return s;
}

// in_area is gdal's test of a sample dx, dy from the node: the unrotated ellipse
// (interp's ellipseTest.inside) and, on gdal's quadtree, its square.
__device__ __forceinline__ bool in_area(const Problem &P, double dx, double dy) {
    const double t = __dadd_rn(__dmul_rn(__dmul_rn(P.r2s, dx), dx), __dmul_rn(__dmul_rn(P.r1s, dy), dy));
    return fabs(dx) <= P.sq && fabs(dy) <= P.sq && t <= P.r12s;
}

// go_min and go_max are Go's min and max of float64: NaN wins, -0 is below +0.
__device__ __forceinline__ double go_min(double a, double b) {
    if (a != a || b != b) return a != a ? a : b;
    if (a == b) return signbit(a) ? a : b;
    return a < b ? a : b;
}
__device__ __forceinline__ double go_max(double a, double b) {
    if (a != a || b != b) return a != a ? a : b;
    if (a == b) return signbit(a) ? b : a;
    return a > b ? a : b;
}

// inv_power is interp's invPower.weight for a whole power 0..8 (the forms' only powers on the
// device): 1/r2^(p/2) by products and one square root, rounded as Go rounds them.
__device__ __forceinline__ double inv_power(double r2, int whole) {
    switch (whole) {
        case 2:
            return __drcp_rn(r2);
        case 0:
            return 1;
        case 1:
            return __drcp_rn(__dsqrt_rn(r2));
    }
    double p = r2;
    for (int i = 4; i <= whole; i += 2) p = __dmul_rn(p, r2);
    if (whole % 2 == 1) p = __dmul_rn(p, __dsqrt_rn(r2));
    return __drcp_rn(p);
}

// ---- nearest ---------------------------------------------------------------------------------

// Last keeps the nearest sample, the last in input order on ties, for knn_search: gdal's
// nearest without radius.
struct Last {
    int cnt, k;
    double kd2, d2[1], hitD2, lim2, qx, qy;
    int pos, id;
    const double2 *xy;
    const int *order;

    __device__ __forceinline__ void init(const Problem &P, double x, double y) {
        cnt = 0;
        k = 1;
        kd2 = lim2 = INF_D;
        hitD2 = -1;
        qx = x;
        qy = y;
        pos = id = -1;
        xy = P.xy;
        order = P.order;
    }

    __device__ __forceinline__ void scan(int lo, int hi) {
        for (int j = lo; j < hi; j++) {
            const double dd = dist2(xy[j], qx, qy);
            if (dd > kd2) continue;
            const int o = order[j];
            if (dd < kd2 || o > id) {
                kd2 = d2[0] = dd;
                pos = j;
                id = o;
                cnt = 1;
            }
        }
    }
};

// nearest_sample is gdal's nearest: every sample without radius (ties: the last in input
// order); else the nearest in the search area, which on gdal's quadtree (sq finite) is its
// square within the ellipse, ties going to the last in its order, and otherwise the ellipse,
// ties going to the last in input order.
extern "C" __global__ void nearest_sample(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                          const int *__restrict__ list, double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    if (P.half == 0) {
        Last s;
        s.init(P, x, y);
        knn_search(P, s);
        out[j] = s.cnt ? P.z[s.pos] : P.nodata;
        return;
    }
    const bool quad = P.sq != INF_D;
    const double lim = __dmul_rn(2, __dmul_rn(P.sq, P.sq));  // interp's knn bound, 2h^2
    const CellSpan c = cell_span(P, x, y, P.half);
    double best = INF_D;
    int bestPos = -1, bestKey = -1;
    bool tie = false;
    for (int r = c.r0; r <= c.r1; r++) {
        const i64 rb = (i64)r * P.cols;
        for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
            const double2 s = P.xy[q];
            const double dx = __dsub_rn(s.x, x), dy = __dsub_rn(s.y, y);
            const double dd = __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
            if (quad ? !(fabs(dx) <= P.sq && fabs(dy) <= P.sq && dd <= lim) : !in_area(P, dx, dy)) continue;
            if (dd > best) continue;
            if (dd < best) {
                best = dd;
                bestPos = q;
                bestKey = quad ? -1 : P.order[q];
                tie = false;
                continue;
            }
            if (!quad) {
                if (P.order[q] > bestKey) bestPos = q, bestKey = P.order[q];
                continue;
            }
            tie = true;
        }
    }
    if (bestPos < 0) {
        out[j] = P.nodata;
        return;
    }
    if (tie) {
        if (!P.rank) {
            need_ranks(P);
            return;
        }
        // the last of the tied samples in gdal's order
        for (int r = c.r0; r <= c.r1; r++) {
            const i64 rb = (i64)r * P.cols;
            for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
                const double dx = __dsub_rn(P.xy[q].x, x), dy = __dsub_rn(P.xy[q].y, y);
                const double dd = __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
                if (dd == best && fabs(dx) <= P.sq && fabs(dy) <= P.sq && P.rank[q] > P.rank[bestPos]) bestPos = q;
            }
        }
    }
    out[j] = P.z[bestPos];
}

// ---- moving-window statistics ------------------------------------------------------------------

// The statistics, as interp.DeviceStat.
#define STAT_AVERAGE 0
#define STAT_COUNT 1
#define STAT_MINIMUM 2
#define STAT_MAXIMUM 3
#define STAT_RANGE 4
#define STAT_DISTANCE 5
#define STAT_PAIRS 6  // average_distance_pts: its own kernel, window_pairs

// window_stat is a moving-window statistic over the search area (interp's Average and
// Metric.reduce): sums in cell order, as the CPU engine's.
extern "C" __global__ void window_stat(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                       const int *__restrict__ list, double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    const CellSpan c = cell_span(P, x, y, P.half);
    const int stat = (int)P.stat;
    double a = 0, lo = 1.7976931348623157e308, hi = -1.7976931348623157e308;
    i64 n = 0;
    for (int r = c.r0; r <= c.r1; r++) {
        const i64 rb = (i64)r * P.cols;
        for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
            const double2 s = P.xy[q];
            const double dx = __dsub_rn(s.x, x), dy = __dsub_rn(s.y, y);
            if (!in_area(P, dx, dy)) continue;
            n++;
            switch (stat) {
                case STAT_AVERAGE:
                    a = __dadd_rn(a, P.z[q]);
                    break;
                case STAT_DISTANCE:
                    a = __dadd_rn(a, __dsqrt_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy))));
                    break;
                case STAT_MINIMUM:
                case STAT_MAXIMUM:
                case STAT_RANGE:
                    lo = go_min(lo, P.z[q]);
                    hi = go_max(hi, P.z[q]);
                    break;
            }
        }
    }
    if (n < P.minPoints || n == 0 && stat != STAT_COUNT) {
        out[j] = P.nodata;
        return;
    }
    switch (stat) {
        case STAT_COUNT:
            out[j] = (double)n;
            return;
        case STAT_MINIMUM:
            out[j] = lo;
            return;
        case STAT_MAXIMUM:
            out[j] = hi;
            return;
        case STAT_RANGE:
            out[j] = __dsub_rn(hi, lo);
            return;
    }
    out[j] = __ddiv_rn(a, (double)n);
}

// PAIR_KEEP samples of a node's area are kept in order in its thread's list; a node with more
// (on gdal's quadtree) takes each sample in turn and its later ones PAIR_KEEP at a time.
#define PAIR_KEEP 256

// PairScan is a node's search area for window_pairs.
struct PairScan {
    const Problem *P;
    CellSpan c;
    double x, y;

    __device__ __forceinline__ bool in(int q) const {
        const double dx = __dsub_rn(P->xy[q].x, x), dy = __dsub_rn(P->xy[q].y, y);
        return in_area(*P, dx, dy);
    }

    // after_cells is the sample in the area after the one at cell-order position after, in the
    // cells' order (the cells row by row, each row's cells one range), or -1.
    __device__ __forceinline__ int after_cells(int after) const {
        for (int r = c.r0; r <= c.r1; r++) {
            const i64 rb = (i64)r * P->cols;
            const int e = P->start[rb + c.c1 + 1];
            for (int q = max(P->start[rb + c.c0], after + 1); q < e; q++)
                if (in(q)) return q;
        }
        return -1;
    }

    // after_id is the sample in the area of least input order above above, or -1.
    __device__ __forceinline__ int after_id(int above) const {
        int best = -1, bestID = 0x7fffffff;
        for (int r = c.r0; r <= c.r1; r++) {
            const i64 rb = (i64)r * P->cols;
            for (int q = P->start[rb + c.c0], e = P->start[rb + c.c1 + 1]; q < e; q++) {
                const int o = P->order[q];
                if (o > above && o < bestID && in(q)) best = q, bestID = o;
            }
        }
        return best;
    }

    // fill lists in pos and id the (at most PAIR_KEEP) samples in the area of least input
    // order above above, ascending, and returns how many.
    __device__ __forceinline__ int fill(int above, int *pos, int *id) const {
        int n = 0;
        for (int r = c.r0; r <= c.r1; r++) {
            const i64 rb = (i64)r * P->cols;
            for (int q = P->start[rb + c.c0], e = P->start[rb + c.c1 + 1]; q < e; q++) {
                const int o = P->order[q];
                if (o <= above || n == PAIR_KEEP && o > id[n - 1] || !in(q)) continue;
                int i = n < PAIR_KEEP ? n++ : n - 1;
                for (; i > 0 && id[i - 1] > o; i--) pos[i] = pos[i - 1], id[i] = id[i - 1];
                pos[i] = q;
                id[i] = o;
            }
        }
        return n;
    }
};

// pair_dist is the distance between the samples at a and b as interp's pairDistances: b's
// coordinates less a's.
__device__ __forceinline__ double pair_dist(const Problem &P, int a, int b) {
    const double dx = __dsub_rn(P.xy[b].x, P.xy[a].x), dy = __dsub_rn(P.xy[b].y, P.xy[a].y);
    return __dsqrt_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)));
}

// window_pairs is gdal's average_distance_pts over the search area (interp's Metric.pairs): the
// sum of the distances between every pair of the q samples in it, each sample's pairs with
// those after it, in the CPU engine's order of the samples (ascending input order on gdal's
// quadtree, the cells' order below its threshold), over gdal's pair count: q(q-1)/2, and on
// the quadtree q(q+1)/2 less one when the last sample of the search square in gdal's order is
// in the ellipse (interp's squarePairs), which needs that order only where the square holds
// samples both in and out of the ellipse.
extern "C" __global__ void window_pairs(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                        const int *__restrict__ list, double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    const bool quad = P.sq != INF_D;
    PairScan s;
    s.P = pp;
    s.c = cell_span(P, x, y, P.half);
    s.x = x;
    s.y = y;
    int pos[PAIR_KEEP], id[PAIR_KEEP];
    i64 q = 0;
    int lastRank = -1;  // the rank of the square's last sample in gdal's order
    bool inside = false, outside = false, lastIn = false;
    for (int r = s.c.r0; r <= s.c.r1; r++) {
        const i64 rb = (i64)r * P.cols;
        for (int k = P.start[rb + s.c.c0], e = P.start[rb + s.c.c1 + 1]; k < e; k++) {
            const double dx = __dsub_rn(P.xy[k].x, x), dy = __dsub_rn(P.xy[k].y, y);
            const bool inSq = fabs(dx) <= P.sq && fabs(dy) <= P.sq;
            const bool in = in_area(P, dx, dy);
            if (quad && inSq) {
                inside |= in;
                outside |= !in;
                if (P.rank && P.rank[k] > lastRank) lastRank = P.rank[k], lastIn = in;
            }
            if (!in) continue;
            if (q < PAIR_KEEP) {
                // insertion in the CPU's order: by input order on the quadtree, else as visited
                int i = (int)q;
                const int o = P.order[k];
                if (quad)
                    for (; i > 0 && id[i - 1] > o; i--) pos[i] = pos[i - 1], id[i] = id[i - 1];
                pos[i] = k;
                id[i] = o;
            }
            q++;
        }
    }
    i64 pairs = q * (q - 1) / 2;
    if (quad) {
        if (inside && outside && !P.rank) {
            need_ranks(P);
            return;
        }
        if (!P.rank) lastIn = inside;  // every sample of the square in the ellipse, or none
        pairs = q * (q + 1) / 2 - (lastIn ? 1 : 0);
    }
    double sum = 0;
    if (q <= PAIR_KEEP) {
        for (int a = 0; a < q; a++)
            for (int b = a + 1; b < q; b++) sum = __dadd_rn(sum, pair_dist(P, pos[a], pos[b]));
    } else if (!quad) {
        for (int a = s.after_cells(-1); a >= 0; a = s.after_cells(a))
            for (int b = s.after_cells(a); b >= 0; b = s.after_cells(b)) sum = __dadd_rn(sum, pair_dist(P, a, b));
    } else {
        for (int a = s.after_id(-1); a >= 0; a = s.after_id(P.order[a])) {
            for (int above = P.order[a], n = PAIR_KEEP; n == PAIR_KEEP; above = id[n - 1]) {
                n = s.fill(above, pos, id);
                for (int i = 0; i < n; i++) sum = __dadd_rn(sum, pair_dist(P, a, pos[i]));
            }
        }
    }
    out[j] = pairs < P.minPoints || pairs == 0 ? P.nodata : __ddiv_rn(sum, (double)pairs);
}

// ---- fixed-power weights ------------------------------------------------------------------------

// ellipse_idw is gdal's invdist over the search ellipse without max_points: every sample in it
// weighed in cell order; the first in input order within the exact-hit distance gives its value.
extern "C" __global__ void ellipse_idw(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                       const int *__restrict__ list, double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    const CellSpan c = cell_span(P, x, y, P.half);
    const int whole = (int)P.power;
    double num = 0, den = 0;
    int hit = -1, hitID = 0x7fffffff;
    i64 n = 0;
    for (int r = c.r0; r <= c.r1; r++) {
        const i64 rb = (i64)r * P.cols;
        for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
            const double2 s = P.xy[q];
            const double dx = __dsub_rn(s.x, x), dy = __dsub_rn(s.y, y);
            if (!in_area(P, dx, dy)) continue;
            n++;
            const double r2 = __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), P.smooth2);
            if (r2 < P.hitD2) {
                if (P.order[q] < hitID) hit = q, hitID = P.order[q];
                continue;
            }
            const double w = inv_power(r2, whole);
            num = __dadd_rn(num, __dmul_rn(w, P.z[q]));
            den = __dadd_rn(den, w);
        }
    }
    if (hit >= 0) {
        out[j] = P.z[hit];
    } else if (n < P.minPoints || den == 0) {
        out[j] = P.nodata;
    } else {
        out[j] = __ddiv_rn(num, den);
    }
}

// invdistnn_hit is the sample gdal's invdistnn takes as is: the first in its quadtree order
// within the square of half-side radius with d2 + smooth2 < HIT_D2; -1 when none, -2 when the
// order is needed and missing.
__device__ __forceinline__ int invdistnn_hit(const Problem &P, double x, double y, double radius) {
    const CellSpan c = cell_span(P, x, y, sqrt(P.hitD2));
    int best = -1, found = 0;
    for (int r = c.r0; r <= c.r1; r++) {
        const i64 rb = (i64)r * P.cols;
        for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
            const double dx = __dsub_rn(P.xy[q].x, x), dy = __dsub_rn(P.xy[q].y, y);
            const double dd = __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
            if (!(dd <= P.hitD2 && __dadd_rn(dd, P.smooth2) < P.hitD2 && fabs(dx) <= radius && fabs(dy) <= radius))
                continue;
            found++;
            if (best < 0 || P.rank && P.rank[q] < P.rank[best]) best = q;
        }
    }
    return found > 1 && !P.rank ? -2 : best;
}

// Ranked keeps the m smallest samples by (d2 + smooth2, gdal's order): invdistnn's neighbours
// when a tie straddles max_points (interp's tiedNearest).
template <int KMAX>
struct Ranked {
    double key[KMAX];
    int pos[KMAX];
    int cnt, m;

    __device__ __forceinline__ void add(const Problem &P, double k, int q) {
        if (cnt == m && (k > key[m - 1] || k == key[m - 1] && P.rank[q] > P.rank[pos[m - 1]])) return;
        int i = cnt < m ? cnt++ : m - 1;
        while (i > 0 && (k < key[i - 1] || k == key[i - 1] && P.rank[q] < P.rank[pos[i - 1]])) {
            key[i] = key[i - 1];
            pos[i] = pos[i - 1];
            i--;
        }
        key[i] = k;
        pos[i] = q;
    }
};

// invdistnn is gdal's invdistnn without per-quadrant options: the max_points nearest within the
// radius, by distance and input order (by gdal's order when a tie straddles max_points),
// weighed by 1/r2^(p/2) in that order.
template <int KMAX>
__device__ __forceinline__ void invdistnn_body(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                               const int *__restrict__ list, double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    const int m = (int)P.maxPoints;
    Knn<KMAX> s;
    s.init(P, x, y, m + 1);
    s.hitD2 = -1;
    s.lim2 = P.r2;
    knn_search(P, s);
    const double radius = sqrt(P.r2);
    if ((s.cnt > 0 && __dadd_rn(s.d2[0], P.smooth2) < P.hitD2) || P.r2 < P.hitD2) {
        const int h = invdistnn_hit(P, x, y, radius);
        if (h == -2) {
            need_ranks(P);
            return;
        }
        if (h >= 0) {
            out[j] = P.z[h];
            return;
        }
    }
    const int whole = (int)P.power;
    double num = 0, den = 0;
    int n = min(s.cnt, m);
    if (s.cnt > m && __dadd_rn(s.d2[m - 1], P.smooth2) == __dadd_rn(s.d2[m], P.smooth2)) {
        if (!P.rank) {
            need_ranks(P);
            return;
        }
        Ranked<KMAX> t;
        t.cnt = 0;
        t.m = m;
        const CellSpan c = cell_span(P, x, y, radius);
        for (int r = c.r0; r <= c.r1; r++) {
            const i64 rb = (i64)r * P.cols;
            for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
                const double dd = dist2(P.xy[q], x, y);
                if (dd <= P.r2) t.add(P, __dadd_rn(dd, P.smooth2), q);
            }
        }
        n = t.cnt;
        for (int i = 0; i < n; i++) {
            const double w = inv_power(t.key[i], whole);
            num = __dadd_rn(num, __dmul_rn(w, P.z[t.pos[i]]));
            den = __dadd_rn(den, w);
        }
    } else {
        for (int i = 0; i < n; i++) {
            const double w = inv_power(__dadd_rn(s.d2[i], P.smooth2), whole);
            num = __dadd_rn(num, __dmul_rn(w, P.z[s.pos[i]]));
            den = __dadd_rn(den, w);
        }
    }
    out[j] = n < P.minPoints || den == 0 ? P.nodata : __ddiv_rn(num, den);
}

#define INVDISTNN_KERNEL(K)                                                                        \
    extern "C" __global__ void invdistnn_##K(const Problem *P, i64 row0, i64 first, i64 count,    \
                                             const int *list, double *out) {                       \
        invdistnn_body<K>(P, row0, first, count, list, out);                                       \
    }

INVDISTNN_KERNEL(16)
INVDISTNN_KERNEL(32)
INVDISTNN_KERNEL(64)

// ---- invdistnn's quadrant search -------------------------------------------------------------

// QUAD_KEEP nearest samples of each quadrant are kept: the most the search takes from one
// (the Go side sends it no larger max_points or max_points_per_quadrant).
#define QUAD_KEEP 32

// quad_keep inserts sample q of key k (d2 + smooth2) into a quadrant's list, sorted by key and
// gdal's order (interp's pickQuadrants), keeping the l first; without the order, an equal key
// sets tie.
__device__ __forceinline__ void quad_keep(const Problem &P, double *key, int *pos, int &kept, int l, double k, int q,
                                          bool &tie) {
    if (kept == l && k >= key[l - 1]) {
        if (k > key[l - 1]) return;
        if (!P.rank) {
            tie = true;
            return;
        }
        if (P.rank[q] > P.rank[pos[l - 1]]) return;
    }
    int i = kept < l ? kept++ : l - 1;
    while (i > 0) {
        const double pk = key[i - 1];
        if (k > pk) break;
        if (k == pk) {
            if (!P.rank) {
                tie = true;
                break;
            }
            if (P.rank[q] > P.rank[pos[i - 1]]) break;
        }
        key[i] = pk;
        pos[i] = pos[i - 1];
        i--;
    }
    key[i] = k;
    pos[i] = q;
}

// invdistnn_quad is gdal's invdistnn with min/max_points_per_quadrant: the samples within the
// radius taken from the quadrants 0, 1, 2, 3, 0, ... in turn, nearest first (interp's
// quadrantPick), and weighed in the order taken.
extern "C" __global__ void invdistnn_quad(const Problem *__restrict__ pp, i64 row0, i64 first, i64 count,
                                          const int *__restrict__ list, double *out) {
    const Problem &P = *pp;
    const i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= count) return;
    double x, y;
    node_xy(P, row0, node_index(first, list, j), x, y);
    const int m = (int)P.maxPoints, maxPer = (int)P.maxPerQuad, minPer = (int)P.minPerQuad;
    int l = QUAD_KEEP;
    if (m > 0) l = min(l, m);
    if (maxPer > 0) l = min(l, maxPer);
    double key[4][QUAD_KEEP];
    int pos[4][QUAD_KEEP], kept[4] = {0, 0, 0, 0};
    bool tie = false;
    double nearest = INF_D;
    const CellSpan c = cell_span(P, x, y, P.half);
    for (int r = c.r0; r <= c.r1; r++) {
        const i64 rb = (i64)r * P.cols;
        for (int q = P.start[rb + c.c0], e = P.start[rb + c.c1 + 1]; q < e; q++) {
            const double dx = __dsub_rn(P.xy[q].x, x), dy = __dsub_rn(P.xy[q].y, y);
            const double dd = __dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy));
            if (!(dd <= P.r2)) continue;
            nearest = fmin(nearest, dd);
            const int quad = (dx >= 0 ? 1 : 0) | (dy >= 0 ? 2 : 0);
            quad_keep(P, key[quad], pos[quad], kept[quad], l, __dadd_rn(dd, P.smooth2), q, tie);
        }
    }
    if (__dadd_rn(nearest, P.smooth2) < P.hitD2 || P.r2 < P.hitD2) {
        const int h = invdistnn_hit(P, x, y, P.half);
        if (h == -2) {
            need_ranks(P);
            return;
        }
        if (h >= 0) {
            out[j] = P.z[h];
            return;
        }
    }
    if (tie) {
        need_ranks(P);
        return;
    }
    const int whole = (int)P.power;
    int next[4] = {0, 0, 0, 0}, done = 0, n = 0;
    double num = 0, den = 0;
    for (int q = 0;; q = (q + 1) & 3) {
        if (next[q] == kept[q] || maxPer > 0 && next[q] >= maxPer) {
            done |= 1 << q;
            if (done == 15) break;
            continue;
        }
        const double w = inv_power(key[q][next[q]], whole);
        num = __dadd_rn(num, __dmul_rn(w, P.z[pos[q][next[q]]]));
        den = __dadd_rn(den, w);
        next[q]++;
        if (m > 0 && ++n >= m) break;
    }
    n = next[0] + next[1] + next[2] + next[3];
    for (int q = 0; q < 4; q++) {
        if (next[q] < minPer) {
            out[j] = P.nodata;
            return;
        }
    }
    out[j] = n < P.minPoints || den == 0 ? P.nodata : __ddiv_rn(num, den);
}

// gather_ranks puts gdal's order of each sample (rank, input order) into cell order.
extern "C" __global__ void gather_ranks(const int *__restrict__ order, const int *__restrict__ rank, i64 n,
                                        int *__restrict__ out) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = rank[order[i]];
}

// ---- gdal's quadtree order on the device -------------------------------------------------------
// interp's quadBuild, without a tree: where a sample goes at a node depends on its place and
// the node's rectangle alone (the first quarter that holds it; the overlapping quarters cover
// the node), and a node splits when more than QUAD_BUCKET samples reach it (and it has the
// size to split). So each sample's path of quarters, 2 bits a level, is a key computed on its
// own (quad_keys); sorted, the keys put the samples that reach a node in one run, whose length
// says whether it splits, and so where each sample's leaf is (quad_leaves); the walk's order is
// then the keys cut at the leaves, samples of one leaf in input order (a stable sort of the
// cut keys in input order). A sample that fits no quarter of a node that splits, or a leaf
// deeper than a key holds, leaves the order to the host (FLAG_HOST_ORDER).

#define QUAD_BUCKET 8
#define QUAD_SPLIT 0.55
#define QUAD_DEPTH 32      // levels a key holds, 2 bits each
#define QUAD_NOFIT 64      // quad_keys' depth flag: the sample fits no quarter of its last node
#define FLAG_HOST_ORDER 1  // quad_leaves: only the host's build gives this order

struct QuadRect {
    double x0, y0, x1, y1;
};

// quad_halves is interp's quadRect.split: two overlapping halves across the longer side.
__device__ __forceinline__ void quad_halves(const QuadRect &r, QuadRect &a, QuadRect &b) {
    a = r;
    b = r;
    if (__dsub_rn(r.x1, r.x0) > __dsub_rn(r.y1, r.y0)) {
        const double w = __dsub_rn(r.x1, r.x0);
        a.x1 = __dadd_rn(r.x0, __dmul_rn(w, QUAD_SPLIT));
        b.x0 = __dsub_rn(r.x1, __dmul_rn(w, QUAD_SPLIT));
    } else {
        const double h = __dsub_rn(r.y1, r.y0);
        a.y1 = __dadd_rn(r.y0, __dmul_rn(h, QUAD_SPLIT));
        b.y0 = __dsub_rn(r.y1, __dmul_rn(h, QUAD_SPLIT));
    }
}

__device__ __forceinline__ bool quad_same(const QuadRect &a, const QuadRect &b) {
    return __double_as_longlong(a.x0) == __double_as_longlong(b.x0) &&
           __double_as_longlong(a.y0) == __double_as_longlong(b.y0) &&
           __double_as_longlong(a.x1) == __double_as_longlong(b.x1) &&
           __double_as_longlong(a.y1) == __double_as_longlong(b.y1);
}

__device__ __forceinline__ bool quad_holds(const QuadRect &r, double x, double y) {
    return x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1;
}

// quad_keys writes each sample's path from the root (absolute, as interp's tree) down to
// QUAD_DEPTH levels, in cell order: the key's high and low words, and its depth: the level of
// the first node that cannot split (its quarters are itself) or that the sample fits no quarter
// of (| QUAD_NOFIT), else QUAD_DEPTH + 1.
extern "C" __global__ void quad_keys(const Problem *__restrict__ pp, const double *__restrict__ root,
                                     unsigned *__restrict__ hi, unsigned *__restrict__ lo, int *__restrict__ depth) {
    const Problem &P = *pp;
    const i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= P.n) return;
    const double x = __dadd_rn(P.xy[q].x, P.ox), y = __dadd_rn(P.xy[q].y, P.oy);
    QuadRect r = {root[0], root[1], root[2], root[3]};
    unsigned long long key = 0;
    int d = 0, flag = 0;
    for (; d < QUAD_DEPTH; d++) {
        QuadRect h1, h2, q1, q2, q3, q4;
        quad_halves(r, h1, h2);
        quad_halves(h1, q1, q2);
        quad_halves(h2, q3, q4);
        if (quad_same(q1, r) || quad_same(q2, r) || quad_same(q3, r) || quad_same(q4, r)) break;
        unsigned long long k;
        if (quad_holds(q1, x, y)) {
            k = 0, r = q1;
        } else if (quad_holds(q2, x, y)) {
            k = 1, r = q2;
        } else if (quad_holds(q3, x, y)) {
            k = 2, r = q3;
        } else if (quad_holds(q4, x, y)) {
            k = 3, r = q4;
        } else {
            flag = QUAD_NOFIT;
            break;
        }
        key |= k << (62 - 2 * d);
    }
    hi[q] = (unsigned)(key >> 32);
    lo[q] = (unsigned)key;
    depth[q] = d == QUAD_DEPTH ? QUAD_DEPTH + 1 : d | flag;
}

// quad_common is how many levels two keys share.
__device__ __forceinline__ int quad_common(unsigned long long a, unsigned long long b) {
    return a == b ? QUAD_DEPTH : __clzll(a ^ b) >> 1;
}

// quad_leaves reads the keys sorted (hi, lo; pos their samples' cell-order places) and writes
// each sample's key cut at its leaf, by input order: a node splits when the run of its prefix
// holds more than QUAD_BUCKET keys, which some window of QUAD_BUCKET + 1 sorted keys around
// the sample then shares.
extern "C" __global__ void quad_leaves(const unsigned *__restrict__ hi, const unsigned *__restrict__ lo,
                                       const int *__restrict__ pos, const int *__restrict__ depth,
                                       const int *__restrict__ order, i64 n, unsigned *__restrict__ cutHi,
                                       unsigned *__restrict__ cutLo, int *flags) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int splits = -1;  // the deepest level whose node on the sample's path splits
    for (i64 k = max((i64)0, i - QUAD_BUCKET), e = min(i, n - 1 - QUAD_BUCKET); k <= e; k++) {
        const unsigned long long a = (unsigned long long)hi[k] << 32 | lo[k];
        const unsigned long long b = (unsigned long long)hi[k + QUAD_BUCKET] << 32 | lo[k + QUAD_BUCKET];
        splits = max(splits, quad_common(a, b));
    }
    const int q = pos[i], dep = depth[q] & (QUAD_NOFIT - 1);
    const int leaf = min(splits + 1, dep);  // the level of the sample's leaf
    if (leaf > QUAD_DEPTH || (depth[q] & QUAD_NOFIT) && splits >= dep) atomicOr(flags, FLAG_HOST_ORDER);
    unsigned long long key = (unsigned long long)hi[i] << 32 | lo[i];
    key = leaf <= 0 ? 0 : leaf >= QUAD_DEPTH ? key : key & ~((1ull << (64 - 2 * leaf)) - 1);
    const int id = order[q];
    cutHi[id] = (unsigned)(key >> 32);
    cutLo[id] = (unsigned)key;
}

// gather_u32 is out[i] = in[at[i]].
extern "C" __global__ void gather_u32(const unsigned *__restrict__ in, const int *__restrict__ at, i64 n,
                                      unsigned *__restrict__ out) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[at[i]];
}

// quad_ranks is rank[id[i]] = i: the walk's place of each sample, by input order.
extern "C" __global__ void quad_ranks(const int *__restrict__ id, i64 n, int *__restrict__ rank) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) rank[id[i]] = (int)i;
}
