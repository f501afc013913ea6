// CPU emulation of the CUDA subset hip-kernels/ uses, to test the kernels' logic without a GPU:
// blocks run one at a time, each as HK_BLOCK (256) std::threads; __syncthreads is a barrier;
// warp shuffles exchange through memory between two warp barriers (the kernels call them from
// convergent code); __shared__ becomes `static` (one block at a time). Used by
// backends/hip/tests/all/emu.rs, which pastes portability.h and a kernel file after this header
// (with `extern "C"` removed) and compiles emu_main.cpp with the system C++20 compiler.
#define HK_EMU 1
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>
struct dim3e { unsigned x = 0, y = 0, z = 0; };
thread_local dim3e threadIdx, blockIdx;
dim3e gridDim, blockDim;
std::barrier<>* g_block_barrier;
std::vector<std::barrier<>*> g_warp_barriers;
#define __syncthreads() g_block_barrier->arrive_and_wait()
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
inline float __int_as_float(int u) { float f; memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline long long __double_as_longlong(double d) { long long u; memcpy(&u, &d, 8); return u; }
inline double __longlong_as_double(long long u) { double d; memcpy(&d, &u, 8); return d; }
template <class T> T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
// warp shuffle emulation: every lane of the warp calls it (convergent code).
static unsigned long long g_slots[256][2];
template <class T> T shfl_up(T v, unsigned d) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE, lane = t % HK_WARP_SIZE;
  memcpy(&g_slots[t][0], &v, sizeof(T));
  g_warp_barriers[w]->arrive_and_wait();
  T r = v;
  if (lane >= d) memcpy(&r, &g_slots[t - d][0], sizeof(T));
  g_warp_barriers[w]->arrive_and_wait();
  return r;
}
#define __shfl_up_sync(m, v, d, w) shfl_up((v), (d))
inline unsigned long long ballot(bool p) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE;
  g_slots[t][1] = p;
  g_warp_barriers[w]->arrive_and_wait();
  unsigned long long r = 0;
  for (unsigned l = 0; l < HK_WARP_SIZE; ++l) r |= g_slots[w * HK_WARP_SIZE + l][1] << l;
  g_warp_barriers[w]->arrive_and_wait();
  return r;
}
#define __ballot_sync(m, p) ballot((p))
// __match_any_sync: the lanes of the warp holding the same value as this one.
inline unsigned match_any(unsigned v) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE;
  g_slots[t][1] = v;
  g_warp_barriers[w]->arrive_and_wait();
  unsigned r = 0;
  for (unsigned l = 0; l < HK_WARP_SIZE && l < 32; ++l) r |= (unsigned)(g_slots[w * HK_WARP_SIZE + l][1] == v) << l;
  g_warp_barriers[w]->arrive_and_wait();
  return r;
}
#define __match_any_sync(m, v) match_any((v))
#define __syncwarp() g_warp_barriers[threadIdx.x / HK_WARP_SIZE]->arrive_and_wait()
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
template <class T> T shfl_idx(T v, int src) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE;
  memcpy(&g_slots[t][0], &v, sizeof(T));
  g_warp_barriers[w]->arrive_and_wait();
  T r;
  memcpy(&r, &g_slots[w * HK_WARP_SIZE + src][0], sizeof(T));
  g_warp_barriers[w]->arrive_and_wait();
  return r;
}
#define __shfl_sync(m, v, l, w) shfl_idx((v), (l))
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline void launch(unsigned gx, unsigned gy, const std::function<void()>& body) {
  gridDim.x = gx; gridDim.y = gy; blockDim.x = 256;
  for (unsigned by = 0; by < gy; ++by)
    for (unsigned bx = 0; bx < gx; ++bx) {
      std::barrier<> bb(256);
      g_block_barrier = &bb;
      std::vector<std::barrier<>*> wb;
      for (int i = 0; i < 256 / HK_WARP_SIZE; ++i) wb.push_back(new std::barrier<>(HK_WARP_SIZE));
      g_warp_barriers = wb;
      std::vector<std::thread> ts;
      for (unsigned t = 0; t < 256; ++t)
        ts.emplace_back([&, t, bx, by] { threadIdx.x = t; blockIdx.x = bx; blockIdx.y = by; body(); });
      for (auto& th : ts) th.join();
      for (auto* b : wb) delete b;
    }
}
