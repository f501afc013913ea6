//! NumPy's `.npz` archives (`numpy.savez`, `numpy.savez_compressed`, `numpy.load` of an
//! archive): a zip file whose members are `.npy` files named `<name>.npy`. The zip container is
//! the `zip` crate's; each member goes through this crate's `.npy` reader and writer.

use super::npy::{encode, read_array_on};
use crate::{Array, Device, Error, Result};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

fn zip_err(op: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::invalid(op, format!("{}: {e}", path.display()))
}

fn write_archive(op: &str, path: &Path, arrays: &[(&str, &Array)], compressed: bool) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for (name, _) in arrays {
        if !seen.insert(*name) {
            return Err(Error::invalid(
                op,
                format!("the name {name:?} is given twice"),
            ));
        }
        if name.is_empty() || name.contains(['/', '\\']) {
            return Err(Error::invalid(
                op,
                format!("{name:?} is not a member name (empty, or has a path separator)"),
            ));
        }
    }
    // Encode every member before creating the file, so a bad array (bfloat16, a device error)
    // leaves no half-written archive behind.
    let mut members = Vec::with_capacity(arrays.len());
    for (name, a) in arrays {
        members.push((format!("{name}.npy"), encode(op, a)?));
    }
    let file = File::create(path).map_err(|e| zip_err(op, path, e))?;
    let mut zip = zip::ZipWriter::new(BufWriter::new(file));
    let method = if compressed {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    // large_file: members over 4 GiB need zip64, as NumPy's `savez` enables (`force_zip64`).
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in &members {
        let opts = options.large_file(bytes.len() as u64 >= u32::MAX as u64);
        zip.start_file(name.as_str(), opts)
            .map_err(|e| zip_err(op, path, e))?;
        zip.write_all(bytes).map_err(|e| zip_err(op, path, e))?;
    }
    let mut w = zip.finish().map_err(|e| zip_err(op, path, e))?;
    w.flush().map_err(|e| zip_err(op, path, e))
}

/// `numpy.savez(path, name=array, ...)`: an uncompressed `.npz` archive of `arrays`, each
/// stored as `<name>.npy` (NumPy's positional names are `arr_0`, `arr_1`, ...; pass those to
/// match). The archive is written as given: NumPy appends `.npz` to a path without it, this
/// function does not.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `savez` for a repeated or empty name or one with a path
/// separator, a bfloat16 array (no NumPy dtype), or a file that cannot be written (the path
/// and the I/O error); nothing is written when an array is refused. Device errors.
pub fn savez(path: impl AsRef<Path>, arrays: &[(&str, &Array)]) -> Result<()> {
    write_archive("savez", path.as_ref(), arrays, false)
}
routine!(savez, Io, notes: "named members; bfloat16 refused");

/// `numpy.savez_compressed`: as [`savez`], with every member deflated.
///
/// # Errors
/// As [`savez`], naming `savez_compressed`.
pub fn savez_compressed(path: impl AsRef<Path>, arrays: &[(&str, &Array)]) -> Result<()> {
    write_archive("savez_compressed", path.as_ref(), arrays, true)
}
routine!(savez_compressed, Io, notes: "deflate");

/// An opened `.npz` archive (`numpy.lib.npyio.NpzFile`): member names are listed at open time,
/// arrays are read on demand with [`NpzFile::get`].
pub struct NpzFile {
    path: PathBuf,
    archive: zip::ZipArchive<BufReader<File>>,
    names: Vec<String>,
}

impl NpzFile {
    /// The arrays' names (`NpzFile.files`): each `.npy` member's name without `.npy`, in
    /// archive order. Members that are not `.npy` files are left out.
    pub fn files(&self) -> &[String] {
        &self.names
    }

    /// Reads the array `name` onto the current device (`npz[name]`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `load_npz` if the archive has no such array (the names
    /// it has are listed) or the member is not a valid `.npy` file (as
    /// [`read_array`](super::read_array)); device errors.
    pub fn get(&mut self, name: &str) -> Result<Array> {
        let op = "load_npz";
        if !self.names.iter().any(|n| n == name) {
            return Err(Error::invalid(
                op,
                format!(
                    "{}: no array {name:?} (it has {:?})",
                    self.path.display(),
                    self.names
                ),
            ));
        }
        let device = Device::current()?;
        let member = self
            .archive
            .by_name(&format!("{name}.npy"))
            .map_err(|e| zip_err(op, &self.path, e))?;
        read_array_on(&device, member, op)
    }
}

/// `numpy.load` of an `.npz` archive: opens it and lists its arrays ([`NpzFile`]).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `load_npz` with the path if it cannot be opened or is not
/// a zip archive.
pub fn load_npz(path: impl AsRef<Path>) -> Result<NpzFile> {
    let op = "load_npz";
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| zip_err(op, path, e))?;
    let archive = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| zip_err(op, path, e))?;
    let mut ordered = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        if let Some(n) = archive
            .name_for_index(i)
            .and_then(|n| n.strip_suffix(".npy"))
        {
            ordered.push(n.to_owned());
        }
    }
    Ok(NpzFile {
        path: path.to_owned(),
        archive,
        names: ordered,
    })
}
routine!(load_npz as "cupy.load (.npz) as load_npz", Io, notes: "members read on demand");
