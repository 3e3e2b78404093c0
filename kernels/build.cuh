// build.cuh: the stages of the even-grid build, the GPU twins of package grid's stages:
// Bounds (bbox_*), Keys (cell_keys), SortByKey (radix_*), CountByKey (run heads, scan_*_heads,
// run_counts), ExclusiveScan (scan_*), and the gather of the samples into cell order.
#pragma once
#include "prim.cuh"

// ---- bounding box -------------------------------------------------------------------------

#define BBOX_BLOCK 256

// bbox_partial reduces a grid-strided share of the samples to one box per block:
// part[4*block..] = (min x, min y, max x, max y).
extern "C" __global__ void __launch_bounds__(BBOX_BLOCK)
bbox_partial(const double *__restrict__ x, const double *__restrict__ y, i64 n, double *part) {
    __shared__ double scratch[4 * BBOX_BLOCK / 32];
    double a = __longlong_as_double(0x7ff0000000000000LL), b = a;  // +inf
    double c = -a, d = -a;
    for (i64 i = (i64)blockIdx.x * BBOX_BLOCK + threadIdx.x; i < n; i += (i64)gridDim.x * BBOX_BLOCK) {
        double xi = x[i], yi = y[i];
        a = fmin(a, xi);
        b = fmin(b, yi);
        c = fmax(c, xi);
        d = fmax(d, yi);
    }
    BlockMinMax<BBOX_BLOCK>::reduce(a, b, c, d, scratch, part + 4 * blockIdx.x);
}

// bbox_final reduces nb partial boxes (one block) into out[0..3].
extern "C" __global__ void __launch_bounds__(BBOX_BLOCK)
bbox_final(const double *__restrict__ part, i64 nb, double *out) {
    __shared__ double scratch[4 * BBOX_BLOCK / 32];
    double a = __longlong_as_double(0x7ff0000000000000LL), b = a;
    double c = -a, d = -a;
    for (i64 i = threadIdx.x; i < nb; i += BBOX_BLOCK) {
        a = fmin(a, part[4 * i + 0]);
        b = fmin(b, part[4 * i + 1]);
        c = fmax(c, part[4 * i + 2]);
        d = fmax(d, part[4 * i + 3]);
    }
    BlockMinMax<BBOX_BLOCK>::reduce(a, b, c, d, scratch, out);
}

// ---- cell keys ----------------------------------------------------------------------------

// clamp_cell is grid's clampCell: the cell of cell coordinate f clamped to [0, n-1]; NaN -> 0.
__device__ __forceinline__ int clamp_cell(double f, i64 n) {
    if (!(f >= 0.0)) return 0;
    if (f >= (double)n) return (int)(n - 1);
    return (int)f;
}

// cell_coord is (v - min) * inv rounded as Go rounds it (no fused multiply-add), so that keys
// equal grid.Layout.Key bit for bit.
__device__ __forceinline__ double cell_coord(double v, double mn, double inv) {
    return __dmul_rn(__dsub_rn(v, mn), inv);
}

// quanta_coords turns compact samples' quanta into coordinates, as sample.Samples.XY does,
// after moving them by shift quanta, as sample.Samples.MoveOrigin does: half the bytes of the
// coordinates cross the bus, and samples streamed in before the target was known move to its
// centre here.
extern "C" __global__ void quanta_coords(const int *__restrict__ q, i64 shift, double quantum, i64 n,
                                         double *__restrict__ out) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __dmul_rn((double)((i64)q[i] + shift), quantum);
}

extern "C" __global__ void cell_keys(const double *__restrict__ x, const double *__restrict__ y, i64 n,
                                     double minX, double minY, double invCell, i64 cols, i64 rows,
                                     unsigned *__restrict__ keys) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int col = clamp_cell(cell_coord(x[i], minX, invCell), cols);
    int row = clamp_cell(cell_coord(y[i], minY, invCell), rows);
    keys[i] = (unsigned)row * (unsigned)cols + (unsigned)col;
}

// ---- device-wide exclusive scan -----------------------------------------------------------
// Reduce-then-scan in three kernels: scan_reduce* sums each tile, scan_spine scans the tile
// sums (one block), scan_down* rescans each tile from its offset. The *_heads variants scan
// the run-head flags of sorted keys (1 where a key differs from its predecessor) without
// materialising them, and store each run's start: that is the reduce-by-key.

#define SCAN_BLOCK 256
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_BLOCK * SCAN_ITEMS)
#define SPINE_BLOCK 1024

struct LoadPlain {
    const int *in;
    i64 n;
    __device__ __forceinline__ int operator()(i64 i) const { return i < n ? in[i] : 0; }
};

struct LoadHeads {
    const unsigned *keys;
    i64 n;
    __device__ __forceinline__ int operator()(i64 i) const {
        return i < n && (i == 0 || keys[i] != keys[i - 1]);
    }
};

struct StorePlain {
    int *out;
    i64 n;
    __device__ __forceinline__ void operator()(i64 i, int excl, int) const {
        if (i < n) out[i] = excl;
    }
};

struct StoreRunStarts {
    int *runStart;
    __device__ __forceinline__ void operator()(i64 i, int excl, int v) const {
        if (v) runStart[excl] = (int)i;
    }
};

template <class Load>
__device__ __forceinline__ void scan_reduce_tile(Load load, int *part) {
    __shared__ int scratch[SCAN_BLOCK / 32 + 1];
    i64 base = (i64)blockIdx.x * SCAN_TILE + (i64)threadIdx.x * SCAN_ITEMS;
    int s = 0;
#pragma unroll
    for (int j = 0; j < SCAN_ITEMS; j++) s += load(base + j);
    int total;
    BlockScan<SCAN_BLOCK>::exclusive(s, scratch, &total);
    if (threadIdx.x == 0) part[blockIdx.x] = total;
}

template <class Load, class Store>
__device__ __forceinline__ void scan_down_tile(Load load, Store store, const int *part) {
    __shared__ int scratch[SCAN_BLOCK / 32 + 1];
    i64 base = (i64)blockIdx.x * SCAN_TILE + (i64)threadIdx.x * SCAN_ITEMS;
    int v[SCAN_ITEMS];
    int s = 0;
#pragma unroll
    for (int j = 0; j < SCAN_ITEMS; j++) {
        v[j] = load(base + j);
        s += v[j];
    }
    int total;
    int run = BlockScan<SCAN_BLOCK>::exclusive(s, scratch, &total) + part[blockIdx.x];
#pragma unroll
    for (int j = 0; j < SCAN_ITEMS; j++) {
        store(base + j, run, v[j]);
        run += v[j];
    }
}

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
scan_reduce(const int *__restrict__ in, i64 n, int *part) {
    scan_reduce_tile(LoadPlain{in, n}, part);
}

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
scan_down(const int *__restrict__ in, i64 n, const int *__restrict__ part, int *out) {
    scan_down_tile(LoadPlain{in, n}, StorePlain{out, n}, part);
}

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
scan_reduce_heads(const unsigned *__restrict__ keys, i64 n, int *part) {
    scan_reduce_tile(LoadHeads{keys, n}, part);
}

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
scan_down_heads(const unsigned *__restrict__ keys, i64 n, const int *__restrict__ part, int *runStart) {
    scan_down_tile(LoadHeads{keys, n}, StoreRunStarts{runStart}, part);
}

// scan_spine turns the nb tile sums in part into exclusive offsets (in place, one block) and
// writes their total to *total.
extern "C" __global__ void __launch_bounds__(SPINE_BLOCK)
scan_spine(int *part, i64 nb, int *total) {
    __shared__ int scratch[SPINE_BLOCK / 32 + 1];
    int carry = 0;
    for (i64 base = 0; base < nb; base += SPINE_BLOCK) {
        i64 i = base + threadIdx.x;
        int v = i < nb ? part[i] : 0;
        int t;
        int e = BlockScan<SPINE_BLOCK>::exclusive(v, scratch, &t);
        if (i < nb) part[i] = carry + e;
        carry += t;
        __syncthreads();
    }
    if (threadIdx.x == 0) *total = carry;
}

// run_counts is the scatter of reduce-by-key: the run of sorted keys starting at runStart[r]
// is one cell's samples, so counts[its key] = its length. counts starts zeroed (empty cells).
extern "C" __global__ void run_counts(const unsigned *__restrict__ keys, const int *__restrict__ runStart,
                                      const int *__restrict__ numRuns, i64 n, int *counts) {
    i64 r = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    int runs = *numRuns;
    if (r >= runs) return;
    int s = runStart[r];
    int e = r + 1 < runs ? runStart[r + 1] : (int)n;
    counts[keys[s]] = e - s;
}

// ---- stable LSD radix sort of (key, value) pairs --------------------------------------------
// One pass per 8-bit digit, three kernels: radix_upsweep counts each tile's digits,
// radix_digit_scan turns each digit's row of tile counts into offsets within the digit (one
// block per digit) and totals, and radix_downsweep adds the digits' bases (a scan of the
// totals), ranks each tile's keys stably (warp_rank in input order, then warps in order),
// gathers the tile into digit order in shared memory and writes each digit's run out
// contiguously.

#define RADIX_BITS 8
#define RADIX (1 << RADIX_BITS)
#define SORT_BLOCK 256
#define SORT_WARPS (SORT_BLOCK / 32)
#define SORT_ITEMS 16
#define SORT_TILE (SORT_BLOCK * SORT_ITEMS)
#define NO_DIGIT RADIX

// A thread per digit: the tables below are indexed by threadIdx.x.
static_assert(SORT_BLOCK == RADIX, "radix kernels need one thread per digit");

// radix_upsweep: counts[d * tiles + tile] = number of keys of the tile whose digit is d,
// counted per warp with shared-memory atomic adds (integers: the counts do not depend on the
// order of the adds).
extern "C" __global__ void __launch_bounds__(SORT_BLOCK)
radix_upsweep(const unsigned *__restrict__ keys, i64 n, i64 shift, int *counts) {
    __shared__ int hist[SORT_WARPS][RADIX];
    const int warp = threadIdx.x >> 5, lane = lane_id();
    for (int i = threadIdx.x; i < SORT_WARPS * RADIX; i += SORT_BLOCK) (&hist[0][0])[i] = 0;
    __syncthreads();
    const i64 wbase = (i64)blockIdx.x * SORT_TILE + warp * (SORT_ITEMS * 32);
#pragma unroll 4
    for (int j = 0; j < SORT_ITEMS; j++) {
        const i64 i = wbase + j * 32 + lane;
        if (i < n) atomicAdd(&hist[warp][(keys[i] >> shift) & (RADIX - 1)], 1);
    }
    __syncthreads();
    int s = 0;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++) s += hist[w][threadIdx.x];
    counts[(i64)threadIdx.x * gridDim.x + blockIdx.x] = s;
}

// radix_digit_scan scans row blockIdx.x (a digit) of the tile counts in place and writes the
// digit's total.
extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
radix_digit_scan(int *counts, i64 tiles, int *totals) {
    __shared__ int scratch[SCAN_BLOCK / 32 + 1];
    int *row = counts + (i64)blockIdx.x * tiles;
    int carry = 0;
    for (i64 base = 0; base < tiles; base += SCAN_BLOCK) {
        const i64 i = base + threadIdx.x;
        const int v = i < tiles ? row[i] : 0;
        int t;
        const int e = BlockScan<SCAN_BLOCK>::exclusive(v, scratch, &t);
        if (i < tiles) row[i] = carry + e;
        carry += t;
        __syncthreads();
    }
    if (threadIdx.x == 0) totals[blockIdx.x] = carry;
}

// radix_downsweep scatters the pairs of one tile to keysOut/valsOut; valsIn == NULL stands for
// the identity (value = index), the first pass of a sort of sample indices.
extern "C" __global__ void __launch_bounds__(SORT_BLOCK)
radix_downsweep(const unsigned *__restrict__ keysIn, const int *__restrict__ valsIn,
                unsigned *__restrict__ keysOut, int *__restrict__ valsOut, i64 n, i64 shift,
                const int *__restrict__ offsets, const int *__restrict__ totals) {
    __shared__ unsigned skeys[SORT_TILE];
    __shared__ int svals[SORT_TILE];
    __shared__ int hist[SORT_WARPS][RADIX];
    __shared__ int dstart[RADIX];
    __shared__ int goff[RADIX];
    __shared__ int scratch[SORT_BLOCK / 32 + 1];
    const int tid = threadIdx.x, warp = tid >> 5, lane = lane_id();
    const i64 base = (i64)blockIdx.x * SORT_TILE;
    int all;
    const int digitBase = BlockScan<SORT_BLOCK>::exclusive(totals[tid], scratch, &all);
    for (int i = tid; i < SORT_WARPS * RADIX; i += SORT_BLOCK) (&hist[0][0])[i] = 0;
    goff[tid] = digitBase + offsets[(i64)tid * gridDim.x + blockIdx.x];
    __syncthreads();

    unsigned key[SORT_ITEMS];
    int val[SORT_ITEMS], rank[SORT_ITEMS];
    const i64 wbase = base + warp * (SORT_ITEMS * 32);
#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++) {
        i64 i = wbase + j * 32 + lane;
        bool ok = i < n;
        key[j] = ok ? keysIn[i] : 0u;
        val[j] = ok ? (valsIn ? valsIn[i] : (int)i) : 0;
        unsigned d = ok ? (key[j] >> shift) & (RADIX - 1) : NO_DIGIT;
        int r = warp_rank(d, NO_DIGIT, hist[warp]);
        rank[j] = ok ? r : -1;
    }
    __syncthreads();
    // Thread tid owns digit tid: turn the warps' counts into warp offsets, and scan the block's
    // digit totals into each digit's start in the tile.
    int sum = 0;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++) {
        int c = hist[w][tid];
        hist[w][tid] = sum;
        sum += c;
    }
    int total;
    dstart[tid] = BlockScan<SORT_BLOCK>::exclusive(sum, scratch, &total);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++) {
        if (rank[j] >= 0) {
            unsigned d = (key[j] >> shift) & (RADIX - 1);
            int p = dstart[d] + hist[warp][d] + rank[j];
            skeys[p] = key[j];
            svals[p] = val[j];
        }
    }
    __syncthreads();
    const int valid = (int)min((i64)SORT_TILE, n - base);
    for (int p = tid; p < valid; p += SORT_BLOCK) {
        unsigned k = skeys[p];
        unsigned d = (k >> shift) & (RADIX - 1);
        int g = goff[d] + (p - dstart[d]);
        keysOut[g] = k;
        valsOut[g] = svals[p];
    }
}

// ---- samples in cell order ----------------------------------------------------------------

// gather_samples permutes the samples into cell order: coordinates and values in float64 for
// the index and exact weighting, and, unless s32 is null, (x, y, z, 0) in float32 for the fast
// global weighting.
extern "C" __global__ void gather_samples(const int *__restrict__ order, const double *__restrict__ x,
                                          const double *__restrict__ y, const double *__restrict__ z, i64 n,
                                          double2 *__restrict__ sxy, double *__restrict__ sz,
                                          float4 *__restrict__ s32) {
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    int i = order[j];
    double xi = x[i], yi = y[i], zi = z[i];
    sxy[j] = make_double2(xi, yi);
    sz[j] = zi;
    if (s32) s32[j] = make_float4((float)xi, (float)yi, (float)zi, 0.0f);
}
