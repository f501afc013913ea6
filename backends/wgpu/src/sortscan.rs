//! Scans (`shaders/scan.wgsl`) and stable sorts (`shaders/sort.wgsl`) along the last axis.
//!
//! - Scan: one workgroup per row, chunks of 256 elements scanned in workgroup memory with the
//!   running total carried between chunks (any row length). Integers wrap. Packed dtypes
//!   (bool, 8/16-bit integers, float16/bfloat16) run on an int32/uint32/float32 copy
//!   (`widen.rs`): 8/16-bit integers wrap at the cast back, bool's 0/1 sums and products cast
//!   back as `or`/`and`, float16/bfloat16 accumulate in float32 and are rounded once per output
//!   element (NumPy rounds after every step; the difference is within the scan's rounding-error
//!   bound). Complex sums add the parts; complex products are NumPy's multiply (the emitter's
//!   `cx_mul`).
//! - Sort: rows of at least [`crate::radix_min_row`] keys of a real dtype take the LSD radix
//!   sort of `radix.rs`; shorter rows and complex keys a bitonic network over (key, original position) pairs with ties broken by position
//!   (stable), NaN last, `-0.0 == 0.0`; then a gather writes the keys (and int64 values) in
//!   sorted order from copies made by the first pass (packed keys: on a widened copy, as the
//!   scan). Complex keys (`vec2`) sort in NumPy's
//!   order: lexicographic, with the NaN classes `R + Rj`, `R + nanj`, `nan + Rj`, `nan + nanj`. Stages with distance < 1024 run in
//!   workgroup memory, longer ones one dispatch each.

use crate::widen::wide_of;
use crate::{backend_err, hash_of, WgpuBackend, WgpuBuffer};
use cupy_core::backend::{Operand, ScanCall, ScanOp, SortCall};
use cupy_core::kernel::wgsl::{self, MetaLayout};
use cupy_core::{DType, Error, Layout, Result};

const SCAN_WGSL: &str = include_str!("../../../shaders/scan.wgsl");
const SORT_WGSL: &str = include_str!("../../../shaders/sort.wgsl");

/// Block of the sort's workgroup-local stages (the `sk`/`si` arrays in sort.wgsl).
const SORT_BLOCK: usize = 1024;

/// NumPy's sort order of complex keys (`npysort`'s `CFLOAT_LT`): lexicographic, with the NaN
/// classes `R + Rj`, `R + nanj`, `nan + Rj`, `nan + nanj` in that order.
fn complex_sort_less(d: DType) -> String {
    let nan = |x: &str| {
        if d == DType::Complex128 {
            format!("!({x} == {x})")
        } else {
            format!("isnan_f32({x})")
        }
    };
    format!(
        "fn cx_sort_lt(a: K, b: K) -> bool {{
  let an = {};
  let bn = {};
  let ain = {};
  let bin_ = {};
  if (a.x < b.x) {{ return !ain || bin_; }}
  if (a.x > b.x) {{ return bin_ && !ain; }}
  if (a.x == b.x || (an && bn)) {{ return a.y < b.y || (bin_ && !ain); }}
  return bn;
}}
",
        nan("a.x"),
        nan("b.x"),
        nan("a.y"),
        nan("b.y")
    )
}

/// The WGSL storage word type of a dtype (see the crate docs).
fn word_type(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool | DType::UInt8 | DType::UInt16 | DType::UInt32 => "u32",
        DType::Int8 | DType::Int16 | DType::Int32 => "i32",
        DType::Float16 | DType::BFloat16 | DType::Float32 => "f32",
        DType::Int64 => "i64",
        DType::UInt64 => "u64",
        DType::Float64 => "f64",
        DType::Complex64 => "vec2<f32>",
        DType::Complex128 => "vec2<f64>",
    })
}

fn meta(n_words: usize) -> MetaLayout {
    MetaLayout {
        params: vec![],
        words_offset: 0,
        n_words,
    }
}

/// Checks a `[batch, n]` layout lies inside a buffer of `len` elements and fits i32 arithmetic.
fn check_2d(op: &str, what: &str, l: &Layout, len: usize) -> Result<()> {
    if l.shape.len() != 2 || l.strides.len() != 2 {
        return Err(Error::invalid(
            op,
            format!("{what}: expected a [batch, n] layout, got {l:?}"),
        ));
    }
    if l.size() == 0 {
        return Ok(());
    }
    let (lo, hi) = l.extent();
    if lo < 0 || hi as usize > len || hi as u64 >= (1 << 31) {
        return Err(Error::invalid(
            op,
            format!("{what}: layout {l:?} outside its buffer of {len} elements (or past 2^31)"),
        ));
    }
    Ok(())
}

impl WgpuBackend {
    fn word_type_or_refuse(&self, op: &str, d: DType) -> Result<&'static str> {
        self.check_dtype(op, d)?;
        word_type(d).ok_or_else(|| {
            cupy_core::backend::dtype_unsupported(op, d, &self.info, "not supported on wgpu yet")
        })
    }
}

pub(crate) fn scan(be: &WgpuBackend, call: &ScanCall<'_>) -> Result<()> {
    let op = match call.op {
        ScanOp::Sum => "cumsum",
        ScanOp::Prod => "cumprod",
    };
    let x = be.buf(call.input.buffer, op)?;
    let y = be.buf(call.output.buffer, op)?;
    let d = y.dtype;
    if x.dtype != d {
        return Err(Error::invalid(
            op,
            format!("input {} and output {d} differ", x.dtype),
        ));
    }
    let elem = be.word_type_or_refuse(op, d)?;
    let (il, ol) = (&call.input.layout, &call.output.layout);
    check_2d(op, "input", il, x.len)?;
    check_2d(op, "output", ol, y.len)?;
    if il.shape != ol.shape || !ol.is_c_contiguous() {
        return Err(Error::invalid(
            op,
            format!(
                "output must be C-contiguous of the input's shape {:?}, got {ol:?}",
                il.shape
            ),
        ));
    }
    let (batch, n) = (il.shape[0], il.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    let aliased = x.id == y.id;
    if aliased && il != ol {
        return Err(Error::invalid(
            op,
            "input and output share a buffer with different layouts",
        ));
    }
    if let Some(w) = wide_of(d) {
        // Packed 8/16-bit elements: scanned as 32-bit words (wrapping sums and products agree
        // once truncated; bool's 0/1 sum and product cast back as `or`/`and`).
        let cl = Layout::contiguous(&il.shape);
        let t = be.temp(w, batch * n)?;
        be.cast_into(call.input.buffer, il, &t, &cl)?;
        let tw = Operand {
            buffer: &t,
            layout: cl.clone(),
        };
        scan(
            be,
            &ScanCall {
                op: call.op,
                input: tw.clone(),
                output: tw,
            },
        )?;
        return be.cast_into(&t, &cl, call.output.buffer, ol);
    }
    let acc = elem;
    let mut cx_helpers = String::new();
    let cx_mul;
    let (ident, combine) = match (call.op, d) {
        (ScanOp::Sum, _) => ("0", "a + b"),
        // NumPy's complex multiply (one fused multiply-add per part), from the emitter's
        // library; `mt.batch` (below 2^31) makes its unfoldable zero.
        (ScanOp::Prod, d) if d.is_complex() => {
            let (names, src) = wgsl::complex_helpers(&["cx_mul"], d, &be.opts, "mt.batch")?;
            cx_helpers = src;
            cx_mul = format!("{}(a, b)", names[0]);
            ("1.0, 0.0", cx_mul.as_str())
        }
        (ScanOp::Prod, _) => ("1", "a * b"),
    };
    let store = "v";
    let helpers = cx_helpers;
    let key = hash_of(&("scan", elem, d.name(), ident, combine, aliased));
    let pipe = be.pipeline(key, op, &|| {
        let mut src: String = SCAN_WGSL
            .lines()
            .filter(|l| !(aliased && l.contains("/*X*/")))
            .collect::<Vec<_>>()
            .join("\n");
        if aliased {
            src = src.replace("X[", "Y[");
        }
        let src = src
            .replace("ELEM", elem)
            .replace("ACC", acc)
            .replace("IDENT", ident)
            .replace("COMBINE", combine)
            .replace("STORE", store)
            .replace("CAB", if aliased { "2" } else { "3" })
            .replace("//HELPERS", &helpers);
        let rw = if aliased {
            vec![true, true]
        } else {
            vec![true, false, true]
        };
        Ok((src, meta(8), rw))
    })?;
    // Elements of a row per dispatch: all, unless the driver caps loops; a chunk of 256 costs
    // 10 loop passes (the chunk loop and the 8 steps of the tree).
    let span = match be.loop_budget() {
        Some(b) => (crate::plan_budget(b).saturating_sub(16) / 10).max(1) as usize * 256,
        None => n.div_ceil(256) * 256,
    };
    let carry = be.alloc_words(d, batch)?;
    let mut bufs: Vec<&wgpu::Buffer> = if aliased {
        vec![&y.buf]
    } else {
        vec![&y.buf, &x.buf]
    };
    bufs.push(&carry.buf);
    let mut lo = 0usize;
    while lo < n {
        let hi = (lo + span).min(n);
        let w = [
            batch as u32,
            n as u32,
            il.offset as u32,
            il.strides[0] as i32 as u32,
            il.strides[1] as i32 as u32,
            ol.offset as u32,
            lo as u32,
            hi as u32,
        ];
        let m = pipe.meta.pack(&[], &w);
        be.dispatch(&pipe, &m, &bufs, batch as u64)?;
        lo = hi;
    }
    Ok(())
}

/// The sections of sort.wgsl: the common header, then `init`, `local`, `global`, `gather`.
fn sort_source(
    section: &str,
    elem: &str,
    less: &str,
    helpers: &str,
    values: bool,
) -> Result<String> {
    let mut parts = SORT_WGSL.split("//@@ ");
    let head = parts.next().unwrap_or_default();
    let body = parts
        .find(|p| p.starts_with(section))
        .ok_or_else(|| Error::invalid("sort", format!("sort.wgsl has no section {section}")))?;
    let body = &body[section.len()..];
    let src: String = format!("{head}{body}")
        .lines()
        .filter(|l| values || !l.contains("/*V*/"))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(src
        .replace("fn key_less", &format!("{helpers}fn key_less"))
        .replace("ELEM", elem)
        .replace("LESS", less))
}

/// Argsort on the paths that move values (`values_are_positions`, whose values' contents are
/// ignored): the values start as the row positions, `i % n` in one dispatch.
fn fill_positions(be: &WgpuBackend, call: &SortCall<'_>) -> Result<()> {
    use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel};
    use cupy_core::Backend;
    let (true, Some(v)) = (call.values_are_positions, &call.values) else {
        return Ok(());
    };
    let n = v.layout.shape[1].max(1);
    let k = Kernel::map(
        "sort_positions",
        vec![],
        vec![DType::Int64],
        Expr::binary(BinaryOp::Mod, Expr::index(), Expr::param(0, DType::Int64)),
    );
    be.elementwise(&cupy_core::backend::ElementwiseCall {
        kernel: &k,
        shape: v.layout.shape.clone(),
        inputs: vec![],
        outputs: vec![v.clone()],
        raws: vec![],
        params: vec![cupy_core::Scalar::Int64(n as i64)],
    })
}

pub(crate) fn sort(be: &WgpuBackend, call: &SortCall<'_>) -> Result<()> {
    let op = "sort";
    let k = be.buf(call.keys.buffer, op)?;
    let d = k.dtype;
    let elem = be.word_type_or_refuse(op, d)?;
    let kl = &call.keys.layout;
    check_2d(op, "keys", kl, k.len)?;
    if !kl.is_c_contiguous() {
        return Err(Error::invalid(op, "the keys must be C-contiguous"));
    }
    let vals: Option<&WgpuBuffer> = match &call.values {
        None => None,
        Some(v) => {
            let vb = be.buf(v.buffer, op)?;
            if vb.dtype != DType::Int64 {
                return Err(Error::invalid(
                    op,
                    format!("values must be int64, not {}", vb.dtype),
                ));
            }
            be.check_dtype(op, DType::Int64)?;
            check_2d(op, "values", &v.layout, vb.len)?;
            if v.layout != *kl {
                return Err(Error::invalid(
                    op,
                    "the values must have the keys' (C-contiguous) layout",
                ));
            }
            if vb.id == k.id {
                return Err(Error::invalid(op, "keys and values share a buffer"));
            }
            Some(vb)
        }
    };
    let (batch, n) = (kl.shape[0], kl.shape[1]);
    if batch * n == 0 {
        return Ok(());
    }
    if let Some(w) = wide_of(d) {
        // Packed 8/16-bit keys: sorted as 32-bit words in a temporary of the keys' layout.
        let t = be.temp(w, k.len)?;
        be.cast_into(call.keys.buffer, kl, &t, kl)?;
        sort(
            be,
            &SortCall {
                keys: Operand {
                    buffer: &t,
                    layout: kl.clone(),
                },
                values: call.values.clone(),
                values_are_positions: call.values_are_positions,
                source: None,
                discard_keys: false,
            },
        )?;
        return be.cast_into(&t, kl, call.keys.buffer, kl);
    }
    {
        let cap = be.binding_cap;
        let wb = crate::buffer::word_bytes(d);
        let has_v = vals.is_some();
        let need = k.buf.size() > cap
            || vals.is_some_and(|v| v.buf.size() > cap)
            || crate::sortbig::sort_bytes(batch, n, wb, has_v) > cap
            || (batch * n * wb) as u64 > cap;
        if need {
            fill_positions(be, call)?;
            let vw = vals.zip(call.values.as_ref().map(|v| v.layout.offset));
            return crate::sortbig::sort_big(be, k, kl, vw);
        }
    }
    if crate::radix::eligible(d) && n >= crate::radix::radix_min_row() {
        let vw = vals.zip(call.values.as_ref().map(|v| v.layout.offset));
        return crate::radix::sort(be, k, kl, vw, call.values_are_positions);
    }
    fill_positions(be, call)?;
    let big_n = n.next_power_of_two();
    let flat = batch
        .checked_mul(big_n)
        .filter(|&f| f < (1 << 30))
        .ok_or_else(|| {
            backend_err(
                &be.label(),
                format!("sort of {batch} rows of {n}: too many elements for one wgpu sort"),
            )
        })?;
    let e = SORT_BLOCK.min(flat.next_power_of_two());
    let total = flat.div_ceil(e) * e;
    let less = match d {
        DType::Float32 => "!isnan_f32(a) && (isnan_f32(b) || a < b)",
        DType::Float64 => "(a == a) && (!(b == b) || a < b)",
        DType::Complex64 | DType::Complex128 => "cx_sort_lt(a, b)",
        _ => "a < b",
    };
    let helpers = if d.is_complex() {
        complex_sort_less(d)
    } else {
        String::new()
    };
    let has_v = vals.is_some();
    let tk = be.alloc_words(d, total)?;
    let ti = be.alloc_words(DType::UInt32, total)?;
    let orig = be.alloc_words(d, batch * n)?;
    let vorig = if has_v {
        Some(be.alloc_words(DType::Int64, batch * n)?)
    } else {
        None
    };
    let pipe = |section: &str, rw: Vec<bool>| {
        let key = hash_of(&("sort", section, elem, less, &helpers, has_v));
        be.pipeline(key, &format!("sort_{section}_{elem}"), &|| {
            Ok((
                sort_source(section, elem, less, &helpers, has_v)?,
                meta(12),
                rw.clone(),
            ))
        })
    };
    let words = |kk: usize, j: usize| {
        [
            n as u32,
            big_n as u32,
            total as u32,
            kk as u32,
            j as u32,
            batch as u32,
            kl.offset as u32,
            call.values.as_ref().map_or(0, |v| v.layout.offset) as u32,
            e as u32,
            0,
            0,
            0,
        ]
    };
    let wg = 256u64;
    // init
    {
        let mut rw = vec![false, true, true, true];
        let mut bufs: Vec<&wgpu::Buffer> = vec![&k.buf, &tk.buf, &ti.buf, &orig.buf];
        if let (Some(v), Some(vo)) = (vals, &vorig) {
            rw.extend([false, true]);
            bufs.extend([&v.buf, &vo.buf]);
        }
        let p = pipe("init", rw)?;
        be.dispatch(
            &p,
            &p.meta.pack(&[], &words(0, 0)),
            &bufs,
            (total as u64).div_ceil(wg),
        )?;
    }
    let local = pipe("local", vec![true, true])?;
    let global = pipe("global", vec![true, true])?;
    let blocks = (total / e) as u64;
    be.dispatch(
        &local,
        &local.meta.pack(&[], &words(0, 0)),
        &[&tk.buf, &ti.buf],
        blocks,
    )?;
    let mut kk = 2 * e;
    while kk <= big_n {
        let mut j = kk / 2;
        while j >= e {
            be.dispatch(
                &global,
                &global.meta.pack(&[], &words(kk, j)),
                &[&tk.buf, &ti.buf],
                (total as u64 / 2).div_ceil(wg),
            )?;
            j /= 2;
        }
        be.dispatch(
            &local,
            &local.meta.pack(&[], &words(kk, 0)),
            &[&tk.buf, &ti.buf],
            blocks,
        )?;
        kk *= 2;
    }
    // gather
    {
        let mut rw = vec![true, false, false];
        let mut bufs: Vec<&wgpu::Buffer> = vec![&k.buf, &ti.buf, &orig.buf];
        if let (Some(v), Some(vo)) = (vals, &vorig) {
            rw.extend([true, false]);
            bufs.extend([&v.buf, &vo.buf]);
        }
        let p = pipe("gather", rw)?;
        be.dispatch(
            &p,
            &p.meta.pack(&[], &words(0, 0)),
            &bufs,
            ((batch * n) as u64).div_ceil(wg),
        )?;
    }
    Ok(())
}
