// CPU emulation of the CUDA subset hip-kernels/ uses, to test the kernels' logic without a GPU:
// blocks run one at a time, each as HK_BLOCK (256) cooperative threads (fibers on one OS thread,
// each with its own stack: a small assembly switch on x86-64, ucontext elsewhere or with
// -DEMU_UCONTEXT); __syncthreads is a barrier; warp shuffles exchange through memory between two
// warp barriers (the kernels call them from convergent code); __shared__ becomes `static` (one
// block at a time). A thread runs until it waits at a barrier, then the next one runs: a switch
// costs a function call, where 256 OS threads per block and futex barriers took minutes of
// system time on 2 cores.
// Schedules: the scheduler sweeps the threads in ascending, then descending order, so between
// two barriers either thread of a pair may run first; and each block draws (from a fixed seed)
// laggards (none, one thread, one warp or about an eighth of the threads) that run only when
// every other thread waits, so the others run as far ahead as the barriers let them. A missing
// barrier then shows as a wrong result: dropping one HK_SYNC at a time from scan.cu,
// radix_sort.cu and radix_select.cu (19 drops, warp 32), 15 fail (12 without the laggards);
// the 4 that pass are scan_tile_prefixes' loop end (reached past 256 tiles only) and
// three loop-end or mid-loop barriers whose hazards neighbouring barriers already order.
// A thread must not spin on another thread of its own block (it would never yield); spinning on
// earlier blocks (the sort's look-back) is fine, as those have finished. A barrier no thread can
// pass (a __syncthreads under a divergent branch) exits with a message instead of hanging.
// Used by backends/hip/tests/all/emu.rs, which pastes portability.h and a kernel file after this
// header (with `extern "C"` removed) and compiles emu_main.cpp with the system C++20 compiler.
#define HK_EMU 1
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>
struct dim3e { unsigned x = 0, y = 0, z = 0; };
// The running thread's indices (the scheduler sets them before switching to it).
dim3e threadIdx, blockIdx;
dim3e gridDim, blockDim;
// A barrier of `expected` emulated threads: the last to arrive releases the others.
struct emu_barrier {
  unsigned expected = 0, arrived = 0;
  unsigned long long gen = 0;
};
static unsigned g_cur;                   // the running thread
static unsigned long long g_arrivals;    // barrier arrivals so far: the scheduler's progress check
#if defined(__x86_64__) && !defined(EMU_UCONTEXT)
// x86-64 (System V): saves the callee-saved registers, MXCSR and the x87 control word on the
// running stack, stores its pointer in *from and resumes the stack `to` (as swapcontext does,
// without its signal-mask system call, which was most of the emulation's time).
extern "C" void emu_switch(void** from, void* to);
asm(".text\n.globl emu_switch\n.type emu_switch,@function\nemu_switch:\n"
    "pushq %rbp\npushq %rbx\npushq %r12\npushq %r13\npushq %r14\npushq %r15\n"
    "subq $16, %rsp\nstmxcsr 8(%rsp)\nfnstcw (%rsp)\nmovq %rsp, (%rdi)\nmovq %rsi, %rsp\n"
    "ldmxcsr 8(%rsp)\nfldcw (%rsp)\naddq $16, %rsp\n"
    "popq %r15\npopq %r14\npopq %r13\npopq %r12\npopq %rbx\npopq %rbp\nret\n"
    ".size emu_switch, .-emu_switch\n");
static void* g_sched_sp;
static void* g_fiber_sp[256];
inline void emu_yield() { emu_switch(&g_fiber_sp[g_cur], g_sched_sp); }
inline void emu_resume(unsigned t) { emu_switch(&g_sched_sp, g_fiber_sp[t]); }
// A new thread's stack, as emu_switch leaves one: control words, six registers, then `entry`
// as the return address (entered with the stack aligned as after a call).
inline void emu_start(unsigned t, char* lo, size_t size, void (*entry)()) {
  unsigned long long* top = (unsigned long long*)(((unsigned long long)(lo + size)) & ~15ull);
  unsigned long long* sp = top - 10;
  sp[0] = 0x037f;          // x87 control word (the default)
  sp[1] = 0x1f80;          // MXCSR (the default)
  for (int i = 2; i < 8; ++i) sp[i] = 0;
  sp[8] = (unsigned long long)entry;
  sp[9] = 0;               // entry's return address: it never returns
  g_fiber_sp[t] = sp;
}
#else
static ucontext_t g_sched, g_fibers[256];
inline void emu_yield() { swapcontext(&g_fibers[g_cur], &g_sched); }
inline void emu_resume(unsigned t) { swapcontext(&g_sched, &g_fibers[t]); }
inline void emu_start(unsigned t, char* lo, size_t size, void (*entry)()) {
  getcontext(&g_fibers[t]);
  g_fibers[t].uc_stack.ss_sp = lo;
  g_fibers[t].uc_stack.ss_size = size;
  g_fibers[t].uc_link = nullptr;
  makecontext(&g_fibers[t], entry, 0);
}
#endif
inline void emu_wait(emu_barrier& b) {
  const unsigned long long g = b.gen;
  ++g_arrivals;
  if (++b.arrived == b.expected) {
    b.arrived = 0;
    ++b.gen;
    return;
  }
  while (b.gen == g) emu_yield();
}
static emu_barrier g_block_barrier;
static emu_barrier g_warp_barriers[256];
#define __syncthreads() emu_wait(g_block_barrier)
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
  emu_wait(g_warp_barriers[w]);
  T r = v;
  if (lane >= d) memcpy(&r, &g_slots[t - d][0], sizeof(T));
  emu_wait(g_warp_barriers[w]);
  return r;
}
#define __shfl_up_sync(m, v, d, w) shfl_up((v), (d))
inline unsigned long long ballot(bool p) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE;
  g_slots[t][1] = p;
  emu_wait(g_warp_barriers[w]);
  unsigned long long r = 0;
  for (unsigned l = 0; l < HK_WARP_SIZE; ++l) r |= g_slots[w * HK_WARP_SIZE + l][1] << l;
  emu_wait(g_warp_barriers[w]);
  return r;
}
#define __ballot_sync(m, p) ballot((p))
// __match_any_sync: the lanes of the warp holding the same value as this one.
inline unsigned match_any(unsigned v) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE;
  g_slots[t][1] = v;
  emu_wait(g_warp_barriers[w]);
  unsigned r = 0;
  for (unsigned l = 0; l < HK_WARP_SIZE && l < 32; ++l) r |= (unsigned)(g_slots[w * HK_WARP_SIZE + l][1] == v) << l;
  emu_wait(g_warp_barriers[w]);
  return r;
}
#define __match_any_sync(m, v) match_any((v))
#define __syncwarp() emu_wait(g_warp_barriers[threadIdx.x / HK_WARP_SIZE])
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
template <class T> T shfl_idx(T v, int src) {
  unsigned t = threadIdx.x, w = t / HK_WARP_SIZE;
  memcpy(&g_slots[t][0], &v, sizeof(T));
  emu_wait(g_warp_barriers[w]);
  T r;
  memcpy(&r, &g_slots[w * HK_WARP_SIZE + src][0], sizeof(T));
  emu_wait(g_warp_barriers[w]);
  return r;
}
#define __shfl_sync(m, v, l, w) shfl_idx((v), (l))
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
// The fibers' stacks (256 KiB each, a guard page below each), mapped once.
static const size_t EMU_STACK = 256 << 10;
static char* emu_stacks() {
  static char* base = nullptr;
  if (!base) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void* m = mmap(nullptr, 256 * (EMU_STACK + page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) { perror("emu: mmap"); exit(2); }
    base = (char*)m;
    for (int t = 0; t < 256; ++t) mprotect(base + t * (EMU_STACK + page), page, PROT_NONE);
  }
  return base;
}
static const std::function<void()>* g_body;
static bool g_done[256], g_lag[256];
// xorshift64: the laggards' draws.
inline unsigned long long emu_rand() {
  static unsigned long long x = 0x9e3779b97f4a7c15ull;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}
static void emu_fiber() {
  (*g_body)();
  g_done[g_cur] = true;
  emu_yield();  // never resumed
  abort();
}
inline void launch(unsigned gx, unsigned gy, const std::function<void()>& body) {
  gridDim.x = gx; gridDim.y = gy; blockDim.x = 256;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char* stacks = emu_stacks();
  g_body = &body;
  for (unsigned by = 0; by < gy; ++by)
    for (unsigned bx = 0; bx < gx; ++bx) {
      blockIdx.x = bx; blockIdx.y = by;
      g_block_barrier = emu_barrier{256};
      for (int i = 0; i < 256 / HK_WARP_SIZE; ++i) g_warp_barriers[i] = emu_barrier{HK_WARP_SIZE};
      for (unsigned t = 0; t < 256; ++t) {
        g_done[t] = false;
        emu_start(t, stacks + t * (EMU_STACK + page) + page, EMU_STACK, emu_fiber);
      }
      // The block's laggards (see the header): none, one thread, one warp or about an eighth
      // of the threads, drawn from a fixed seed (a failure reproduces).
      const unsigned long long r = emu_rand(), pick = r >> 8;
      for (unsigned t = 0; t < 256; ++t) {
        switch (r & 3) {
          case 0: g_lag[t] = false; break;
          case 1: g_lag[t] = t == pick % 256; break;
          case 2: g_lag[t] = t / HK_WARP_SIZE == pick % (256 / HK_WARP_SIZE); break;
          default: g_lag[t] = (emu_rand() & 7) == 0; break;
        }
      }
      unsigned live = 256;
      bool up = true, all = false;  // all: this sweep resumes the laggards too
      while (live) {
        const unsigned long long before = g_arrivals;
        const unsigned live_before = live;
        for (unsigned k = 0; k < 256; ++k) {
          const unsigned t = up ? k : 255 - k;
          if (g_done[t] || (g_lag[t] && !all)) continue;
          g_cur = t;
          threadIdx.x = t;
          emu_resume(t);
          if (g_done[t]) --live;
        }
        const bool progress = live != live_before || g_arrivals != before;
        up = !up;
        if (progress || !all) {
          all = !progress;  // when everyone else waits, the laggards run (one sweep)
          continue;
        }
        {
          fprintf(stderr, "emu: block (%u, %u): %u threads wait at a barrier the others never reach\n", bx, by, live);
          exit(3);
        }
      }
    }
}
