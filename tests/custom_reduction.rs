//! User `ReductionKernel`s without an identity, and the identity counted once per output, on
//! every backend (NumPy's `ufunc.reduce(initial=)` values).

use crate::common;
use cupy::{Array, Axes, DType, ReductionKernel};

/// Identity-less reductions over several axes, 0-d and long rows, with keepdims.
#[test]
fn reductions_without_identity() {
    let mut t = common::Tally::new("custom_noid");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let kmax =
                ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", None, "noid_max")?;
            // Long rows (several combine passes) and a transposed view.
            let n = 40_000usize;
            let v: Vec<f32> = (0..n).map(|k| -((k * 7919 % n) as f32)).collect();
            let x = Array::from_slice_on(&dev, &v, &[n / 4, 4])?;
            let m = kmax.call(&[(&x.t()).into()], 1, false)?;
            let want: Vec<f32> = (0..4)
                .map(|c| (0..n / 4).map(|r| v[r * 4 + c]).fold(f32::MIN, f32::max))
                .collect();
            assert_eq!(m.to_vec::<f32>()?, want);
            // All axes of a 0-d array; keepdims over every axis.
            let s = Array::from_slice_on(&dev, &[-3.5f32], &[])?;
            let m = kmax.call(&[(&s).into()], Axes::All, false)?;
            assert_eq!(
                (m.shape().to_vec(), m.to_vec::<f32>()?),
                (vec![], vec![-3.5])
            );
            let m = kmax.call(&[(&x).into()], Axes::All, true)?;
            assert_eq!(m.shape(), &[1, 1]);
            assert_eq!(m.to_vec::<f32>()?, vec![0.0]);
            // An empty reduction has no identity; an empty output is fine.
            let e0 = Array::zeros_on(&dev, &[0, 3], DType::Float32)?;
            let e = kmax.call(&[(&e0).into()], 0, false).unwrap_err();
            assert!(e.to_string().contains("no identity"), "{e}");
            assert_eq!(kmax.call(&[(&e0).into()], 1, false)?.shape(), &[0]);
            // Two inputs, a scalar parameter and a post-map with the sizes.
            let k = ReductionKernel::new(
                "T x, T w, T c",
                "T y",
                "x * w + c",
                "a + b",
                "y = a / _in_ind.size() * _out_ind.size()",
                None,
                "noid_wmean",
            )?;
            let xs = Array::from_slice_on(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
            let ws = Array::from_slice_on(&dev, &[2.0f64, 0.5, 1.0], &[3])?;
            let r = k.call(&[(&xs).into(), (&ws).into(), 1.0.into()], 1, false)?;
            assert_eq!(r.to_vec::<f64>()?, vec![9.0 / 6.0 * 2.0, 19.5 / 6.0 * 2.0]);
            Ok(())
        });
        t.check(&dev, "noid", r);
    }
    t.finish();
}

/// A `ReductionKernel` identity counts exactly once per output, as NumPy's
/// `ufunc.reduce(initial=)` (values printed by NumPy 2.4): a neutral identity keeps the
/// one-kernel path, any other is combined once at the end (an empty reduction gives it).
#[test]
fn reduction_identity_counts_once() {
    let mut t = common::Tally::new("custom_initial");
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || -> std::result::Result<(), common::CaseError> {
            let plus1 =
                ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("1"), "sum_plus1")?;
            let x = Array::from_slice_on(&dev, &(0..10i64).collect::<Vec<_>>(), &[10])?;
            // np.add.reduce(np.arange(10), initial=1)
            assert_eq!(
                plus1
                    .call(&[(&x).into()], Axes::All, false)?
                    .to_vec::<i64>()?,
                vec![46]
            );
            let m = Array::from_slice_on(&dev, &(0..12i64).collect::<Vec<_>>(), &[3, 4])?;
            assert_eq!(
                plus1.call(&[(&m).into()], 1, false)?.to_vec::<i64>()?,
                vec![7, 23, 39]
            );
            let r0 = plus1.call(&[(&m).into()], 0, true)?;
            assert_eq!(r0.shape(), &[1, 4]);
            assert_eq!(r0.to_vec::<i64>()?, vec![13, 16, 19, 22]);
            // Transposed view, and an empty reduction: the identity itself.
            assert_eq!(
                plus1.call(&[(&m.t()).into()], 0, false)?.to_vec::<i64>()?,
                vec![7, 23, 39]
            );
            let e0 = Array::zeros_on(&dev, &[0, 3], DType::Int64)?;
            assert_eq!(
                plus1.call(&[(&e0).into()], 0, false)?.to_vec::<i64>()?,
                vec![1, 1, 1]
            );
            // Long float32 rows (several blocks/passes): np.add.reduce(f, initial=1) = 299996.
            let n = 100_000usize;
            let f: Vec<f32> = (0..n).map(|k| (k % 7) as f32).collect();
            let fa = Array::from_slice_on(&dev, &f, &[n])?;
            assert_eq!(
                plus1
                    .call(&[(&fa).into()], Axes::All, false)?
                    .to_vec::<f32>()?,
                vec![299996.0]
            );
            // The post-map sees the combined value: (sum + 1) * 10.
            let k10 =
                ReductionKernel::new("T x", "T y", "x", "a + b", "y = a * 10", Some("1"), "s1x10")?;
            assert_eq!(
                k10.call(&[(&x).into()], Axes::All, false)?
                    .to_vec::<i64>()?,
                vec![460]
            );
            // max with identity 0 (np.maximum.reduce(v, initial=0)): 0 for negative data.
            let kmax =
                ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", Some("0"), "max0")?;
            let v = Array::from_slice_on(&dev, &[-3.0f32, -1.5, -7.0, -0.25], &[4])?;
            assert_eq!(
                kmax.call(&[(&v).into()], Axes::All, false)?
                    .to_vec::<f32>()?,
                vec![0.0]
            );
            let v = Array::from_slice_on(&dev, &[-3.0f32, 2.5, -7.0], &[3])?;
            assert_eq!(
                kmax.call(&[(&v).into()], Axes::All, false)?
                    .to_vec::<f32>()?,
                vec![2.5]
            );
            // np.multiply.reduce([1, 2, 3, 4], initial=2) = 48.
            let kprod =
                ReductionKernel::new("T x", "T y", "x", "a * b", "y = a", Some("2"), "prod2")?;
            let p = Array::from_slice_on(&dev, &[1i32, 2, 3, 4], &[4])?;
            assert_eq!(
                kprod
                    .call(&[(&p).into()], Axes::All, false)?
                    .to_vec::<i32>()?,
                vec![48]
            );
            // Neutral identities keep the one-kernel path; others run the passes.
            let sum0 =
                ReductionKernel::new("T x", "T y", "x", "a + b", "y = a", Some("0"), "sum0")?;
            assert!(sum0.pass_kernels(&[(&fa).into()])?.is_empty());
            let maxinf = ReductionKernel::new(
                "T x",
                "T y",
                "x",
                "max(a, b)",
                "y = a",
                Some("-INFINITY"),
                "mx",
            )?;
            assert!(maxinf.pass_kernels(&[(&fa).into()])?.is_empty());
            assert_eq!(plus1.pass_kernels(&[(&fa).into()])?.len(), 3);
            assert_eq!(kmax.pass_kernels(&[(&fa).into()])?.len(), 3);
            Ok(())
        });
        t.check(&dev, "initial", r);
    }
    t.finish();
}
