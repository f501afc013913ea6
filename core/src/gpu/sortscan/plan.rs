//! The launch plans of `Backend::scan` and `Backend::sort` on the kernels of `hip-kernels/`, and
//! the [`Launcher`] of every [`GpuDriver`](crate::gpu::launch::GpuDriver).

use super::{
    assemble, onesweep_tile, sort_key, sort_kmap, sort_passes, HkModule, ScanArgs, SelectArgs,
    SortArgs, BLOCK, ONESWEEP_MAX_ROW, ONESWEEP_PERSISTENT_BLOCKS, SCAN_TILE, SEL_BINS, SEL_MAX,
    SEL_TILE, SORT_SMALL, SORT_TILE,
};

/// What a backend provides to run the hand-written kernels: temporaries from its pool and
/// launches of [`BLOCK`] threads on its stream (in order).
pub trait Launcher {
    /// A temporary of `len` elements of `dtype` (freed when dropped; later stream work is
    /// ordered after the launches using it) and its device address.
    fn temp(&self, dtype: crate::DType, len: usize) -> crate::Result<(crate::Buffer, u64)>;
    /// Launches `entry` of `module` on a `grid` of blocks with one struct argument `args`.
    fn run(
        &self,
        module: HkModule,
        entry: &str,
        grid: (u32, u32),
        args: &[u8],
    ) -> crate::Result<()>;
}

/// Blocks for a grid-stride loop over `work` elements.
fn stride_blocks(work: usize) -> u32 {
    work.div_ceil(BLOCK as usize).clamp(1, 1 << 16) as u32
}

/// Queues an inclusive scan of `[batch, n]` (input strides `s0`, `s1` in elements) into a
/// C-contiguous output. `input`/`output` are the addresses of element 0 of each layout.
#[allow(clippy::too_many_arguments)]
pub fn launch_scan(
    l: &dyn Launcher,
    prod: bool,
    dtype: crate::DType,
    input: u64,
    output: u64,
    batch: usize,
    n: usize,
    s0: isize,
    s1: isize,
) -> crate::Result<()> {
    let entry = format!(
        "cupy_scan_{}_{}",
        if prod { "prod" } else { "sum" },
        dtype.name()
    );
    let a = ScanArgs {
        input,
        output,
        batch: batch as i64,
        n: n as i64,
        s0: s0 as i64,
        s1: s1 as i64,
        partial: 0,
        ntiles: 0,
    };
    if n <= 2 * SCAN_TILE {
        // Rows in a 2-D grid (x at most 65535 keeps HIP's and CUDA's limits alike).
        let gx = batch.min(65535);
        let gy = batch.div_ceil(gx);
        return l.run(HkModule::Scan, &entry, (gx as u32, gy as u32), &a.bytes());
    }
    // Long rows: reduce-then-scan over tiles.
    let ntiles = n.div_ceil(SCAN_TILE);
    // the accumulator: 32 bits for narrow types (widened), 64 for 64-bit ones, complex itself
    let acc = match dtype {
        crate::DType::Int64 | crate::DType::UInt64 | crate::DType::Float64 => crate::DType::UInt64,
        d if d.is_complex() => d,
        _ => crate::DType::UInt32,
    };
    let asize = acc.itemsize() as u64;
    let (_partial, partial) = l.temp(acc, batch * ntiles)?;
    let item = dtype.itemsize() as i64;
    let suffix = &entry["cupy_scan_".len()..];
    let mut r0 = 0;
    while r0 < batch {
        let rows = (batch - r0).min(65535);
        let c = ScanArgs {
            input: input.wrapping_add_signed(r0 as i64 * s0 as i64 * item),
            output: output + (r0 * n) as u64 * item as u64,
            batch: rows as i64,
            partial: partial + (r0 * ntiles) as u64 * asize,
            ntiles: ntiles as i64,
            ..a
        };
        let g = (ntiles as u32, rows as u32);
        l.run(
            HkModule::Scan,
            &format!("cupy_scan_totals_{suffix}"),
            g,
            &c.bytes(),
        )?;
        l.run(
            HkModule::Scan,
            &format!("cupy_scan_prefixes_{suffix}"),
            (rows as u32, 1),
            &c.bytes(),
        )?;
        l.run(
            HkModule::Scan,
            &format!("cupy_scan_apply_{suffix}"),
            g,
            &c.bytes(),
        )?;
        r0 += rows;
    }
    Ok(())
}

/// Queues a stable sort of C-contiguous `[batch, n]` keys at `keys` (and int64 values at
/// `vals`, moved with them); with `src`, the keys are read from there instead (same layout,
/// never written) and `keys` receives them sorted (out of place: no copy first).
///
/// `iota`: the values are to be each element's position in its row (argsort; their contents
/// on entry are ignored): every path writes them from the positions it carries instead of
/// copying and gathering them. `discard_keys` (with values): the radix paths may leave `keys`
/// unwritten ([`crate::backend::SortCall::discard_keys`]).
#[allow(clippy::too_many_arguments)]
pub fn launch_sort(
    l: &dyn Launcher,
    dtype: crate::DType,
    keys: u64,
    src: Option<u64>,
    vals: Option<u64>,
    batch: usize,
    n: usize,
    iota: bool,
    discard_keys: bool,
) -> crate::Result<()> {
    let total = batch * n;
    if total == 0 {
        return Ok(());
    }
    if n >= (1usize << 32) {
        return Err(crate::Error::invalid(
            "sort",
            format!("rows of {n} elements: the GPU sort indexes rows with 32 bits"),
        ));
    }
    let src = src.unwrap_or(0);
    if n <= SORT_SMALL {
        sort_small(l, dtype, keys, src, vals, batch, n, iota)
    } else {
        let nokeys = discard_keys && vals.is_some();
        sort_radix(l, dtype, keys, src, vals, batch, n, iota, nokeys)
    }
}

/// Rows of at most [`SORT_SMALL`] elements: one block per row ranks them in shared memory
/// (`iota`: the values are written as the row positions, not copied and gathered).
#[allow(clippy::too_many_arguments)]
fn sort_small(
    l: &dyn Launcher,
    dtype: crate::DType,
    keys: u64,
    src: u64,
    vals: Option<u64>,
    batch: usize,
    n: usize,
    iota: bool,
) -> crate::Result<()> {
    use crate::DType;
    let total = batch * n;
    let item = dtype.itemsize();
    let kdt = if item == 8 {
        DType::UInt64
    } else {
        DType::UInt32
    };
    let (_korig, korig) = l.temp(dtype, total)?;
    let vorig = match vals {
        Some(_) if !iota => Some(l.temp(DType::Int64, total)?),
        _ => None,
    };
    let (_mk0, mk0) = l.temp(kdt, total)?;
    let (_pos0, pos0) = l.temp(DType::UInt32, total)?;
    let (_pos1, pos1) = l.temp(DType::UInt32, total)?;
    let mut a = SortArgs {
        keys,
        src,
        vals: vals.unwrap_or(0),
        korig,
        vorig: vorig.as_ref().map_or(0, |v| v.1),
        mk_in: mk0,
        pos_in: pos0,
        pos_out: pos1,
        batch: batch as i64,
        n: n as i64,
        iota: (iota && vals.is_some()) as i64,
        ..SortArgs::default()
    };
    let m = HkModule::RadixSort;
    let dn = dtype.name();
    let kname = sort_key(item);
    let grid = (stride_blocks(total), 1);
    l.run(m, &format!("cupy_sort_init_{dn}"), grid, &a.bytes())?;
    let gx = batch.min(65535);
    l.run(
        m,
        &format!("cupy_sort_block_{kname}"),
        (gx as u32, batch.div_ceil(gx) as u32),
        &a.bytes(),
    )?;
    a.pos_in = pos1;
    l.run(m, &format!("cupy_sort_gather_{dn}"), grid, &a.bytes())
}

/// What the radix passes carry with each mapped key (`SortArgs::vmode`) and the xor that
/// unmaps a key when nothing is carried (`SortArgs::flip`): integer maps are bijective, so a
/// keys-only integer sort carries nothing (0); a keys-only float sort of up to 4 bytes carries
/// the original bits (2); argsort and keys-only float64 carry the row position (1) and gather.
pub fn sort_vmode(dtype: crate::DType, with_values: bool) -> (i64, u64) {
    let item = dtype.itemsize();
    if with_values {
        (1, 0)
    } else if dtype.is_float() {
        (if item <= 4 { 2 } else { 1 }, 0)
    } else if dtype.is_signed_integer() {
        (0, 1u64 << (8 * item - 1))
    } else {
        (0, 0)
    }
}

/// Longer rows: the LSD radix sort (see radix_sort.cu), passes skipped on the device.
#[allow(clippy::too_many_arguments)]
fn sort_radix(
    l: &dyn Launcher,
    dtype: crate::DType,
    keys: u64,
    src: u64,
    vals: Option<u64>,
    batch: usize,
    n: usize,
    iota: bool,
    nokeys: bool,
) -> crate::Result<()> {
    use crate::DType;
    let item = dtype.itemsize();
    if n < ONESWEEP_MAX_ROW && batch > 65535 {
        // onesweep: groups of 65535 rows (the init's grid rows), each sorted whole
        for r0 in (0..batch).step_by(65535) {
            let rows = (batch - r0).min(65535);
            let off = (r0 * n) as u64;
            let v = vals.map(|v| v + off * 8);
            let at = |p: u64| if p == 0 { 0 } else { p + off * item as u64 };
            sort_radix(l, dtype, at(keys), at(src), v, rows, n, iota, nokeys)?;
        }
        return Ok(());
    }
    let total = batch * n;
    let kname = sort_key(item);
    let (kdt, ksz) = if item == 8 {
        (DType::UInt64, 8u64)
    } else {
        (DType::UInt32, 4)
    };
    let (vmode, flip) = sort_vmode(dtype, vals.is_some());
    // the original keys where the map may not be invertible (floats: NaN, -0.0): a copy when
    // sorting in place; out of place the source itself
    let needs_orig = vmode == 1 && dtype.is_float();
    let korig = if needs_orig && src == 0 {
        Some(l.temp(dtype, total)?)
    } else {
        None
    };
    let korig_at = match &korig {
        Some(k) => k.1,
        None if needs_orig => src,
        None => 0,
    };
    let vorig = match vals {
        Some(_) if !iota => Some(l.temp(DType::Int64, total)?),
        _ => None,
    };
    let (_mk0, mk0) = l.temp(kdt, total)?;
    let (_mk1, mk1) = l.temp(kdt, total)?;
    let (v0, v1) = if vmode != 0 {
        (
            Some(l.temp(DType::UInt32, total)?),
            Some(l.temp(DType::UInt32, total)?),
        )
    } else {
        (None, None)
    };
    let ntiles = n.div_ceil(SORT_TILE);
    let m_row = 256 * ntiles;
    // Rows under 2^30 keys: the onesweep passes (whole-row counts and look-back words);
    // longer ones: per-tile histograms and their scan.
    let onesweep = n < ONESWEEP_MAX_ROW;
    let nos = n.div_ceil(onesweep_tile(item));
    let (ghist, look, hist, incl) = if onesweep {
        (
            Some(l.temp(DType::UInt32, batch * 8 * 256)?),
            Some(l.temp(DType::UInt32, 2 * batch * nos * 256)?),
            None,
            None,
        )
    } else {
        (
            None,
            None,
            Some(l.temp(DType::UInt32, batch * m_row)?),
            Some(l.temp(DType::UInt32, batch * m_row)?),
        )
    };
    let (hist, incl) = (hist.map_or(0, |h| h.1), incl.map_or(0, |h| h.1));
    let (_ctl, ctl) = l.temp(DType::UInt64, 7)?;
    let passes = sort_passes(dtype.name(), item);
    let mut a = SortArgs {
        keys,
        src,
        vals: vals.unwrap_or(0),
        korig: korig_at,
        vorig: vorig.as_ref().map_or(0, |v| v.1),
        mk_in: mk0,
        pos_in: v0.as_ref().map_or(0, |v| v.1),
        mk_out: mk1,
        pos_out: v1.as_ref().map_or(0, |v| v.1),
        hist,
        batch: batch as i64,
        n: n as i64,
        ntiles: ntiles as i64,
        shift: 0,
        incl,
        ctl,
        vmode,
        flip,
        passes: passes as i64,
        lossy: (vals.is_none() && dtype.is_float()) as i64,
        iota: (iota && vals.is_some()) as i64,
        ghist: ghist.as_ref().map_or(0, |g| g.1),
        look: look.as_ref().map_or(0, |g| g.1),
        nos: if onesweep { nos as i64 } else { 0 },
        kmap: if onesweep { sort_kmap(dtype) } else { 0 },
        nokeys: nokeys as i64,
    };
    let m = HkModule::RadixSort;
    let dn = dtype.name();
    // Rows in chunks of at most 65535 (grid y), row pointers moved to the chunk.
    let chunk = |a: &SortArgs, r0: usize| {
        let rows = (batch - r0).min(65535);
        let off = (r0 * n) as u64;
        let hoff = (r0 * m_row * 4) as u64;
        let at = |p: u64, size: u64| if p == 0 { 0 } else { p + off * size };
        SortArgs {
            keys: at(a.keys, item as u64),
            src: at(a.src, item as u64),
            vals: at(a.vals, 8),
            korig: at(a.korig, item as u64),
            vorig: at(a.vorig, 8),
            mk_in: at(a.mk_in, ksz),
            pos_in: at(a.pos_in, 4),
            mk_out: at(a.mk_out, ksz),
            pos_out: at(a.pos_out, 4),
            hist: if a.hist == 0 { 0 } else { a.hist + hoff },
            incl: if a.incl == 0 { 0 } else { a.incl + hoff },
            ghist: if a.ghist == 0 {
                0
            } else {
                a.ghist + (r0 * 8 * 256 * 4) as u64
            },
            batch: rows as i64,
            ..*a
        }
    };
    let tiled = |a: &SortArgs, entry: &str| -> crate::Result<()> {
        for r0 in (0..batch).step_by(65535) {
            let c = chunk(a, r0);
            l.run(m, entry, (ntiles as u32, c.batch as u32), &c.bytes())?;
        }
        Ok(())
    };
    if onesweep {
        // The init reads every row whole (the rows' chunks of 65535); the passes number their
        // tiles themselves (one counter per pass, all rows), so one launch each, in a 2-D grid.
        l.run(
            m,
            "cupy_sort_ctl",
            (stride_blocks(batch * 8 * 256), 1),
            &a.bytes(),
        )?;
        tiled(&a, &format!("cupy_sort_tinit_{dn}"))?;
        let blocks = batch * nos;
        let gx = blocks.min(65535);
        let grid = (gx as u32, blocks.div_ceil(gx) as u32);
        // A keys-only float sort queues both scatters of each pass and the device runs one
        // (the carrying one only where a key is NaN or -0.0): the carrying one, mostly idle,
        // gets a persistent grid whose blocks take tiles until none is left (its block per tile
        // took 17 us a pass to return, 2^26 float32 keys on the H100).
        let carrying_grid = if a.lossy != 0 {
            (blocks.min(ONESWEEP_PERSISTENT_BLOCKS) as u32, 1)
        } else {
            grid
        };
        for p in 0..passes {
            a.shift = 8 * p as i64;
            // the keys-only pass, the carrying one, or both (as for the scatters below)
            if vmode == 0 || a.lossy != 0 {
                l.run(m, &format!("cupy_sort_onesweepk_{kname}"), grid, &a.bytes())?;
            }
            if vmode != 0 {
                let entry = format!("cupy_sort_onesweep_{kname}");
                l.run(m, &entry, carrying_grid, &a.bytes())?;
            }
        }
    } else {
        l.run(m, "cupy_sort_ctl", (1, 1), &a.bytes())?;
        tiled(&a, &format!("cupy_sort_tinit_{dn}"))?;
        for p in 0..passes {
            a.shift = 8 * p as i64;
            if p > 0 {
                tiled(&a, &format!("cupy_sort_hist_{kname}"))?;
            }
            // Every row's digit-major counts, scanned by the multi-block scan of cumsum.
            launch_scan(
                l,
                false,
                DType::UInt32,
                hist,
                incl,
                batch,
                m_row,
                m_row as isize,
                1,
            )?;
            // The keys-only scatter, the carrying one, or (a keys-only float sort, decided on
            // the device by whether any key is NaN or -0.0) both: each returns unless it is
            // the one.
            if vmode == 0 || a.lossy != 0 {
                tiled(&a, &format!("cupy_sort_scatterk_{kname}"))?;
            }
            if vmode != 0 {
                tiled(&a, &format!("cupy_sort_scatter_{kname}"))?;
            }
        }
    }
    // At most 2048 blocks: after two or more onesweep passes the finish returns at once (65536
    // blocks took 43 us to do so, 2^26 float32 keys on the H100), and its grid-stride loop
    // streams with that many otherwise.
    l.run(
        m,
        &format!("cupy_sort_finish_{dn}"),
        (stride_blocks(total).min(2048), 1),
        &a.bytes(),
    )
}

/// The [`Launcher`] of every C++ GPU backend: temporaries from its pool (`Backend::alloc`), the
/// two modules compiled once per backend for its warp size (through its module caches) and
/// launched with [`BLOCK`] threads on its stream.
impl<T: crate::gpu::launch::GpuDriver> Launcher for T {
    fn temp(&self, dtype: crate::DType, len: usize) -> crate::Result<(crate::Buffer, u64)> {
        let b = self.alloc(dtype, len)?;
        let addr = self.dev_buf(&b, "sort")?.ptr;
        Ok((b, addr))
    }

    fn run(
        &self,
        module: HkModule,
        entry: &str,
        grid: (u32, u32),
        args: &[u8],
    ) -> crate::Result<()> {
        let m = crate::gpu::launch::named_module(self, module.name(), || {
            (assemble(module.file(), self.warp_size()), module.entries())
        })?;
        let f = m.func(entry).ok_or_else(|| crate::Error::Backend {
            backend: self.info().label(),
            msg: format!("{}: no entry {entry}", module.name()),
        })?;
        let mut a = args.to_vec();
        // SAFETY: every entry of hip-kernels/ takes one struct (`ScanArgs`, `SortArgs` or
        // `SelectArgs`, whose
        // `bytes()` these are); its addresses are checked operands or temporaries sized by the
        // plans above.
        unsafe { self.launch(f, [grid.0, grid.1, 1], [BLOCK, 1, 1], &mut a, entry) }
    }
}

fn two_d(op: &str, what: &str, l: &crate::Layout) -> crate::Result<()> {
    if l.shape.len() != 2 || l.strides.len() != 2 {
        return Err(crate::Error::invalid(
            op,
            format!("{what}: expected a [batch, n] layout, got {l:?}"),
        ));
    }
    Ok(())
}

/// The radix sort kernels have no complex instantiations: refused by dtype.
fn no_complex(be: &dyn crate::Backend, op: &str, d: crate::DType) -> crate::Result<()> {
    if d.is_complex() {
        return Err(crate::backend::dtype_unsupported(
            op,
            d,
            be.info(),
            "the GPU radix sort (hip-kernels/) has no complex instantiation",
        ));
    }
    Ok(())
}

/// `Backend::scan` of a C++ GPU backend: checks the call, then [`launch_scan`].
///
/// # Errors
/// `DTypeNotSupported`, `InvalidArgument` (layouts, aliasing), compile, allocation and launch
/// errors.
pub fn scan<D: crate::gpu::launch::GpuDriver>(
    be: &D,
    call: &crate::backend::ScanCall<'_>,
) -> crate::Result<()> {
    use crate::backend::ScanOp;
    use crate::gpu::launch::{check_dtypes, check_operand};
    use crate::Error;
    let op = match call.op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let d = call.output.buffer.dtype();
    check_dtypes(be, op, &[d])?;
    two_d(op, "input", &call.input.layout)?;
    two_d(op, "output", &call.output.layout)?;
    let x = check_operand(be, op, &call.input, d)?;
    let y = check_operand(be, op, &call.output, d)?;
    let (il, ol) = (&call.input.layout, &call.output.layout);
    if il.shape != ol.shape || !ol.is_c_contiguous() {
        return Err(Error::invalid(
            op,
            "the output must be C-contiguous of the input's shape",
        ));
    }
    if x.ptr == y.ptr && il != ol && il.size() > 0 {
        return Err(Error::invalid(
            op,
            "input and output share a buffer with different layouts",
        ));
    }
    let (batch, n) = (il.shape[0], il.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    be.activate()?;
    launch_scan(
        be,
        call.op == ScanOp::Prod,
        d,
        x.at(il.offset),
        y.at(ol.offset),
        batch,
        n,
        il.strides[0],
        il.strides[1],
    )
}

/// `Backend::sort` of a C++ GPU backend: checks the call, then [`launch_sort`].
///
/// # Errors
/// `DTypeNotSupported`, `InvalidArgument` (layouts, aliasing, rows of 2^32 elements or more),
/// compile, allocation and launch errors.
pub fn sort<D: crate::gpu::launch::GpuDriver>(
    be: &D,
    call: &crate::backend::SortCall<'_>,
) -> crate::Result<()> {
    use crate::gpu::launch::{check_dtypes, check_operand};
    use crate::{DType, Error};
    let op = "sort";
    let d = call.keys.buffer.dtype();
    check_dtypes(be, op, &[d])?;
    no_complex(be, op, d)?;
    let kl = &call.keys.layout;
    two_d(op, "keys", kl)?;
    let k = check_operand(be, op, &call.keys, d)?;
    if !kl.is_c_contiguous() {
        return Err(Error::invalid(op, "the keys must be C-contiguous"));
    }
    // The values' buffer (its base pointer, for the aliasing checks) and their first element.
    let values = match &call.values {
        None => None,
        Some(v) => {
            let vb = check_operand(be, op, v, DType::Int64)?;
            if vb.ptr == k.ptr && k.len > 0 {
                return Err(Error::invalid(op, "keys and values share a buffer"));
            }
            if v.layout != *kl {
                return Err(Error::invalid(
                    op,
                    "the values must have the keys' (C-contiguous) layout",
                ));
            }
            Some((vb.ptr, vb.at(v.layout.offset)))
        }
    };
    let vp = values.as_ref().map(|(base, _)| *base);
    let vals = values.map(|(_, first)| first);
    let src = match &call.source {
        None => None,
        Some(s) => {
            let sb = check_operand(be, op, s, d)?;
            if (sb.ptr == k.ptr || Some(sb.ptr) == vp) && k.len > 0 {
                return Err(Error::invalid(
                    op,
                    "the source shares a buffer with the keys or values",
                ));
            }
            if s.layout.shape != kl.shape || !s.layout.is_c_contiguous() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "the source {:?} must be C-contiguous with the keys' shape {:?}",
                        s.layout.shape, kl.shape
                    ),
                ));
            }
            Some(sb.at(s.layout.offset))
        }
    };
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    be.activate()?;
    launch_sort(
        be,
        d,
        k.at(kl.offset),
        src,
        vals,
        batch,
        n,
        call.values_are_positions,
        call.discard_keys,
    )
}

/// The digits `(shift, bits)` of the radix select, most significant first, covering every bit
/// a mapped key of the dtype can have set (narrow integers are zero above their width).
pub fn select_digits(dtype: crate::DType) -> &'static [(i64, i64)] {
    use crate::DType::*;
    match dtype {
        Bool | Int8 | UInt8 => &[(0, 8)],
        Int16 | UInt16 => &[(5, 11), (0, 5)],
        Int64 | UInt64 | Float64 => &[(53, 11), (42, 11), (31, 11), (20, 11), (9, 11), (0, 9)],
        _ => &[(21, 11), (10, 11), (0, 10)],
    }
}

/// Queues `out[b, j] = sorted(keys[b])[kth[j]]` for C-contiguous `[batch, n]` keys and a
/// C-contiguous `[batch, kth.len()]` output of their dtype (radix select, see radix_select.cu).
pub fn launch_select(
    l: &dyn Launcher,
    dtype: crate::DType,
    keys: u64,
    out: u64,
    batch: usize,
    n: usize,
    kth: &[usize],
) -> crate::Result<()> {
    use crate::DType;
    if batch == 0 || kth.is_empty() {
        return Ok(());
    }
    let item = dtype.itemsize() as u64;
    let ntiles = n.div_ceil(SEL_TILE);
    let (_state, state) = l.temp(DType::UInt64, batch * SEL_MAX * 2)?;
    let (_hist, hist) = l.temp(DType::UInt32, batch * SEL_MAX * SEL_BINS)?;
    let m = HkModule::RadixSort;
    let dn = dtype.name();
    let kname = sort_key(dtype.itemsize());
    let gx = batch.min(65535);
    let rows_grid = (gx as u32, batch.div_ceil(gx) as u32);
    for (g, ks) in kth.chunks(SEL_MAX).enumerate() {
        let k = |j: usize| ks.get(j).map_or(0, |&k| k as i64);
        let mut a = SelectArgs {
            keys,
            out,
            state,
            hist,
            batch: batch as i64,
            n: n as i64,
            ntiles: ntiles as i64,
            shift: 0,
            bits: 0,
            m: ks.len() as i64,
            mtot: kth.len() as i64,
            j0: (g * SEL_MAX) as i64,
            k0: k(0),
            k1: k(1),
            k2: k(2),
            k3: k(3),
        };
        l.run(m, "cupy_select_init", rows_grid, &a.bytes())?;
        for &(shift, bits) in select_digits(dtype) {
            a.shift = shift;
            a.bits = bits;
            for r0 in (0..batch).step_by(65535) {
                let rows = (batch - r0).min(65535);
                let c = SelectArgs {
                    keys: keys + (r0 * n) as u64 * item,
                    state: state + (r0 * SEL_MAX * 2 * 8) as u64,
                    hist: hist + (r0 * SEL_MAX * SEL_BINS * 4) as u64,
                    batch: rows as i64,
                    ..a
                };
                l.run(
                    m,
                    &format!("cupy_select_hist_{dn}"),
                    (ntiles as u32, rows as u32),
                    &c.bytes(),
                )?;
            }
            l.run(
                m,
                &format!("cupy_select_pick_{kname}"),
                rows_grid,
                &a.bytes(),
            )?;
        }
        l.run(
            m,
            &format!("cupy_select_out_{dn}"),
            (stride_blocks(batch * ks.len()), 1),
            &a.bytes(),
        )?;
    }
    Ok(())
}

/// `Backend::select` of a C++ GPU backend: checks the call, then [`launch_select`].
///
/// # Errors
/// `DTypeNotSupported` (complex), `InvalidArgument` (layouts, dtypes, ranks out of range),
/// compile, allocation and launch errors.
pub fn select<D: crate::gpu::launch::GpuDriver>(
    be: &D,
    call: &crate::backend::SelectCall<'_>,
) -> crate::Result<()> {
    use crate::gpu::launch::{check_dtypes, check_operand};
    use crate::Error;
    let op = "select";
    let d = call.keys.buffer.dtype();
    check_dtypes(be, op, &[d])?;
    no_complex(be, op, d)?;
    let (kl, ol) = (&call.keys.layout, &call.out.layout);
    two_d(op, "keys", kl)?;
    two_d(op, "out", ol)?;
    let k = check_operand(be, op, &call.keys, d)?;
    let o = check_operand(be, op, &call.out, d)?;
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if !kl.is_c_contiguous() || !ol.is_c_contiguous() || ol.shape != [batch, call.kth.len()] {
        return Err(Error::invalid(
            op,
            format!(
                "keys {:?} and out {:?}: both C-contiguous, out [batch, {}]",
                kl.shape,
                ol.shape,
                call.kth.len()
            ),
        ));
    }
    if let Some(&bad) = call.kth.iter().find(|&&k| k >= n) {
        return Err(Error::invalid(
            op,
            format!("rank {bad} out of range for rows of {n}"),
        ));
    }
    if n >= (1usize << 32) {
        return Err(Error::invalid(op, format!("rows of {n} elements")));
    }
    if batch * call.kth.len() == 0 {
        return Ok(());
    }
    be.activate()?;
    launch_select(be, d, k.at(kl.offset), o.at(ol.offset), batch, n, call.kth)
}
