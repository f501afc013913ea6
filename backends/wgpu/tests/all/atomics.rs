//! 64-bit atomic updates (int64, uint64, float64 `Add/Max/Min`) with heavy collisions, on the
//! adapter as opened (64-bit atomics where it has SHADER_INT64_ATOMIC_ALL_OPS) and opened
//! without that feature (pairs of 32-bit words: carry adds and the spin lock).

use cupy_core::backend::{ElementwiseCall, Operand, RawOperand};
use cupy_core::kernel::ir::{AtomicOp, Expr, Kernel, Stmt};
use cupy_core::kernel::wgsl;
use cupy_core::{Backend, BackendProvider, Buffer, DType, Element, Layout};
use cupy_wgpu::WgpuProvider;
use std::sync::Arc;

/// The adapter opened as is and without 64-bit atomics (`None`: no adapter, skip).
fn devs() -> Option<Vec<(Arc<dyn Backend>, &'static str)>> {
    let p = WgpuProvider;
    if let Err(e) = p.probe() {
        eprintln!("NOTICE: skipping wgpu atomics tests: {e}");
        return None;
    }
    let full = p.open(0).ok()?;
    let pairs = p
        .open_without_features(0, wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS)
        .ok()?;
    Some(vec![(full, "as opened"), (pairs, "32-bit pairs")])
}

fn up<T: Element>(d: &Arc<dyn Backend>, v: &[T]) -> Buffer {
    let b = d.alloc(T::DTYPE, v.len()).unwrap();
    d.write(&b, 0, T::slice_as_bytes(v)).unwrap();
    b
}

fn down<T: Element>(d: &Arc<dyn Backend>, b: &Buffer) -> Vec<T> {
    T::vec_from_bytes(&d.read(b, 0, b.len()).unwrap())
}

/// `t[idx[i]] (op)= v[i]` for every `i`.
fn scatter(d: &Arc<dyn Backend>, t: &Buffer, idx: &[i64], v: &Buffer, dt: DType, op: AtomicOp) {
    let k = Kernel {
        name: format!("scatter_{}_{op:?}", dt.name()),
        inputs: vec![DType::Int64, dt],
        outputs: vec![],
        raws: vec![dt],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::AtomicRaw {
            raw: 0,
            op,
            index: Expr::input(0, DType::Int64),
            value: Expr::input(1, dt),
            old: None,
        }],
    };
    let ib = up(d, idx);
    let n = idx.len();
    d.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![n],
        inputs: vec![
            Operand {
                buffer: &ib,
                layout: Layout::contiguous(&[n]),
            },
            Operand {
                buffer: v,
                layout: Layout::contiguous(&[n]),
            },
        ],
        outputs: vec![],
        raws: vec![RawOperand {
            buffer: t,
            offset: 0,
            len: t.len(),
        }],
        params: vec![],
    })
    .unwrap();
}

fn mix(j: u64) -> u64 {
    let mut z = j.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 31)
}

#[test]
fn int64_uint64_float64_atomics_with_and_without_64_bit_atomics() {
    let Some(devs) = devs() else { return };
    let m = 5usize;
    for (d, how) in &devs {
        // The lock of the 32-bit-pair path spins; on llvmpipe (whose adapter has native 64-bit
        // atomics, so only this test takes the lock there) 2^15 updates of 5 elements could
        // spend a vector's loop budget while a lock holder's thread was descheduled on a busy
        // machine (the loop guard then reports it). 2^11 updates, ~400 per element, still
        // contend on every lock.
        let n: u64 = if *how == "32-bit pairs" {
            1 << 11
        } else {
            1 << 15
        };
        let idx: Vec<i64> = (0..n).map(|j| (mix(j) % m as u64) as i64).collect();
        let bits: Vec<u64> = (0..n).map(|j| mix(j ^ 0xabc)).collect();
        for op in [AtomicOp::Add, AtomicOp::Max, AtomicOp::Min] {
            let f = |a: u64, b: u64, signed: bool| -> u64 {
                match (op, signed) {
                    (AtomicOp::Add, _) => a.wrapping_add(b),
                    (AtomicOp::Max, false) => a.max(b),
                    (AtomicOp::Min, false) => a.min(b),
                    (AtomicOp::Max, true) => (a as i64).max(b as i64) as u64,
                    _ => (a as i64).min(b as i64) as u64,
                }
            };
            for (dt, signed) in [(DType::Int64, true), (DType::UInt64, false)] {
                let init: Vec<u64> = (0..m as u64).map(|k| k << 35).collect();
                let mut want = init.clone();
                for (&k, &x) in idx.iter().zip(&bits) {
                    want[k as usize] = f(want[k as usize], x, signed);
                }
                let t = if signed {
                    up(d, &init.iter().map(|&x| x as i64).collect::<Vec<_>>())
                } else {
                    up(d, &init)
                };
                let v = if signed {
                    up(d, &bits.iter().map(|&x| x as i64).collect::<Vec<_>>())
                } else {
                    up(d, &bits)
                };
                scatter(d, &t, &idx, &v, dt, op);
                assert_eq!(down::<u64>(d, &t), want, "{dt} {op:?} ({how})");
            }
            // float64: integer values (exact sums in any order).
            let fv: Vec<f64> = bits
                .iter()
                .map(|&b| (b % 1_000_001) as f64 - 500_000.0)
                .collect();
            let init = vec![0.5f64; m];
            let mut want = init.clone();
            for (&k, &x) in idx.iter().zip(&fv) {
                let w = &mut want[k as usize];
                *w = match op {
                    AtomicOp::Add => *w + x,
                    AtomicOp::Max => w.max(x),
                    _ => w.min(x),
                };
            }
            let t = up(d, &init);
            let v = up(d, &fv);
            scatter(d, &t, &idx, &v, DType::Float64, op);
            assert_eq!(down::<f64>(d, &t), want, "float64 {op:?} ({how})");
        }
    }
    // The lock buffer is bound exactly where 64-bit non-add updates meet 32-bit words.
    let k = |dt, op| Kernel {
        name: "k".into(),
        inputs: vec![DType::Int64, dt],
        outputs: vec![],
        raws: vec![dt],
        params: vec![],
        locals: vec![],
        body: vec![Stmt::AtomicRaw {
            raw: 0,
            op,
            index: Expr::input(0, DType::Int64),
            value: Expr::input(1, dt),
            old: None,
        }],
    };
    assert!(wgsl::atomic_lock(&k(DType::Float64, AtomicOp::Add), false));
    assert!(wgsl::atomic_lock(&k(DType::UInt64, AtomicOp::Max), false));
    assert!(!wgsl::atomic_lock(&k(DType::Int64, AtomicOp::Add), false));
    assert!(!wgsl::atomic_lock(&k(DType::Float64, AtomicOp::Max), true));
}
