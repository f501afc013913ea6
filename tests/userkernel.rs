//! The rest of CuPy's user-kernel contract (issue 19): `size=` only with raw arrays, memory
//! orders of new arrays and copies, and the `ElementwiseKernel`/`ReductionKernel` options
//! (scenarios of CuPy's test_userkernel.py, test_elementwise.py and test_reduction.py,
//! translated; values computed by hand or by NumPy).

use crate::common::{self, CaseError};
use cupy::{Array, Creation, DType, Device, ElementwiseKernel, Error, Order};

/// Runs `f` on every listed backend, one tally entry per backend.
pub fn on_each(name: &str, f: impl Fn(&Device) -> std::result::Result<(), CaseError>) {
    let mut t = common::Tally::new(name);
    for dev in common::backends() {
        let r = cupy::with_device(&dev, || f(&dev));
        t.check(&dev, name, r);
    }
    t.finish();
}

/// `Err` with a message unless `cond`.
pub fn ensure(cond: bool, msg: impl Into<String>) -> std::result::Result<(), CaseError> {
    if cond {
        Ok(())
    } else {
        Err(msg.into().into())
    }
}

/// CuPy: "Specified 'size' can be used only if all of the ndarray are 'raw'", even when the
/// size agrees with the arrays.
#[test]
fn size_needs_raw_arrays() {
    on_each("size_raw_only", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let k = ElementwiseKernel::new("T x", "T y", "y = x * 2", "double_it")?;
        for size in [3, 4] {
            let e = k.call_with(&[(&x).into()], &[], Some(size)).unwrap_err();
            ensure(
                matches!(e, Error::InvalidArgument { .. })
                    && e.to_string().contains(
                        "Specified 'size' can be used only if all of the ndarray are 'raw'",
                    ),
                format!("size={size}: {e}"),
            )?;
        }
        // A non-raw out array counts too.
        let out = Array::zeros_on(dev, &[3], DType::Float32)?;
        let e = k.call_with(&[(&x).into()], &[&out], Some(3)).unwrap_err();
        ensure(e.to_string().contains("'raw'"), format!("{e}"))?;
        // Raw arrays with scalars: size decides the loop.
        let r = ElementwiseKernel::new("raw T x, T s", "T y", "y = x[i] * s", "raw_scale")?;
        let y = r.call_with(&[(&x).into(), 2.0f32.into()], &[], Some(2))?;
        ensure(y[0].to_vec::<f32>()? == [2.0, 4.0], "raw size=2")?;
        Ok(())
    });
}

/// `empty`/`zeros`/`ones`/`full` with `order=` and `copy` with 'C'/'F'/'A'/'K' (NumPy's strides).
#[test]
fn orders_of_new_arrays_and_copies() {
    on_each("orders", |dev| {
        let f = |order| Creation {
            dtype: DType::Float32,
            order,
            device: Some(dev.clone()),
        };
        let z = cupy::zeros_with(&[2, 3], f(Order::F))?;
        ensure(
            z.strides() == [4, 8] && z.is_f_contiguous(),
            "zeros F strides",
        )?;
        ensure(z.to_vec::<f32>()? == [0.0; 6], "zeros F values")?;
        let o = cupy::ones_with(&[2, 3, 4], f(Order::C))?;
        ensure(o.strides() == [48, 16, 4], "ones C strides")?;
        let e = cupy::empty_with(&[2, 3], f(Order::F))?;
        ensure(e.strides() == [4, 8], "empty F strides")?;
        let full = cupy::full_with(
            &[2, 2],
            1.5,
            cupy::Full {
                dtype: Some(DType::Float32),
                order: Order::F,
                device: Some(dev.clone()),
            },
        )?;
        ensure(
            full.strides() == [4, 8] && full.to_vec::<f32>()? == [1.5; 4],
            "full F",
        )?;
        for bad in [Order::A, Order::K] {
            let e = cupy::zeros_with(&[2, 3], f(bad)).unwrap_err();
            ensure(
                e.to_string().contains("only 'C' or 'F' order is permitted"),
                format!("{e}"),
            )?;
        }
        // Copies: a (2, 3, 4) int32 array, transposed to (4, 3, 2) (F-contiguous) and permuted.
        let vals: Vec<i32> = (0..24).collect();
        let a = Array::from_slice_on(dev, &vals, &[2, 3, 4])?;
        let at = a.t();
        let want_t: Vec<i32> = {
            let mut v = vec![];
            for k in 0..4 {
                for j in 0..3 {
                    for i in 0..2 {
                        v.push(vals[i * 12 + j * 4 + k]);
                    }
                }
            }
            v
        };
        // (copy source, order, NumPy's strides of the copy)
        let p = a.transpose(&[1, 0, 2])?; // shape (3, 2, 4), strides (16, 48, 4) bytes
        let cases: Vec<(&Array, Order, Vec<isize>)> = vec![
            (&a, Order::C, vec![48, 16, 4]),
            (&a, Order::F, vec![4, 8, 24]),
            (&a, Order::A, vec![48, 16, 4]),
            (&a, Order::K, vec![48, 16, 4]),
            (&at, Order::C, vec![24, 8, 4]),
            (&at, Order::A, vec![4, 16, 48]),
            (&at, Order::K, vec![4, 16, 48]),
            (&p, Order::K, vec![16, 48, 4]),
            (&p, Order::A, vec![32, 16, 4]),
        ];
        for (src, order, strides) in cases {
            let c = src.copy_with(order)?;
            ensure(
                c.strides() == strides,
                format!(
                    "copy {order:?} of {:?}: strides {:?}",
                    src.strides(),
                    c.strides()
                ),
            )?;
            ensure(
                c.to_vec::<i32>()? == src.to_vec::<i32>()?,
                format!("copy {order:?} values"),
            )?;
            ensure(!c.shares_memory_with(src), "copy is new memory")?;
        }
        ensure(at.to_vec::<i32>()? == want_t, "transposed values")?;
        // cupy.copy keeps the layout (order='K'); a reversed view copies to positive strides.
        let c = cupy::copy(&at)?;
        ensure(c.is_f_contiguous(), "cupy.copy keeps F order")?;
        let r = a.slice(&[cupy::SliceItem::Slice {
            start: None,
            stop: None,
            step: -1,
        }])?;
        let c = cupy::copy_with(&r, Order::K)?;
        ensure(
            c.strides() == [48, 16, 4],
            format!("reversed K {:?}", c.strides()),
        )?;
        ensure(c.to_vec::<i32>()? == r.to_vec::<i32>()?, "reversed values")?;
        Ok(())
    });
}

/// Emits `kernels` as HIP C++ and compiles them with hipRTC for gfx90a and gfx1030 (skipped
/// with a notice when hipRTC does not load, unless `CUPY_REQUIRE_HIP=1`).
pub fn compile_with_hiprtc(tag: &str, kernels: Vec<cupy::FusedKernel>) {
    use cupy::core::kernel::cpp::{
        emit_elementwise, emit_reduce, prelude, ElementwiseClass, ElementwiseSpec, Flavor,
        ReduceSpec,
    };
    let Some(rtc) = common::hiprtc_or_skip() else {
        return;
    };
    let pre = prelude(Flavor::Hip);
    let mut body = String::new();
    let n = kernels.len();
    for (k, kern) in kernels.into_iter().enumerate() {
        let emitted = match kern {
            cupy::FusedKernel::Elementwise(mut kern) => {
                kern.name = format!("{tag}_{k}");
                let spec = ElementwiseSpec {
                    ndim: 2,
                    class: ElementwiseClass::Strided,
                    index64: k % 2 == 0,
                };
                emit_elementwise(&kern, &spec, Flavor::Hip)
            }
            cupy::FusedKernel::Reduction(mut kern) => {
                kern.name = format!("{tag}_{k}");
                let spec = ReduceSpec {
                    out_ndim: 1,
                    red_ndim: 1 + k % 2,
                    index64: k % 2 == 0,
                };
                emit_reduce(&kern, &spec, Flavor::Hip)
            }
        };
        let e = emitted.unwrap_or_else(|e| panic!("{tag}: HIP emission of kernel {k} failed: {e}"));
        body.push_str(&e.source[pre.len()..]);
    }
    for target in ["gfx90a", "gfx1030"] {
        let opts = cupy_hip::kernels::compile_options(target);
        let src = format!("{pre}{body}");
        if let Err(e) = rtc.compile(&src, &format!("{tag}.hip"), &opts) {
            let log: Vec<&str> = e.log.lines().take(60).collect();
            panic!("hipRTC ({target}) failed: {}\n{}", e.text, log.join("\n"));
        }
        eprintln!("hipRTC {target}: {n} {tag} kernels compiled");
    }
}
