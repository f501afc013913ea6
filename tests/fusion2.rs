//! `fuse` (issue 19), the rest of CuPy's fusion contract: in-place updates inside the closure
//! (`x += y`, `x[...] = v` as `assign`, `out=` as `Sym::ufunc_out`), closures with no return
//! value, and indexing of symbols (`x[:, None]` for broadcasting, basic indexing of the
//! arguments). Scenarios of CuPy's fusion tests, translated; the expected values follow
//! NumPy's rules (in-place ufuncs cast under `same_kind`, assignment casts unsafely) and are
//! exact or computed here on the host.

use crate::userkernel::{ensure, on_each};
use cupy::{fuse, s, ufuncs, Array, DType, Error, Sym, NEW_AXIS};

/// `x += y` in a closure with no return value writes `x` in place, in one kernel; `call_multi`
/// returns no arrays. A copy of the `Sym` is the same variable (a Python alias).
#[test]
fn inplace_updates_write_arguments() {
    on_each("fuse_inplace", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let y = Array::from_slice_on(dev, &[0.5f32, -1.0, 4.0], &[3])?;
        let f = fuse(|mut x: Sym, y: Sym| {
            x += y;
        });
        let args = [(&x).into(), (&y).into()];
        ensure(f.kernel_count(&args)? == 1, "x += y: one kernel")?;
        ensure(f.call_multi(&args)?.is_empty(), "no outputs")?;
        ensure(x.to_vec::<f32>()? == [1.5, 1.0, 7.0], "x written")?;
        ensure(y.to_vec::<f32>()? == [0.5, -1.0, 4.0], "y unchanged")?;
        ensure(f.call(&args).is_err(), "call needs one output")?;
        // A chain of updates, then the updated value returned (an alias sees the update).
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let g = fuse(|mut x: Sym, y: Sym| {
            let alias = x;
            x *= 2.0;
            x -= y;
            alias + 1.0
        });
        let out = g.call(&[(&x).into(), (&y).into()])?;
        ensure(out.to_vec::<f32>()? == [2.5, 6.0, 3.0], "alias + 1")?;
        ensure(x.to_vec::<f32>()? == [1.5, 5.0, 2.0], "2x - y written")?;
        // Integer operators in place; y broadcasts into x.
        let a = Array::from_slice_on(dev, &[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
        let b = Array::from_slice_on(dev, &[1i32, 3, 7], &[3])?;
        let h = fuse(|mut a: Sym, b: Sym| {
            a <<= 1;
            a ^= b;
            a %= 5;
        });
        h.call_multi(&[(&a).into(), (&b).into()])?;
        let want: Vec<i32> = [1, 2, 3, 4, 5, 6]
            .iter()
            .zip([1, 3, 7].iter().cycle())
            .map(|(&v, &w)| ((v << 1) ^ w) % 5)
            .collect();
        ensure(a.to_vec::<i32>()? == want, format!("int ops {want:?}"))?;
        Ok(())
    });
}

/// NumPy's rules for in-place ufuncs: the result must cast to the target under `same_kind`
/// and must not be larger than it; a scalar is rebound, not written.
#[test]
fn inplace_rules() {
    on_each("fuse_inplace_rules", |dev| {
        let i = Array::from_slice_on(dev, &[1i32, 2, 3], &[3])?;
        let f = Array::from_slice_on(dev, &[0.5f32, 1.5, 2.5], &[3])?;
        let m = Array::from_slice_on(dev, &[1.0f32; 6], &[2, 3])?;
        // int32 += float32: "cannot cast ufunc 'add' output from float32 to int32".
        let g = fuse(|mut x: Sym, y: Sym| {
            x += y;
        });
        let e = g.call_multi(&[(&i).into(), (&f).into()]).unwrap_err();
        ensure(
            matches!(e, Error::TypeError { .. }) && e.to_string().contains("same_kind"),
            format!("int += float: {e}"),
        )?;
        ensure(i.to_vec::<i32>()? == [1, 2, 3], "x untouched on error")?;
        // int32 /= 2: true_divide gives float64, which int32 cannot hold under same_kind.
        let d = fuse(|mut x: Sym| {
            x /= 2;
        });
        ensure(
            matches!(d.call_multi(&[(&i).into()]), Err(Error::TypeError { .. })),
            "int /= 2",
        )?;
        // float32 += float64 is same_kind: cast down.
        let f64s = Array::from_slice_on(dev, &[0.25f64, 0.25, 0.25], &[3])?;
        g.call_multi(&[(&f).into(), (&f64s).into()])?;
        ensure(f.to_vec::<f32>()? == [0.75, 1.75, 2.75], "f32 += f64")?;
        // (3,) += (2, 3): NumPy's "non-broadcastable output operand".
        let e = g.call_multi(&[(&f).into(), (&m).into()]).unwrap_err();
        ensure(
            matches!(e, Error::ShapeMismatch { .. }) && e.to_string().contains("non-broadcastable"),
            format!("(3,) += (2,3): {e}"),
        )?;
        // On a computed value too.
        let t = fuse(|x: Sym, y: Sym| {
            let mut t = x * 2.0;
            t += y;
            t
        });
        ensure(
            matches!(
                t.call(&[(&f).into(), (&m).into()]),
                Err(Error::ShapeMismatch { .. })
            ),
            "temporary (3,) += (2,3)",
        )?;
        let f = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let got = t.call(&[(&m).into(), (&f).into()])?;
        ensure(
            got.to_vec::<f32>()? == [3.0, 4.0, 5.0, 3.0, 4.0, 5.0],
            "temporary (2,3) += (3,)",
        )?;
        // A scalar argument is rebound (a Python float's `h += 1`), not written.
        let s = fuse(|x: Sym, mut h: Sym| {
            h += 1.0;
            x * h
        });
        let got = s.call(&[(&f).into(), 2.0.into()])?;
        ensure(got.to_vec::<f32>()? == [3.0, 6.0, 9.0], "x * (h + 1)")?;
        ensure(
            s.kernel_count(&[(&f).into(), 2.0.into()])? == 1,
            "one kernel",
        )?;
        Ok(())
    });
}

/// CuPy's `x[...] = value` (`assign`): broadcast, cast unsafely (NumPy's assignment), written
/// into an argument; a Rust integer out of the dtype's range is an error.
#[test]
fn assignment() {
    on_each("fuse_assign", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let y = Array::from_slice_on(dev, &[10.0f32, 20.0, 30.0], &[3])?;
        let f = fuse(|x: Sym, y: Sym| {
            x.assign(y * 2.0 + x);
        });
        f.call_multi(&[(&x).into(), (&y).into()])?;
        ensure(
            x.to_vec::<f32>()? == [21.0, 42.0, 63.0, 24.0, 45.0, 66.0],
            "x[...] = 2y + x",
        )?;
        let i = Array::from_slice_on(dev, &[7i32, 8, 9], &[3])?;
        let g = fuse(|x: Sym| {
            x.assign(1.75);
            x + 1
        });
        let out = g.call(&[(&i).into()])?;
        ensure(
            i.to_vec::<i32>()? == [1, 1, 1],
            "int x[...] = 1.75 truncates",
        )?;
        ensure(
            out.dtype() == DType::Int32 && out.to_vec::<i32>()? == [2, 2, 2],
            format!("then x + 1: {out:?}"),
        )?;
        // A float32 array assigned into int32 (unsafe cast, as NumPy's setitem).
        let v = Array::from_slice_on(dev, &[-1.5f32, 2.5, 9.9], &[3])?;
        let h = fuse(|x: Sym, v: Sym| {
            x.assign(v);
        });
        h.call_multi(&[(&i).into(), (&v).into()])?;
        ensure(i.to_vec::<i32>()? == [-1, 2, 9], "float into int")?;
        let u = Array::from_slice_on(dev, &[1u8, 2], &[2])?;
        let o = fuse(|x: Sym| {
            x.assign(300);
        });
        ensure(
            o.call_multi(&[(&u).into()]).is_err(),
            "300 into uint8 refused",
        )?;
        ensure(u.to_vec::<u8>()? == [1, 2], "u untouched")?;
        Ok(())
    });
}

/// `out=` (`Sym::ufunc_out`): the result goes into the given value, an argument is written;
/// two-output ufuncs take one slot per output.
#[test]
fn ufunc_out() {
    on_each("fuse_ufunc_out", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let y = Array::from_slice_on(dev, &[4.0f32, 5.0, 6.0], &[3])?;
        let z = Array::from_slice_on(dev, &[0.0f64; 3], &[3])?;
        let f = fuse(|x: Sym, y: Sym, z: Sym| {
            let r = Sym::ufunc_out(&ufuncs::multiply, &[x.into(), y.into()], &[Some(z)]);
            r[0] + 1.0
        });
        let args = [(&x).into(), (&y).into(), (&z).into()];
        let out = f.call(&args)?;
        ensure(z.to_vec::<f64>()? == [4.0, 10.0, 18.0], "z = x * y")?;
        ensure(out.dtype() == DType::Float64, "z's dtype")?;
        ensure(out.to_vec::<f64>()? == [5.0, 11.0, 19.0], "z + 1")?;
        ensure(f.kernel_count(&args)? == 1, "one kernel")?;
        // divmod into (q, None): q written, the remainder a new value.
        let q = Array::from_slice_on(dev, &[0.0f32; 3], &[3])?;
        let g = fuse(|x: Sym, y: Sym, q: Sym| {
            let r = Sym::ufunc_out(&ufuncs::divmod, &[y.into(), x.into()], &[Some(q), None]);
            r[1]
        });
        let rem = g.call(&[(&x).into(), (&y).into(), (&q).into()])?;
        ensure(q.to_vec::<f32>()? == [4.0, 2.0, 2.0], "q = y // x")?;
        ensure(rem.to_vec::<f32>()? == [0.0, 1.0, 0.0], "y % x")?;
        let bad = fuse(|x: Sym, q: Sym| {
            Sym::ufunc_out(&ufuncs::divmod, &[x.into(), x.into()], &[Some(q)]);
        });
        ensure(
            bad.call_multi(&[(&x).into(), (&q).into()]).is_err(),
            "divmod with one out slot",
        )?;
        Ok(())
    });
}

/// In-place work after reductions: `x -= mean(x)` in 2 kernels, an in-place batch-norm in 3;
/// a write whose argument a later kernel still reads goes through a temporary.
#[test]
fn inplace_after_reductions() {
    on_each("fuse_inplace_reduce", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 6.0], &[4])?;
        let f = fuse(|mut x: Sym| {
            x -= x.mean();
        });
        ensure(f.kernel_count(&[(&x).into()])? == 2, "2 kernels")?;
        f.call_multi(&[(&x).into()])?;
        ensure(x.to_vec::<f32>()? == [-2.0, -1.0, 0.0, 3.0], "centered")?;
        let (n, c) = (4usize, 3usize);
        let v: Vec<f32> = (0..n * c)
            .map(|i| ((i * 5) % 7) as f32 - 0.5 * i as f32)
            .collect();
        let a = Array::from_slice_on(dev, &v, &[n, c])?;
        let bn = fuse(|x: Sym| {
            let d = x - x.mean_axis(0);
            x.assign(d / ((d * d).mean_axis(0) + 1e-5).sqrt());
        });
        ensure(bn.kernel_count(&[(&a).into()])? == 3, "batch-norm in 3")?;
        bn.call_multi(&[(&a).into()])?;
        let got = a.to_vec::<f32>()?;
        for j in 0..c {
            let col: Vec<f64> = (0..n).map(|i| v[i * c + j] as f64).collect();
            let m = col.iter().sum::<f64>() / n as f64;
            let var = col.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
            for i in 0..n {
                let w = (col[i] - m) / (var + 1e-5).sqrt();
                ensure(
                    (got[i * c + j] as f64 - w).abs() <= 1e-5 * w.abs().max(1.0),
                    format!("bn[{i},{j}] = {} want {w}", got[i * c + j]),
                )?;
            }
        }
        // x (3,) is written first, y (2,3) then reads the old x: x goes through a temporary.
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let y = Array::from_slice_on(dev, &[0.0f32, 0.0, 0.0, 10.0, 10.0, 10.0], &[2, 3])?;
        let g = fuse(|mut x: Sym, mut y: Sym| {
            x *= 2.0;
            y += x;
        });
        g.call_multi(&[(&x).into(), (&y).into()])?;
        ensure(x.to_vec::<f32>()? == [2.0, 4.0, 6.0], "x doubled")?;
        ensure(
            y.to_vec::<f32>()? == [2.0, 4.0, 6.0, 12.0, 14.0, 16.0],
            "y += new x",
        )?;
        // An output of a larger shape reads the old x before x is written.
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let h = fuse(|mut x: Sym, y: Sym| {
            let r = x * y;
            x += 1.0;
            r
        });
        let y = Array::from_slice_on(dev, &[0.0f32, 0.0, 0.0, 10.0, 10.0, 10.0], &[2, 3])?;
        let r = h.call(&[(&x).into(), (&y).into()])?;
        ensure(
            r.to_vec::<f32>()? == [0.0, 0.0, 0.0, 10.0, 20.0, 30.0],
            format!("r from the old x: {:?}", r.to_vec::<f32>()?),
        )?;
        ensure(x.to_vec::<f32>()? == [2.0, 3.0, 4.0], "x + 1")?;
        Ok(())
    });
}

/// Indexing symbols: `x[:, None]` for broadcasting (of an argument, a computed value and a
/// reduction's result), basic indexing of an argument, and the refusals.
#[test]
fn indexing_symbols() {
    on_each("fuse_index", |dev| {
        let x = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0], &[3])?;
        let y = Array::from_slice_on(dev, &[10.0f32, 20.0], &[2])?;
        let outer = fuse(|x: Sym, y: Sym| x.slice(&s![.., NEW_AXIS]) * y);
        let args = [(&x).into(), (&y).into()];
        let got = outer.call(&args)?;
        ensure(got.shape() == [3, 2], format!("shape {:?}", got.shape()))?;
        ensure(
            got.to_vec::<f32>()? == [10.0, 20.0, 20.0, 40.0, 30.0, 60.0],
            "outer product",
        )?;
        ensure(outer.kernel_count(&args)? == 1, "one kernel")?;
        // A computed value, indexed: every input is read through the index.
        let g = fuse(|x: Sym, y: Sym| {
            let t = x * 2.0 + 1.0;
            (t.slice(&s![.., NEW_AXIS]) - y, t)
        });
        let out = g.call_multi(&args)?;
        ensure(
            out[0].to_vec::<f32>()? == [-7.0, -17.0, -5.0, -15.0, -3.0, -13.0],
            "(2x + 1)[:, None] - y",
        )?;
        ensure(out[1].to_vec::<f32>()? == [3.0, 5.0, 7.0], "t itself")?;
        // A computed value of inputs of different ranks: padded to its rank first.
        let m = Array::from_slice_on(dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
        let h = fuse(|m: Sym, x: Sym| (m + x).slice(&s![NEW_AXIS, .., ..]).sum_axis(0));
        let got = h.call(&[(&m).into(), (&x).into()])?;
        ensure(got.shape() == [2, 3], format!("{:?}", got.shape()))?;
        ensure(
            got.to_vec::<f32>()? == [2.0, 4.0, 6.0, 5.0, 7.0, 9.0],
            "(m + x)[None].sum(0)",
        )?;
        // Row centering with a reduction's result indexed: 2 kernels.
        let c = fuse(|m: Sym| m - m.mean_axis(1).slice(&s![.., NEW_AXIS]));
        ensure(c.kernel_count(&[(&m).into()])? == 2, "2 kernels")?;
        ensure(
            c.call(&[(&m).into()])?.to_vec::<f32>()? == [-1.0, 0.0, 1.0, -1.0, 0.0, 1.0],
            "m - mean(m, 1)[:, None]",
        )?;
        // Basic indexing of an argument: a reversed view and a column.
        let r = fuse(|x: Sym| x.slice(&s![..;-1]) + x);
        ensure(
            r.call(&[(&x).into()])?.to_vec::<f32>()? == [4.0, 4.0, 4.0],
            "x[::-1] + x",
        )?;
        let col = fuse(|m: Sym| m.slice(&s![.., 1]) * 10.0);
        ensure(
            col.call(&[(&m).into()])?.to_vec::<f32>()? == [20.0, 50.0],
            "m[:, 1] * 10",
        )?;
        // Integer and slice indices of computed values (CuPy's `(x * 2)[0]`, `(m + x)[:, 1:]`):
        // every input is read broadcast to the value's shape, then indexed; one kernel.
        let first = fuse(|x: Sym| (x * 2.0).slice(&s![0]));
        let got = first.call(&[(&x).into()])?;
        ensure(got.ndim() == 0 && got.to_vec::<f32>()? == [2.0], "(2x)[0]")?;
        let part = fuse(|m: Sym, x: Sym| (m + x).slice(&s![.., 1..]) * 10.0);
        let args2 = [(&m).into(), (&x).into()];
        ensure(
            part.kernel_count(&args2)? == 1,
            "(m + x)[:, 1:] in one kernel",
        )?;
        let got = part.call(&args2)?;
        ensure(got.shape() == [2, 2], format!("{:?}", got.shape()))?;
        ensure(
            got.to_vec::<f32>()? == [40.0, 60.0, 70.0, 90.0],
            "(m + x)[:, 1:] * 10",
        )?;
        let row = fuse(|m: Sym, x: Sym| (m * x).slice(&s![-1, ..;-2]) - x.slice(&s![..2]));
        ensure(
            row.call(&args2)?.to_vec::<f32>()? == [17.0, 2.0],
            "(m * x)[-1, ::-2] - x[:2]",
        )?;
        // A reduction's result, computed on, then indexed (2 kernels: the sum, the rest).
        let red = fuse(|m: Sym| (m.sum_axis(0) * 2.0).slice(&s![1..]));
        let got = red.call(&[(&m).into()])?;
        ensure(got.to_vec::<f32>()? == [14.0, 18.0], "(2 sum(m, 0))[1:]")?;
        // Refusals: indices that do not fit, a constant indexed.
        let far = fuse(|x: Sym| x.slice(&s![.., 5]));
        ensure(far.call(&[(&m).into()]).is_err(), "m[:, 5] out of range")?;
        let far2 = fuse(|m: Sym| (m * 2.0).slice(&s![2]));
        ensure(far2.call(&[(&m).into()]).is_err(), "(2m)[2] out of range")?;
        Ok(())
    });
}
