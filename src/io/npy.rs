//! NumPy's `.npy` format (`numpy.lib.format`, versions 1.0, 2.0 and 3.0): one array per file,
//! a magic string, a Python-literal header dict (`descr`, `fortran_order`, `shape`) and the raw
//! elements. The header's Python literal is parsed by the `py_literal` crate; the framing, the
//! limits, the dtype mapping and the data are ours, so a hostile or truncated file is an `Err`,
//! never a panic or an allocation the file's size does not back.
//!
//! Format reference: NumPy's `numpy/lib/format.py` (NEP 1), which also fixes the header limit
//! this reader uses (`max_header_size = 10000` bytes, NumPy's default for `np.load`).

use crate::{Array, DType, Device, Error, Result};
use std::io::{Read, Write};

/// `\x93NUMPY`, the first six bytes of every `.npy` file.
pub(crate) const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// NumPy's default `max_header_size` for `np.load` (bytes of header text).
const MAX_HEADER: usize = 10_000;
/// Deepest bracket nesting a header of a plain (non-structured) array needs is 2 (`{...(..)}`);
/// structured dtypes nest a little more. Anything deeper is refused before parsing.
const MAX_NESTING: usize = 8;

fn io_err(op: &str, what: impl std::fmt::Display) -> Error {
    Error::invalid(op, what.to_string())
}

/// The `descr` of a dtype as NumPy writes it (little-endian).
///
/// # Errors
/// [`Error::InvalidArgument`] for bfloat16, which NumPy has no dtype for.
pub(crate) fn descr_of(op: &str, dtype: DType) -> Result<&'static str> {
    Ok(match dtype {
        DType::Bool => "|b1",
        DType::Int8 => "|i1",
        DType::Int16 => "<i2",
        DType::Int32 => "<i4",
        DType::Int64 => "<i8",
        DType::UInt8 => "|u1",
        DType::UInt16 => "<u2",
        DType::UInt32 => "<u4",
        DType::UInt64 => "<u8",
        DType::Float16 => "<f2",
        DType::Float32 => "<f4",
        DType::Float64 => "<f8",
        DType::Complex64 => "<c8",
        DType::Complex128 => "<c16",
        DType::BFloat16 => {
            return Err(io_err(
                op,
                "bfloat16 has no NumPy dtype, so it has no .npy descr; save astype(float32)",
            ))
        }
    })
}

/// Our dtype for a NumPy type character and byte size, if we have one.
fn dtype_of(kind: char, size: u64) -> Option<DType> {
    Some(match (kind, size) {
        ('b', 1) => DType::Bool,
        ('i', 1) => DType::Int8,
        ('i', 2) => DType::Int16,
        ('i', 4) => DType::Int32,
        ('i', 8) => DType::Int64,
        ('u', 1) => DType::UInt8,
        ('u', 2) => DType::UInt16,
        ('u', 4) => DType::UInt32,
        ('u', 8) => DType::UInt64,
        ('f', 2) => DType::Float16,
        ('f', 4) => DType::Float32,
        ('f', 8) => DType::Float64,
        ('c', 8) => DType::Complex64,
        ('c', 16) => DType::Complex128,
        _ => return None,
    })
}

/// Writes `a` in `.npy` format to `w`: version 1.0 (2.0 if the header outgrows 1.0's 16-bit
/// length), C order, little-endian, the header padded so the data starts on a 64-byte boundary
/// as NumPy pads it (`numpy.lib.format.write_array`).
///
/// # Errors
/// [`Error::InvalidArgument`] for bfloat16 or a failed write (the I/O error's text); device
/// errors reading the array.
pub fn write_array<W: Write>(mut w: W, a: &Array) -> Result<()> {
    let op = "write_array";
    let bytes = encode(op, a)?;
    w.write_all(&bytes)
        .and_then(|_| w.flush())
        .map_err(|e| io_err(op, format!("writing .npy data failed: {e}")))
}

/// The whole `.npy` file of `a` (header and data) in memory.
pub(crate) fn encode(op: &str, a: &Array) -> Result<Vec<u8>> {
    let mut bytes = header_bytes(op, a.dtype(), a.shape())?;
    bytes.extend_from_slice(&a.to_bytes()?);
    Ok(bytes)
}
routine!(
    write_array as "numpy.lib.format.write_array",
    Io,
    notes: "version 1.0 (2.0 for long headers), C order, little-endian; bfloat16 refused"
);

/// The magic, version, length and padded header text for `dtype` and `shape`.
pub(crate) fn header_bytes(op: &str, dtype: DType, shape: &[usize]) -> Result<Vec<u8>> {
    let descr = descr_of(op, dtype)?;
    let dims = match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut text = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // Version 1.0 frames the text with 10 bytes (magic, version, u16 length); pad with spaces
    // and a final newline to a multiple of 64 in all.
    let framed = |prefix: usize, t: &str| (prefix + t.len() + 1).div_ceil(64) * 64 - prefix - 1;
    let (major, prefix) = if framed(10, &text) <= u16::MAX as usize {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let padded = framed(prefix, &text);
    text.extend(std::iter::repeat_n(' ', padded - text.len()));
    text.push('\n');
    let mut out = Vec::with_capacity(prefix + text.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(text.as_bytes());
    Ok(out)
}

/// Reads one `.npy` array from `r` onto `device`: versions 1.0, 2.0 and 3.0; little- and
/// big-endian data (byte-swapped on the host); C or Fortran order (a Fortran-order file gives
/// an F-contiguous array, as NumPy does); bool bytes other than 0 and 1 read as `True`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `read_array` and what is wrong: not an `.npy` stream (bad
/// magic), an unknown version, a header longer than NumPy's 10,000-byte limit or nested deeper
/// than a header can be, a header that does not parse, a dtype cupy-rs has no array type for
/// (strings, objects/pickles, datetimes, structured records), a shape whose byte size
/// overflows, or data shorter than the shape needs (trailing bytes are ignored, as NumPy's
/// `read_array` ignores them). Device errors creating the array.
pub fn read_array<R: Read>(r: R) -> Result<Array> {
    read_array_on(&Device::current()?, r, "read_array")
}
routine!(
    read_array as "numpy.lib.format.read_array",
    Io,
    notes: "versions 1.0-3.0, either byte order, C or Fortran order; no pickles, strings or records"
);

pub(crate) fn read_array_on<R: Read>(device: &Device, mut r: R, op: &str) -> Result<Array> {
    let mut start = [0u8; 8];
    r.read_exact(&mut start).map_err(|e| {
        io_err(
            op,
            format!("not a .npy stream: reading the magic failed ({e})"),
        )
    })?;
    if &start[..6] != MAGIC {
        return Err(io_err(
            op,
            format!(
                "not a .npy stream: the magic is {:?}, not \\x93NUMPY",
                &start[..6]
            ),
        ));
    }
    let (major, minor) = (start[6], start[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(io_err(
                op,
                format!("unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are)"),
            ))
        }
    };
    let mut len = [0u8; 4];
    r.read_exact(&mut len[..len_bytes])
        .map_err(|e| io_err(op, format!("truncated .npy header length ({e})")))?;
    let header_len = u32::from_le_bytes(len) as usize;
    if header_len > MAX_HEADER {
        return Err(io_err(
            op,
            format!("header of {header_len} bytes exceeds NumPy's max_header_size of {MAX_HEADER}"),
        ));
    }
    let mut text = vec![0u8; header_len];
    r.read_exact(&mut text)
        .map_err(|e| io_err(op, format!("truncated .npy header ({e})")))?;
    if major < 3 && !text.is_ascii() {
        return Err(io_err(
            op,
            format!("a version {major}.0 header must be ASCII"),
        ));
    }
    let depth = text
        .iter()
        .scan(0i64, |d, &c| {
            match c {
                b'{' | b'(' | b'[' => *d += 1,
                b'}' | b')' | b']' => *d -= 1,
                _ => {}
            }
            Some(*d)
        })
        .max()
        .unwrap_or(0);
    if depth > MAX_NESTING as i64 {
        return Err(io_err(op, format!("header nests {depth} brackets deep")));
    }
    let header = parse_header(op, &text)?;
    let (endian, kind, size) = header.descr;
    let dtype = dtype_of(kind, size).ok_or_else(|| {
        let why = match kind {
            'O' => " (object arrays need pickle, which cupy-rs never runs)",
            'S' | 'U' | 'a' => " (strings have no cupy-rs dtype)",
            'M' | 'm' => " (datetimes have no cupy-rs dtype)",
            _ => "",
        };
        io_err(
            op,
            format!("dtype '{}' is not supported{why}", header.descr_text),
        )
    })?;
    let mut shape = Vec::with_capacity(header.shape.len());
    let mut size: usize = 1;
    for &d in &header.shape {
        size = size
            .checked_mul(d)
            .ok_or_else(|| io_err(op, format!("shape {:?} overflows", header.shape)))?;
        shape.push(d);
    }
    let itemsize = dtype.itemsize();
    let nbytes = size
        .checked_mul(itemsize)
        .ok_or_else(|| io_err(op, format!("shape {shape:?} of {dtype} overflows")))?;
    // Read through `take`: the buffer grows with the data actually there, so a header that
    // claims more than the stream holds fails without allocating what it claims.
    let mut data = Vec::new();
    r.take(nbytes as u64)
        .read_to_end(&mut data)
        .map_err(|e| io_err(op, format!("reading .npy data failed ({e})")))?;
    if data.len() != nbytes {
        return Err(io_err(
            op,
            format!(
                "truncated data: shape {shape:?} of {dtype} needs {nbytes} bytes, the stream has {}",
                data.len()
            ),
        ));
    }
    if endian == '>' && itemsize > 1 {
        let part = if dtype.is_complex() {
            itemsize / 2
        } else {
            itemsize
        };
        data.chunks_exact_mut(part).for_each(|c| c.reverse());
    }
    if dtype == DType::Bool {
        data.iter_mut().for_each(|b| *b = (*b != 0) as u8);
    }
    if header.fortran_order && shape.len() > 1 {
        let reversed: Vec<usize> = shape.iter().rev().copied().collect();
        let c = Array::from_bytes_on(device, &data, &reversed, dtype)?;
        let axes: Vec<isize> = (0..shape.len() as isize).rev().collect();
        return c.transpose(&axes);
    }
    Array::from_bytes_on(device, &data, &shape, dtype)
}

/// What a `.npy` header says.
struct Header {
    /// Byte order (`<`, `>`, `|`), type character, byte size.
    descr: (char, char, u64),
    /// The type string as the file spells it.
    descr_text: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Parses the header text: a Python dict with exactly the keys `descr` (a type string such as
/// `'<f4'`), `fortran_order` (a bool) and `shape` (a tuple of non-negative ints).
fn parse_header(op: &str, text: &[u8]) -> Result<Header> {
    use num_traits::ToPrimitive;
    use py_literal::Value;
    let bad = |what: String| io_err(op, format!("bad .npy header: {what}"));
    let text = std::str::from_utf8(text).map_err(|_| bad("not UTF-8".into()))?;
    let value: Value = text
        .trim_end_matches(['\n', ' ', '\0'])
        .parse()
        .map_err(|e| bad(format!("not a Python literal ({e})")))?;
    let Value::Dict(items) = value else {
        return Err(bad(format!("{text:?} is not a dict")));
    };
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    for (key, v) in items {
        match (key, v) {
            (Value::String(k), Value::String(d)) if k == "descr" => descr = Some(d),
            (Value::String(k), Value::List(_)) if k == "descr" => {
                return Err(io_err(
                    op,
                    "structured (record) dtypes are not supported: cupy-rs arrays hold one numeric dtype",
                ))
            }
            (Value::String(k), Value::Boolean(b)) if k == "fortran_order" => fortran_order = Some(b),
            (Value::String(k), Value::Tuple(dims)) if k == "shape" => {
                let dims = dims
                    .iter()
                    .map(|d| match d {
                        Value::Integer(i) => i.to_usize(),
                        _ => None,
                    })
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(|| bad(format!("shape {dims:?} is not a tuple of non-negative ints")))?;
                shape = Some(dims);
            }
            (k, v) => return Err(bad(format!("unexpected entry {k}: {v}"))),
        }
    }
    let (Some(descr), Some(fortran_order), Some(shape)) = (descr, fortran_order, shape) else {
        return Err(bad(
            "it needs the keys 'descr', 'fortran_order' and 'shape'".into(),
        ));
    };
    // A descr without a byte-order character (`'f8'`) is native order, as NumPy's
    // `descr_to_dtype` reads it.
    let mut chars = descr.chars();
    let endian = match descr.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => Some('='),
        c => {
            chars.next();
            c.filter(|c| matches!(c, '<' | '>' | '|' | '='))
        }
    };
    let kind = chars.next();
    // The digits of the size; datetimes add a unit (`<M8[ns]`).
    let rest = chars.as_str();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let unit_ok = digits == rest.len()
        || (matches!(kind, Some('M' | 'm')) && rest[digits..].starts_with('['));
    // Objects (`|O`) carry no size.
    let size = match (kind, &rest[..digits]) {
        (Some('O'), "") => Some(0),
        (_, d) => d.parse::<u64>().ok().filter(|_| unit_ok),
    };
    let (Some(endian), Some(kind), Some(size)) = (endian, kind, size) else {
        return Err(bad(format!(
            "descr {descr:?} is not a type string such as '<f4'"
        )));
    };
    // '=' is the writer's native order; every NumPy build that writes '=' is little-endian
    // in practice, and NumPy itself writes '<' or '>' explicitly.
    let endian = if endian == '=' { '<' } else { endian };
    Ok(Header {
        descr: (endian, kind, size),
        descr_text: descr.clone(),
        fortran_order,
        shape,
    })
}
