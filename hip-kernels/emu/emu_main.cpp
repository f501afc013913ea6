#include <string>
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
#include <type_traits>
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

// Stream compaction (scan.cu's count, scan and compress kernels) as compress.rs launches it: a mask of density
// `permille`, sources of every width and the positions, checked against a sequential pass; with
// `short_by` > 0 the count given is that much too small and nothing may land past it.
void test_compress(long n, int permille, long short_by) {
  std::mt19937 rng(5 + n + permille);
  std::vector<hk_u8> mask(n);
  for (auto& m : mask) m = (hk_u8)((long)(rng() % 1000) < permille ? 1 + rng() % 3 : 0);
  std::vector<hk_u8> s1(n);
  std::vector<hk_u16> s2(n);
  std::vector<hk_u64> s8(n);
  std::vector<hk_u64> s16(2 * n);
  for (long i = 0; i < n; ++i) {
    s1[i] = (hk_u8)rng();
    s2[i] = (hk_u16)rng();
    s8[i] = ((hk_u64)rng() << 32) | rng();
    s16[2 * i] = rng();
    s16[2 * i + 1] = rng();
  }
  long kept = 0;
  for (long i = 0; i < n; ++i) kept += mask[i] != 0;
  const long count = kept - short_by;
  const long room = kept + 8;  // outputs a little longer than the count: nothing past it is written
  std::vector<hk_u8> o1(room, 0xee);
  std::vector<hk_u16> o2(room, 0xeeee);
  std::vector<hk_u64> o8(room, 7), oi(room, 7), o16(2 * room, 7);
  const long tile = 256 * HK_COMPRESS_IT, nt = (n + tile - 1) / tile;
  std::vector<hk_u64> offs(nt, 0xdeadu);  // garbage: the count kernel writes it
  CompressArgs a{};
  a.mask = (hk_u64)mask.data();
  hk_u64 srcs[4] = {(hk_u64)s1.data(), (hk_u64)s2.data(), (hk_u64)s8.data(), 0};
  hk_u64 dsts[4] = {(hk_u64)o1.data(), (hk_u64)o2.data(), (hk_u64)o8.data(), (hk_u64)oi.data()};
  hk_i64 widths[4] = {1, 2, 8, 8};
  for (int k = 0; k < 4; ++k) { a.src[k] = srcs[k]; a.dst[k] = dsts[k]; a.width[k] = widths[k]; }
  a.n = n;
  a.offs = (hk_u64)offs.data();
  a.ntiles = nt;
  a.count = count;
  launch(nt, 1, [&] { cupy_compress_count(a); });
  launch(1, 1, [&] { cupy_compress_scan(a); });
  launch(nt, 1, [&] { cupy_compress(a); });
  // 16-byte elements in a second launch (one source)
  CompressArgs b{};
  b.mask = a.mask;
  b.src[0] = (hk_u64)s16.data();
  b.dst[0] = (hk_u64)o16.data();
  b.width[0] = 16;
  b.n = n;
  b.offs = a.offs;
  b.ntiles = nt;
  b.count = count;
  launch(nt, 1, [&] { cupy_compress_count(b); });
  launch(1, 1, [&] { cupy_compress_scan(b); });
  launch(nt, 1, [&] { cupy_compress(b); });
  long j = 0;
  for (long i = 0; i < n; ++i) {
    if (!mask[i]) continue;
    if (j < count) {
      CHECK(o1[j] == s1[i] && o2[j] == s2[i] && o8[j] == s8[i] && oi[j] == (hk_u64)i, "compress n %ld: output %ld (element %ld) wrong", n, j, i);
      CHECK(o16[2 * j] == s16[2 * i] && o16[2 * j + 1] == s16[2 * i + 1], "compress n %ld: 16-byte output %ld wrong", n, j);
    }
    ++j;
  }
  for (long q = count; q < room; ++q)
    CHECK(o1[q] == 0xee && o2[q] == 0xeeee && o8[q] == 7 && oi[q] == 7 && o16[2 * q] == 7, "compress n %ld: written past the count at %ld", n, q);
  printf("compress [%ld] %ld kept (count %ld) ok\n", n, kept, count);
}

// The entries of one key dtype (radix_sort.cu), launched as plan.rs launches them.
struct SortEntries {
  void (*init)(SortArgs);
  void (*gather)(SortArgs);
  void (*blk)(SortArgs);
  void (*tinit)(SortArgs);
  void (*finish)(SortArgs);
  void (*hist)(SortArgs);
  void (*scat)(SortArgs);
  void (*scatk)(SortArgs);
  void (*os)(SortArgs);
  void (*osk)(SortArgs);
};
// The radix path's plan: onesweep (as plan.rs for rows under 2^30) unless this is cleared.
static bool g_onesweep = true;
// Onesweep with 4- and 8-byte keys mapped on the fly by the passes (SortArgs::kmap, as plan.rs
// sets it) unless this is cleared (the init maps them, as for narrower keys).
static bool g_kmap = true;
// Out of place (SortArgs::src) when set: the keys are read from a copy, `keys` holds garbage on
// entry, and the copy must come back unchanged.
static bool g_src = false;
// Argsort wanting the values alone (SortArgs::nokeys, with g_src): the radix paths must leave
// `keys` as they were (garbage) and still give the right values.
static bool g_nokeys = false;
template <class S> int kmap_of() {
  if (sizeof(S) != 4 && sizeof(S) != 8) return 0;
  if (std::is_floating_point<S>::value) return 3;
  return std::is_signed<S>::value ? 2 : 1;
}
#define SORT_ENTRIES(DT, K) \
  SortEntries { cupy_sort_init_##DT, cupy_sort_gather_##DT, cupy_sort_block_##K, cupy_sort_tinit_##DT, \
                cupy_sort_finish_##DT, cupy_sort_hist_##K, cupy_sort_scatter_##K, cupy_sort_scatterk_##K, \
                cupy_sort_onesweep_##K, cupy_sort_onesweepk_##K }

// The tiles' offsets alone, for more tiles than one chunk of the scan block covers.
void test_compress_scan(long nt) {
  std::mt19937 rng(7);
  std::vector<hk_u64> offs(nt), want(nt);
  hk_u64 run = 0;
  for (long k = 0; k < nt; ++k) {
    offs[k] = rng() % 4097;
    want[k] = run;
    run += offs[k];
  }
  CompressArgs a{};
  a.offs = (hk_u64)offs.data();
  a.ntiles = nt;
  launch(1, 1, [&] { cupy_compress_scan(a); });
  for (long k = 0; k < nt; ++k) CHECK(offs[k] == want[k], "compress scan of %ld tiles: offset %ld wrong", nt, k);
  printf("compress scan [%ld tiles] ok\n", nt);
}

// Sorts [batch, n] keys (with int64 values when `with_vals`: argsort) and checks keys (bit for bit)
// and values against std::stable_sort. `vmode`/`flip` as plan.rs picks them for the dtype:
// keys-only integers 0 (flip = the sign bit), keys-only floats of <= 4 bytes 2, else 1.
// with_vals: 0 keys only, 1 argsort of values 1 + 3 * position, 2 argsort of positions (iota).
template <class S, class K>
void test_sort(const char* name, long batch, long n, SortEntries e, int passes, int with_vals,
               int vmode, unsigned long long flip, std::function<S(std::mt19937&, long)> gen,
               std::function<bool(S, S)> less) {
  long total = batch * n;
  std::mt19937 rng(7 + n);
  std::vector<S> keys(total), orig(total), korig(total);
  for (long i = 0; i < total; ++i) keys[i] = gen(rng, i);
  orig = keys;
  std::vector<hk_i64> vals(total), vorig(total);
  auto val_of = [&](long pos) -> hk_i64 { return with_vals == 2 ? pos : 1 + 3 * pos; };
  for (long i = 0; i < total; ++i) vals[i] = val_of(i % n);
  std::vector<K> mk0(total), mk1(total);
  std::vector<hk_u32> pos0(total), pos1(total);
  std::vector<hk_u64> ctl(7);
  const bool lossy = !with_vals && (vmode == 2 || (vmode == 1 && std::is_same<S, double>::value));
  // as plan.rs: the key copy for floats only (vmode 1), the value copy unless iota
  const bool is_float = std::is_floating_point<S>::value || std::is_same<S, f16_key>::value || std::is_same<S, bf16_key>::value;
  const bool radix = n > HK_SORT_SMALL;
  SortArgs a{(hk_u64)keys.data(), with_vals ? (hk_u64)vals.data() : 0,
             (!radix || (vmode == 1 && is_float)) ? (hk_u64)korig.data() : 0,
             (with_vals == 1 || !radix) ? (hk_u64)vorig.data() : 0, (hk_u64)mk0.data(), (hk_u64)pos0.data(), (hk_u64)mk1.data(),
             (hk_u64)pos1.data(), 0, batch, n, 0, 0, 0, (hk_u64)ctl.data(), vmode, flip, passes, lossy, with_vals == 2};
  std::vector<S> srcbuf;
  if (g_src) {
    srcbuf = keys;
    memset((void*)keys.data(), 0x5a, total * sizeof(S));
    a.src = (hk_u64)srcbuf.data();
    if (radix && a.korig) a.korig = a.src;  // as plan.rs: out of place, the source is the copy
    a.nokeys = g_nokeys && with_vals;
  }
  unsigned grid = (unsigned)std::min<long>(65536, (total + 255) / 256);
  std::vector<hk_u32> h, hi;
  if (n <= HK_SORT_SMALL) {
    a.vals = (hk_u64)vals.data();  // the block path always carries positions
    launch(grid, 1, [&] { e.init(a); });
    launch(batch, 1, [&] { e.blk(a); });
    a.pos_in = a.pos_out;
    launch(grid, 1, [&] { e.gather(a); });
    if (!with_vals) for (long i = 0; i < total; ++i) vals[i] = val_of(i % n);  // unchecked
  } else if (g_onesweep) {
    // as plan.rs: the control words and row counts zeroed, the init (every pass's row counts,
    // the first look-back buffer zeroed), then per pass both onesweep kernels (each returns
    // unless the carry decision is its own), the finish
    long nt = (n + HK_TILE - 1) / HK_TILE;
    long ost = 256 * (sizeof(K) == 8 ? HK_SORT_IT64 : HK_SORT_IT32), nos = (n + ost - 1) / ost;
    std::vector<hk_u32> gh(batch * 8 * 256, 7u), look(2 * batch * nos * 256, 0xdeadu);  // garbage
    a.ghist = (hk_u64)gh.data();
    a.look = (hk_u64)look.data();
    a.nos = nos;
    a.ntiles = nt;
    a.kmap = g_kmap ? kmap_of<S>() : 0;
    launch(3, 1, [&] { cupy_sort_ctl(a); });
    launch(nt, batch, [&] { e.tinit(a); });
    for (int p = 0; p < passes; ++p) {
      a.shift = 8 * p;
      launch(batch * nos, 1, [&] { e.osk(a); });
      // the carrying pass of a keys-only float sort on a persistent grid (plan.rs; 2 blocks
      // here, so that blocks take several tiles)
      launch(lossy ? std::min<long>(batch * nos, 2) : batch * nos, 1, [&] { e.os(a); });
    }
    launch(grid, 1, [&] { e.finish(a); });
  } else {
    long nt = (n + HK_TILE - 1) / HK_TILE;
    h.assign(batch * 256 * nt, 0);
    hi.assign(batch * 256 * nt, 0);
    a.hist = (hk_u64)h.data();
    a.incl = (hk_u64)hi.data();
    a.ntiles = nt;
    launch(1, 1, [&] { cupy_sort_ctl(a); });
    launch(nt, batch, [&] { e.tinit(a); });
    for (int p = 0; p < passes; ++p) {
      a.shift = 8 * p;
      if (p > 0) launch(nt, batch, [&] { e.hist(a); });
      for (long b = 0; b < batch; ++b)  // the plan runs scan.cu's cumsum here (tested above)
        std::partial_sum(h.begin() + b * 256 * nt, h.begin() + (b + 1) * 256 * nt, hi.begin() + b * 256 * nt);
      // as plan.rs: both scatters (each returns unless the carry decision is its own)
      launch(nt, batch, [&] { e.scatk(a); });
      launch(nt, batch, [&] { e.scat(a); });
    }
    launch(grid, 1, [&] { e.finish(a); });
  }
  int live = 0;
  for (int p = 0; p < passes; ++p) live += pass_live(ctl[0] ^ ctl[1], p);
  for (long b = 0; b < batch; ++b) {
    std::vector<long> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](long i, long j) { return less(orig[b * n + i], orig[b * n + j]); });
    for (long j = 0; j < n; ++j) {
      if (with_vals)
        CHECK(vals[b * n + j] == val_of(idx[j]), "%s [%ld,%ld] row %ld argsort[%ld] got %lld want %ld", name, batch, n, b, j, (long long)vals[b*n+j], idx[j]);
      if (a.nokeys && radix) {
        const unsigned char* kb = (const unsigned char*)&keys[b * n + j];
        for (size_t q = 0; q < sizeof(S); ++q) CHECK(kb[q] == 0x5a, "%s [%ld,%ld] nokeys: key %ld written", name, batch, n, j);
      } else {
        CHECK(memcmp(&keys[b * n + j], &orig[b * n + idx[j]], sizeof(S)) == 0, "%s [%ld,%ld] row %ld key mismatch at %ld", name, batch, n, b, j);
      }
    }
  }
  if (g_src) CHECK(memcmp(srcbuf.data(), orig.data(), total * sizeof(S)) == 0, "%s [%ld,%ld] the source was written", name, batch, n);
  printf("sort %s%s%s%s [%ld, %ld] %s vmode %d ok (%d live passes%s)\n", g_src ? "out of place " : "", a.nokeys ? "(no keys) " : "", g_onesweep ? "" : "(hist+scan path) ", name, batch, n, with_vals == 2 ? "argsort(iota)" : with_vals ? "argsort" : "sort", vmode, n <= HK_SORT_SMALL ? -1 : live, lossy && n > HK_SORT_SMALL && ctl[2] == 0 ? ", values dropped" : "");
}


// Radix select as plan.rs launches it (digits from select_digits), checked against
// std::stable_sort: the selected keys equal the sorted row's (as values: -0.0 == 0.0, NaN == NaN).
template <class S, class K>
void test_select(const char* name, long batch, long n, std::vector<long> kth, std::vector<std::pair<int, int>> digits,
                 std::function<S(std::mt19937&, long)> gen, std::function<bool(S, S)> less,
                 std::function<bool(S, S)> same) {
  std::mt19937 rng(11 + n);
  std::vector<S> keys(batch * n);
  for (long i = 0; i < batch * n; ++i) keys[i] = gen(rng, i);
  const long mt = (long)kth.size();
  std::vector<S> out(batch * mt);
  std::vector<hk_u64> state(batch * HK_SEL_MAX * 2);
  std::vector<hk_u32> hist(batch * HK_SEL_MAX * HK_SEL_BINS, 7);  // garbage: init zeroes it
  long nt = (n + HK_SEL_TILE - 1) / HK_SEL_TILE;
  for (long j0 = 0; j0 < mt; j0 += HK_SEL_MAX) {
    long m = std::min<long>(HK_SEL_MAX, mt - j0);
    auto k = [&](long j) -> hk_i64 { return j < m ? kth[j0 + j] : 0; };
    SelectArgs a{(hk_u64)keys.data(), (hk_u64)out.data(), (hk_u64)state.data(), (hk_u64)hist.data(),
                 batch, n, nt, 0, 0, m, mt, j0, k(0), k(1), k(2), k(3)};
    launch(batch, 1, [&] { cupy_select_init(a); });
    for (auto [sh, bits] : digits) {
      a.shift = sh;
      a.bits = bits;
      launch(nt, batch, [&] { select_hist<S, K>(a); });
      launch(batch, 1, [&] { select_pick<K>(a); });
    }
    launch(1, 1, [&] { select_out<S, K>(a); });
  }
  for (long b = 0; b < batch; ++b) {
    std::vector<S> row(keys.begin() + b * n, keys.begin() + (b + 1) * n);
    std::stable_sort(row.begin(), row.end(), less);
    for (long j = 0; j < mt; ++j)
      CHECK(same(out[b * mt + j], row[kth[j]]), "select %s [%ld,%ld] row %ld kth %ld: wrong key", name, batch, n, b, kth[j]);
  }
  printf("select %s [%ld, %ld] %zu ranks ok\n", name, batch, n, kth.size());
}

bool fless(float a, float b) { if (std::isnan(a)) return false; if (std::isnan(b)) return true; return a < b; }
int main(int argc, char** argv) {
  const bool select_only = argc > 1 && std::string(argv[1]) == "select";  // the selection tests alone
  if (!select_only) {
  test_scan<float>("f32", 3, 700, cupy_scan_sum_float32, cupy_scan_totals_sum_float32, cupy_scan_prefixes_sum_float32, cupy_scan_apply_sum_float32, true);
  test_scan<float>("f32", 1, 40000, cupy_scan_sum_float32, cupy_scan_totals_sum_float32, cupy_scan_prefixes_sum_float32, cupy_scan_apply_sum_float32, true);
  test_scan<hk_i64>("i64", 2, 20000, cupy_scan_sum_int64, cupy_scan_totals_sum_int64, cupy_scan_prefixes_sum_int64, cupy_scan_apply_sum_int64, false);
  test_scan_complex<hk_c64>("c64 sum", 3, 500, false, cupy_scan_sum_complex64, cupy_scan_totals_sum_complex64, cupy_scan_prefixes_sum_complex64, cupy_scan_apply_sum_complex64);
  test_scan_complex<hk_c128>("c128 sum", 1, 20000, false, cupy_scan_sum_complex128, cupy_scan_totals_sum_complex128, cupy_scan_prefixes_sum_complex128, cupy_scan_apply_sum_complex128);
  test_scan_complex<hk_c128>("c128 prod", 2, 700, true, cupy_scan_prod_complex128, cupy_scan_totals_prod_complex128, cupy_scan_prefixes_prod_complex128, cupy_scan_apply_prod_complex128);
  test_scan_complex<hk_c64>("c64 prod", 1, 20000, true, cupy_scan_prod_complex64, cupy_scan_totals_prod_complex64, cupy_scan_prefixes_prod_complex64, cupy_scan_apply_prod_complex64);
  for (long n : {1L, 100L, 4095L, 4096L, 4097L, 3 * 4096L + 5, 70000L})
    for (int permille : {0, 3, 500, 1000}) test_compress(n, permille, 0);
  test_compress(20000, 700, 37);  // a count too small: nothing past it
  test_compress(260 * 4096 + 7, 300, 0);  // more tiles than the scan block's threads
  for (long nt : {1L, 2047L, 2048L, 2049L, 5000L}) test_compress_scan(nt);
  }
  auto gf = [](std::mt19937& r, long i) -> float { switch (i % 13) { case 3: return (i & 16) ? NAN : -NAN; case 5: return -0.0f; case 6: return 0.0f; case 7: return -INFINITY; case 8: return INFINITY; case 9: return __uint_as_float(0x7fc00001u + (unsigned)(r() % 5)); default: return (float)((int)(r() % 41) - 20) * 0.5f; } };
  auto gfu = [](std::mt19937& r, long) -> float { return (float)(r() >> 8) * (1.0f / 16777216.0f); };
  SortEntries ef = SORT_ENTRIES(float32, u32);
  // sizes around the block path, the sub-tile (4096 for u32 keys) and the tile (HK_TILE)
  if (!select_only) test_sort<float, hk_u32>("f32", 3, 700, ef, 4, true, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 1, 1, ef, 4, true, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 1, 1024, ef, 4, false, 2, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 1, 1025, ef, 4, true, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 1, 1025, ef, 4, false, 2, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 2, 4097, ef, 4, false, 2, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 3, 5001, ef, 4, true, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32 iota", 3, 5001, ef, 4, 2, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32 iota plain", 1, 5001, ef, 4, 2, 1, 0, gfu, fless);
  g_kmap = false;  // onesweep with the keys mapped by the init
  if (!select_only) test_sort<float, hk_u32>("f32 (init maps)", 3, 5001, ef, 4, true, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32 (init maps)", 2, 4097, ef, 4, false, 2, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32 iota (init maps)", 1, 5001, ef, 4, 2, 1, 0, gfu, fless);
  g_kmap = true;
  g_src = true;  // out of place: every path reads the keys from SortArgs::src
  {
    auto gc = [](std::mt19937&, long) -> float { return 1.5f; };  // every key equal: no live pass
    auto gci = [](std::mt19937&, long) -> hk_i64 { return -7; };
    if (!select_only) test_sort<float, hk_u32>("f32", 3, 700, ef, 4, true, 1, 0, gf, fless);
    if (!select_only) test_sort<float, hk_u32>("f32", 3, 5001, ef, 4, true, 1, 0, gf, fless);
    if (!select_only) test_sort<float, hk_u32>("f32", 2, 4097, ef, 4, false, 2, 0, gf, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 iota plain", 1, 5001, ef, 4, 2, 1, 0, gfu, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 equal", 2, 5001, ef, 4, false, 2, 0, gc, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 equal iota", 1, 5001, ef, 4, 2, 1, 0, gc, fless);
    g_nokeys = true;  // argsort without the keys: 4 live passes, one (finish), none
    if (!select_only) test_sort<float, hk_u32>("f32 iota nokeys", 2, 5001, ef, 4, 2, 1, 0, gf, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 iota nokeys plain", 1, 9000, ef, 4, 2, 1, 0, gfu, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 iota nokeys one pass", 1, 5001, ef, 4, 2, 1, 0, [](std::mt19937& r, long) -> float { return 1.0f + (float)(r() % 128) * (1.0f / 128); }, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 equal iota nokeys", 1, 5001, ef, 4, 2, 1, 0, gc, fless);
    g_nokeys = false;
    if (!select_only) test_sort<hk_i64, hk_u64>("i64 equal", 1, 3000, SORT_ENTRIES(int64, u64), 8, false, 0, 0x8000000000000000ull, gci, [](hk_i64 a, hk_i64 b) { return a < b; });
    g_kmap = false;
    if (!select_only) test_sort<float, hk_u32>("f32 (init maps)", 3, 5001, ef, 4, true, 1, 0, gf, fless);
    if (!select_only) test_sort<float, hk_u32>("f32 equal (init maps)", 1, 5001, ef, 4, false, 2, 0, gc, fless);
    g_kmap = true;
    g_onesweep = false;
    if (!select_only) test_sort<float, hk_u32>("f32", 2, 4097, ef, 4, false, 2, 0, gf, fless);
    if (!select_only) test_sort<float, hk_u32>("f32", 3, 5001, ef, 4, true, 1, 0, gf, fless);
    g_onesweep = true;
  }
  g_src = false;
  g_onesweep = false;  // the histogram-and-scan path (rows of 2^30 keys or more)
  if (!select_only) test_sort<float, hk_u32>("f32", 3, 5001, ef, 4, true, 1, 0, gf, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 2, 4097, ef, 4, false, 2, 0, gf, fless);
  if (!select_only) test_sort<hk_i64, hk_u64>("i64", 2, 2049, SORT_ENTRIES(int64, u64), 8, false, 0, 0x8000000000000000ull, [](std::mt19937& r, long) -> hk_i64 { return (hk_i64)r() - (1ll << 31); }, [](hk_i64 a, hk_i64 b) { return a < b; });
  g_onesweep = true;
  if (!select_only) test_sort<float, hk_u32>("f32", 1, HK_TILE, ef, 4, true, 1, 0, gfu, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 1, HK_TILE + 1, ef, 4, false, 2, 0, gfu, fless);
  if (!select_only) test_sort<float, hk_u32>("f32", 1, 2 * HK_TILE + 4095, ef, 4, true, 1, 0, gf, fless);
  auto gi = [](std::mt19937& r, long) -> hk_i64 { return (hk_i64)(r() % 200) - 100 + ((r() & 1) ? (1ll << 40) : -(1ll << 40)); };
  auto li64 = [](hk_i64 a, hk_i64 b) { return a < b; };
  SortEntries ei64 = SORT_ENTRIES(int64, u64);
  if (!select_only) test_sort<hk_i64, hk_u64>("i64", 1, 9000, ei64, 8, true, 1, 0, gi, li64);
  if (!select_only) test_sort<hk_i64, hk_u64>("i64 iota", 2, 3000, ei64, 8, 2, 1, 0, gi, li64);
  if (!select_only) test_sort<hk_i64, hk_u64>("i64", 2, 2049, ei64, 8, false, 0, 0x8000000000000000ull, gi, li64);
  if (!select_only) test_sort<hk_i64, hk_u64>("i64", 1, HK_TILE + 2049, ei64, 8, false, 0, 0x8000000000000000ull, [](std::mt19937& r, long) -> hk_i64 { return (hk_i64)r() * (hk_i64)r() * ((r() & 1) ? 1 : -1); }, li64);
  auto gd = [](std::mt19937& r, long i) -> double { switch (i % 11) { case 2: return (i & 32) ? NAN : -NAN; case 4: return -0.0; case 5: return 0.0; case 6: return -INFINITY; default: return ((int)(r() % 61) - 30) * 0.25; } };
  auto dless = [](double a, double b) { if (std::isnan(a)) return false; if (std::isnan(b)) return true; return a < b; };
  SortEntries ef64 = SORT_ENTRIES(float64, u64);
  if (!select_only) test_sort<double, hk_u64>("f64", 2, 3001, ef64, 8, false, 1, 0, gd, dless);
  if (!select_only) test_sort<double, hk_u64>("f64", 1, 2500, ef64, 8, true, 1, 0, gd, dless);
  if (!select_only) test_sort<double, hk_u64>("f64 iota", 1, 2500, ef64, 8, 2, 1, 0, gd, dless);
  if (!select_only) test_sort<double, hk_u64>("f64 plain", 1, 4099, ef64, 8, false, 1, 0, [](std::mt19937& r, long) -> double { return ((int)(r() % 2001) - 1000) * 0.001 + 1e-9 * (r() % 7); }, dless);
  auto g8 = [](std::mt19937& r, long) -> hk_i8 { return (hk_i8)(r() % 256); };
  auto l8 = [](hk_i8 a, hk_i8 b) { return a < b; };
  if (!select_only) test_sort<hk_i8, hk_u32>("i8", 1, 3000, SORT_ENTRIES(int8, u32), 1, true, 1, 0, g8, l8);
  if (!select_only) test_sort<hk_i8, hk_u32>("i8", 2, 3000, SORT_ENTRIES(int8, u32), 1, false, 0, 0x80, g8, l8);
  if (!select_only) test_sort<hk_u8, hk_u32>("bool", 1, 2000, SORT_ENTRIES(bool, u32), 1, true, 1, 0, [](std::mt19937& r, long) -> hk_u8 { return (hk_u8)(r() & 1); }, [](hk_u8 a, hk_u8 b) { return a < b; });
  auto l16 = [](hk_i16 a, hk_i16 b) { return a < b; };
  if (!select_only) test_sort<hk_i16, hk_u32>("i16", 1, 4500, SORT_ENTRIES(int16, u32), 2, false, 0, 0x8000, [](std::mt19937& r, long) -> hk_i16 { return (hk_i16)(r() % 65536); }, l16);
  if (!select_only) test_sort<hk_u16, hk_u32>("u16", 1, 1500, SORT_ENTRIES(uint16, u32), 2, true, 1, 0, [](std::mt19937& r, long) -> hk_u16 { return (hk_u16)(r() % 300); }, [](hk_u16 a, hk_u16 b) { return a < b; });
  auto l32 = [](hk_i32 a, hk_i32 b) { return a < b; };
  // every key equal: every pass skipped; keys sharing the high bytes: those passes skipped
  if (!select_only) test_sort<hk_i32, hk_u32>("i32 equal", 1, 3000, SORT_ENTRIES(int32, u32), 4, true, 1, 0, [](std::mt19937&, long) -> hk_i32 { return -5; }, l32);
  if (!select_only) test_sort<hk_i32, hk_u32>("i32 equal", 1, 3000, SORT_ENTRIES(int32, u32), 4, false, 0, 0x80000000u, [](std::mt19937&, long) -> hk_i32 { return 7; }, l32);
  if (!select_only) test_sort<hk_i32, hk_u32>("i32 small", 2, 5000, SORT_ENTRIES(int32, u32), 4, true, 1, 0, [](std::mt19937& r, long) -> hk_i32 { return (hk_i32)(r() % 200); }, l32);
  if (!select_only) test_sort<hk_u32, hk_u32>("u32 one pass", 2, 3000, SORT_ENTRIES(uint32, u32), 4, false, 0, 0, [](std::mt19937& r, long) -> hk_u32 { return (hk_u32)(r() % 256); }, [](hk_u32 a, hk_u32 b) { return a < b; });
  if (!select_only) test_sort<hk_u32, hk_u32>("u32", 1, 6000, SORT_ENTRIES(uint32, u32), 4, false, 0, 0, [](std::mt19937& r, long) -> hk_u32 { return (hk_u32)r(); }, [](hk_u32 a, hk_u32 b) { return a < b; });
  if (!select_only) test_sort<hk_u64, hk_u64>("u64", 1, 5000, SORT_ENTRIES(uint64, u64), 8, true, 1, 0, [](std::mt19937& r, long) -> hk_u64 { return ((hk_u64)r() << 32) | r(); }, [](hk_u64 a, hk_u64 b) { return a < b; });
  auto h2f = [](hk_u16 h) { return hk_h2f(h); };
  auto hless = [h2f](f16_key a, f16_key b) { return fless(h2f(a.b), h2f(b.b)); };
  if (!select_only) test_sort<f16_key, hk_u32>("f16", 1, 3000, SORT_ENTRIES(float16, u32), 4, false, 2, 0, [](std::mt19937& r, long i) -> f16_key { const hk_u16 sp[4] = {0x7e00, 0xfe01, 0x8000, 0x0000}; return f16_key{i % 7 == 0 ? sp[(i / 7) % 4] : (hk_u16)(r() % 65536)}; }, hless);
  if (!select_only) test_sort<f16_key, hk_u32>("f16 plain", 2, 1500, SORT_ENTRIES(float16, u32), 4, false, 2, 0, [](std::mt19937& r, long) -> f16_key { hk_u16 b = (hk_u16)(r() % 0x7c00); return f16_key{(hk_u16)(b == 0 ? 1 : b | ((r() & 1) << 15))}; }, hless);
  auto bless = [](bf16_key a, bf16_key b) { return fless(hk_bf2f(a.b), hk_bf2f(b.b)); };
  if (!select_only) test_sort<bf16_key, hk_u32>("bf16", 1, 2100, SORT_ENTRIES(bfloat16, u32), 4, true, 1, 0, [](std::mt19937& r, long) -> bf16_key { return bf16_key{(hk_u16)(r() % 65536)}; }, bless);
  std::vector<std::pair<int, int>> d32 = {{21, 11}, {10, 11}, {0, 10}}, d64 = {{53, 11}, {42, 11}, {31, 11}, {20, 11}, {9, 11}, {0, 9}};
  auto fsame = [](float x, float y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  test_select<float, hk_u32>("f32", 1, 1, {0}, d32, gf, fless, fsame);
  test_select<float, hk_u32>("f32", 3, 1001, {0, 499, 500, 1000, 3, 7}, d32, gf, fless, fsame);
  test_select<float, hk_u32>("f32 uniform", 1, HK_SEL_TILE + 3, {HK_SEL_TILE / 2, HK_SEL_TILE / 2 + 1, HK_SEL_TILE + 2}, d32, gfu, fless, fsame);
  test_select<float, hk_u32>("f32 no nan", 2, 4000, {1999, 2000, 3999}, d32, [](std::mt19937& r, long) -> float { return (float)((int)(r() % 2001) - 1000) * 0.125f; }, fless, fsame);
  test_select<double, hk_u64>("f64", 2, 3001, {1500, 0, 3000}, d64, gd, dless, [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; });
  test_select<hk_i64, hk_u64>("i64", 1, 5000, {2499, 2500, 4999}, d64, [](std::mt19937& r, long) -> hk_i64 { return (hk_i64)r() * (hk_i64)r() * ((r() & 1) ? 1 : -1); }, li64, [](hk_i64 x, hk_i64 y) { return x == y; });
  test_select<hk_i8, hk_u32>("i8", 2, 777, {388, 0, 776}, {{0, 8}}, g8, l8, [](hk_i8 x, hk_i8 y) { return x == y; });
  test_select<hk_i16, hk_u32>("i16", 1, 999, {499, 998}, {{5, 11}, {0, 5}}, [](std::mt19937& r, long) -> hk_i16 { return (hk_i16)(r() % 65536); }, l16, [](hk_i16 x, hk_i16 y) { return x == y; });
  test_select<hk_u32, hk_u32>("u32 equal", 1, 3000, {0, 1500, 2999}, d32, [](std::mt19937&, long) -> hk_u32 { return 42; }, [](hk_u32 a, hk_u32 b) { return a < b; }, [](hk_u32 x, hk_u32 y) { return x == y; });
  test_select<f16_key, hk_u32>("f16", 1, 2001, {1000, 2000, 5}, d32, [](std::mt19937& r, long i) -> f16_key { const hk_u16 sp[4] = {0x7e00, 0xfe01, 0x8000, 0x0000}; return f16_key{i % 97 == 0 ? sp[(i / 97) % 4] : (hk_u16)(r() % 65536)}; }, hless, [h2f](f16_key x, f16_key y) { float a = h2f(x.b), b = h2f(y.b); return (std::isnan(a) && std::isnan(b)) || a == b; });
  printf("%d failures\n", fails);
  return fails != 0;
}
