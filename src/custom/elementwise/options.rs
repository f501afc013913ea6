//! CuPy's `options=` flags and the keyword structs of the constructor and the call.

#[cfg(doc)]
use super::ElementwiseKernel;
use crate::array::Array;
use cupy_core::error::{Error, Result};

/// The compiler flags `options=` takes (CuPy passes them to NVRTC): `-D`/`--define-macro`
/// macro definitions, `--use_fast_math`/`-use_fast_math`, `-std=`/`--std=` and `-O0`..`-O3`.
/// Anything else (include paths, architecture flags, which the backends choose) is refused.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the kernel and the flag.
pub(crate) fn check_options(kernel: &str, options: &[&str]) -> Result<Vec<String>> {
    options
        .iter()
        .map(|o| {
            let ok = o.starts_with("-D")
                || o.starts_with("--define-macro")
                || matches!(*o, "--use_fast_math" | "-use_fast_math")
                || o.starts_with("-std=")
                || o.starts_with("--std=")
                || matches!(*o, "-O0" | "-O1" | "-O2" | "-O3");
            if ok {
                Ok(o.to_string())
            } else {
                Err(Error::invalid(
                    kernel,
                    format!(
                        "compiler option {o:?} is not taken (only -D..., --use_fast_math, \
                         -std=... and -O0..-O3; the backend sets the architecture and includes)"
                    ),
                ))
            }
        })
        .collect()
}

/// The `#define` lines of the `-D`/`--define-macro` options (`-DN=4` is `#define N 4`, `-DN` is
/// `#define N 1`, as C compilers take them).
pub(crate) fn option_defines(options: &[String]) -> String {
    let mut out = String::new();
    for o in options {
        let def = o
            .strip_prefix("--define-macro=")
            .or_else(|| o.strip_prefix("--define-macro"))
            .or_else(|| o.strip_prefix("-D"));
        if let Some(d) = def {
            let d = d.trim();
            match d.split_once('=') {
                Some((n, v)) => out.push_str(&format!("#define {n} {v}\n")),
                None => out.push_str(&format!("#define {d} 1\n")),
            }
        }
    }
    out
}

/// Keyword arguments of [`ElementwiseKernel::call_args`]: CuPy's `out=`, `size=` and
/// `block_size=`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ElementwiseArgs<'a> {
    /// Arrays to write the outputs into (`out=`), one per `out_params` entry, or empty.
    pub out: &'a [&'a Array],
    /// The loop size when only raw arrays are passed (`size=`).
    pub size: Option<usize>,
    /// Threads per block (`block_size=`, a power of two from 1 to 1024; see
    /// [`ElementwiseKernel::call_args`]).
    pub block_size: Option<u32>,
}

/// The keywords of CuPy's `ElementwiseKernel` constructor, for
/// [`ElementwiseKernel::new_with`] (`reduce_dims` is not here: it changes nothing, see
/// [`ElementwiseKernel::with_reduce_dims`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ElementwiseOptions<'a> {
    /// Compiler options (`options=`, see [`ElementwiseKernel::with_options`]).
    pub options: &'a [&'a str],
    /// Helper functions and macros (`preamble=`).
    pub preamble: &'a str,
    /// Code before the operation (`loop_prep=`).
    pub loop_prep: &'a str,
    /// Code after the operation (`after_loop=`).
    pub after_loop: &'a str,
    /// The call returns no arrays (`no_return=`).
    pub no_return: bool,
}
