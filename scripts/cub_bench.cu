// cub_bench.cu: the yardstick for the grid build, CUB's DeviceRadixSort::SortPairs plus
// DeviceReduce::ReduceByKey on the same problem as BenchmarkGridBuild: 10,000,000 samples
// uniform over a square, keyed by grid.NewLayout's rule (about 2 samples per cell), pairs
// (key, sample index) sorted on the key's significant bits, then counted by key.
// Build and run on the device: nvcc -O3 -arch=sm_90 -o cub_bench scripts/cub_bench.cu && ./cub_bench
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

struct Add {
    __device__ int operator()(int a, int b) const { return a + b; }
};

// keys_uniform hashes i into a point of the square [0,side)^2 and keys it like grid.Layout.Key.
__global__ void keys_uniform(unsigned *keys, int *ids, int *ones, int n, double side, double inv, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    double x = (double)(h & 0xffffffff) / 4294967296.0 * side;
    double y = (double)(h >> 32) / 4294967296.0 * side;
    int col = (int)(x * inv), row = (int)(y * inv);
    keys[i] = (unsigned)row * cols + col;
    ids[i] = i;
    ones[i] = 1;
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    const int n = 10000000, reps = 10;
    const double side = 1e4;
    const double cell = std::sqrt(side) * std::sqrt(side / (n / 2.0));
    const int cols = (int)(side / cell) + 1;
    const long long cells = (long long)cols * cols;
    int bits = 0;
    while ((1LL << bits) < cells) bits++;
    unsigned *keys, *keysOut, *uniq;
    int *ids, *idsOut, *ones, *counts, *runs;
    CHECK(cudaMalloc(&keys, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&keysOut, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&uniq, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&ids, n * sizeof(int)));
    CHECK(cudaMalloc(&idsOut, n * sizeof(int)));
    CHECK(cudaMalloc(&ones, n * sizeof(int)));
    CHECK(cudaMalloc(&counts, n * sizeof(int)));
    CHECK(cudaMalloc(&runs, sizeof(int)));
    keys_uniform<<<(n + 255) / 256, 256>>>(keys, ids, ones, n, side, 1 / cell, cols);
    CHECK(cudaGetLastError());

    size_t sortBytes = 0, rbkBytes = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, keys, keysOut, ids, idsOut, n, 0, bits));
    CHECK(cub::DeviceReduce::ReduceByKey(nullptr, rbkBytes, keysOut, uniq, ones, counts, runs, Add(), n));
    void *temp;
    CHECK(cudaMalloc(&temp, std::max(sortBytes, rbkBytes)));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> sortMs, rbkMs;
    for (int r = 0; r <= reps; r++) {
        float ms;
        CHECK(cudaEventRecord(a));
        CHECK(cub::DeviceRadixSort::SortPairs(temp, sortBytes, keys, keysOut, ids, idsOut, n, 0, bits));
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) sortMs.push_back(ms);
        CHECK(cudaEventRecord(a));
        CHECK(cub::DeviceReduce::ReduceByKey(temp, rbkBytes, keysOut, uniq, ones, counts, runs, Add(), n));
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) rbkMs.push_back(ms);
    }
    int nruns;
    CHECK(cudaMemcpy(&nruns, runs, sizeof(int), cudaMemcpyDeviceToHost));
    printf("cub: %d samples, %lld cells (%d key bits), %d non-empty\n", n, cells, bits, nruns);
    printf("RESULT %-44s %14.6g ms\n", "cub-sortpairs-1e7", median(sortMs));
    printf("RESULT %-44s %14.6g ms\n", "cub-reducebykey-1e7", median(rbkMs));
    printf("RESULT %-44s %14.6g ms\n", "cub-sort+reducebykey-1e7", median(sortMs) + median(rbkMs));
    return 0;
}
