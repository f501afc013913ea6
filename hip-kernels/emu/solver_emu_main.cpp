// Runs hip-kernels/solver.cu under the CPU emulation of emu.h and checks each helper against
// values worked out by hand: det/slogdet from LU factors with 32- and 64-bit pivots, identity
// and triangle fills, the non-finite flag/zero/NaN/info chain, and QR's R and Q set-up.
// Built by backends/hip/tests/all/emu.rs (solver_emu.h is solver.cu assembled, `extern "C"`
// removed). Prints one line per check; exits 1 on the first failure.
#include "emu.h"
#include "solver_emu.h"
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <initializer_list>
#include <vector>

static int g_checks = 0;
#define CHECK(c)                                                              \
  do {                                                                        \
    ++g_checks;                                                               \
    if (!(c)) {                                                               \
      std::printf("FAILED line %d: %s\n", __LINE__, #c);                      \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

static SolverArgs args(std::initializer_list<unsigned long long> v) {
  SolverArgs a{};
  int i = 0;
  for (auto x : v) a.s[i++] = x;
  return a;
}
template <class T>
static unsigned long long P(T* p) {
  return (unsigned long long)(uintptr_t)p;
}

int main() {
  // det (float64): column-major 3x3 LU factors, diagonal at i*(n+1).
  {
    std::vector<double> lu(18, 7.0);
    double d0[3] = {2, 3, 4}, d1[3] = {1, -2, 0.5};
    for (int i = 0; i < 3; ++i) lu[i * 4] = d0[i], lu[9 + i * 4] = d1[i];
    std::vector<long long> p64 = {1, 2, 3, 2, 2, 3};  // matrix 1: one row swap
    std::vector<int> p32(p64.begin(), p64.end());
    for (int w : {64, 32}) {
      std::vector<double> out(2, 0);
      std::vector<int> info(2, 5);
      void* piv = w == 64 ? (void*)p64.data() : (void*)p32.data();
      SolverArgs a = args({3, 2, P(lu.data()), P(piv), P(out.data()), P(info.data()),
                           (unsigned long long)(w == 32)});
      launch(1, 1, [&] { cupy_solver_det_float64(a); });
      CHECK(out[0] == 24.0 && out[1] == 1.0 && info[0] == 0 && info[1] == 0);
    }
  }
  // slogdet (complex128): diag (2i, 3) -> sign i, log 6; a zero pivot -> (0, -inf).
  {
    std::vector<sc64> lu(8);
    lu[0] = {0, 2}, lu[3] = {3, 0}, lu[4] = {1, 1}, lu[7] = {0, 0};
    std::vector<int> piv = {1, 2, 2, 2};
    std::vector<sc64> sign(2);
    std::vector<double> la(2);
    std::vector<int> info(2, 9);
    SolverArgs a = args({2, 2, P(lu.data()), P(piv.data()), P(sign.data()), P(la.data()),
                         P(info.data()), 1});
    launch(1, 1, [&] { cupy_solver_slogdet_complex128(a); });
    CHECK(std::fabs(sign[0].x) < 1e-15 && std::fabs(sign[0].y - 1) < 1e-15);
    CHECK(std::fabs(la[0] - std::log(6.0)) < 1e-15);
    CHECK(sign[1].x == 0 && sign[1].y == 0 && std::isinf(la[1]) && la[1] < 0);
    CHECK(info[0] == 0 && info[1] == 0);
  }
  // eye (float32) [2, 2, 3] and tri_zero (upper: zero below the diagonal) [1, 3, 3].
  {
    std::vector<float> e(12, 5);
    SolverArgs a = args({12, 2, 3, P(e.data())});
    launch(1, 1, [&] { cupy_solver_eye_float32(a); });
    for (int i = 0; i < 12; ++i) CHECK(e[i] == ((i % 6) / 3 == (i % 6) % 3 ? 1.0f : 0.0f));
    std::vector<float> t(9, 1);
    SolverArgs b = args({9, 3, 1, P(t.data())});
    launch(1, 1, [&] { cupy_solver_tri_zero_float32(b); });
    for (int i = 0; i < 9; ++i) CHECK(t[i] == (i / 3 > i % 3 ? 0.0f : 1.0f));
  }
  // Non-finite chain (float32): 3 matrices of 4; matrix 1 holds a NaN, matrix 2 an inf.
  {
    std::vector<float> x(12, 1.5f);
    x[5] = std::nanf(""), x[11] = INFINITY;
    std::vector<float> work = x;
    std::vector<int> flags(3, 0), info(3, 0);
    launch(1, 1, [&] { cupy_solver_nf_flag_float32(args({12, 4, P(x.data()), P(flags.data())})); });
    CHECK(flags[0] == 0 && flags[1] == 1 && flags[2] == 1);
    launch(1, 1, [&] { cupy_solver_nf_zero_float32(args({12, 4, P(flags.data()), P(work.data())})); });
    for (int i = 0; i < 12; ++i) CHECK(work[i] == (i < 4 ? 1.5f : 0.0f));
    launch(1, 1, [&] { cupy_solver_nf_nan_float32(args({12, 4, P(flags.data()), P(work.data())})); });
    for (int i = 0; i < 12; ++i) CHECK(i < 4 ? work[i] == 1.5f : std::isnan(work[i]));
    launch(1, 1, [&] { cupy_solver_nf_info(args({3, P(flags.data()), P(info.data()), 1})); });
    CHECK(info[0] == 0 && info[1] == 1 && info[2] == 1);
  }
  // QR set-up (float64): geqrf's column-major 3x2 work -> R [2, 2] (reduced) and orgqr's
  // input Q (column-major 3 x 3, complete: the 2 reflectors, then an identity column).
  {
    std::vector<double> w = {1, 2, 3, 4, 5, 6};  // columns (1,2,3), (4,5,6)
    std::vector<double> r(4, -1);
    launch(1, 1, [&] { cupy_solver_qr_r_float64(args({4, 3, 2, 2, P(w.data()), P(r.data())})); });
    CHECK(r[0] == 1 && r[1] == 4 && r[2] == 0 && r[3] == 5);
    std::vector<double> q(9, -1);
    launch(1, 1, [&] { cupy_solver_qr_q_float64(args({9, 3, 2, 3, 2, P(w.data()), P(q.data())})); });
    double want[9] = {1, 2, 3, 4, 5, 6, 0, 0, 1};
    for (int i = 0; i < 9; ++i) CHECK(q[i] == want[i]);
  }
  std::printf("solver.cu: %d checks passed\n", g_checks);
  return 0;
}
