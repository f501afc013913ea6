//! Views (slices with Python semantics, negative steps, transposes, broadcasts, reshapes)
//! materialised by a device copy, against NumPy goldens; view errors.

use crate::common::{self, Golden, Operand, Tol};
use cupy::{Array, DType, Device, Error, Result};
use serde_json::Value;

fn exec(_: &Golden, _: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    ops[0].array().copy()
}

#[test]
fn views_match_numpy() {
    common::run_group(
        "views",
        exec,
        |_, _, _| Tol::EXACT,
        |case, e| {
            let id = case["id"].as_str().unwrap();
            match id.rsplit('/').next().unwrap() {
                "index_oob" | "index_oob_neg" => matches!(e, Error::IndexOutOfBounds { .. }),
                "zero_step" => {
                    matches!(e, Error::InvalidArgument { msg, .. } if msg.contains("step"))
                }
                "too_many" => {
                    matches!(e, Error::InvalidArgument { msg, .. } if msg.contains("too many"))
                }
                "reshape_bad" => matches!(e, Error::InvalidReshape { .. }),
                "broadcast_bad" => matches!(e, Error::ShapeMismatch { .. }),
                _ => false,
            }
        },
    );
}

/// Views share the buffer; copies do not; writes through `copy_from`/`fill` on a view land in
/// the base array.
#[test]
#[allow(clippy::reversed_empty_ranges)]
fn views_share_memory_and_write_through() {
    let mut t = common::Tally::new("view_semantics");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 12.0, 1.0, DType::Int32)?.reshape(&[3, 4])?;
            let v = a.slice(&cupy::s![.., ..;-2])?;
            if !v.shares_memory_with(&a) || a.t().strides() != vec![4, 16] {
                return Err(format!("views: strides {:?}", a.t().strides()).into());
            }
            if v.to_vec::<i32>()? != vec![3, 1, 7, 5, 11, 9] {
                return Err(format!("a[:, ::-2] = {:?}", v.to_vec::<i32>()).into());
            }
            v.fill(-1)?;
            let want = vec![0, -1, 2, -1, 4, -1, 6, -1, 8, -1, 10, -1];
            if a.to_vec::<i32>()? != want {
                return Err(format!("fill through view: {:?}", a.to_vec::<i32>()).into());
            }
            let src = Array::from_slice_on(&dev, &[100i32, 200], &[2])?;
            a.slice(&cupy::s![1, 1..;2])?.copy_from(&src)?;
            if a.slice(&cupy::s![1])?.to_vec::<i32>()? != vec![4, 100, 6, 200] {
                return Err(format!("copy_from into a[1, 1::2]: {:?}", a.to_vec::<i32>()).into());
            }
            let r = a.t().ravel()?;
            if r.shares_memory_with(&a) || r.shape() != [12] {
                return Err("ravel of a transposed view must copy".to_string().into());
            }
            let rv = a.reshape(&[4, 3])?;
            if !rv.shares_memory_with(&a) {
                return Err("reshape of a contiguous array is a view".to_string().into());
            }
            let b = a.slice(&cupy::s![cupy::NEW_AXIS, cupy::ELLIPSIS, -1])?;
            if b.shape() != [1, 3] || b.to_vec::<i32>()? != vec![-1, 200, -1] {
                return Err(
                    format!("a[None, ..., -1]: {:?} {:?}", b.shape(), b.to_vec::<i32>()).into(),
                );
            }
            let c = a.slice(&cupy::s![2..0;-1, -1..])?;
            if c.to_vec::<i32>()? != vec![-1, 200] {
                return Err(format!("a[2:0:-1, -1:]: {:?}", c.to_vec::<i32>()).into());
            }
            let sq = b.expand_dims(0)?.squeeze();
            if sq.shape() != [3] {
                return Err("expand_dims/squeeze".to_string().into());
            }
            let f = a.slice(&cupy::s![0..=1, ..=-1])?;
            if f.shape() != [2, 4] {
                return Err(format!("inclusive ranges: {:?}", f.shape()).into());
            }
            Ok(())
        })();
        t.check(&dev, "view semantics", r);
    }
    t.finish();
}

/// The function forms (`cupy::swapaxes(&a, ..)`, `cupy::copyto(&dst, &src)`, ...) give what
/// the methods give: the same views, the same copies.
#[test]
fn manipulation_functions_match_the_methods() {
    let mut t = common::Tally::new("manipulation_functions");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let a = Array::arange_on(&dev, 0.0, 6.0, 1.0, DType::Int32)?.reshape(&[2, 3])?;
            let s = cupy::swapaxes(&a, 0, -1)?;
            if !s.shares_memory_with(&a) || s.shape() != [3, 2] {
                return Err(format!("swapaxes: shape {:?}", s.shape()).into());
            }
            if s.copy()?.to_vec::<i32>()? != vec![0, 3, 1, 4, 2, 5] {
                return Err(format!("swapaxes: {:?}", s.copy()?.to_vec::<i32>()).into());
            }
            let e = cupy::expand_dims(&a, 1)?;
            if e.shape() != [2, 1, 3] || cupy::squeeze(&e).shape() != [2, 3] {
                return Err(format!("expand_dims/squeeze: {:?}", e.shape()).into());
            }
            let row = cupy::reshape(&a, &[-1])?.slice(&cupy::s![0..3])?;
            let b = cupy::broadcast_to(&row, &[2, 3])?;
            if b.strides()[0] != 0 || b.copy()?.to_vec::<i32>()? != vec![0, 1, 2, 0, 1, 2] {
                return Err(format!("broadcast_to: strides {:?}", b.strides()).into());
            }
            let dst = Array::zeros_on(&dev, &[2, 3], DType::Int64)?;
            cupy::copyto(&dst, &row)?;
            if dst.to_vec::<i64>()? != vec![0, 1, 2, 0, 1, 2] {
                return Err(format!("copyto: {:?}", dst.to_vec::<i64>()).into());
            }
            let f = Array::arange_on(&dev, 0.0, 3.0, 1.0, DType::Float32)?;
            match cupy::copyto(&row, &f) {
                Err(Error::TypeError { .. }) => {}
                other => return Err(format!("copyto float32 -> int32: {other:?}").into()),
            }
            if cupy::transpose(&a).shape() != [3, 2] || cupy::ravel(&a)?.shape() != [6] {
                return Err("transpose/ravel".to_string().into());
            }
            Ok(())
        })();
        t.check(&dev, "manipulation functions", r);
    }
    t.finish();
}

/// More than 64 dimensions is refused as NumPy (and CuPy) refuse it, with NumPy's message, by
/// every way of making such an array; exactly 64 works.
#[test]
fn more_than_64_dimensions_refused() {
    let mut t = common::Tally::new("max_ndim");
    let limit = "maximum supported dimension for an ndarray is 64, found 65";
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let refused = |what: &str, r: Result<Array>, msg: &str| match r {
                Err(Error::InvalidArgument { msg: m, .. }) if m.contains(msg) => Ok(()),
                Err(e) => Err(format!("{what}: want {msg:?}, got {e}")),
                Ok(a) => Err(format!(
                    "{what}: want an error, got shape of {} dims",
                    a.ndim()
                )),
            };
            let a = Array::arange_on(&dev, 0.0, 2.0, 1.0, DType::Int32)?;
            let mut s64 = vec![1isize; 64];
            s64[63] = 2;
            let b = a.reshape(&s64)?;
            if b.ndim() != 64 || b.to_vec::<i32>()? != vec![0, 1] {
                return Err("reshape to 64 dimensions".to_string().into());
            }
            let z = Array::zeros_on(&dev, &[1; 64], DType::Float32)?;
            if z.to_vec::<f32>()? != vec![0.0] {
                return Err("zeros of 64 dimensions".to_string().into());
            }
            refused(
                "reshape",
                a.reshape(&[vec![1isize; 64], vec![2]].concat()),
                limit,
            )?;
            refused(
                "zeros",
                Array::zeros_on(&dev, &[1; 65], DType::Float32),
                limit,
            )?;
            refused("empty", Array::empty_on(&dev, &[1; 65], DType::Int8), limit)?;
            refused("expand_dims", b.expand_dims(0), limit)?;
            refused(
                "broadcast_to",
                a.broadcast_to(&[vec![1usize; 64], vec![2]].concat()),
                limit,
            )?;
            refused(
                "b[None]",
                b.slice(&[cupy::NEW_AXIS]),
                "number of dimensions must be within [0, 64], indexing result would have 65",
            )?;
            Ok(())
        })();
        t.check(&dev, "65 dims", r);
    }
    t.finish();
}
