//! The hand-written kernels of `hip-kernels/` (`scan.cu`, `radix_sort.cu` and their
//! `portability.h`), embedded with `include_str!`, the one function that turns a file into a
//! compilable module for NVRTC or hipRTC ([`assemble`]), and the launch plans of `Backend::scan`
//! and `Backend::sort` on them (which kernels, what grids, what temporaries, in what order),
//! written once over the [`Launcher`] trait. Every backend implementing
//! [`GpuDriver`](crate::gpu::launch::GpuDriver) is a [`Launcher`] and gets [`scan`] and [`sort`],
//! so both vendors compile exactly the same text and run exactly the same sequences.
//!
//! This file holds the sources, entry points and argument structs; `plan.rs` the launch plans.

/// `portability.h`: the CUDA/HIP mapping (shuffles, barriers, atomics), shared helpers.
pub const PORTABILITY_H: &str = include_str!("../../../../hip-kernels/portability.h");
/// `scan.cu`: per-row inclusive scans (`cupy_scan_{sum,prod}_<dtype>`).
pub const SCAN_CU: &str = include_str!("../../../../hip-kernels/scan.cu");
/// `radix_sort.cu` with `radix_sort_passes.cu` and `radix_select.cu` appended: stable per-row
/// sort (`cupy_sort_*`) and radix select (`cupy_select_*`), one module.
pub const RADIX_SORT_CU: &str = concat!(
    include_str!("../../../../hip-kernels/radix_sort.cu"),
    include_str!("../../../../hip-kernels/radix_sort_passes.cu"),
    include_str!("../../../../hip-kernels/radix_select.cu")
);

/// Threads per block of every kernel here (`HK_BLOCK` in portability.h).
pub const BLOCK: u32 = 256;
/// Rows up to this length are sorted by one block in shared memory (`HK_SORT_SMALL`).
pub const SORT_SMALL: usize = 1024;
/// Elements per tile of the radix passes (`HK_TILE`).
pub const SORT_TILE: usize = 16384;

/// The module source for a `.cu` file: `#define HK_WARP_SIZE warp`, then the file with its
/// `#include "portability.h"` line replaced by the header (no include paths are needed).
///
/// For timing variants on a machine without a Rust toolchain, `CUPY_HK_DEFINES` (developers
/// only) adds `#define`s before the file: space-separated `NAME=VALUE` or `NAME` items, e.g.
/// `HK_SORT_MINB=4 HK_SORT_RANK_STORES=0`. Only tunables the host plan does not mirror are
/// safe (not `HK_SORT_IT32`/`HK_SORT_IT64`, `HK_COMPRESS_IT`, `HK_BLOCK`: their Rust constants
/// would disagree and the results be wrong).
pub fn assemble(file: &str, warp: u32) -> String {
    let mut out = format!("#define HK_WARP_SIZE {warp}\n");
    if let Ok(extra) = std::env::var("CUPY_HK_DEFINES") {
        for item in extra.split_whitespace() {
            let (name, value) = item.split_once('=').unwrap_or((item, "1"));
            out.push_str(&format!("#define {name} {value}\n"));
        }
    }
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
    let mut v: Vec<String> = ["cupy_compress_count", "cupy_compress_scan", "cupy_compress"]
        .iter()
        .map(|e| e.to_string())
        .collect();
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
                format!("cupy_sort_scatterk_{k}"),
                format!("cupy_sort_onesweep_{k}"),
                format!("cupy_sort_onesweepk_{k}"),
            ]
        })
        .collect();
    v.push("cupy_sort_ctl".into());
    v.push("cupy_select_init".into());
    v.push("cupy_select_pick_u32".into());
    v.push("cupy_select_pick_u64".into());
    for d in dts {
        for e in ["init", "gather", "tinit", "finish"] {
            v.push(format!("cupy_sort_{e}_{d}"));
        }
        v.push(format!("cupy_select_hist_{d}"));
        v.push(format!("cupy_select_out_{d}"));
    }
    v
}

/// The dtypes the kernels are instantiated for (NumPy names); the scans also take
/// [`SCAN_DTYPES`]' complex ones.
pub const DTYPES: [&str; 13] = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
    "bfloat16", "float32", "float64",
];

/// The dtypes scan.cu is instantiated for: [`DTYPES`] and complex64/complex128.
pub const SCAN_DTYPES: [&str; 15] = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
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
    /// Mapped keys read by a pass (radix path: buffer A).
    pub mk_in: u64,
    /// Positions read by a pass (radix path: buffer A's values).
    pub pos_in: u64,
    /// Mapped keys written by a pass (radix path: buffer B).
    pub mk_out: u64,
    /// Positions written by a pass (radix path: buffer B's values).
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
    /// Radix path: `u64 {AND, OR}` of every mapped key (which passes are live).
    pub ctl: u64,
    /// Radix path: the value carried, 0 none, 1 row position, 2 original bits ([`sort_vmode`]).
    pub vmode: i64,
    /// Radix path with `vmode` 0: mapped key ^ flip = the original bits.
    pub flip: u64,
    /// Radix path: digit passes of the key.
    pub passes: i64,
    /// Radix path: 1 for a keys-only float sort (values dropped on the device where no key is
    /// NaN or -0.0).
    pub lossy: i64,
    /// Radix path: 1 when the values are the row positions (argsort): written from the
    /// carried positions, never copied or gathered.
    pub iota: i64,
    /// Onesweep path: u32 `[batch][8][256]` digit counts of whole rows for every pass (0 on
    /// the histogram-and-scan path).
    pub ghist: u64,
    /// Onesweep path: u32 `[2][batch][nos][256]` look-back status words (two buffers,
    /// alternating between live passes).
    pub look: u64,
    /// Onesweep path: tiles per row ([`onesweep_tile`] keys each).
    pub nos: i64,
    /// Onesweep path, 4- and 8-byte keys ([`sort_kmap`]): the first live pass maps the
    /// caller's keys as it reads them and the last of two or more writes the sorted keys and
    /// values (no mapped copy from the init, no finishing pass); 0: the init maps them.
    pub kmap: i64,
    /// Out of place: the keys are read from here (never written) and `keys` receives the
    /// sorted keys; 0: sorted in place. `korig` may equal it (the keys need no copy).
    pub src: u64,
    /// 1: argsort wanting the values alone ([`crate::backend::SortCall::discard_keys`]): the
    /// radix paths leave `keys` unwritten.
    pub nokeys: i64,
}

/// How the onesweep passes map a dtype's keys on the fly (`SortArgs::kmap`): 1 unsigned,
/// 2 signed, 3 float for 4- and 8-byte keys; 0 for narrower ones (the init maps those).
pub fn sort_kmap(dtype: crate::DType) -> i64 {
    match dtype.itemsize() {
        4 | 8 if dtype.is_float() => 3,
        4 | 8 if dtype.is_signed_integer() => 2,
        4 | 8 if !dtype.is_complex() => 1,
        _ => 0,
    }
}

/// Keys per thread of the onesweep pass for 4-byte and 8-byte mapped keys (`HK_SORT_IT32`,
/// `HK_SORT_IT64`; tuned on the H200 and H100). 14 for 4-byte keys: 2.13 ms against 2.17 with
/// 13 and 2.23 with 12 in sort_harness.cu on the H100 (2026-12-06, 2^26 float32).
pub const SORT_IT32: usize = 14;
/// See [`SORT_IT32`].
pub const SORT_IT64: usize = 8;
/// Keys per tile of a onesweep pass for keys of `itemsize` bytes (`HK_BLOCK * IT`).
pub fn onesweep_tile(itemsize: usize) -> usize {
    BLOCK as usize * if itemsize == 8 { SORT_IT64 } else { SORT_IT32 }
}
/// Blocks of the persistent grid of a onesweep pass that is likely to return at once (the
/// carrying scatter of a keys-only float sort, needed only where a key is NaN or `-0.0`): each
/// block takes tiles until none is left.
pub const ONESWEEP_PERSISTENT_BLOCKS: usize = 1024;
/// Rows shorter than this take the onesweep path (its status words hold 30-bit counts); longer
/// ones the histogram-and-scan path.
pub const ONESWEEP_MAX_ROW: usize = 1 << 30;

/// Ranks selected per launch of the radix select (`HK_SEL_MAX`).
pub const SEL_MAX: usize = 4;
/// Bins of one select digit (`HK_SEL_BINS`, 11 bits).
pub const SEL_BINS: usize = 2048;
/// Elements per block of the select histogram (`HK_SEL_TILE`).
pub const SEL_TILE: usize = 65536;

/// Arguments of the radix select entries of radix_select.cu (`struct SelectArgs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SelectArgs {
    /// Keys `[batch, n]`, C-contiguous.
    pub keys: u64,
    /// Output `[batch, mtot]`, C-contiguous, the keys' dtype.
    pub out: u64,
    /// Per (row, rank) `{prefix, remaining rank}` (`u64 [batch][SEL_MAX][2]`).
    pub state: u64,
    /// Per (row, rank) digit counts (`u32 [batch][SEL_MAX][SEL_BINS]`).
    pub hist: u64,
    /// Rows.
    pub batch: i64,
    /// Row length.
    pub n: i64,
    /// Tiles of `SEL_TILE` per row.
    pub ntiles: i64,
    /// Lowest bit of this pass's digit.
    pub shift: i64,
    /// Bits of this pass's digit.
    pub bits: i64,
    /// Ranks of this launch (at most `SEL_MAX`).
    pub m: i64,
    /// Output columns.
    pub mtot: i64,
    /// First output column of this launch.
    pub j0: i64,
    /// Rank 0 of this launch.
    pub k0: i64,
    /// Rank 1.
    pub k1: i64,
    /// Rank 2.
    pub k2: i64,
    /// Rank 3.
    pub k3: i64,
}

impl SelectArgs {
    /// The bytes the kernel's one parameter is made of.
    pub fn bytes(&self) -> Vec<u8> {
        [
            self.keys,
            self.out,
            self.state,
            self.hist,
            self.batch as u64,
            self.n as u64,
            self.ntiles as u64,
            self.shift as u64,
            self.bits as u64,
            self.m as u64,
            self.mtot as u64,
            self.j0 as u64,
            self.k0 as u64,
            self.k1 as u64,
            self.k2 as u64,
            self.k3 as u64,
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
    }
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
            self.ctl,
            self.vmode as u64,
            self.flip,
            self.passes as u64,
            self.lossy as u64,
            self.iota as u64,
            self.ghist,
            self.look,
            self.nos as u64,
            self.kmap as u64,
            self.src,
            self.nokeys as u64,
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
            HkModule::Scan => scan_entries(&SCAN_DTYPES),
            HkModule::RadixSort => sort_entries(&DTYPES),
        }
    }
}

mod compress;
mod plan;

pub use compress::{compress, launch_compress, CompressArgs, COMPRESS_SOURCES, COMPRESS_TILE};

pub use plan::{
    launch_scan, launch_select, launch_sort, scan, select, select_digits, sort, sort_vmode,
    Launcher,
};
