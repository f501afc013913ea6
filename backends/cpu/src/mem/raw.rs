//! [`RawView`]: raw (indexable) operands: gathers, scatters and atomic read-modify-writes at
//! checked indices (the safety argument is in the parent module's docs).

use super::*;

/// A raw (indexable) operand.
#[derive(Clone, Debug)]
pub struct RawView {
    /// First element.
    pub ptr: *const u8,
    /// Element dtype.
    pub dtype: DType,
    /// Addressable elements.
    pub len: usize,
}

// SAFETY: see the module docs.
unsafe impl Send for RawView {}
unsafe impl Sync for RawView {}

impl RawView {
    /// Gathers elements at `idx` (out-of-range lanes read as zero, never outside the buffer).
    pub fn load(&self, idx: &Col<'_>) -> std::result::Result<Col<'static>, String> {
        let Col::I64(ix) = idx else {
            return Err("load index is not int64".into());
        };
        fn l<S: Copy, T: Copy + Default + 'static>(
            r: &RawView,
            ix: &D<'_, i64>,
            f: impl Fn(S) -> T,
        ) -> D<'static, T> {
            let p = r.ptr as *const S;
            let len = r.len as u64;
            // SAFETY: i < len elements of the checked raw range.
            ix.map(|i| {
                if (i as u64) < len {
                    f(unsafe { std::ptr::read(p.add(i as usize)) })
                } else {
                    T::default()
                }
            })
        }
        Ok(match self.dtype {
            DType::Bool => Col::B(l(self, ix, |x: u8| (x != 0) as u8)),
            DType::Int8 => Col::I8(l(self, ix, |x: i8| x)),
            DType::Int16 => Col::I16(l(self, ix, |x: i16| x)),
            DType::Int32 => Col::I32(l(self, ix, |x: i32| x)),
            DType::Int64 => Col::I64(l(self, ix, |x: i64| x)),
            DType::UInt8 => Col::U8(l(self, ix, |x: u8| x)),
            DType::UInt16 => Col::U16(l(self, ix, |x: u16| x)),
            DType::UInt32 => Col::U32(l(self, ix, |x: u32| x)),
            DType::UInt64 => Col::U64(l(self, ix, |x: u64| x)),
            DType::Float16 => Col::F32(l(self, ix, |x: u16| f16::from_bits(x).to_f32())),
            DType::BFloat16 => Col::F32(l(self, ix, |x: u16| bf16::from_bits(x).to_f32())),
            DType::Float32 => Col::F32(l(self, ix, |x: f32| x)),
            DType::Float64 => Col::F64(l(self, ix, |x: f64| x)),
            DType::Complex64 => Col::C32(l(self, ix, |x: C32| x)),
            DType::Complex128 => Col::C64(l(self, ix, |x: C64| x)),
        })
    }
    /// Writes `val` at `idx` for the active lanes `0..n`, in lane order (a later lane writing
    /// the same element wins); out-of-range lanes are dropped.
    ///
    /// # Safety
    /// No other thread may access the raw operand's memory during the call (the launch runs
    /// kernels that write raw operands on one thread).
    pub unsafe fn store(
        &self,
        idx: &Col<'_>,
        val: &Col<'_>,
        mask: Option<&[u8]>,
        n: usize,
    ) -> std::result::Result<(), String> {
        self.rmw(idx, val, mask, n, None)
    }

    /// Atomic-in-effect `raw[idx] = op(raw[idx], val)` for the active lanes, in lane order.
    ///
    /// # Safety
    /// As [`RawView::store`].
    pub unsafe fn update(
        &self,
        op: AtomicOp,
        idx: &Col<'_>,
        val: &Col<'_>,
        mask: Option<&[u8]>,
        n: usize,
    ) -> std::result::Result<(), String> {
        self.rmw(idx, val, mask, n, Some(op))
    }

    /// Fetch-and-add of an int32/uint32 raw operand for the active lanes, in lane order:
    /// returns each active lane's element value from before its add (0 for inactive or
    /// out-of-range lanes, whose adds are dropped).
    ///
    /// # Safety
    /// As [`RawView::store`].
    pub unsafe fn fetch_add(
        &self,
        idx: &Col<'_>,
        val: &Col<'_>,
        mask: Option<&[u8]>,
        n: usize,
    ) -> std::result::Result<Col<'static>, String> {
        let Col::I64(ix) = idx else {
            return Err("raw fetch index is not int64".into());
        };
        macro_rules! go {
            ($S:ty, $v:expr, $wrap:ident) => {{
                let p = self.ptr as *mut $S;
                let len = self.len as u64;
                let mut olds = vec![<$S>::default(); n];
                for (j, o) in olds.iter_mut().enumerate() {
                    let i = ix.get(j);
                    if mask.is_some_and(|m| m[j] == 0) || (i as u64) >= len {
                        continue;
                    }
                    // SAFETY: i < len elements of the checked raw range; the caller owns it.
                    unsafe {
                        let q = p.add(i as usize);
                        *o = q.read();
                        q.write(o.wrapping_add($v.get(j)));
                    }
                }
                Col::$wrap(D::V(std::borrow::Cow::Owned(olds)))
            }};
        }
        Ok(match (self.dtype, val) {
            (DType::Int32, Col::I32(v)) => go!(i32, v, I32),
            (DType::UInt32, Col::U32(v)) => go!(u32, v, U32),
            (d, _) => return Err(format!("fetch-and-add of a {d} raw operand")),
        })
    }

    unsafe fn rmw(
        &self,
        idx: &Col<'_>,
        val: &Col<'_>,
        mask: Option<&[u8]>,
        n: usize,
        op: Option<AtomicOp>,
    ) -> std::result::Result<(), String> {
        let Col::I64(ix) = idx else {
            return Err("raw store index is not int64".into());
        };
        #[allow(clippy::too_many_arguments)]
        unsafe fn go<S: Copy, T: Copy + Clone + 'static>(
            r: &RawView,
            ix: &D<'_, i64>,
            v: &D<'_, T>,
            mask: Option<&[u8]>,
            n: usize,
            load: impl Fn(S) -> T,
            f: Option<&dyn Fn(T, T) -> T>,
            store: impl Fn(T) -> S,
        ) {
            let p = r.ptr as *mut S;
            let len = r.len as u64;
            // Plain stores of a whole column (the random samplers' lanes): no per-lane match on
            // the mask, the operation or the columns' variants.
            if let (None, None, D::V(ix)) = (mask, f, ix) {
                let ix = &ix[..n.min(ix.len())];
                match v {
                    D::V(v) => {
                        for (j, &i) in ix.iter().enumerate().take(v.len()) {
                            if (i as u64) < len {
                                // SAFETY: as below.
                                unsafe { p.add(i as usize).write(store(v[j])) };
                            }
                        }
                    }
                    D::U(x) => {
                        let s = store(*x);
                        for &i in ix {
                            if (i as u64) < len {
                                // SAFETY: as below.
                                unsafe { p.add(i as usize).write(s) };
                            }
                        }
                    }
                }
                return;
            }
            for j in 0..n {
                if mask.is_some_and(|m| m[j] == 0) {
                    continue;
                }
                let i = ix.get(j);
                if (i as u64) >= len {
                    continue;
                }
                // SAFETY: i < len elements of the checked raw range; the caller owns it.
                unsafe {
                    let q = p.add(i as usize);
                    let x = match f {
                        None => v.get(j),
                        Some(f) => f(load(q.read()), v.get(j)),
                    };
                    q.write(store(x));
                }
            }
        }
        fn fmax<T: PartialOrd + Copy>(a: T, b: T) -> T {
            #[allow(clippy::eq_op)]
            if a != a || a >= b {
                a
            } else {
                b
            }
        }
        fn fmin<T: PartialOrd + Copy>(a: T, b: T) -> T {
            #[allow(clippy::eq_op)]
            if a != a || a <= b {
                a
            } else {
                b
            }
        }
        macro_rules! int {
            ($S:ty, $d:expr) => {{
                let f: Option<&dyn Fn($S, $S) -> $S> = match op {
                    None => None,
                    Some(AtomicOp::Add) => Some(&|a: $S, b: $S| a.wrapping_add(b)),
                    Some(AtomicOp::Max) => Some(&|a: $S, b: $S| a.max(b)),
                    Some(AtomicOp::Min) => Some(&|a: $S, b: $S| a.min(b)),
                };
                go::<$S, $S>(self, ix, $d, mask, n, |x| x, f, |x| x)
            }};
        }
        macro_rules! float {
            ($S:ty, $T:ty, $d:expr, $load:expr, $store:expr) => {{
                let f: Option<&dyn Fn($T, $T) -> $T> = match op {
                    None => None,
                    Some(AtomicOp::Add) => Some(&|a: $T, b: $T| a + b),
                    Some(AtomicOp::Max) => Some(&fmax::<$T>),
                    Some(AtomicOp::Min) => Some(&fmin::<$T>),
                };
                go::<$S, $T>(self, ix, $d, mask, n, $load, f, $store)
            }};
        }
        // SAFETY: forwarded from the caller.
        unsafe {
            match (self.dtype, val) {
                (DType::Bool, Col::B(v)) => {
                    let f: Option<&dyn Fn(u8, u8) -> u8> = match op {
                        None => None,
                        Some(AtomicOp::Add | AtomicOp::Max) => Some(&|a: u8, b: u8| a | b),
                        Some(AtomicOp::Min) => Some(&|a: u8, b: u8| a & b),
                    };
                    go::<u8, u8>(self, ix, v, mask, n, |x| (x != 0) as u8, f, |x| x)
                }
                (DType::Int8, Col::I8(v)) => int!(i8, v),
                (DType::Int16, Col::I16(v)) => int!(i16, v),
                (DType::Int32, Col::I32(v)) => int!(i32, v),
                (DType::Int64, Col::I64(v)) => int!(i64, v),
                (DType::UInt8, Col::U8(v)) => int!(u8, v),
                (DType::UInt16, Col::U16(v)) => int!(u16, v),
                (DType::UInt32, Col::U32(v)) => int!(u32, v),
                (DType::UInt64, Col::U64(v)) => int!(u64, v),
                (DType::Float16, Col::F32(v)) => float!(
                    u16,
                    f32,
                    v,
                    |x: u16| f16::from_bits(x).to_f32(),
                    |x: f32| f16::from_f32(x).to_bits()
                ),
                (DType::BFloat16, Col::F32(v)) => float!(
                    u16,
                    f32,
                    v,
                    |x: u16| bf16::from_bits(x).to_f32(),
                    |x: f32| bf16::from_f32(x).to_bits()
                ),
                (DType::Float32, Col::F32(v)) => float!(f32, f32, v, |x| x, |x| x),
                (DType::Float64, Col::F64(v)) => float!(f64, f64, v, |x| x, |x| x),
                (DType::Complex64, Col::C32(v))
                    if !matches!(op, Some(AtomicOp::Max | AtomicOp::Min)) =>
                {
                    go::<C32, C32>(
                        self,
                        ix,
                        v,
                        mask,
                        n,
                        |x| x,
                        op.map(|_| &(|a: C32, b: C32| a + b) as &dyn Fn(C32, C32) -> C32),
                        |x| x,
                    )
                }
                (DType::Complex128, Col::C64(v))
                    if !matches!(op, Some(AtomicOp::Max | AtomicOp::Min)) =>
                {
                    go::<C64, C64>(
                        self,
                        ix,
                        v,
                        mask,
                        n,
                        |x| x,
                        op.map(|_| &(|a: C64, b: C64| a + b) as &dyn Fn(C64, C64) -> C64),
                        |x| x,
                    )
                }
                (d, _) => {
                    return Err(match op {
                        Some(op) if d.is_complex() => {
                            format!("atomic {op:?} of complex elements is not implemented")
                        }
                        _ => format!("value of the wrong type written to a raw {d} operand"),
                    })
                }
            }
        }
        Ok(())
    }
}
