//! Raw stores and atomic updates (scatter).

use super::*;

/// `raw0[idx] (op)= val` over `idx.len()` elements.
fn scatter_into<T: Element>(
    be: &CpuBackend,
    op: Option<cupy_core::kernel::ir::AtomicOp>,
    target: &[T],
    idx: &[i64],
    val: &[T],
) -> Vec<T> {
    let d = T::DTYPE;
    let (i, v) = (inp(0, Int64), inp(1, d));
    let st = match op {
        None => Stmt::StoreRaw {
            raw: 0,
            index: i,
            value: v,
        },
        Some(op) => Stmt::AtomicRaw {
            raw: 0,
            op,
            index: i,
            value: v,
            old: None,
        },
    };
    let k = Kernel {
        name: "scatter".into(),
        inputs: vec![Int64, d],
        outputs: vec![],
        raws: vec![d],
        params: vec![],
        locals: vec![],
        body: vec![st],
    };
    let t = up(be, target);
    let ib = up(be, idx);
    let vb = up(be, val);
    let n = idx.len();
    be.elementwise(&ElementwiseCall {
        kernel: &k,
        shape: vec![n],
        inputs: vec![
            Operand {
                buffer: &ib,
                layout: c1(n),
            },
            Operand {
                buffer: &vb,
                layout: c1(n),
            },
        ],
        outputs: vec![],
        raws: vec![RawOperand {
            buffer: &t,
            offset: 0,
            len: target.len(),
        }],
        params: vec![],
    })
    .unwrap();
    down(be, &t)
}

#[test]
fn scatter_raw_stores_and_atomics() {
    use cupy_core::kernel::ir::AtomicOp::*;
    let be = be();
    // Many elements onto few targets (past the parallel threshold): no update is lost.
    let n = 100_000;
    let idx: Vec<i64> = (0..n).map(|j| (j * 7919) % 10).collect();
    let got = scatter_into(&be, Some(Add), &[0i32; 10], &idx, &vec![1i32; n as usize]);
    assert_eq!(got, vec![10_000; 10]);
    let got = scatter_into(&be, Some(Add), &[0i8; 10], &idx, &vec![1i8; n as usize]);
    assert_eq!(got, vec![(10_000i32 as u32 % 256) as u8 as i8; 10]);
    // Plain stores: the last element writing an index wins (element order), out of range dropped.
    let got = scatter_into(
        &be,
        None,
        &[0f32; 4],
        &[1, 2, 1, 9, -1],
        &[1., 2., 3., 4., 5.],
    );
    assert_eq!(got, vec![0., 3., 2., 0.]);
    // Max/Min propagate NaN; float16 rounds each update; bool add is or.
    let got = scatter_into(
        &be,
        Some(Max),
        &[0f32, 0., 5.],
        &[0, 0, 1, 2],
        &[3., f32::NAN, -1., 2.],
    );
    assert!(got[0].is_nan() && got[1] == 0. && got[2] == 5.);
    let got = scatter_into(&be, Some(Min), &[0f64, 1.], &[1, 1], &[0.5, 2.]);
    assert_eq!(got, vec![0., 0.5]);
    let h = |x: f32| f16::from_f32(x);
    let got = scatter_into(&be, Some(Add), &[h(2048.)], &[0, 0], &[h(1.), h(1.)]);
    assert_eq!(got, vec![h(2048.)], "each update is rounded to float16");
    let got = scatter_into(&be, Some(Add), &[false, false], &[1, 1], &[true, true]);
    assert_eq!(got, vec![false, true]);
    let got = scatter_into(&be, Some(Min), &[true, true], &[1], &[false]);
    assert_eq!(got, vec![true, false]);
    let got = scatter_into(&be, Some(Max), &[u64::MAX - 1], &[0, 0], &[3, u64::MAX]);
    assert_eq!(got, vec![u64::MAX]);
}

#[test]
fn parallel_raw_stores_keep_element_order() {
    // Past the parallel threshold, plain raw stores are logged per block on several threads
    // and written in block order: colliding stores still resolve as one sequential loop
    // (the last element wins), and every element lands.
    let be = be();
    let n = 100_000i64;
    let idx: Vec<i64> = (0..n)
        .map(|j| if j % 977 == 5 { -1 } else { j % 1000 })
        .collect();
    let val: Vec<f64> = (0..n).map(|j| j as f64 * 0.5).collect();
    let got = scatter_into(&be, None, &[0f64; 1000], &idx, &val);
    let mut want = vec![0f64; 1000];
    for (&i, &v) in idx.iter().zip(&val) {
        if i >= 0 {
            want[i as usize] = v;
        }
    }
    assert_eq!(got, want);
    // A permutation: every element written once.
    let perm: Vec<i64> = (0..n).map(|j| (j * 7919) % n).collect();
    let got = scatter_into(
        &be,
        None,
        &vec![-1i32; n as usize],
        &perm,
        &(0..n as i32).collect::<Vec<_>>(),
    );
    let mut want = vec![0i32; n as usize];
    for (j, &p) in perm.iter().enumerate() {
        want[p as usize] = j as i32;
    }
    assert_eq!(got, want);
}
