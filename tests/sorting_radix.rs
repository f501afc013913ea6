//! wgpu's radix sort (`backends/wgpu/src/radix.rs`) forced at small sizes
//! (`cupy_wgpu::with_sort_radix_min(1, ..)`), on every key dtype it takes: `sort` and `argsort`
//! against a host reference (a stable sort in NumPy's order: NaN last, `-0.0 == 0.0`), compared
//! byte for byte (the sort gathers the original keys, so `-0.0`/`0.0` and NaN payloads must come
//! back in NumPy's stable order; float keys without either take the keys-only path, which maps
//! the sorted keys back). Keys mix duplicates (argsort stability), NaN, `±0.0`, `±inf`
//! and integer extremes, in several rows of lengths that are not multiples of the 2048-key tile
//! (and rows of more than one tile, histograms of more than one scan block). Runs on every
//! backend (the cpu backend checks the reference); the golden groups also run once more with the
//! radix path forced on wgpu.

use crate::common::{self, CaseError};
use cupy::half::{bf16, f16};
use cupy::{Array, Device, Element};
use std::cmp::Ordering;

/// A deterministic generator (splitmix64).
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// NumPy's float order: NaN last (all NaNs equal), `-0.0 == 0.0`.
fn float_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// A float key from `r`: NaN (both signs), `±0.0`, `±inf`, small repeated values, or spread ones.
fn float_of(r: u64) -> f64 {
    match r % 16 {
        0 => f64::NAN,
        1 => -f64::NAN,
        2 => -0.0,
        3 => 0.0,
        4 => f64::INFINITY,
        5 => f64::NEG_INFINITY,
        6..=9 => ((r >> 8) % 7) as f64 - 3.0,
        _ => ((r >> 12) % 200_001) as f64 / 64.0 - 1562.5,
    }
}

/// Sorts `data` (rows of `n`) on `dev` and checks `sort` and `argsort` against the host's stable
/// sort by `cmp`, byte for byte.
fn check<T: Element>(
    dev: &Device,
    data: &[T],
    n: usize,
    cmp: impl Fn(&T, &T) -> Ordering,
) -> std::result::Result<(), CaseError> {
    let rows = data.len() / n;
    let a = Array::from_slice_on(dev, data, &[rows, n])?;
    let got = cupy::sort(&a)?.to_vec::<T>()?;
    let gi = cupy::argsort(&a)?.to_vec::<i64>()?;
    // cuda/hip sort out of place, reading `a` itself: it must come back unchanged
    if T::slice_as_bytes(&a.to_vec::<T>()?) != T::slice_as_bytes(data) {
        return Err(format!("sort of {rows}x{n} wrote into its input").into());
    }
    let mut want = Vec::with_capacity(data.len());
    let mut wi = Vec::with_capacity(data.len());
    for r in 0..rows {
        let row = &data[r * n..(r + 1) * n];
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&x, &y| cmp(&row[x], &row[y]));
        want.extend(idx.iter().map(|&i| row[i]));
        wi.extend(idx.iter().map(|&i| i as i64));
    }
    if T::slice_as_bytes(&got) != T::slice_as_bytes(&want) {
        let bad = (0..want.len())
            .find(|&i| T::slice_as_bytes(&got[i..=i]) != T::slice_as_bytes(&want[i..=i]))
            .unwrap_or(0);
        return Err(format!(
            "sort of {rows}x{n}: first difference at {bad}: {:?} != {:?}",
            got[bad], want[bad]
        )
        .into());
    }
    if gi != wi {
        let bad = (0..wi.len()).find(|&i| gi[i] != wi[i]).unwrap_or(0);
        return Err(format!(
            "argsort of {rows}x{n}: first difference at {bad}: {} != {}",
            gi[bad], wi[bad]
        )
        .into());
    }
    Ok(())
}

/// `(rows, n)` shapes: single keys, short rows, rows of one tile and a bit, several tiles, and
/// a row whose histogram spans two scan blocks (10 tiles x 256 digits > 2048 entries).
const SHAPES: [(usize, usize); 6] = [(1, 1), (3, 7), (4, 1000), (2, 2049), (1, 4500), (1, 20001)];

fn each_shape<T: Element>(
    dev: &Device,
    seed: u64,
    make: impl Fn(u64) -> T,
    cmp: impl Fn(&T, &T) -> Ordering + Copy,
) -> std::result::Result<(), CaseError> {
    let mut g = Gen(seed);
    for (rows, n) in SHAPES {
        let data: Vec<T> = (0..rows * n).map(|_| make(g.next())).collect();
        check(dev, &data, n, cmp).map_err(|e| match e {
            CaseError::Fail(m) => CaseError::Fail(format!("{}: {m}", T::DTYPE)),
            skip => skip,
        })?;
    }
    Ok(())
}

/// An integer key from `r`: repeated small values, the extremes, or any value.
macro_rules! int_case {
    ($dev:expr, $t:ty, $seed:expr) => {
        each_shape(
            $dev,
            $seed,
            |r| match r % 4 {
                0 => ((r >> 8) % 5) as $t,
                1 => {
                    if (r >> 8) % 2 == 0 {
                        <$t>::MIN
                    } else {
                        <$t>::MAX
                    }
                }
                _ => (r >> 3) as $t,
            },
            |a: &$t, b: &$t| a.cmp(b),
        )
    };
}

#[test]
fn sorting_radix_every_dtype() {
    let mut t = common::Tally::new("sorting_radix_every_dtype");
    for dev in common::backends() {
        let r = cupy_wgpu::with_sort_radix_min(1, || -> std::result::Result<(), CaseError> {
            each_shape(&dev, 1, |r| r % 3 == 0, |a: &bool, b: &bool| a.cmp(b))?;
            int_case!(&dev, i8, 2)?;
            int_case!(&dev, u8, 3)?;
            int_case!(&dev, i16, 4)?;
            int_case!(&dev, u16, 5)?;
            int_case!(&dev, i32, 6)?;
            int_case!(&dev, u32, 7)?;
            int_case!(&dev, i64, 8)?;
            int_case!(&dev, u64, 9)?;
            let fc = |a: &f64, b: &f64| float_cmp(*a, *b);
            each_shape(
                &dev,
                10,
                |r| float_of(r) as f32,
                |a: &f32, b: &f32| float_cmp(*a as f64, *b as f64),
            )?;
            each_shape(
                &dev,
                11,
                |r| f16::from_f64(float_of(r)),
                |a: &f16, b: &f16| float_cmp(a.to_f64(), b.to_f64()),
            )?;
            each_shape(
                &dev,
                12,
                |r| bf16::from_f64(float_of(r)),
                |a: &bf16, b: &bf16| float_cmp(a.to_f64(), b.to_f64()),
            )?;
            // Keys whose high digits agree (skipped passes), and keys all equal (every pass
            // skipped: the order stays the input's).
            let small: Vec<i32> = (0..3000i32).map(|i| i * 7 % 11).collect();
            check(&dev, &small, 1500, |a, b| a.cmp(b))?;
            let same = vec![-0.0f32, 0.0, -0.0, 0.0, 0.0, -0.0];
            check(&dev, &same, 3, |a, b| float_cmp(*a as f64, *b as f64))?;
            let nans: Vec<f64> = (0..50)
                .map(|i| if i % 2 == 0 { f64::NAN } else { -f64::NAN })
                .collect();
            // Finite keys without -0.0 map back exactly: wgpu moves them alone through the
            // passes (keys with a NaN or -0.0 above carry their positions instead).
            let exact = |r: u64| {
                let x = float_of(r);
                if x.is_nan() || (x == 0.0 && x.is_sign_negative()) {
                    ((r >> 8) % 7) as f64 - 3.0
                } else {
                    x
                }
            };
            each_shape(
                &dev,
                14,
                |r| exact(r) as f32,
                |a: &f32, b: &f32| float_cmp(*a as f64, *b as f64),
            )?;
            each_shape(
                &dev,
                15,
                |r| f16::from_f64(exact(r)),
                |a: &f16, b: &f16| float_cmp(a.to_f64(), b.to_f64()),
            )?;
            // float64 last: an adapter without SHADER_F64 refuses it (a skip).
            check(&dev, &nans, 25, |a, b| float_cmp(*a, *b))?;
            each_shape(&dev, 13, float_of, fc)?;
            each_shape(&dev, 16, exact, fc)
        });
        t.check(&dev, "every dtype", r);
    }
    t.finish();
}

/// The `sorting` goldens with wgpu's radix path forced for rows of 64 keys or more (shorter
/// rows keep the bitonic sort: forcing the radix sort on the goldens' thousands of short rows
/// costs llvmpipe a tile of work per row; `sorting_radix_every_dtype` covers short rows).
#[test]
fn sorting_radix_goldens() {
    cupy_wgpu::with_sort_radix_min(64, crate::sorting::run_goldens);
}

/// Sorts of C-contiguous views that start inside their buffer (cuda/hip read them in place,
/// out of place: the offset must reach the kernels): `sort`, `argsort` and `unique` of
/// `a[1000:]` and of rows `b[1:]` equal the host's, and the base array is unchanged.
#[test]
fn sorting_views_with_an_offset() {
    let mut t = common::Tally::new("sorting_views_with_an_offset");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), CaseError> {
            let data: Vec<f32> = (0..7000)
                .map(|i| ((i * 7919) % 6007) as f32 * 0.5 - 1500.0)
                .collect();
            let a = Array::from_slice_on(&dev, &data, &[7000])?;
            let v = a.slice(&cupy::s![1000..])?;
            let tail = &data[1000..];
            let mut want = tail.to_vec();
            want.sort_by(|x, y| x.total_cmp(y));
            let mut wi: Vec<i64> = (0..tail.len() as i64).collect();
            wi.sort_by(|&x, &y| tail[x as usize].total_cmp(&tail[y as usize]));
            let mut wu = want.clone();
            wu.dedup();
            let got = cupy::sort(&v)?.to_vec::<f32>()?;
            let gi = cupy::argsort(&v)?.to_vec::<i64>()?;
            let gu = cupy::unique(&v)?.to_vec::<f32>()?;
            if got != want || gi != wi || gu != wu {
                return Err(
                    String::from("sort/argsort/unique of a[1000:] differ from the host's").into(),
                );
            }
            // rows of a 2-d view starting at row 1 (each row 1500 keys: the radix path)
            let b = Array::from_slice_on(&dev, &data[..6000], &[4, 1500])?;
            let rows = b.slice(&cupy::s![1..])?;
            let got = cupy::sort(&rows)?.to_vec::<f32>()?;
            for (r, chunk) in got.chunks(1500).enumerate() {
                let mut w = data[(r + 1) * 1500..(r + 2) * 1500].to_vec();
                w.sort_by(|x, y| x.total_cmp(y));
                if chunk != w.as_slice() {
                    return Err(format!("sort of b[1:], row {r}, differs from the host's").into());
                }
            }
            if a.to_vec::<f32>()? != data || b.to_vec::<f32>()? != data[..6000] {
                return Err(String::from("a sort wrote into the array it read").into());
            }
            Ok(())
        })();
        t.check(&dev, "offset views", r);
    }
    t.finish();
}

/// A float32 row of 2^22 keys with NaNs and `-0.0`s on cuda and hip: more onesweep tiles (1171)
/// than the persistent grid of the carrying pass has blocks (1024,
/// `cupy_core::gpu::sortscan::ONESWEEP_PERSISTENT_BLOCKS`), so blocks take several tiles; and
/// the same keys without them (the keys-only passes). Skipped elsewhere (a large sort on
/// llvmpipe is too slow for CI).
#[test]
fn sorting_float32_past_the_persistent_grid() {
    let mut t = common::Tally::new("sorting_float32_past_the_persistent_grid");
    for dev in common::backends() {
        if !matches!(dev.kind(), cupy::BackendKind::Cuda | cupy::BackendKind::Hip) {
            continue;
        }
        let r = (|| -> std::result::Result<(), CaseError> {
            let mut g = Gen(21);
            let n = 1usize << 22;
            let special: Vec<f32> = (0..n).map(|_| float_of(g.next()) as f32).collect();
            let plain: Vec<f32> = (0..n)
                .map(|_| ((g.next() >> 40) as f32) * (1.0 / 16777216.0))
                .collect();
            let cmp = |a: &f32, b: &f32| float_cmp(*a as f64, *b as f64);
            check(&dev, &special, n, cmp)?;
            check(&dev, &plain, n, cmp)
        })();
        t.check(&dev, "2^22 float32", r);
    }
    t.finish();
}
