//! Tiled elementwise launches (transposes and other copies between layouts whose fast axes
//! differ): the plan that picks them by layout, and the launch ([`wgsl::emit_tiled`] has the
//! shader). `CUPY_WGPU_TILED=0` turns them off (the strided launch runs instead).

use crate::{hash_of, WgpuBackend, WgpuBuffer};
use cupy_core::backend::ElementwiseCall;
use cupy_core::kernel::ir::Kernel;
use cupy_core::kernel::wgsl::{self, BindingPlan, TiledSpec};
use cupy_core::layout::Layout;
use cupy_core::Result;

/// Smallest extent of either tile axis for a tiled launch (as the cuda backend's tiled class):
/// below it most of a 32 x 32 tile would idle.
const MIN_EXTENT: usize = 16;

/// A tiled launch: its specialisation, and the iteration shape and operand layouts with the
/// tile's axes moved last.
pub(crate) struct TiledPlan {
    pub(crate) spec: TiledSpec,
    pub(crate) shape: Vec<usize>,
    pub(crate) layouts: Vec<Layout>,
}

static LAUNCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Tiled launches this process has recorded on any wgpu device (tests check the path was
/// taken).
pub fn tiled_launches() -> u64 {
    LAUNCHES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether tiled launches are on (`CUPY_WGPU_TILED=0` turns them off).
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| !std::env::var("CUPY_WGPU_TILED").is_ok_and(|v| v.trim() == "0"))
}

/// The axis along which `l` walks memory fastest: the smallest nonzero stride magnitude among
/// axes of extent above 1 (`None`: a broadcast or single element).
fn fast_axis(shape: &[usize], l: &Layout) -> Option<usize> {
    (0..shape.len())
        .filter(|&a| shape[a] > 1 && l.strides[a] != 0)
        .min_by_key(|&a| l.strides[a].unsigned_abs())
}

/// Plans a tiled launch of `k` over `shape` (merged, not contiguous) with `layouts` (inputs,
/// then outputs), or `None` where the strided launch should run: the first output's fast axis
/// `p` and the first other operand's fast axis `q != p` become the tile's axes (`q` first, both
/// at least [`MIN_EXTENT`]); the other axes stay in order in front, as a batch. Operands whose
/// fast axis is the tile's first are staged through workgroup memory. Axes are only reordered
/// for kernels that do not read their flat index. `tile_bytes`: the adapter's workgroup memory.
pub(crate) fn plan(
    k: &Kernel,
    shape: &[usize],
    layouts: &[&Layout],
    bindings: &BindingPlan,
    uses_index: bool,
    wide_int64: bool,
    tile_bytes: u32,
) -> Option<TiledPlan> {
    let nd = shape.len();
    let nin = k.inputs.len();
    if !enabled() || nd < 2 || k.outputs.is_empty() || !k.raws.is_empty() {
        return None;
    }
    let p = fast_axis(shape, layouts[nin])?;
    let q = layouts
        .iter()
        .filter_map(|l| fast_axis(shape, l))
        .find(|&a| a != p)?;
    if shape[p] < MIN_EXTENT || shape[q] < MIN_EXTENT {
        return None;
    }
    let mut perm: Vec<usize> = (0..nd).filter(|&a| a != p && a != q).collect();
    perm.extend([q, p]);
    let identity = perm.iter().enumerate().all(|(i, &a)| i == a);
    if !identity && uses_index {
        return None;
    }
    let pshape: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let playouts: Vec<Layout> = layouts
        .iter()
        .map(|l| Layout {
            shape: pshape.clone(),
            strides: perm.iter().map(|&a| l.strides[a]).collect(),
            offset: l.offset,
        })
        .collect();
    let staged: Vec<bool> = playouts
        .iter()
        .map(|l| {
            let (s0, s1) = (l.strides[nd - 2], l.strides[nd - 1]);
            s0 != 0 && s0.unsigned_abs() < s1.unsigned_abs()
        })
        .collect();
    if !staged.iter().any(|s| *s) || !wgsl::tiled_eligible(k, &staged) {
        return None;
    }
    let tile = [32u32, 16]
        .into_iter()
        .find(|&t| wgsl::tiled_bytes(k, &staged, t) <= tile_bytes as usize)?;
    Some(TiledPlan {
        spec: TiledSpec {
            ndim: nd,
            tile,
            staged,
            wide_int64,
            bindings: bindings.clone(),
        },
        shape: pshape,
        layouts: playouts,
    })
}

impl WgpuBackend {
    /// Runs a planned tiled launch: one workgroup per tile of every batch index.
    pub(crate) fn run_tiled(
        &self,
        call: &ElementwiseCall<'_>,
        tp: &TiledPlan,
        ins: &[&WgpuBuffer],
        outs: &[&WgpuBuffer],
    ) -> Result<()> {
        let k = call.kernel;
        let spec = &tp.spec;
        let key = hash_of(&("tiled", k, spec));
        let opts = &self.opts;
        let pipe = self.pipeline(key, &k.name, &|| {
            let sh = wgsl::emit_tiled(k, spec, opts)?;
            let rw: Vec<bool> = spec.bindings.buffers.iter().map(|b| b.1).collect();
            Ok((sh.source, sh.meta, rw))
        })?;
        let refs: Vec<&Layout> = tp.layouts.iter().collect();
        let words = wgsl::tiled_words(&tp.shape, &refs);
        let meta = pipe.meta.pack(&call.params, &words);
        let plan = &spec.bindings;
        let mut bufs: Vec<&wgpu::Buffer> = vec![&outs[0].buf; plan.buffers.len()];
        for (i, b) in ins.iter().enumerate() {
            bufs[plan.inputs[i]] = &b.buf;
        }
        for (i, b) in outs.iter().enumerate() {
            bufs[plan.outputs[i]] = &b.buf;
        }
        let nd = tp.shape.len();
        let t = spec.tile as usize;
        let batch: usize = tp.shape[..nd - 2].iter().product();
        let tiles = batch * tp.shape[nd - 2].div_ceil(t) * tp.shape[nd - 1].div_ceil(t);
        self.dispatch(&pipe, &meta, &bufs, tiles as u64)?;
        LAUNCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}
