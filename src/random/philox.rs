//! Philox4x32-10, the counter-based bit generator of Salmon, Moraes, Dror and Shaw, "Parallel
//! Random Numbers: As Easy as 1, 2, 3" (SC11, 2011), as Random123 defines it
//! (`include/Random123/philox.h`: multipliers `0xD2511F53`/`0xCD9E8D57`, Weyl key increments
//! `0x9E3779B9`/`0xBB67AE85`, ten rounds, the key bumped between rounds).
//!
//! [`philox4x32_10`] is the host reference; `block` emits the same function as kernel IR
//! built from 32-bit integer operations only: each round's 32x32 -> 64-bit product is the
//! IR's `Mul` (low word) and `MulHi` (high word; `__umulhi` on CUDA/HIP, a u64 product on the
//! cpu, 16-bit halves in WGSL, which has no 64-bit integers without an extension), so the bits
//! are the same on cpu, wgpu, CUDA and HIP.

use super::builder::{add, mul, u32c, xor, Builder};
use cupy_core::dtype::DType;
use cupy_core::kernel::ir::{BinaryOp, Expr};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32-10 of counter `ctr` under key `key` (the host reference; Random123's
/// `philox4x32(ctr, key)` with ten rounds).
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (ctr, key);
    for r in 0..10 {
        if r > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        let p0 = u64::from(M0) * u64::from(c[0]);
        let p1 = u64::from(M1) * u64::from(c[2]);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// The high 32 bits of `a * m` for two u32 expressions (the IR's [`BinaryOp::MulHi`]:
/// one `mul.hi` on CUDA/HIP, a u64 product on the cpu, 16-bit halves in WGSL).
pub(crate) fn mulhi(b: &mut Builder, a: &Expr, m: &Expr) -> Expr {
    b.let_(Expr::binary(BinaryOp::MulHi, a.clone(), m.clone()))
}

/// Emits Philox4x32-10 of the counter `ctr` (four u32 expressions) under `key` (two u32
/// expressions); returns the four output words as locals.
pub(crate) fn block(b: &mut Builder, ctr: [Expr; 4], key: [Expr; 2]) -> [Expr; 4] {
    let mut c: [Expr; 4] = ctr.map(|e| b.let_(e));
    let mut k: [Expr; 2] = key;
    for r in 0..10 {
        if r > 0 {
            k = [
                b.let_(add(k[0].clone(), u32c(W0))),
                b.let_(add(k[1].clone(), u32c(W1))),
            ];
        }
        let hi0 = mulhi(b, &c[0], &u32c(M0));
        let lo0 = b.let_(mul(c[0].clone(), u32c(M0)));
        let hi1 = mulhi(b, &c[2], &u32c(M1));
        let lo1 = b.let_(mul(c[2].clone(), u32c(M1)));
        let n0 = b.let_(xor(xor(hi1, c[1].clone()), k[0].clone()));
        let n2 = b.let_(xor(xor(hi0, c[3].clone()), k[1].clone()));
        c = [n0, lo1, n2, lo0];
    }
    c
}

/// The per-element stream of a random kernel: element `index`, under the generator's key and
/// call number (kernel parameters 0..4: `key0, key1, call_lo, call_hi`). Block `k` of element
/// `i` is Philox of counter `(i, k, call_lo, call_hi)`, so every element owns its sub-stream
/// and a rejection loop's `k`-th attempt reads the same bits on every backend.
pub(crate) struct Stream {
    index: Expr,
    key: [Expr; 2],
    call: [Expr; 2],
}

/// The number of kernel parameters [`Stream`] takes (they come first).
pub(crate) const STREAM_PARAMS: usize = 4;

impl Stream {
    /// The stream of the current element (parameters 0..4 are the key and call number).
    pub fn new(b: &mut Builder) -> Stream {
        let index = b.let_(Expr::index().cast(DType::UInt32));
        Stream {
            index,
            key: [Expr::param(0, DType::UInt32), Expr::param(1, DType::UInt32)],
            call: [Expr::param(2, DType::UInt32), Expr::param(3, DType::UInt32)],
        }
    }
    /// The stream of element `index` (a u32 expression) under the same key and call.
    pub fn at(&self, index: Expr) -> Stream {
        Stream {
            index,
            key: self.key.clone(),
            call: self.call.clone(),
        }
    }
    /// The parameter dtypes [`Stream::new`] reads.
    pub fn params() -> Vec<DType> {
        vec![DType::UInt32; STREAM_PARAMS]
    }
    /// Block `k` (a u32 expression) of this element's stream.
    pub fn block(&self, b: &mut Builder, k: Expr) -> [Expr; 4] {
        block(
            b,
            [
                self.index.clone(),
                k,
                self.call[0].clone(),
                self.call[1].clone(),
            ],
            self.key.clone(),
        )
    }
    /// Block `k` of the stream of another element `index` (a u32 expression: rows that share
    /// one stream).
    pub fn block_with_index(&self, b: &mut Builder, index: Expr, k: Expr) -> [Expr; 4] {
        block(
            b,
            [index, k, self.call[0].clone(), self.call[1].clone()],
            self.key.clone(),
        )
    }
    /// Block `k` for a constant `k`.
    pub fn block_at(&self, b: &mut Builder, k: u32) -> [Expr; 4] {
        self.block(b, u32c(k))
    }
}

/// Philox4x32-10 of each counter in `ctrs` under `key`, computed by the IR kernel on `device`
/// (the kernel every sampler embeds); for checking a backend against [`philox4x32_10`] and
/// Random123's known answers.
///
/// # Errors
/// Device errors.
pub fn philox4x32_10_on(
    device: &crate::device::Device,
    ctrs: &[[u32; 4]],
    key: [u32; 2],
) -> cupy_core::error::Result<Vec<[u32; 4]>> {
    use cupy_core::kernel::ir::BinaryOp as B;
    use cupy_core::scalar::Scalar;
    let n = ctrs.len();
    let flat: Vec<u32> = ctrs.iter().flatten().copied().collect();
    let raw = crate::array::Array::from_slice_on(device, &flat, &[n * 4])?;
    let mut b = Builder::new();
    let i = Expr::index();
    let four = Expr::constant(Scalar::Int64(4));
    let word = b.let_(Expr::binary(B::Mod, i.clone(), four.clone()));
    let base = b.let_(Expr::binary(B::Sub, i, word.clone()));
    let ctr: [Expr; 4] = std::array::from_fn(|k| {
        Expr::load(
            0,
            DType::UInt32,
            Expr::binary(
                B::Add,
                base.clone(),
                Expr::constant(Scalar::Int64(k as i64)),
            ),
        )
    });
    let key_e = [Expr::param(0, DType::UInt32), Expr::param(1, DType::UInt32)];
    let out = block(&mut b, ctr, key_e);
    let pick = |k: i64| Expr::binary(B::Eq, word.clone(), Expr::constant(Scalar::Int64(k)));
    let v = Expr::select(
        pick(0),
        out[0].clone(),
        Expr::select(
            pick(1),
            out[1].clone(),
            Expr::select(pick(2), out[2].clone(), out[3].clone()),
        ),
    );
    b.store(v);
    let k = b.finish(
        "philox4x32_10",
        DType::UInt32,
        vec![DType::UInt32; 2],
        vec![DType::UInt32],
    );
    let a = crate::launch::Elementwise {
        op: "philox4x32_10",
        kernel: &k,
        inputs: &[],
        raws: &[&raw],
        params: vec![Scalar::UInt32(key[0]), Scalar::UInt32(key[1])],
        outs: vec![None],
        device: Some(device),
        shape: Some(&[n * 4]),
    }
    .run_one()?;
    let v = a.to_vec::<u32>()?;
    Ok(v.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
}
