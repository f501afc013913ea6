//! Grid sizing and the index width threshold.

/// Blocks for `work` items at `per_block` items per block: at least 1, at most 32 per SM/CU
/// (every kernel loops grid-stride) and 2^31 - 1.
pub fn grid_for(units: usize, work: usize, per_block: usize) -> u32 {
    let blocks = work.div_ceil(per_block).max(1);
    blocks.min(units * 32).min(i32::MAX as usize) as u32
}

/// Whether `strides` are the C-contiguous strides of `shape` (extent-1 axes may have any).
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expect = 1isize;
    for (&n, &st) in shape.iter().zip(strides).rev() {
        if n != 1 && st != expect {
            return false;
        }
        expect = expect.wrapping_mul(n as isize);
    }
    shape.len() == strides.len()
}

/// 64-bit index arithmetic is needed from this many elements (of the iteration space or of any
/// operand's buffer) on.
pub const INDEX64_FROM: usize = 1 << 31;
