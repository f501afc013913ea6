//! Input and output (CuPy's `cupy.load`/`cupy.save`/`cupy.savez`, NumPy's `numpy.lib.format`):
//! `.npy` files of every dtype NumPy and cupy-rs share, and `.npz` archives of them. Arrays are
//! read to the host and written from it; loading puts the array on the current device.

mod npy;
mod npz;

pub use npy::{read_array, write_array};
pub use npz::{load_npz, savez, savez_compressed, NpzFile};

use crate::{Array, Error, Result};
use std::path::Path;

/// `numpy.save(path, a)`: writes `a` as an `.npy` file (see [`write_array`] for the format).
/// The path is used as given (NumPy appends `.npy` to a path without it; this does not).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `save` with the path if the file cannot be created or
/// written, or for a bfloat16 array (NumPy has no such dtype); device errors.
pub fn save(path: impl AsRef<Path>, a: &Array) -> Result<()> {
    let path = path.as_ref();
    // Encode before creating the file, so a refused array leaves no empty file behind.
    let bytes = npy::encode("save", a).map_err(|e| with_path(e, path))?;
    std::fs::write(path, &bytes)
        .map_err(|e| Error::invalid("save", format!("{}: {e}", path.display())))
}
routine!(save, Io, notes: "every dtype but bfloat16");

/// `numpy.load(path)` of an `.npy` file: the array, on the current device (see [`read_array`]
/// for what is read). An `.npz` archive is opened with [`load_npz`] instead.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `load` with the path: it cannot be opened, it is an `.npz`
/// archive (use [`load_npz`]), or it is not a valid `.npy` file (as [`read_array`]). Device
/// errors.
pub fn load(path: impl AsRef<Path>) -> Result<Array> {
    let path = path.as_ref();
    let named = |msg: String| Error::invalid("load", format!("{}: {msg}", path.display()));
    let device = crate::Device::current()?;
    let file = std::fs::File::open(path).map_err(|e| named(e.to_string()))?;
    let mut r = std::io::BufReader::new(file);
    let head = std::io::BufRead::fill_buf(&mut r).map_err(|e| named(e.to_string()))?;
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Err(named(
            "this is an .npz archive; open it with load_npz".into(),
        ));
    }
    npy::read_array_on(&device, r, "load").map_err(|e| with_path(e, path))
}
routine!(load, Io, notes: ".npy files; .npz through load_npz; no pickles");

/// Puts the path in front of an [`Error::InvalidArgument`]'s message (other errors pass).
fn with_path(e: Error, path: &Path) -> Error {
    match e {
        Error::InvalidArgument { op, msg } => Error::InvalidArgument {
            op,
            msg: format!("{}: {msg}", path.display()),
        },
        other => other,
    }
}
