//! The host communicator's reductions on little-endian bytes of the collective libraries'
//! element types, as NCCL computes them: integers wrap, float16/bfloat16 are combined in
//! float32 and rounded at each step, `avg` is the sum divided by the number of ranks
//! (truncating for integers).

use cupy_core::backend::collective::{ReduceOp, WireType};
use half::{bf16, f16};

trait Elem: Copy + PartialOrd {
    const SIZE: usize;
    fn load(b: &[u8]) -> Self;
    fn store(self, b: &mut [u8]);
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div_n(self, n: usize) -> Self;
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn load(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element bytes"))
            }
            fn store(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div_n(self, n: usize) -> Self {
                // In 128 bits: a rank count past the type's range (256 ranks of int8) would
                // wrap to 0 or -1 and panic; truncated toward zero, the quotient fits the type.
                ((self as i128) / (n.max(1) as i128)) as $t
            }
        }
    )*};
}
int_elem!(i8, u8, i32, u32, i64, u64);

macro_rules! float_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn load(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element bytes"))
            }
            fn store(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div_n(self, n: usize) -> Self {
                self / (n as $t)
            }
        }
    )*};
}
float_elem!(f32, f64);

macro_rules! half_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = 2;
            fn load(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("element bytes"))
            }
            fn store(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn add(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() + o.to_f32())
            }
            fn mul(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() * o.to_f32())
            }
            fn div_n(self, n: usize) -> Self {
                <$t>::from_f32(self.to_f32() / n as f32)
            }
        }
    )*};
}
half_elem!(f16, bf16);

fn fold<T: Elem>(acc: &mut [u8], x: &[u8], op: ReduceOp) {
    for (a, b) in acc.chunks_exact_mut(T::SIZE).zip(x.chunks_exact(T::SIZE)) {
        let (p, q) = (T::load(a), T::load(b));
        let r = match op {
            ReduceOp::Sum | ReduceOp::Avg => p.add(q),
            ReduceOp::Prod => p.mul(q),
            // NaN-propagating, as NCCL's fmax/fmin on floats are not; the frontend documents it.
            ReduceOp::Max => {
                if q > p || q.partial_cmp(&q).is_none() {
                    q
                } else {
                    p
                }
            }
            ReduceOp::Min => {
                if q < p || q.partial_cmp(&q).is_none() {
                    q
                } else {
                    p
                }
            }
        };
        r.store(a);
    }
}

fn div<T: Elem>(acc: &mut [u8], n: usize) {
    for a in acc.chunks_exact_mut(T::SIZE) {
        T::load(a).div_n(n).store(a);
    }
}

/// `acc = acc op x`, elementwise (`Avg` adds; [`divide`] finishes it).
pub(crate) fn combine(acc: &mut [u8], x: &[u8], ty: WireType, op: ReduceOp) {
    match ty {
        WireType::Int8 => fold::<i8>(acc, x, op),
        WireType::UInt8 => fold::<u8>(acc, x, op),
        WireType::Int32 => fold::<i32>(acc, x, op),
        WireType::UInt32 => fold::<u32>(acc, x, op),
        WireType::Int64 => fold::<i64>(acc, x, op),
        WireType::UInt64 => fold::<u64>(acc, x, op),
        WireType::Float16 => fold::<f16>(acc, x, op),
        WireType::BFloat16 => fold::<bf16>(acc, x, op),
        WireType::Float32 => fold::<f32>(acc, x, op),
        WireType::Float64 => fold::<f64>(acc, x, op),
    }
}

/// Divides every element by `n` (the end of `avg`).
pub(crate) fn divide(acc: &mut [u8], ty: WireType, n: usize) {
    match ty {
        WireType::Int8 => div::<i8>(acc, n),
        WireType::UInt8 => div::<u8>(acc, n),
        WireType::Int32 => div::<i32>(acc, n),
        WireType::UInt32 => div::<u32>(acc, n),
        WireType::Int64 => div::<i64>(acc, n),
        WireType::UInt64 => div::<u64>(acc, n),
        WireType::Float16 => div::<f16>(acc, n),
        WireType::BFloat16 => div::<bf16>(acc, n),
        WireType::Float32 => div::<f32>(acc, n),
        WireType::Float64 => div::<f64>(acc, n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_values() {
        let mut a: Vec<u8> = [1i64, -5, i64::MAX]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let b: Vec<u8> = [2i64, 7, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
        combine(&mut a, &b, WireType::Int64, ReduceOp::Sum);
        let r: Vec<i64> = a
            .chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(r, vec![3, 2, i64::MIN]);
        let mut a: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let b: Vec<u8> = [0.5f32, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        combine(&mut a, &b, WireType::Float32, ReduceOp::Max);
        let r: Vec<f32> = a
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(r, vec![1.5, 3.0]);
        let mut a = bf16::from_f32(3.0).to_le_bytes().to_vec();
        combine(
            &mut a,
            &bf16::from_f32(4.0).to_le_bytes(),
            WireType::BFloat16,
            ReduceOp::Avg,
        );
        divide(&mut a, WireType::BFloat16, 2);
        assert_eq!(bf16::from_le_bytes([a[0], a[1]]).to_f32(), 3.5);
    }

    #[test]
    fn integer_averages_over_more_ranks_than_the_type_holds() {
        // int8 sums over 2, 127, 255 and 256 ranks (the count as int8 would be 2, 127, -1, 0)
        for (sum, ranks, avg) in [
            (-128i8, 2, -64i8),
            (-128, 127, -1),
            (-128, 255, 0),
            (127, 256, 0),
        ] {
            let mut a = sum.to_le_bytes().to_vec();
            divide(&mut a, WireType::Int8, ranks);
            assert_eq!(a[0] as i8, avg, "{sum} / {ranks}");
        }
        let mut a = 250u8.to_le_bytes().to_vec();
        divide(&mut a, WireType::UInt8, 300);
        assert_eq!(a[0], 0);
        let mut a = u64::MAX.to_le_bytes().to_vec();
        divide(&mut a, WireType::UInt64, 3);
        assert_eq!(u64::from_le_bytes(a.try_into().unwrap()), u64::MAX / 3);
    }
}
