//! Turning IR kernels into hipRTC-compiled modules: the HIP flavour of the shared C++ emitter
//! (`cupy_core::kernel::cpp`), compile options, and the launch plans (which specialisation, how
//! many blocks, how a reduction is split) that do not depend on a live device.

use cupy_core::kernel::cpp::{ElementwiseClass, ElementwiseSpec, ReduceSpec, BLOCK};
use cupy_core::layout::Layout;
use cupy_core::DType;

/// hipRTC options for one gfx target. `arch` may carry target features
/// (`gfx90a:sramecc+:xnack-`): the code object must match the device's mode to load.
pub fn compile_options(arch: &str) -> Vec<String> {
    // No FMA contraction: a fused expression must round like NumPy's op-by-op result.
    vec![
        format!("--offload-arch={arch}"),
        "-O3".into(),
        "-ffp-contract=off".into(),
    ]
}

/// True if any index the kernel computes may pass `i32::MAX`.
pub fn needs_index64(size: usize, layouts: &[&Layout]) -> bool {
    const LIM: usize = i32::MAX as usize;
    size > LIM
        || layouts.iter().any(|l| {
            let span: usize = l
                .shape
                .iter()
                .zip(&l.strides)
                .map(|(&d, &s)| d.saturating_sub(1).saturating_mul(s.unsigned_abs()))
                .fold(0usize, |a, b| a.saturating_add(b));
            span > LIM
                || l.shape
                    .iter()
                    .zip(&l.strides)
                    .any(|(_, &s)| s.unsigned_abs() > LIM)
        })
}

/// Chooses the elementwise specialisation for merged layouts. `aligned(k, align)` says whether
/// operand `k`'s first element address is a multiple of `align` bytes.
pub fn elementwise_spec(
    shape: &[usize],
    layouts: &[&Layout],
    dtypes: &[DType],
    vector: usize,
    aligned: &dyn Fn(usize, usize) -> bool,
) -> ElementwiseSpec {
    let size: usize = shape.iter().product();
    let index64 = needs_index64(size, layouts);
    let contiguous = shape.len() == 1
        && layouts
            .iter()
            .all(|l| l.strides.len() == 1 && l.strides[0] == 1);
    if !contiguous {
        return ElementwiseSpec {
            ndim: shape.len().max(1),
            class: ElementwiseClass::Strided,
            index64,
        };
    }
    let vectorizable = vector > 1
        && size >= vector
        && dtypes
            .iter()
            .enumerate()
            .all(|(k, d)| aligned(k, (d.itemsize() * vector).min(16)));
    ElementwiseSpec {
        ndim: 1,
        class: if vectorizable {
            ElementwiseClass::Vectorized
        } else {
            ElementwiseClass::Contiguous
        },
        index64,
    }
}

/// Most blocks one grid-stride launch uses (HIP counts grid size in threads, at most 2^32 - 1).
pub const MAX_BLOCKS: usize = 1 << 22;

/// Blocks for `work` items of [`BLOCK`] threads, capped (kernels loop grid-stride).
pub fn blocks_for(work: usize) -> u32 {
    work.div_ceil(BLOCK).clamp(1, MAX_BLOCKS) as u32
}

/// Which reduction entry runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceEntry {
    /// One block per output, threads along the reduced index.
    Inner,
    /// Threads across consecutive outputs (reduced axis strided, output axis contiguous).
    Outer,
}

/// The launch plan of one reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducePlan {
    /// Module specialisation.
    pub spec: ReduceSpec,
    /// First entry.
    pub entry: ReduceEntry,
    /// Partial accumulators per output (1: no finish pass).
    pub splits: usize,
    /// Grid of the first pass.
    pub grid: (u32, u32),
    /// Block of the first pass.
    pub block: (u32, u32),
}

/// Plans a reduction over merged shapes. `in_out_stride` / `in_red_stride` are input 0's
/// innermost output and reduced strides (`None` without inputs); `cus` the device's compute
/// units.
pub fn plan_reduce(
    out_shape: &[usize],
    red_shape: &[usize],
    in_out_stride: Option<isize>,
    in_red_stride: Option<isize>,
    index64: bool,
    cus: usize,
) -> ReducePlan {
    let out_size: usize = out_shape.iter().product();
    let red_size: usize = red_shape.iter().product();
    let entry = match (in_out_stride, in_red_stride) {
        (Some(os), Some(rs))
            if rs.unsigned_abs() != 1 && os.unsigned_abs() == 1 && out_size > 1 =>
        {
            ReduceEntry::Outer
        }
        _ => ReduceEntry::Inner,
    };
    let (bx, by) = cupy_core::kernel::cpp::OUTER_BLOCK;
    let out_blocks = match entry {
        ReduceEntry::Inner => out_size,
        ReduceEntry::Outer => out_size.div_ceil(bx),
    }
    .max(1);
    let target = (cus.max(1) * 4).max(8);
    let splits = if out_blocks < target && red_size >= 8 * BLOCK {
        target
            .div_ceil(out_blocks)
            .min(red_size.div_ceil(4 * BLOCK))
            .clamp(1, 1024)
    } else {
        1
    };
    let grid_x = out_blocks.clamp(1, MAX_BLOCKS) as u32;
    let (grid, block) = match entry {
        ReduceEntry::Inner => ((grid_x, splits as u32), (BLOCK as u32, 1)),
        ReduceEntry::Outer => ((grid_x, splits as u32), (bx as u32, by as u32)),
    };
    ReducePlan {
        spec: ReduceSpec {
            out_ndim: out_shape.len().max(1),
            red_ndim: red_shape.len().max(1),
            index64: index64 || out_size.saturating_mul(splits) > i32::MAX as usize,
        },
        entry,
        splits,
        grid,
        block,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let l = Layout::contiguous(&[1000]);
        let s = elementwise_spec(&[1000], &[&l, &l], &[DType::Float32; 2], 4, &|_, _| true);
        assert_eq!(s.class, ElementwiseClass::Vectorized);
        let s = elementwise_spec(&[1000], &[&l], &[DType::Float32], 4, &|_, _| false);
        assert_eq!(s.class, ElementwiseClass::Contiguous);
        let t = Layout::contiguous(&[10, 20]).transposed();
        let s = elementwise_spec(&[20, 10], &[&t], &[DType::Float32], 4, &|_, _| true);
        assert_eq!(
            (s.class, s.ndim, s.index64),
            (ElementwiseClass::Strided, 2, false)
        );
        let big = Layout {
            shape: vec![2, 3],
            strides: vec![1 << 31, 1],
            offset: 0,
        };
        assert!(needs_index64(6, &[&big]));
    }

    #[test]
    fn reduce_plans() {
        let p = plan_reduce(&[1], &[1 << 24], Some(0), Some(1), false, 104);
        assert_eq!(p.entry, ReduceEntry::Inner);
        assert!(p.splits > 1 && p.splits <= 1024);
        let p = plan_reduce(&[4096], &[4096], Some(1), Some(4096), false, 104);
        assert_eq!(p.entry, ReduceEntry::Outer);
        let p = plan_reduce(&[100000], &[8], Some(8), Some(1), false, 104);
        assert_eq!((p.entry, p.splits), (ReduceEntry::Inner, 1));
    }
}
