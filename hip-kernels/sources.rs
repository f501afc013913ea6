//! The hand-written kernels of `hip-kernels/`, embedded, the one function that turns a file
//! into a compilable module for NVRTC or hipRTC, and the launch plans of `Backend::scan` and
//! `Backend::sort` on them (which kernels, what grids, what temporaries, in what order), written
//! once over the [`Launcher`] trait. Every backend implementing
//! `cupy_core::gpu::launch::GpuDriver` is a [`Launcher`] and gets [`scan`] and [`sort`].
//! Included by `backends/cuda` and `backends/hip` (and their tests) with `#[path]`, so both
//! vendors compile exactly the same text and run exactly the same sequences.

/// `portability.h`: the CUDA/HIP mapping (shuffles, barriers, atomics), shared helpers.
pub const PORTABILITY_H: &str = include_str!("portability.h");
/// `scan.cu`: per-row inclusive scans (`cupy_scan_{sum,prod}_<dtype>`).
pub const SCAN_CU: &str = include_str!("scan.cu");
/// `radix_sort.cu`: stable per-row sort (`cupy_sort_*`).
pub const RADIX_SORT_CU: &str = include_str!("radix_sort.cu");

/// Threads per block of every kernel here (`HK_BLOCK` in portability.h).
pub const BLOCK: u32 = 256;
/// Rows up to this length are sorted by one block in shared memory (`HK_SORT_SMALL`).
pub const SORT_SMALL: usize = 1024;
/// Elements per tile of the radix passes (`HK_TILE`).
pub const SORT_TILE: usize = 8192;

/// The module source for a `.cu` file: `#define HK_WARP_SIZE warp`, then the file with its
/// `#include "portability.h"` line replaced by the header (no include paths are needed).
pub fn assemble(file: &str, warp: u32) -> String {
    let mut out = format!("#define HK_WARP_SIZE {warp}\n");
    for line in file.lines() {
        if line.trim() == "#include \"portability.h\"" {
            out.push_str(PORTABILITY_H);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Every `extern "C"` entry point of scan.cu, for dtype names `dts`.
pub fn scan_entries(dts: &[&str]) -> Vec<String> {
    let mut v = vec![];
    for d in dts {
        for op in ["sum", "prod"] {
            for pass in ["", "totals_", "prefixes_", "apply_"] {
                v.push(format!("cupy_scan_{pass}{op}_{d}"));
            }
        }
    }
    v
}

/// Elements per tile of the multi-block scan (`HK_SCAN_TILE`); rows longer than two tiles use
/// it, shorter ones one block per row.
pub const SCAN_TILE: usize = 8192;

/// Every `extern "C"` entry point of radix_sort.cu, for dtype names `dts`.
pub fn sort_entries(dts: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["u32", "u64"]
        .iter()
        .flat_map(|k| {
            [
                format!("cupy_sort_block_{k}"),
                format!("cupy_sort_hist_{k}"),
                format!("cupy_sort_scatter_{k}"),
            ]
        })
        .collect();
    for d in dts {
        v.push(format!("cupy_sort_init_{d}"));
        v.push(format!("cupy_sort_gather_{d}"));
    }
    v
}

/// The dtypes the kernels are instantiated for (NumPy names).
pub const DTYPES: [&str; 13] = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "bfloat16", "float32", "float64",
];

/// Arguments of every scan.cu entry (`struct ScanArgs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ScanArgs {
    /// Address of the input's first element.
    pub input: u64,
    /// Address of the output's first element.
    pub output: u64,
    /// Rows.
    pub batch: i64,
    /// Row length.
    pub n: i64,
    /// Input row stride (elements).
    pub s0: i64,
    /// Input element stride (elements).
    pub s1: i64,
    /// Tile totals of a multi-block scan (accumulator type), or 0.
    pub partial: u64,
    /// Tiles per row of a multi-block scan.
    pub ntiles: i64,
}

/// Arguments of every radix_sort.cu entry (`struct SortArgs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SortArgs {
    /// Keys (sorted in place).
    pub keys: u64,
    /// int64 values, or 0.
    pub vals: u64,
    /// Copy of the keys.
    pub korig: u64,
    /// Copy of the values, or 0.
    pub vorig: u64,
    /// Mapped keys read by a pass.
    pub mk_in: u64,
    /// Positions read by a pass.
    pub pos_in: u64,
    /// Mapped keys written by a pass.
    pub mk_out: u64,
    /// Positions written by a pass.
    pub pos_out: u64,
    /// Digit counts (`batch * 256 * ntiles` u32).
    pub hist: u64,
    /// Rows.
    pub batch: i64,
    /// Row length.
    pub n: i64,
    /// Tiles per row.
    pub ntiles: i64,
    /// Bit shift of the pass's digit.
    pub shift: i64,
    /// Inclusive scan of `hist` along each row (same shape).
    pub incl: u64,
}

impl ScanArgs {
    /// The bytes the kernel's one parameter is made of.
    pub fn bytes(&self) -> Vec<u8> {
        [
            self.input,
            self.output,
            self.batch as u64,
            self.n as u64,
            self.s0 as u64,
            self.s1 as u64,
            self.partial,
            self.ntiles as u64,
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
    }
}

impl SortArgs {
    /// The bytes the kernel's one parameter is made of.
    pub fn bytes(&self) -> Vec<u8> {
        [
            self.keys,
            self.vals,
            self.korig,
            self.vorig,
            self.mk_in,
            self.pos_in,
            self.mk_out,
            self.pos_out,
            self.hist,
            self.batch as u64,
            self.n as u64,
            self.ntiles as u64,
            self.shift as u64,
            self.incl,
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
    }
}

/// Radix passes (8-bit digits) for a dtype of `itemsize` bytes: float16/bfloat16 keys are
/// mapped through float32 bits, so they take 4.
pub fn sort_passes(dtype_name: &str, itemsize: usize) -> usize {
    match dtype_name {
        "float16" | "bfloat16" => 4,
        _ => itemsize,
    }
}

/// The mapped key width of a dtype: `"u64"` for 8-byte keys, else `"u32"`.
pub fn sort_key(itemsize: usize) -> &'static str {
    if itemsize == 8 {
        "u64"
    } else {
        "u32"
    }
}

/// The two modules of hip-kernels/.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HkModule {
    /// scan.cu
    Scan,
    /// radix_sort.cu
    RadixSort,
}

impl HkModule {
    /// The module's name (for logs and caches).
    pub fn name(self) -> &'static str {
        match self {
            HkModule::Scan => "scan",
            HkModule::RadixSort => "radix_sort",
        }
    }
    /// The file's text.
    pub fn file(self) -> &'static str {
        match self {
            HkModule::Scan => SCAN_CU,
            HkModule::RadixSort => RADIX_SORT_CU,
        }
    }
    /// Every entry point.
    pub fn entries(self) -> Vec<String> {
        match self {
            HkModule::Scan => scan_entries(&DTYPES),
            HkModule::RadixSort => sort_entries(&DTYPES),
        }
    }
}

/// What a backend provides to run the hand-written kernels: temporaries from its pool and
/// launches of [`BLOCK`] threads on its stream (in order).
pub trait Launcher {
    /// A temporary of `len` elements of `dtype` (freed when dropped; later stream work is
    /// ordered after the launches using it) and its device address.
    fn temp(
        &self,
        dtype: cupy_core::DType,
        len: usize,
    ) -> cupy_core::Result<(cupy_core::Buffer, u64)>;
    /// Launches `entry` of `module` on a `grid` of blocks with one struct argument `args`.
    fn run(
        &self,
        module: HkModule,
        entry: &str,
        grid: (u32, u32),
        args: &[u8],
    ) -> cupy_core::Result<()>;
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
    dtype: cupy_core::DType,
    input: u64,
    output: u64,
    batch: usize,
    n: usize,
    s0: isize,
    s1: isize,
) -> cupy_core::Result<()> {
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
    let wide = matches!(
        dtype,
        cupy_core::DType::Int64 | cupy_core::DType::UInt64 | cupy_core::DType::Float64
    );
    let asize = if wide { 8u64 } else { 4 };
    let (_partial, partial) = l.temp(
        if wide {
            cupy_core::DType::UInt64
        } else {
            cupy_core::DType::UInt32
        },
        batch * ntiles,
    )?;
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
/// `vals`, moved with them).
pub fn launch_sort(
    l: &dyn Launcher,
    dtype: cupy_core::DType,
    keys: u64,
    vals: Option<u64>,
    batch: usize,
    n: usize,
) -> cupy_core::Result<()> {
    use cupy_core::DType;
    let total = batch * n;
    if total == 0 {
        return Ok(());
    }
    if n >= (1usize << 32) {
        return Err(cupy_core::Error::invalid(
            "sort",
            format!("rows of {n} elements: the GPU sort indexes rows with 32 bits"),
        ));
    }
    let item = dtype.itemsize();
    let kname = sort_key(item);
    let kdt = if item == 8 {
        DType::UInt64
    } else {
        DType::UInt32
    };
    let (_korig, korig) = l.temp(dtype, total)?;
    let vorig = match vals {
        Some(_) => Some(l.temp(DType::Int64, total)?),
        None => None,
    };
    let (_mk0, mk0) = l.temp(kdt, total)?;
    let (_pos0, pos0) = l.temp(DType::UInt32, total)?;
    let (_mk1, mk1) = l.temp(kdt, total)?;
    let (_pos1, pos1) = l.temp(DType::UInt32, total)?;
    let mut a = SortArgs {
        keys,
        vals: vals.unwrap_or(0),
        korig,
        vorig: vorig.as_ref().map_or(0, |v| v.1),
        mk_in: mk0,
        pos_in: pos0,
        mk_out: mk1,
        pos_out: pos1,
        hist: 0,
        batch: batch as i64,
        n: n as i64,
        ntiles: 0,
        shift: 0,
        incl: 0,
    };
    let m = HkModule::RadixSort;
    let dn = dtype.name();
    l.run(
        m,
        &format!("cupy_sort_init_{dn}"),
        (stride_blocks(total), 1),
        &a.bytes(),
    )?;
    let final_pos;
    let _hist;
    if n <= SORT_SMALL {
        let gx = batch.min(65535);
        l.run(
            m,
            &format!("cupy_sort_block_{kname}"),
            (gx as u32, batch.div_ceil(gx) as u32),
            &a.bytes(),
        )?;
        final_pos = pos1;
    } else {
        let ntiles = n.div_ceil(SORT_TILE);
        let m_row = 256 * ntiles;
        let (h, hist) = l.temp(DType::UInt32, batch * m_row)?;
        let (hi, incl) = l.temp(DType::UInt32, batch * m_row)?;
        _hist = (h, hi);
        a.hist = hist;
        a.incl = incl;
        a.ntiles = ntiles as i64;
        let passes = sort_passes(dn, item);
        let ksz = if item == 8 { 8u64 } else { 4 };
        // Rows in chunks of at most 65535 (grid y), pointers moved to the chunk.
        let chunk = |a: &SortArgs, r0: usize| {
            let rows = (batch - r0).min(65535);
            let off = (r0 * n) as u64;
            let hoff = (r0 * m_row * 4) as u64;
            SortArgs {
                mk_in: a.mk_in + off * ksz,
                pos_in: a.pos_in + off * 4,
                mk_out: a.mk_out + off * ksz,
                pos_out: a.pos_out + off * 4,
                hist: a.hist + hoff,
                incl: a.incl + hoff,
                batch: rows as i64,
                ..*a
            }
        };
        for p in 0..passes {
            a.shift = 8 * p as i64;
            for r0 in (0..batch).step_by(65535) {
                let c = chunk(&a, r0);
                let g = (ntiles as u32, c.batch as u32);
                l.run(m, &format!("cupy_sort_hist_{kname}"), g, &c.bytes())?;
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
            for r0 in (0..batch).step_by(65535) {
                let c = chunk(&a, r0);
                let g = (ntiles as u32, c.batch as u32);
                l.run(m, &format!("cupy_sort_scatter_{kname}"), g, &c.bytes())?;
            }
            std::mem::swap(&mut a.mk_in, &mut a.mk_out);
            std::mem::swap(&mut a.pos_in, &mut a.pos_out);
        }
        final_pos = a.pos_in;
    }
    a.pos_in = final_pos;
    l.run(
        m,
        &format!("cupy_sort_gather_{dn}"),
        (stride_blocks(total), 1),
        &a.bytes(),
    )
}

/// The [`Launcher`] of every C++ GPU backend: temporaries from its pool (`Backend::alloc`), the
/// two modules compiled once per backend for its warp size (through its module caches) and
/// launched with [`BLOCK`] threads on its stream.
impl<T: cupy_core::gpu::launch::GpuDriver> Launcher for T {
    fn temp(
        &self,
        dtype: cupy_core::DType,
        len: usize,
    ) -> cupy_core::Result<(cupy_core::Buffer, u64)> {
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
    ) -> cupy_core::Result<()> {
        let m = cupy_core::gpu::launch::named_module(self, module.name(), || {
            (assemble(module.file(), self.warp_size()), module.entries())
        })?;
        let f = m.func(entry).ok_or_else(|| cupy_core::Error::Backend {
            backend: self.info().label(),
            msg: format!("{}: no entry {entry}", module.name()),
        })?;
        let mut a = args.to_vec();
        // SAFETY: every entry of hip-kernels/ takes one struct (`ScanArgs` or `SortArgs`, whose
        // `bytes()` these are); its addresses are checked operands or temporaries sized by the
        // plans above.
        unsafe { self.launch(f, [grid.0, grid.1, 1], [BLOCK, 1, 1], &mut a, entry) }
    }
}

fn two_d(op: &str, what: &str, l: &cupy_core::Layout) -> cupy_core::Result<()> {
    if l.shape.len() != 2 || l.strides.len() != 2 {
        return Err(cupy_core::Error::invalid(
            op,
            format!("{what}: expected a [batch, n] layout, got {l:?}"),
        ));
    }
    Ok(())
}

/// `Backend::scan` of a C++ GPU backend: checks the call, then [`launch_scan`].
///
/// # Errors
/// `DTypeNotSupported`, `InvalidArgument` (layouts, aliasing), compile, allocation and launch
/// errors.
/// The scan and radix sort kernels have no complex instantiations: refused by dtype.
fn no_complex(be: &dyn cupy_core::Backend, op: &str, d: cupy_core::DType) -> cupy_core::Result<()> {
    if d.is_complex() {
        return Err(cupy_core::backend::dtype_unsupported(
            op,
            d,
            be.info(),
            "the GPU scan and sort kernels (hip-kernels/) have no complex instantiation",
        ));
    }
    Ok(())
}

pub fn scan<D: cupy_core::gpu::launch::GpuDriver>(
    be: &D,
    call: &cupy_core::backend::ScanCall<'_>,
) -> cupy_core::Result<()> {
    use cupy_core::backend::ScanOp;
    use cupy_core::gpu::launch::{check_dtypes, check_operand};
    use cupy_core::Error;
    let op = match call.op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let d = call.output.buffer.dtype();
    check_dtypes(be, op, &[d])?;
    no_complex(be, op, d)?;
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
pub fn sort<D: cupy_core::gpu::launch::GpuDriver>(
    be: &D,
    call: &cupy_core::backend::SortCall<'_>,
) -> cupy_core::Result<()> {
    use cupy_core::gpu::launch::{check_dtypes, check_operand};
    use cupy_core::{DType, Error};
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
    let vals = match &call.values {
        None => None,
        Some(v) => {
            if be.dev_buf(v.buffer, op)?.ptr == k.ptr && k.len > 0 {
                return Err(Error::invalid(op, "keys and values share a buffer"));
            }
            let vb = check_operand(be, op, v, DType::Int64)?;
            if v.layout != *kl {
                return Err(Error::invalid(
                    op,
                    "the values must have the keys' (C-contiguous) layout",
                ));
            }
            Some(vb.at(v.layout.offset))
        }
    };
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    be.activate()?;
    launch_sort(be, d, k.at(kl.offset), vals, batch, n)
}
