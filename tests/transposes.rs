//! Transposed and permuted copies (the wgpu backend runs them through workgroup-memory tiles):
//! every dtype (the packed 8/16-bit ones included), odd extents (1, 7, 33, 1000, none a multiple
//! of the tile), batched 3-D and 4-D permutations, casts and binary ops on transposed views,
//! compared byte for byte with the permutation done on the host.

use crate::common::{self, CaseError};
use cupy::{Array, BackendKind, DType, Device};

type R = std::result::Result<(), CaseError>;

const DTYPES: [DType; 15] = [
    DType::Bool,
    DType::Int8,
    DType::UInt8,
    DType::Int16,
    DType::UInt16,
    DType::Float16,
    DType::BFloat16,
    DType::Int32,
    DType::UInt32,
    DType::Float32,
    DType::Int64,
    DType::UInt64,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// NumPy bytes of `n` distinct-ish values of `dtype` (exactly representable in it).
fn values(dtype: DType, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * dtype.itemsize());
    for i in 0..n {
        let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17;
        let f = (i % 4093) as f32 * 0.5 - 1000.0;
        match dtype {
            DType::Bool => out.push(u8::from(h.is_multiple_of(3))),
            DType::Float16 => out.extend(half::f16::from_f32(f).to_le_bytes()),
            DType::BFloat16 => out.extend(half::bf16::from_f32(f).to_le_bytes()),
            DType::Float32 => out.extend(f.to_le_bytes()),
            DType::Float64 => out.extend((f as f64 + 1e-9 * i as f64).to_le_bytes()),
            DType::Complex64 => {
                out.extend(f.to_le_bytes());
                out.extend((-f * 0.25).to_le_bytes());
            }
            DType::Complex128 => {
                out.extend((f as f64).to_le_bytes());
                out.extend((h as f64).to_le_bytes());
            }
            _ => out.extend(&h.to_le_bytes()[..dtype.itemsize()]),
        }
    }
    out
}

/// The bytes of `src` (C order, `shape`, `isz` bytes per element) permuted as
/// `transpose(perm)`, C order.
fn host_permute(src: &[u8], shape: &[usize], perm: &[usize], isz: usize) -> Vec<u8> {
    let nd = shape.len();
    let mut cs = vec![1usize; nd];
    for a in (0..nd.saturating_sub(1)).rev() {
        cs[a] = cs[a + 1] * shape[a + 1];
    }
    let oshape: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n * isz);
    for flat in 0..n {
        let (mut rem, mut at) = (flat, 0);
        for k in (0..nd).rev() {
            at += (rem % oshape[k]) * cs[perm[k]];
            rem /= oshape[k];
        }
        out.extend_from_slice(&src[at * isz..(at + 1) * isz]);
    }
    out
}

fn check_bytes(what: &str, got: &[u8], want: &[u8], isz: usize) -> R {
    if got == want {
        return Ok(());
    }
    let i = (0..want.len() / isz)
        .find(|&i| got[i * isz..(i + 1) * isz] != want[i * isz..(i + 1) * isz])
        .unwrap_or(0);
    Err(format!(
        "{what}: element {i} is {:?}, expected {:?}",
        &got[i * isz..(i + 1) * isz],
        &want[i * isz..(i + 1) * isz]
    )
    .into())
}

/// `a.transpose(perm).copy()` of a C-ordered array of `shape`, against the host.
fn permuted_copy(dev: &Device, dtype: DType, shape: &[usize], perm: &[usize]) -> R {
    let n: usize = shape.iter().product();
    let host = values(dtype, n);
    let a = Array::from_bytes_on(dev, &host, shape, dtype)?;
    let axes: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
    let c = a.transpose(&axes)?.copy()?;
    let want = host_permute(&host, shape, perm, dtype.itemsize());
    check_bytes(
        &format!("{dtype} {shape:?} transpose{perm:?}"),
        &c.to_bytes()?,
        &want,
        dtype.itemsize(),
    )
}

/// Tiled launches recorded on wgpu so far (0 elsewhere).
fn tiled_count(dev: &Device) -> u64 {
    if dev.kind() == BackendKind::Wgpu {
        cupy_wgpu::tiled_launches()
    } else {
        0
    }
}

#[test]
fn transposed_copies_of_every_dtype() {
    let mut t = common::Tally::new("transposed_copies");
    let shapes = [
        [1usize, 1],
        [1, 7],
        [7, 1],
        [7, 7],
        [33, 17],
        [1000, 33],
        [17, 1000],
        [64, 48],
    ];
    for dev in common::backends() {
        let before = tiled_count(&dev);
        for dtype in DTYPES {
            for shape in shapes {
                let case = format!("{dtype} {shape:?}");
                t.check(&dev, &case, permuted_copy(&dev, dtype, &shape, &[1, 0]));
            }
        }
        let off = std::env::var("CUPY_WGPU_TILED").is_ok_and(|v| v.trim() == "0");
        if dev.kind() == BackendKind::Wgpu && !off {
            // Every non-packed dtype at the four shapes with both extents >= 16.
            let got = tiled_count(&dev) - before;
            let r: R = if got >= 8 * 4 {
                Ok(())
            } else {
                Err(format!("only {got} tiled launches").into())
            };
            t.check(&dev, "tiled launches taken", r);
        }
    }
    t.finish();
}

#[test]
fn permuted_copies_of_batches() {
    let mut t = common::Tally::new("permuted_copies");
    let perms3 = [[0usize, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for dev in common::backends() {
        for dtype in [
            DType::Float32,
            DType::Int16,
            DType::Float64,
            DType::Complex64,
        ] {
            for shape in [[3usize, 33, 47], [40, 2, 17], [17, 1, 40]] {
                for perm in perms3 {
                    let case = format!("{dtype} {shape:?} {perm:?}");
                    t.check(&dev, &case, permuted_copy(&dev, dtype, &shape, &perm));
                }
            }
            for perm in [[0usize, 1, 3, 2], [1, 0, 3, 2], [3, 2, 1, 0], [0, 3, 1, 2]] {
                let shape = [2usize, 3, 17, 19];
                let case = format!("{dtype} {shape:?} {perm:?}");
                t.check(&dev, &case, permuted_copy(&dev, dtype, &shape, &perm));
            }
        }
    }
    t.finish();
}

/// Casts of transposed views (packed inputs and outputs), a transposed operand beside a
/// contiguous one, and a reversed, stepped transposed view.
#[test]
fn casts_and_ops_on_transposed_views() {
    let mut t = common::Tally::new("transposed_ops");
    let (r, c) = (37usize, 70usize);
    for dev in common::backends() {
        for (src, dst) in [
            (DType::Int8, DType::Float32),
            (DType::Float32, DType::Float64),
            (DType::Float32, DType::Int8),
            (DType::Float64, DType::Float16),
            (DType::Int32, DType::Bool),
            (DType::Bool, DType::Int64),
        ] {
            let case = format!("{src} -> {dst}");
            let res = (|| -> R {
                let host = values(src, r * c);
                let a = Array::from_bytes_on(&dev, &host, &[r, c], src)?;
                let got = a.t().astype(dst)?;
                // The same cast of a C-ordered copy made on the host.
                let tb = host_permute(&host, &[r, c], &[1, 0], src.itemsize());
                let want = Array::from_bytes_on(&dev, &tb, &[c, r], src)?.astype(dst)?;
                check_bytes(&case, &got.to_bytes()?, &want.to_bytes()?, dst.itemsize())
            })();
            t.check(&dev, &case, res);
        }
        let res = (|| -> R {
            let x: Vec<f32> = (0..r * c).map(|i| i as f32 * 0.5).collect();
            let y: Vec<f32> = (0..r * c).map(|i| 1000.0 - i as f32).collect();
            let a = Array::from_slice_on(&dev, &x, &[r, c])?;
            let b = Array::from_slice_on(&dev, &y, &[c, r])?;
            let z = (&a + &b.t())?.to_vec::<f32>()?;
            for i in 0..r {
                for j in 0..c {
                    if z[i * c + j] != x[i * c + j] + y[j * r + i] {
                        return Err(format!("a + b.T at ({i}, {j})").into());
                    }
                }
            }
            // a[::-1, ::2].T copied.
            let v = a
                .slice(&cupy::s![..;-1, ..;2])?
                .t()
                .copy()?
                .to_vec::<f32>()?;
            let cc = c.div_ceil(2);
            for j in 0..cc {
                for i in 0..r {
                    if v[j * r + i] != x[(r - 1 - i) * c + 2 * j] {
                        return Err(format!("a[::-1, ::2].T at ({j}, {i})").into());
                    }
                }
            }
            Ok(())
        })();
        t.check(&dev, "binary op and stepped view", res);
    }
    t.finish();
}
