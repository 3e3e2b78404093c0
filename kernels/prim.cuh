// prim.cuh: the composable block-level primitives the stages are built from (in the manner of
// CUB): warp and block scans and reductions, and the stable warp-level digit ranking of the
// radix sort. Every primitive takes its shared scratch from the caller, so a kernel can use several.
#pragma once

typedef long long i64;
typedef unsigned long long u64;

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }

// warp_inclusive_scan returns the sum of v over lanes 0..lane.
__device__ __forceinline__ int warp_inclusive_scan(int v) {
    const int lane = lane_id();
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(FULL_MASK, v, o);
        if (lane >= o) v += t;
    }
    return v;
}

// BlockScan<BLOCK>::exclusive returns the sum of v over threads 0..tid-1 and the block's total.
// scratch holds BLOCK/32+1 ints. The caller syncs before reusing scratch.
template <int BLOCK>
struct BlockScan {
    static const int WARPS = BLOCK / 32;
    __device__ __forceinline__ static int exclusive(int v, int *scratch, int *total) {
        const int lane = lane_id(), warp = threadIdx.x >> 5;
        int inc = warp_inclusive_scan(v);
        if (lane == 31) scratch[warp] = inc;
        __syncthreads();
        if (warp == 0) {
            int s = lane < WARPS ? scratch[lane] : 0;
            int si = warp_inclusive_scan(s);
            if (lane < WARPS) scratch[lane] = si - s;
            if (lane == WARPS - 1) scratch[WARPS] = si;
        }
        __syncthreads();
        *total = scratch[WARPS];
        return scratch[warp] + inc - v;
    }
};

// BlockMinMax<BLOCK>::reduce leaves in out[0..3] the block's (min a, min b, max c, max d).
// scratch holds 4*BLOCK/32 doubles; only thread 0 reads out afterwards.
template <int BLOCK>
struct BlockMinMax {
    __device__ __forceinline__ static void reduce(double a, double b, double c, double d,
                                                  double *scratch, double *out) {
        const int lane = lane_id(), warp = threadIdx.x >> 5;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            a = fmin(a, __shfl_down_sync(FULL_MASK, a, o));
            b = fmin(b, __shfl_down_sync(FULL_MASK, b, o));
            c = fmax(c, __shfl_down_sync(FULL_MASK, c, o));
            d = fmax(d, __shfl_down_sync(FULL_MASK, d, o));
        }
        if (lane == 0) {
            scratch[4 * warp + 0] = a;
            scratch[4 * warp + 1] = b;
            scratch[4 * warp + 2] = c;
            scratch[4 * warp + 3] = d;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < BLOCK / 32; w++) {
                a = fmin(a, scratch[4 * w + 0]);
                b = fmin(b, scratch[4 * w + 1]);
                c = fmax(c, scratch[4 * w + 2]);
                d = fmax(d, scratch[4 * w + 3]);
            }
            out[0] = a;
            out[1] = b;
            out[2] = c;
            out[3] = d;
        }
    }
};

// digit_peers is the mask of lanes whose 9-bit digit (8 bits and the no-digit flag) equals
// this lane's: one ballot per bit. (__match_any_sync does the same in one instruction, but the
// downsweep measured 15% slower with it on an H200: kernels/NOTES.md.)
__device__ __forceinline__ unsigned digit_peers(unsigned d) {
    unsigned m = FULL_MASK;
#pragma unroll
    for (int b = 0; b < 9; b++) {
        const bool set = (d >> b) & 1;
        const unsigned v = __ballot_sync(FULL_MASK, set);
        m &= set ? v : ~v;
    }
    return m;
}

// warp_rank returns, for each lane's digit d (d == invalid for lanes without an item), how many
// lanes before it hold the same digit, and adds each digit's lane count to hist[d] once (by
// the lowest such lane). Lanes in order give ranks in order: this is what keeps the radix sort
// stable. hist belongs to this warp alone.
__device__ __forceinline__ int warp_rank(unsigned d, unsigned invalid, int *hist) {
    const int lane = lane_id();
    unsigned peers = digit_peers(d);
    int before = __popc(peers & ((1u << lane) - 1u));
    int r = 0;
    if (d != invalid) r = hist[d] + before;
    __syncwarp();
    if (d != invalid && before == 0) hist[d] += __popc(peers);
    __syncwarp();
    return r;
}
