//! Raw FFI tables for the ROCm libraries, loaded at run time with `libloading` (cudarc's `sys`
//! layer). Nothing here is linked at build time: a machine without ROCm builds and runs.
//!
//! Each table is a struct of `unsafe extern "C"` function pointers resolved from one library,
//! kept alive next to the `Library` that owns them ([`Lib`]). Every table also records its C
//! signatures as text ([`Signature`]); the test `ffi_header` turns them into C++ declarations and
//! has the system C++ compiler check them against ROCm's installed headers.
//!
//! Types are spelled with the same names as ROCm's C headers (`hipError_t`, `hipStream_t`,
//! `size_t`, ...) so the generated check can compare them by name.

#![allow(non_camel_case_types, non_upper_case_globals)]

pub mod hip;
pub mod hiprtc;
pub mod rccl;
pub mod rocblas;
pub mod rocfft;
pub mod rocsolver;
pub mod rocsparse;

use std::path::PathBuf;

/// C `size_t`.
pub type size_t = usize;

/// One function's declared C signature: name, return type, parameter types (Rust spelling).
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// Symbol name.
    pub name: &'static str,
    /// Return type as written in the Rust declaration.
    pub ret: &'static str,
    /// Parameter types as written in the Rust declaration.
    pub args: &'static [&'static str],
}

/// Declares a table of function pointers loaded from one library, with its signature list.
macro_rules! fn_table {
    (
        $(#[$m:meta])*
        pub struct $name:ident {
            $( $(#[$fm:meta])* fn $f:ident ( $($arg:ty),* $(,)? ) -> $ret:ty ; )*
        }
    ) => {
        $(#[$m])*
        #[allow(non_snake_case)]
        #[derive(Clone, Copy)]
        pub struct $name {
            $( $(#[$fm])* #[doc = concat!("`", stringify!($f), "`")] pub $f: unsafe extern "C" fn($($arg),*) -> $ret, )*
        }

        impl $name {
            /// Resolves every symbol of the table from `lib`.
            ///
            /// # Errors
            /// The first missing symbol, named.
            ///
            /// # Safety
            /// `lib` must be the library the table was written for (the declared signatures must
            /// be right), and must outlive every use of the returned pointers.
            pub unsafe fn load(lib: &libloading::Library) -> Result<Self, String> {
                Ok($name {
                    $( $f: *lib
                        .get::<unsafe extern "C" fn($($arg),*) -> $ret>(
                            concat!(stringify!($f), "\0").as_bytes(),
                        )
                        .map_err(|e| format!("symbol {} not found: {e}", stringify!($f)))?, )*
                })
            }

            /// The declared C signatures (for the header check).
            pub const SIGNATURES: &'static [$crate::sys::Signature] = &[
                $( $crate::sys::Signature {
                    name: stringify!($f),
                    ret: stringify!($ret),
                    args: &[$(stringify!($arg)),*],
                }, )*
            ];
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}
pub(crate) use fn_table;

/// An opened shared library and the file it came from.
#[derive(Debug)]
pub struct Lib {
    /// The library (kept open while any table from it is used).
    pub lib: libloading::Library,
    /// The name or path that opened it.
    pub path: String,
}

/// Directories searched before the loader's default path: `$ROCM_PATH/lib`, `$HIP_PATH/lib`,
/// then `/opt/rocm/lib`.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut v = vec![];
    for var in ["ROCM_PATH", "HIP_PATH"] {
        if let Some(p) = std::env::var_os(var) {
            if !p.is_empty() {
                let p = PathBuf::from(p);
                v.push(p.join("lib"));
                v.push(p.join("lib64"));
            }
        }
    }
    v.push(PathBuf::from("/opt/rocm/lib"));
    v
}

/// Opens the first of `names` that loads, trying each name in every [`search_dirs`] directory
/// first and then through the system loader (`LD_LIBRARY_PATH`, ldconfig). With `must_have`, a
/// library lacking that symbol is skipped.
///
/// # Errors
/// Names every path tried and why each failed.
pub fn open_first(what: &str, names: &[&str], must_have: Option<&str>) -> Result<Lib, String> {
    let mut tried = vec![];
    let mut candidates: Vec<String> = vec![];
    for d in search_dirs() {
        for n in names {
            let p = d.join(n);
            if p.exists() {
                candidates.push(p.to_string_lossy().into_owned());
            }
        }
    }
    candidates.extend(names.iter().map(|n| n.to_string()));
    for c in candidates {
        // SAFETY: opening a ROCm system library runs its initialisers, which is what using it
        // requires; we never unload it while its function pointers are alive.
        match unsafe { libloading::Library::new(&c) } {
            Ok(lib) => {
                if let Some(sym) = must_have {
                    let mut name = sym.as_bytes().to_vec();
                    name.push(0);
                    // SAFETY: symbol lookup only; the pointer is not called.
                    if unsafe { lib.get::<*const ()>(name.as_slice()) }.is_err() {
                        tried.push(format!("{c}: loaded but has no {sym}"));
                        continue;
                    }
                }
                return Ok(Lib { lib, path: c });
            }
            Err(e) => tried.push(format!("{c}: {e}")),
        }
    }
    let dirs: Vec<String> = search_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    Err(format!(
        "{what} not found (searched {} and the system loader path; set ROCM_PATH to a ROCm \
         install). Tried: {}",
        dirs.join(", "),
        tried.join("; ")
    ))
}

/// Opens the first of `names` that has the symbol `must_have` ([`open_first`]) and resolves
/// its function table with `load` (a table's `load`), returning both (keep the library alive
/// while the table is used).
///
/// # Errors
/// As [`open_first`], or the missing symbol, named with `what` and the library's path.
///
/// # Safety
/// `load` must be the table written for the libraries `names` name (its signatures right).
pub unsafe fn load_table<T>(
    what: &str,
    names: &[&str],
    must_have: &str,
    load: unsafe fn(&libloading::Library) -> Result<T, String>,
) -> Result<(T, Lib), String> {
    let lib = open_first(what, names, Some(must_have))?;
    // SAFETY: the caller's promise; the library is returned with the table.
    let api = unsafe { load(&lib.lib) }.map_err(|e| format!("{what} {}: {e}", lib.path))?;
    Ok((api, lib))
}
