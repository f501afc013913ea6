//! `save_npz` / `load_npz` in SciPy's format: a zip of `.npy` members `format` (a 0-d bytes
//! array, `b'csr'`), `shape` (int64), `data`, and `indices`/`indptr` (CSR, CSC), `row`/`col`
//! (COO) or `offsets` (DIA). Arrays go through the host (as `cupy.save` does); loading puts
//! the matrix on the current device.

use super::base::{Format, Sparse, SparseMatrix};
use crate::array::Array;
use crate::io::{read_array, write_array};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use std::io::{Read, Write};
use std::path::Path;

fn io_err(op: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::invalid(op, format!("{}: {e}", path.display()))
}

/// The `.npy` bytes of a 0-d `|S<n>` array holding `s` (NumPy's format 1.0 header, padded to
/// 64 bytes).
fn npy_bytes_scalar(s: &str) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '|S{}', 'fortran_order': False, 'shape': (), }}",
        s.len()
    );
    let mut h = dict.into_bytes();
    let total = 10 + h.len() + 1;
    let pad = (64 - total % 64) % 64;
    h.extend(std::iter::repeat_n(b' ', pad));
    h.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((h.len() as u16).to_le_bytes());
    out.extend(h);
    out.extend(s.as_bytes());
    out
}

/// The string of a 0-d `|S<n>` (or `<U<n>`) `.npy` member.
fn npy_string(op: &str, b: &[u8]) -> Result<String> {
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err(Error::invalid(op, "the format member is not a .npy file"));
    }
    let (hl, start) = if b[6] == 1 {
        (u16::from_le_bytes([b[8], b[9]]) as usize, 10)
    } else {
        (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
    };
    let header = String::from_utf8_lossy(b.get(start..start + hl).unwrap_or_default());
    let data = b.get(start + hl..).unwrap_or_default();
    let s: String = if header.contains("<U") {
        data.chunks(4)
            .filter_map(|c| c.try_into().ok().map(u32::from_le_bytes))
            .filter_map(char::from_u32)
            .collect()
    } else {
        String::from_utf8_lossy(data).into()
    };
    Ok(s.trim_end_matches('\0').to_owned())
}

/// SciPy's `save_npz(file, matrix, compressed=True)`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `save_npz` with the path when it cannot be written; device
/// errors.
pub fn save_npz(path: impl AsRef<Path>, m: &dyn SparseMatrix, compressed: bool) -> Result<()> {
    let op = "save_npz";
    let path = path.as_ref();
    let (rows, cols) = m.shape();
    let shape = Array::from_slice_on(m.device(), &[rows as i64, cols as i64], &[2])?;
    let format = m.format();
    let arrays: Vec<(&str, Array)> = match format {
        Format::Csr => {
            let c = m.tocsr()?;
            vec![
                ("indices", c.indices().clone()),
                ("indptr", c.indptr().clone()),
                ("data", c.data().clone()),
            ]
        }
        Format::Csc => {
            let c = m.tocsc()?;
            vec![
                ("indices", c.indices().clone()),
                ("indptr", c.indptr().clone()),
                ("data", c.data().clone()),
            ]
        }
        Format::Coo => {
            let c = m.tocoo()?;
            vec![
                ("row", c.row().clone()),
                ("col", c.col().clone()),
                ("data", c.data().clone()),
            ]
        }
        Format::Dia => {
            let c = m.todia()?;
            vec![("offsets", c.offsets().clone()), ("data", c.data().clone())]
        }
        Format::Bsr => {
            let c = m.tobsr(None)?;
            vec![
                ("indices", c.indices().clone()),
                ("indptr", c.indptr().clone()),
                ("data", c.data().clone()),
            ]
        }
        Format::Lil | Format::Dok => {
            return Err(Error::invalid(
                op,
                format!(
                    "save_npz saves csc, csr, bsr, dia and coo matrices, not {} (convert it first, as SciPy asks)",
                    format.name()
                ),
            ))
        }
    };
    let mut members: Vec<(String, Vec<u8>)> = vec![];
    for (name, a) in arrays
        .iter()
        .map(|(n, a)| (*n, a))
        .chain([("shape", &shape)])
    {
        let mut buf = vec![];
        write_array(&mut buf, a)?;
        members.push((format!("{name}.npy"), buf));
    }
    members.push(("format.npy".into(), npy_bytes_scalar(format.name())));
    let file = std::fs::File::create(path).map_err(|e| io_err(op, path, e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let opts = zip::write::SimpleFileOptions::default().compression_method(if compressed {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    });
    for (name, bytes) in &members {
        zip.start_file(
            name.as_str(),
            opts.large_file(bytes.len() as u64 >= u32::MAX as u64),
        )
        .map_err(|e| io_err(op, path, e))?;
        zip.write_all(bytes).map_err(|e| io_err(op, path, e))?;
    }
    let mut w = zip.finish().map_err(|e| io_err(op, path, e))?;
    w.flush().map_err(|e| io_err(op, path, e))
}
routine!(save_npz as "cupyx.scipy.sparse.save_npz / load_npz", Sparse, probe: super::probe, notes: "SciPy's npz layout; through the host");

/// SciPy's `load_npz(file)`: the matrix in its saved format, on the current device.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `load_npz` with the path for a file that is not such an
/// archive (a missing member is named), an unknown format; the constructors' validation errors.
pub fn load_npz(path: impl AsRef<Path>) -> Result<Sparse> {
    let op = "load_npz";
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| io_err(op, path, e))?;
    let mut zip =
        zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| io_err(op, path, e))?;
    let mut raw = |name: &str| -> Result<Vec<u8>> {
        let mut m = zip.by_name(&format!("{name}.npy")).map_err(|e| {
            io_err(
                op,
                path,
                format!("member {name}.npy: {e} (not a scipy.sparse npz file?)"),
            )
        })?;
        let mut b = vec![];
        m.read_to_end(&mut b).map_err(|e| io_err(op, path, e))?;
        Ok(b)
    };
    let fmt = npy_string(op, &raw("format")?)?;
    let format: Format = fmt.parse().map_err(|_| {
        io_err(
            op,
            path,
            format!("unknown or unsupported sparse format {fmt:?}"),
        )
    })?;
    let arr = |b: Vec<u8>| read_array(&b[..]);
    let shape = arr(raw("shape")?)?.astype(DType::Int64)?.to_vec::<i64>()?;
    if shape.len() != 2 || shape.iter().any(|&d| d < 0) {
        return Err(io_err(op, path, format!("shape {shape:?} is not 2-d")));
    }
    let dims = (shape[0] as usize, shape[1] as usize);
    let shape = Some(dims);
    let data = arr(raw("data")?)?;
    Ok(match format {
        Format::Csr | Format::Csc => {
            let indices = arr(raw("indices")?)?;
            let indptr = arr(raw("indptr")?)?;
            let input = (&data, &indices, &indptr);
            if format == Format::Csr {
                Sparse::Csr(super::csr_matrix(input, shape)?)
            } else {
                Sparse::Csc(super::csc_matrix(input, shape)?)
            }
        }
        Format::Coo => {
            let row = arr(raw("row")?)?;
            let col = arr(raw("col")?)?;
            Sparse::Coo(super::coo_matrix((&data, (&row, &col)), shape)?)
        }
        Format::Dia => {
            let offsets = arr(raw("offsets")?)?;
            Sparse::Dia(super::dia_matrix(&data, &offsets, dims)?)
        }
        Format::Bsr => {
            let indices = arr(raw("indices")?)?;
            let indptr = arr(raw("indptr")?)?;
            Sparse::Bsr(super::bsr_matrix((&data, &indices, &indptr), shape, None)?)
        }
        Format::Lil | Format::Dok => {
            return Err(io_err(
                op,
                path,
                format!("SciPy never saves {fmt:?} matrices; not a save_npz file"),
            ))
        }
    })
}
