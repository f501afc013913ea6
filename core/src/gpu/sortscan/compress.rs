//! The launch plan of `Backend::compress` on scan.cu's compaction kernels (per-tile counts,
//! their scan, the scatter), shared by the C++ GPU backends.

use super::{HkModule, Launcher, BLOCK};

/// Elements per tile of `cupy_compress` (`HK_BLOCK * HK_COMPRESS_IT`).
pub const COMPRESS_TILE: usize = BLOCK as usize * 16;
/// Sources per launch of `cupy_compress` (`HK_COMPRESS_SRC`).
pub const COMPRESS_SOURCES: usize = 4;

/// Arguments of scan.cu's `cupy_compress_count`, `cupy_compress_scan` and `cupy_compress`
/// (`struct CompressArgs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CompressArgs {
    /// The bool mask's first element.
    pub mask: u64,
    /// Each source's first element; 0: the element's position (int64).
    pub src: [u64; COMPRESS_SOURCES],
    /// Each source's output.
    pub dst: [u64; COMPRESS_SOURCES],
    /// Bytes per element of each source (1, 2, 4, 8 or 16); 0: no such source.
    pub width: [i64; COMPRESS_SOURCES],
    /// The mask's length.
    pub n: i64,
    /// u64 `[ntiles]`: the tiles' counts, then their exclusive offsets.
    pub offs: u64,
    /// Tiles of [`COMPRESS_TILE`] elements.
    pub ntiles: i64,
    /// The outputs' length (no element is written at or past it).
    pub count: i64,
}

impl CompressArgs {
    /// The bytes the kernel's one parameter is made of.
    pub fn bytes(&self) -> Vec<u8> {
        let mut w = vec![self.mask];
        w.extend(self.src);
        w.extend(self.dst);
        w.extend(self.width.iter().map(|&x| x as u64));
        w.extend([
            self.n as u64,
            self.offs,
            self.ntiles as u64,
            self.count as u64,
        ]);
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

/// Queues the compaction of `n` mask elements at `mask`: for each `(source, width, output)`
/// (source 0: the positions, width 8), the kept elements written densely from `output`, at
/// most `count` of them (the number of true mask elements).
///
/// # Errors
/// `InvalidArgument` for more than [`COMPRESS_SOURCES`] sources; launch errors.
pub fn launch_compress(
    l: &dyn Launcher,
    mask: u64,
    n: usize,
    count: usize,
    sources: &[(u64, usize, u64)],
) -> crate::Result<()> {
    if sources.len() > COMPRESS_SOURCES {
        return Err(crate::Error::invalid(
            "compress",
            format!("{} sources (at most {COMPRESS_SOURCES})", sources.len()),
        ));
    }
    if n == 0 {
        return Ok(());
    }
    let ntiles = n.div_ceil(COMPRESS_TILE);
    let (_offs, offs) = l.temp(crate::DType::UInt64, ntiles)?;
    let mut a = CompressArgs {
        mask,
        n: n as i64,
        offs,
        ntiles: ntiles as i64,
        count: count as i64,
        ..CompressArgs::default()
    };
    for (k, &(src, width, dst)) in sources.iter().enumerate() {
        a.src[k] = src;
        a.width[k] = width as i64;
        a.dst[k] = dst;
    }
    let bytes = a.bytes();
    let gx = ntiles.min(65535);
    let grid = (gx as u32, ntiles.div_ceil(gx) as u32);
    l.run(HkModule::Scan, "cupy_compress_count", grid, &bytes)?;
    l.run(HkModule::Scan, "cupy_compress_scan", (1, 1), &bytes)?;
    l.run(HkModule::Scan, "cupy_compress", grid, &bytes)
}

/// `Backend::compress` of a C++ GPU backend: checks the call, then [`launch_compress`].
///
/// # Errors
/// `InvalidArgument` naming `compress` for a mask that is not bool, 1-D and C-contiguous,
/// sources or outputs of other lengths, dtypes or layouts, or too many of them; foreign
/// buffers; launch errors.
pub fn compress<D: crate::gpu::launch::GpuDriver>(
    be: &D,
    call: &crate::backend::CompressCall<'_>,
) -> crate::Result<()> {
    use crate::gpu::launch::check_operand;
    use crate::DType;
    let op = "compress";
    let n = call.check_shapes()?;
    let ml = &call.mask.layout;
    let m = check_operand(be, op, &call.mask, DType::Bool)?;
    let mut plan = vec![];
    for (s, o) in call.sources.iter().zip(call.outputs) {
        let (src, dt) = match s {
            Some(s) => {
                let dt = s.buffer.dtype();
                (check_operand(be, op, s, dt)?.at(s.layout.offset), dt)
            }
            None => (0, DType::Int64),
        };
        let dst = check_operand(be, op, o, dt)?.at(o.layout.offset);
        plan.push((src, dt.itemsize(), dst));
    }
    if call.count == 0 || plan.is_empty() {
        return Ok(());
    }
    be.activate()?;
    launch_compress(be, m.at(ml.offset), n, call.count, &plan)
}
