// Standalone timing harness of radix_sort.cu's onesweep path (not part of the library build).
//
// Launches the kernels in the order core/src/gpu/sortscan/plan.rs does for a keys-only float32
// sort of one row (ctl, tinit, one onesweep pass per digit, finish), times each with CUDA
// events (median of RUNS after 2 warm-ups), checks the result bit for bit against std::sort,
// and times CUB's DeviceRadixSort::SortKeys on the same keys in the same process.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -I hip-kernels -DHK_WARP_SIZE=32 [-DHK_SORT_IT32=..]
//        hip-kernels/bench/sort_harness.cu -o sort_harness && ./sort_harness [log2 n]
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../radix_sort.cu"
#include "../radix_sort_passes.cu"

// HK_HARNESS_SPLIT: 0 one keys-only pass kernel holding every body (the library's
// cupy_sort_onesweepk_u32); 1 the first live pass's body in a kernel of its own; 2 the first,
// middle and last bodies each in their own kernel. Kernels not expected to run on a pass get
// the persistent grid (they return at once). HK_HARNESS_FIRST_MINB: the first kernel's blocks
// per SM.
#ifndef HK_HARNESS_SPLIT
#define HK_HARNESS_SPLIT 0
#endif
#ifndef HK_HARNESS_FIRST_MINB
#define HK_HARNESS_FIRST_MINB HK_SORT_MINB
#endif
extern "C" __global__ void HK_BOUNDS_MINB(HK_HARNESS_FIRST_MINB) h_first(SortArgs a) {
  sort_scatter<hk_u32, HK_SORT_IT32, false, true, 1>(a);
}
extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINB) h_rest(SortArgs a) {
  sort_scatter<hk_u32, HK_SORT_IT32, false, true, 6>(a);
}
extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINB) h_mid(SortArgs a) {
  sort_scatter<hk_u32, HK_SORT_IT32, false, true, 2>(a);
}
extern "C" __global__ void HK_BOUNDS_MINB(HK_SORT_MINB) h_last(SortArgs a) {
  sort_scatter<hk_u32, HK_SORT_IT32, false, true, 4>(a);
}

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t ck_err = (x);                                                       \
    if (ck_err != cudaSuccess) {                                                  \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(ck_err), __FILE__, __LINE__); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static const int RUNS = 9;

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const int lg = argc > 1 ? atoi(argv[1]) : 26;
  const long long n = 1ll << lg;
  const int it = HK_SORT_IT32;
  const long long nos = (n + HK_BLOCK * it - 1) / (HK_BLOCK * it);
  const long long ntiles = (n + HK_TILE - 1) / HK_TILE;
  std::vector<float> h(n);
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : h) x = u(rng);
  std::vector<float> want = h;
  std::sort(want.begin(), want.end());

  float *pristine, *keys;
  void *mk0, *mk1, *pos0, *pos1, *ctl, *ghist, *look;
  CK(cudaMalloc(&pristine, n * 4));
  CK(cudaMalloc(&keys, n * 4));
  CK(cudaMalloc(&mk0, n * 4));
  CK(cudaMalloc(&mk1, n * 4));
  CK(cudaMalloc(&pos0, n * 4));
  CK(cudaMalloc(&pos1, n * 4));
  CK(cudaMalloc(&ctl, 7 * 8));
  CK(cudaMalloc(&ghist, 8 * 256 * 4));
  CK(cudaMalloc(&look, 2 * nos * 256 * 4));
  CK(cudaMemcpy(pristine, h.data(), n * 4, cudaMemcpyHostToDevice));

  SortArgs a;
  memset(&a, 0, sizeof a);
  a.keys = (hk_u64)keys;
  a.mk_in = (hk_u64)mk0;
  a.mk_out = (hk_u64)mk1;
  a.pos_in = (hk_u64)pos0;
  a.pos_out = (hk_u64)pos1;
  a.batch = 1;
  a.n = n;
  a.ntiles = ntiles;
  a.ctl = (hk_u64)ctl;
  a.vmode = 2;  // a keys-only float32 sort: the original bits carried only when a key is NaN/-0.0
  a.passes = 4;
  a.lossy = 1;
  a.ghist = (hk_u64)ghist;
  a.look = (hk_u64)look;
  a.nos = nos;
#ifdef HK_HARNESS_INIT_MAPS
  const bool fused = false;  // the init writes the mapped keys (as for 1- and 2-byte keys)
#else
  a.kmap = 3;  // float keys mapped by the passes (plan.rs: sort_kmap)
  const bool fused = true;
#endif
  const unsigned sb = (unsigned)std::min<long long>((n + 255) / 256, 2048);  // plan.rs
  const unsigned gx = (unsigned)std::min<long long>(nos, 65535);
  const dim3 grid(gx, (unsigned)((nos + gx - 1) / gx));

  const int NK = 7;  // ctl, tinit, 4 passes, finish
  const char* names[NK] = {"ctl", "tinit", "pass0", "pass1", "pass2", "pass3", "finish"};
  std::vector<std::vector<float>> t(NK + 1);
  cudaEvent_t ev[NK + 1];
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int r = 0; r < RUNS + 2; ++r) {
    CK(cudaMemcpy(keys, pristine, n * 4, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(ev[0]));
    cupy_sort_ctl<<<(8 * 256 + 255) / 256, HK_BLOCK>>>(a);
    CK(cudaEventRecord(ev[1]));
    cupy_sort_tinit_float32<<<dim3((unsigned)ntiles, 1), HK_BLOCK>>>(a);
    CK(cudaEventRecord(ev[2]));
    for (int p = 0; p < 4; ++p) {
      a.shift = 8 * p;
      const dim3 idle((unsigned)std::min<long long>(nos, 1024));  // plan.rs: persistent
      if (HK_HARNESS_SPLIT == 0) {
        cupy_sort_onesweepk_u32<<<grid, HK_BLOCK>>>(a);
      } else {
        h_first<<<p == 0 ? grid : idle, HK_BLOCK>>>(a);
        if (p > 0 && HK_HARNESS_SPLIT == 1) h_rest<<<grid, HK_BLOCK>>>(a);
        if (p > 0 && HK_HARNESS_SPLIT == 2) {
          h_mid<<<p < 3 ? grid : idle, HK_BLOCK>>>(a);
          h_last<<<p == 3 ? grid : idle, HK_BLOCK>>>(a);
        }
      }
      cupy_sort_onesweep_u32<<<dim3((unsigned)std::min<long long>(nos, 1024)), HK_BLOCK>>>(a);  // plan.rs: persistent
      CK(cudaEventRecord(ev[3 + p]));
    }
    cupy_sort_finish_float32<<<sb, HK_BLOCK>>>(a);
    CK(cudaEventRecord(ev[7]));
    CK(cudaEventSynchronize(ev[7]));
    CK(cudaGetLastError());
    if (r < 2) continue;
    float total = 0;
    for (int k = 0; k < NK; ++k) {
      float ms;
      CK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
      t[k].push_back(ms);
      total += ms;
    }
    t[NK].push_back(total);
  }
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), keys, n * 4, cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (long long i = 0; i < n; ++i)
    if (memcmp(&got[i], &want[i], 4) != 0 && bad++ < 3) printf("mismatch at %lld\n", i);
  printf("IT32=%d MINB=%d MATCH=%d kmap=%d split=%d n=2^%d ours: ", it, HK_SORT_MINB, HK_SORT_MATCH, (int)fused, HK_HARNESS_SPLIT, lg);
  for (int k = 0; k < NK; ++k) printf("%s %.3f ", names[k], median(t[k]));
  printf("| total %.3f ms, %s\n", median(t[NK]), bad ? "WRONG" : "ok");

  // CUB on the same keys
  void* tmp = nullptr;
  size_t tb = 0;
  float* out;
  CK(cudaMalloc(&out, n * 4));
  cub::DeviceRadixSort::SortKeys(tmp, tb, pristine, out, (int)n);
  CK(cudaMalloc(&tmp, tb));
  std::vector<float> tc;
  for (int r = 0; r < RUNS + 2; ++r) {
    CK(cudaEventRecord(ev[0]));
    cub::DeviceRadixSort::SortKeys(tmp, tb, pristine, out, (int)n);
    CK(cudaEventRecord(ev[1]));
    CK(cudaEventSynchronize(ev[1]));
    float ms;
    CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    if (r >= 2) tc.push_back(ms);
  }
  printf("cub SortKeys %.3f ms\n", median(tc));
  return 0;
}
