// Drives the emulated kernels as hip-kernels/sources.rs launches them and checks the results
// against sequential host scans and std::stable_sort. HK_WARP_SIZE comes from the command line.
#include "emu.h"
#include "scan_emu.h"
#include "radix_sort_emu.h"
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <random>
static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf(__VA_ARGS__); printf("\n"); if (++fails > 20) exit(1);} } while (0)

typedef void (*SF)(ScanArgs);
template <class T> void test_scan(const char* name, long batch, long n, SF entry_rows, SF e_tot, SF e_pre, SF e_app, bool f) {
  std::vector<T> x(batch * n), y(batch * n);
  std::mt19937 rng(1);
  for (auto& v : x) v = (T)(int)(rng() % 7) - (T)3;
  ScanArgs a{(hk_u64)x.data(), (hk_u64)y.data(), batch, n, n, 1, 0, 0};
  std::vector<double> part;
  if (n <= 16384) {
    launch(batch, 1, [&] { entry_rows(a); });
  } else {
    long nt = (n + 8191) / 8192;
    part.assign(batch * nt, 0);
    std::vector<hk_u64> partu(batch * nt);
    a.partial = (hk_u64)partu.data();  // 8 bytes each: enough for any accumulator
    a.ntiles = nt;
    launch(nt, batch, [&] { e_tot(a); });
    launch(batch, 1, [&] { e_pre(a); });
    launch(nt, batch, [&] { e_app(a); });
  }
  for (long b = 0; b < batch; ++b) {
    T acc = 0;
    for (long j = 0; j < n; ++j) {
      acc += x[b * n + j];
      CHECK(y[b * n + j] == acc, "%s [%ld,%ld] row %ld j %ld got %g want %g", name, batch, n, b, j, (double)y[b*n+j], (double)acc);
    }
  }
  printf("scan %s [%ld, %ld] ok\n", name, batch, n);
}

// Complex scans (sum and prod) on values whose sums and products are exact (small integer parts;
// products of 0, +-1, +-i), so any grouping gives the sequential result.
template <class C>
void test_scan_complex(const char* name, long batch, long n, bool prod, SF rows, SF tot, SF pre, SF app) {
  std::vector<C> x(batch * n), y(batch * n);
  std::mt19937 rng(3);
  for (auto& v : x) {
    int k = (int)(rng() % 5);
    if (prod) {
      const int re[5] = {1, -1, 0, 0, 1}, im[5] = {0, 0, 1, -1, 0};
      v.re = re[k];
      v.im = im[k];
    } else {
      v.re = k - 2;
      v.im = (int)(rng() % 3) - 1;
    }
  }
  ScanArgs a{(hk_u64)x.data(), (hk_u64)y.data(), batch, n, n, 1, 0, 0};
  std::vector<C> part;
  if (n <= 16384) {
    launch(batch, 1, [&] { rows(a); });
  } else {
    long nt = (n + 8191) / 8192;
    part.assign(batch * nt, C{});
    a.partial = (hk_u64)part.data();
    a.ntiles = nt;
    launch(nt, batch, [&] { tot(a); });
    launch(batch, 1, [&] { pre(a); });
    launch(nt, batch, [&] { app(a); });
  }
  for (long b = 0; b < batch; ++b) {
    double are = prod ? 1 : 0, aim = 0;
    for (long j = 0; j < n; ++j) {
      const C& v = x[b * n + j];
      if (prod) {
        double r = are * v.re - aim * v.im, i = are * v.im + aim * v.re;
        are = r;
        aim = i;
      } else {
        are += v.re;
        aim += v.im;
      }
      const C& g = y[b * n + j];
      CHECK(g.re == are && g.im == aim, "%s [%ld,%ld] row %ld j %ld got (%g, %g) want (%g, %g)", name, batch, n, b, j, (double)g.re, (double)g.im, are, aim);
    }
  }
  printf("scan %s [%ld, %ld] ok\n", name, batch, n);
}

template <class S, class K>
void test_sort(const char* name, long batch, long n, void (*init)(SortArgs), void (*gather)(SortArgs),
               void (*blk)(SortArgs), void (*hist)(SortArgs), void (*scat)(SortArgs), int passes,
               std::function<S(std::mt19937&, long)> gen, std::function<bool(S, S)> less) {
  long total = batch * n;
  std::mt19937 rng(7);
  std::vector<S> keys(total), orig(total), korig(total);
  for (long i = 0; i < total; ++i) keys[i] = gen(rng, i);
  orig = keys;
  std::vector<hk_i64> vals(total), vorig(total);
  for (long i = 0; i < total; ++i) vals[i] = i % n;
  std::vector<K> mk0(total), mk1(total);
  std::vector<hk_u32> pos0(total), pos1(total);
  SortArgs a{(hk_u64)keys.data(), (hk_u64)vals.data(), (hk_u64)korig.data(), (hk_u64)vorig.data(),
             (hk_u64)mk0.data(), (hk_u64)pos0.data(), (hk_u64)mk1.data(), (hk_u64)pos1.data(), 0,
             batch, n, 0, 0};
  launch(std::min<long>(65536, (total + 255) / 256), 1, [&] { init(a); });
  std::vector<hk_u32> h, hi;
  if (n <= 1024) {
    launch(batch, 1, [&] { blk(a); });
    a.pos_in = a.pos_out;
  } else {
    long nt = (n + HK_TILE - 1) / HK_TILE;
    h.assign(batch * 256 * nt, 0);
    hi.assign(batch * 256 * nt, 0);
    a.hist = (hk_u64)h.data();
    a.incl = (hk_u64)hi.data();
    a.ntiles = nt;
    for (int p = 0; p < passes; ++p) {
      a.shift = 8 * p;
      launch(nt, batch, [&] { hist(a); });
      for (long b = 0; b < batch; ++b)  // the plan runs scan.cu's cumsum here (tested above)
        std::partial_sum(h.begin() + b * 256 * nt, h.begin() + (b + 1) * 256 * nt, hi.begin() + b * 256 * nt);
      launch(nt, batch, [&] { scat(a); });
      std::swap(a.mk_in, a.mk_out);
      std::swap(a.pos_in, a.pos_out);
    }
  }
  launch(std::min<long>(65536, (total + 255) / 256), 1, [&] { gather(a); });
  for (long b = 0; b < batch; ++b) {
    std::vector<long> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](long i, long j) { return less(orig[b * n + i], orig[b * n + j]); });
    for (long j = 0; j < n; ++j) {
      CHECK(vals[b * n + j] == idx[j], "%s [%ld,%ld] row %ld argsort[%ld] got %lld want %ld", name, batch, n, b, j, (long long)vals[b*n+j], idx[j]);
      CHECK(memcmp(&keys[b * n + j], &orig[b * n + idx[j]], sizeof(S)) == 0, "%s key mismatch at %ld", name, j);
    }
  }
  printf("sort %s [%ld, %ld] ok\n", name, batch, n);
}

bool fless(float a, float b) { if (std::isnan(a)) return false; if (std::isnan(b)) return true; return a < b; }
int main() {
  test_scan<float>("f32", 3, 700, cupy_scan_sum_float32, cupy_scan_totals_sum_float32, cupy_scan_prefixes_sum_float32, cupy_scan_apply_sum_float32, true);
  test_scan<float>("f32", 1, 40000, cupy_scan_sum_float32, cupy_scan_totals_sum_float32, cupy_scan_prefixes_sum_float32, cupy_scan_apply_sum_float32, true);
  test_scan<hk_i64>("i64", 2, 20000, cupy_scan_sum_int64, cupy_scan_totals_sum_int64, cupy_scan_prefixes_sum_int64, cupy_scan_apply_sum_int64, false);
  test_scan_complex<hk_c64>("c64 sum", 3, 500, false, cupy_scan_sum_complex64, cupy_scan_totals_sum_complex64, cupy_scan_prefixes_sum_complex64, cupy_scan_apply_sum_complex64);
  test_scan_complex<hk_c128>("c128 sum", 1, 20000, false, cupy_scan_sum_complex128, cupy_scan_totals_sum_complex128, cupy_scan_prefixes_sum_complex128, cupy_scan_apply_sum_complex128);
  test_scan_complex<hk_c128>("c128 prod", 2, 700, true, cupy_scan_prod_complex128, cupy_scan_totals_prod_complex128, cupy_scan_prefixes_prod_complex128, cupy_scan_apply_prod_complex128);
  test_scan_complex<hk_c64>("c64 prod", 1, 20000, true, cupy_scan_prod_complex64, cupy_scan_totals_prod_complex64, cupy_scan_prefixes_prod_complex64, cupy_scan_apply_prod_complex64);
  auto gf = [](std::mt19937& r, long i) -> float { switch (i % 13) { case 3: return NAN; case 5: return -0.0f; case 6: return 0.0f; case 7: return -INFINITY; default: return (float)((int)(r() % 41) - 20) * 0.5f; } };
  test_sort<float, hk_u32>("f32", 3, 700, cupy_sort_init_float32, cupy_sort_gather_float32, cupy_sort_block_u32, cupy_sort_hist_u32, cupy_sort_scatter_u32, 4, gf, fless);
  test_sort<float, hk_u32>("f32", 2, 5000, cupy_sort_init_float32, cupy_sort_gather_float32, cupy_sort_block_u32, cupy_sort_hist_u32, cupy_sort_scatter_u32, 4, gf, fless);
  test_sort<float, hk_u32>("f32", 1, 20000, cupy_sort_init_float32, cupy_sort_gather_float32, cupy_sort_block_u32, cupy_sort_hist_u32, cupy_sort_scatter_u32, 4, gf, fless);
  auto gi = [](std::mt19937& r, long) -> hk_i64 { return (hk_i64)(r() % 200) - 100 + ((r() & 1) ? (1ll << 40) : -(1ll << 40)); };
  test_sort<hk_i64, hk_u64>("i64", 1, 9000, cupy_sort_init_int64, cupy_sort_gather_int64, cupy_sort_block_u64, cupy_sort_hist_u64, cupy_sort_scatter_u64, 8, gi, [](hk_i64 a, hk_i64 b){return a < b;});
  auto g8 = [](std::mt19937& r, long) -> hk_i8 { return (hk_i8)(r() % 256); };
  test_sort<hk_i8, hk_u32>("i8", 1, 3000, cupy_sort_init_int8, cupy_sort_gather_int8, cupy_sort_block_u32, cupy_sort_hist_u32, cupy_sort_scatter_u32, 1, g8, [](hk_i8 a, hk_i8 b){return a < b;});
  printf("%d failures\n", fails);
  return fails != 0;
}
