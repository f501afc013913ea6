//! The LSD radix sort (`shaders/radix.wgsl`) that [`crate::sortscan`]'s sort takes for long rows
//! of integer, bool and real float keys (packed dtypes on their 32-bit widened copy, as the
//! bitonic sort): 8-bit digits, four passes for 32-bit keys and eight for 64-bit keys, less the
//! passes whose digit is the same in every key (read back once from the OR of the mapped keys and
//! of their complements: small integers, or all-positive floats, skip their top digits). Each
//! pass is an upsweep of per-tile digit histograms, a three-dispatch scan of them and a stable
//! scatter; nothing relies on subgroup operations or on forward progress between workgroups.
//! Sorts without values move the keys alone through the passes and map them back at the end,
//! unless a key does not map back bit for bit (a NaN or `-0.0` among float keys): those carry
//! each key's position and gather the raw keys, as argsort does.
//!
//! Rows of at least [`radix_min_row`] keys take it (`RADIX_MIN_ROW`, 2^15 by default: below
//! that the bitonic network's few workgroup-local dispatches are as fast and need no read-back);
//! `CUPY_WGPU_SORT_RADIX_MIN` (a process) or [`with_sort_radix_min`] (a thread, the tests) move
//! the threshold. Complex keys always take the bitonic sort.

use crate::{hash_of, WgpuBackend, WgpuBuffer};
use cupy_core::kernel::wgsl::MetaLayout;
use cupy_core::{DType, Error, Layout, Result};
use std::cell::Cell;

const RADIX_WGSL: &str = include_str!("../../../shaders/radix.wgsl");

/// Keys per tile (one workgroup of `radix.wgsl`'s upsweep and scatter).
const TILE: usize = 2048;
/// Digits per pass.
const DIG: usize = 256;

/// Row length from which sorts take the radix path by default.
pub const RADIX_MIN_ROW: usize = 1 << 15;

thread_local! {
    static MIN_OVERRIDE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's wgpu sorts taking the radix path for rows of at least `n` keys
/// (`1`: every eligible sort), then restores the previous threshold: lets the tests run the
/// radix sort at small sizes. `CUPY_WGPU_SORT_RADIX_MIN` does the same for a whole process.
pub fn with_sort_radix_min<R>(n: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            MIN_OVERRIDE.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(MIN_OVERRIDE.with(|c| c.replace(Some(n))));
    f()
}

/// The row length from which this thread's sorts take the radix path: [`with_sort_radix_min`],
/// else `CUPY_WGPU_SORT_RADIX_MIN`, else [`RADIX_MIN_ROW`].
pub fn radix_min_row() -> usize {
    static ENV: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    MIN_OVERRIDE.with(|c| c.get()).unwrap_or_else(|| {
        ENV.get_or_init(|| {
            std::env::var("CUPY_WGPU_SORT_RADIX_MIN")
                .ok()
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(RADIX_MIN_ROW)
    })
}

/// A dtype's key map for the radix sort: the storage words per key, `map_key`'s body (raw words
/// `r` to words whose unsigned order is NumPy's: NaN last, `-0.0` as `0.0`) and `unmap_key`'s
/// (mapped words `m` back to the raw ones: exact for every key but NaN and `-0.0`).
struct KeyMap {
    words: usize,
    map: &'static str,
    unmap: &'static str,
}

/// The [`KeyMap`] of the dtypes the radix sort takes.
fn key_map(d: DType) -> Option<KeyMap> {
    let (words, map, unmap) = match d {
        DType::UInt32 => (1, "return r;", "return m;"),
        DType::Int32 => (1, "return r ^ 0x80000000u;", "return m ^ 0x80000000u;"),
        DType::Float32 => (
            1,
            "if ((r & 0x7fffffffu) > 0x7f800000u) { return 0xffffffffu; }
  let z = select(r, 0u, r == 0x80000000u);
  if ((z >> 31u) == 1u) { return ~z; }
  return z | 0x80000000u;",
            "if ((m >> 31u) == 1u) { return m & 0x7fffffffu; }
  return ~m;",
        ),
        DType::UInt64 => (2, "return r;", "return m;"),
        DType::Int64 => (
            2,
            "return vec2<u32>(r.x, r.y ^ 0x80000000u);",
            "return vec2<u32>(m.x, m.y ^ 0x80000000u);",
        ),
        DType::Float64 => (
            2,
            "let h = r.y & 0x7fffffffu;
  if (h > 0x7ff00000u || (h == 0x7ff00000u && r.x != 0u)) { return vec2<u32>(0xffffffffu); }
  var z = r;
  if (r.y == 0x80000000u && r.x == 0u) { z = vec2<u32>(0u); }
  if ((z.y >> 31u) == 1u) { return ~z; }
  return vec2<u32>(z.x, z.y | 0x80000000u);",
            "if ((m.y >> 31u) == 1u) { return vec2<u32>(m.x, m.y & 0x7fffffffu); }
  return ~m;",
        ),
        _ => return None,
    };
    Some(KeyMap { words, map, unmap })
}

/// Whether the radix path sorts keys of dtype `d` (after the widening of packed dtypes).
pub(crate) fn eligible(d: DType) -> bool {
    key_map(d).is_some()
}

/// The width's definitions radix.wgsl's header expects.
fn width_defs(words: usize) -> &'static str {
    if words == 1 {
        "alias KT = u32;
const KWORDS: u32 = 1u;
fn lo(k: KT) -> u32 { return k; }
fn hi(k: KT) -> u32 { return 0u; }
fn mk(x: u32, y: u32) -> KT { return x; }
"
    } else {
        "alias KT = vec2<u32>;
const KWORDS: u32 = 2u;
fn lo(k: KT) -> u32 { return k.x; }
fn hi(k: KT) -> u32 { return k.y; }
fn mk(x: u32, y: u32) -> KT { return vec2<u32>(x, y); }
"
    }
}

/// How the int64 values travel: none, moved with the keys, or written as the sorted positions.
#[derive(Clone, Copy, Hash, PartialEq)]
enum Vals {
    None,
    Moved,
    Positions,
}

/// Section `section` of radix.wgsl with the width's definitions and key maps, the value lines
/// kept or dropped for `vals`, the position lines for `indexed` (positions travel).
fn source(section: &str, km: &KeyMap, vals: Vals, indexed: bool) -> Result<String> {
    let mut parts = RADIX_WGSL.split("//@@ ");
    let head = parts.next().unwrap_or_default();
    let body = parts
        .find(|p| p.starts_with(section))
        .ok_or_else(|| Error::invalid("sort", format!("radix.wgsl has no section {section}")))?;
    let body = &body[section.len()..];
    let keep = |l: &&str| {
        (!l.contains("/*V*/") || vals != Vals::None)
            && (!l.contains("/*M*/") || vals == Vals::Moved)
            && (!l.contains("/*P*/") || vals == Vals::Positions)
            && (!l.contains("/*I*/") || indexed)
            && (!l.contains("/*K*/") || !indexed)
    };
    let src: String = format!("{head}{body}")
        .lines()
        .filter(keep)
        .collect::<Vec<_>>()
        .join("\n");
    Ok(format!(
        "{}fn map_key(r: KT) -> KT {{\n  {}\n}}\nfn unmap_key(m: KT) -> KT {{\n  {}\n}}\n{src}",
        width_defs(km.words),
        km.map,
        km.unmap
    ))
}

/// Sorts the C-contiguous `[batch, n]` keys `k` (a dtype [`eligible`] accepts, within one storage
/// binding) in place, moving the int64 `vals` (buffer, element offset) with them, or writing
/// each key's position in its row there when `positions` (argsort).
pub(crate) fn sort(
    be: &WgpuBackend,
    k: &WgpuBuffer,
    kl: &Layout,
    vals: Option<(&WgpuBuffer, usize)>,
    positions: bool,
) -> Result<()> {
    let d = k.dtype;
    let km = key_map(d).ok_or_else(|| {
        Error::invalid(
            "sort",
            format!("the radix sort does not take {d} keys (bitonic only)"),
        )
    })?;
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    let total = batch * n;
    if total == 0 {
        return Ok(());
    }
    if total >= 1 << 31 {
        return Err(Error::invalid(
            "sort",
            format!("{batch} rows of {n} keys: past 2^31 keys for one wgpu radix sort"),
        ));
    }
    let vmode = match vals {
        None => Vals::None,
        Some(_) if positions => Vals::Positions,
        Some(_) => Vals::Moved,
    };
    let tpr = n.div_ceil(TILE);
    let tiles = batch * tpr;
    let hlen = tiles * DIG;
    let nblk = hlen.div_ceil(TILE);
    let u = DType::UInt32;
    let words = km.words;
    let ka = be.alloc_words(u, total * words)?;
    let kb = be.alloc_words(u, total * words)?;
    // Positions and raw keys: one-word stand-ins (bound, never touched) while keys travel alone.
    let mut indexed = vmode != Vals::None;
    let positions = |n: usize| -> Result<[WgpuBuffer; 3]> {
        Ok([
            be.alloc_words(u, n)?,
            be.alloc_words(u, n)?,
            be.alloc_words(d, n)?,
        ])
    };
    let [mut ia, mut ib, mut orig] = positions(if indexed { total } else { 1 })?;
    let hist = be.alloc_words(u, hlen)?;
    let bsum = be.alloc_words(u, nblk)?;
    let flags = be.alloc_words(u, 5)?;
    let vorig = match vmode {
        Vals::Moved => Some(be.alloc_words(DType::Int64, total)?),
        _ => None,
    };
    let identity = KeyMap {
        words,
        map: "return r;",
        unmap: "return m;",
    };
    let pipe = |section: &str, rw: Vec<bool>, indexed: bool| {
        // Only `init` maps keys, only `fink` maps them back and only `init`/`fin` touch values:
        // the other passes are shared by every dtype of a width.
        let (map, vmode) = match section {
            "init" | "fink" => (&km, vmode),
            "fin" => (&identity, vmode),
            _ => (&identity, Vals::None),
        };
        let key = hash_of(&("radix", section, words, map.map, map.unmap, vmode, indexed));
        let name = match section {
            "init" | "fink" => format!("radix_{section}_{d}"),
            _ => format!("radix_{section}_{}", 32 * words),
        };
        be.pipeline(key, &name, &|| {
            Ok((
                source(section, map, vmode, indexed)?,
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words: 12,
                },
                rw.clone(),
            ))
        })
    };
    let meta = |shift: usize| {
        [
            n as u32,
            batch as u32,
            tpr as u32,
            shift as u32,
            kl.offset as u32,
            vals.map_or(0, |v| v.1) as u32,
            total as u32,
            nblk as u32,
            hlen as u32,
            0,
            0,
            0,
        ]
    };
    {
        let mut p = be.lock_pending()?;
        p.encoder(&be.device).clear_buffer(&flags.buf, 0, None);
        p.count += 1;
    }
    let init = |ia: &WgpuBuffer, orig: &WgpuBuffer, indexed: bool| -> Result<()> {
        let mut rw = vec![false, true, true, true, true];
        let mut bufs: Vec<&wgpu::Buffer> = vec![&k.buf, &ka.buf, &ia.buf, &orig.buf, &flags.buf];
        if let (Some((v, _)), Some(vo)) = (vals, &vorig) {
            rw.extend([false, true]);
            bufs.extend([&v.buf, &vo.buf]);
        }
        let p = pipe("init", rw, indexed)?;
        be.dispatch(
            &p,
            &p.meta.pack(&[], &meta(0)),
            &bufs,
            total.div_ceil(TILE) as u64,
        )
    };
    init(&ia, &orig, indexed)?;
    // Bits that differ between some two keys (digits without any are skipped), and whether a
    // key does not map back exactly (keys-only `init`).
    let f: Vec<u32> = be.read_mapped(&flags, 0, 5, |b| {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })?;
    if !indexed && f[4] != 0 {
        // A NaN or -0.0: positions travel, and `fin` gathers the raw keys.
        [ia, ib, orig] = positions(total)?;
        indexed = true;
        init(&ia, &orig, indexed)?;
    }
    let differ = [f[0] & f[2], f[1] & f[3]];
    let shifts: Vec<usize> = (0..32 * words)
        .step_by(8)
        .filter(|&s| (differ[s / 32] >> (s % 32)) & 0xff != 0)
        .collect();
    if shifts.is_empty() && vmode != Vals::Positions {
        // Every key maps to the same words: the order is already the stable one (argsort's
        // positions, whose values' contents are ignored, are still written by `fin`).
        return Ok(());
    }
    let up = pipe("up", vec![false, true], true)?;
    let hred = pipe("hred", vec![false, true], true)?;
    let hspine = pipe("hspine", vec![true], true)?;
    let hdown = pipe("hdown", vec![true, false], true)?;
    let down = pipe("down", vec![false, false, false, true, true], indexed)?;
    let (mut src, mut dst) = ((&ka, &ia), (&kb, &ib));
    for &s in &shifts {
        let m = up.meta.pack(&[], &meta(s));
        be.dispatch(&up, &m, &[&src.0.buf, &hist.buf], tiles as u64)?;
        be.dispatch(&hred, &m, &[&hist.buf, &bsum.buf], nblk as u64)?;
        be.dispatch(&hspine, &m, &[&bsum.buf], 1)?;
        be.dispatch(&hdown, &m, &[&hist.buf, &bsum.buf], nblk as u64)?;
        be.dispatch(
            &down,
            &m,
            &[&src.0.buf, &src.1.buf, &hist.buf, &dst.0.buf, &dst.1.buf],
            tiles as u64,
        )?;
        std::mem::swap(&mut src, &mut dst);
    }
    if !indexed {
        let fink = pipe("fink", vec![true, false], false)?;
        return be.dispatch(
            &fink,
            &fink.meta.pack(&[], &meta(0)),
            &[&k.buf, &src.0.buf],
            total.div_ceil(128) as u64,
        );
    }
    let mut rw = vec![true, false, false];
    let mut bufs: Vec<&wgpu::Buffer> = vec![&k.buf, &src.1.buf, &orig.buf];
    if let Some((v, _)) = vals {
        rw.push(true);
        bufs.push(&v.buf);
        if let Some(vo) = &vorig {
            rw.push(false);
            bufs.push(&vo.buf);
        }
    }
    let fin = pipe("fin", rw, true)?;
    be.dispatch(
        &fin,
        &fin.meta.pack(&[], &meta(0)),
        &bufs,
        total.div_ceil(128) as u64,
    )
}
