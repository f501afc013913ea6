//! The error type of cupy-rs: every failure names the op, and the shapes, dtypes or device involved.

use crate::dtype::DType;

/// Errors returned by every fallible cupy-rs operation. Nothing in the public API panics on bad
/// input; an op that fails leaves its inputs (and any `out` array) as they were.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Operand shapes cannot be broadcast together (or do not match where they must).
    #[error("{op}: operands could not be broadcast together with shapes {lhs:?} {rhs:?}")]
    ShapeMismatch {
        /// The op, e.g. `"add"`.
        op: String,
        /// Shape of the first operand.
        lhs: Vec<usize>,
        /// Shape of the second operand.
        rhs: Vec<usize>,
    },
    /// The device cannot store or compute with this dtype.
    #[error("{op}: dtype {dtype} is not supported on {device}: {reason}")]
    DTypeNotSupported {
        /// The op.
        op: String,
        /// The refused dtype.
        dtype: DType,
        /// The device, e.g. `"wgpu:0 (llvmpipe)"`.
        device: String,
        /// Why (missing adapter feature, no kernel for this type, ...).
        reason: String,
    },
    /// The op has no loop for these input dtypes, or refuses them (NumPy's `TypeError` and
    /// `UFuncTypeError`): the message is `msg` where there is one, else NumPy's "no loop
    /// matching the specified signature".
    #[error("{op}: {} (dtypes {dtypes:?})", if msg.is_empty() { "no loop matching the specified signature" } else { msg.as_str() })]
    TypeError {
        /// The op.
        op: String,
        /// The operand dtypes.
        dtypes: Vec<DType>,
        /// Extra detail.
        msg: String,
    },
    /// An axis argument outside `[-ndim, ndim)`.
    #[error("{op}: axis {axis} is out of bounds for array of dimension {ndim}")]
    AxisOutOfRange {
        /// The op.
        op: String,
        /// The axis given.
        axis: isize,
        /// The array's number of dimensions.
        ndim: usize,
    },
    /// A reshape to a shape with a different number of elements.
    #[error("reshape: cannot reshape array of size {size} (shape {from:?}) into shape {to:?}")]
    InvalidReshape {
        /// Source shape.
        from: Vec<usize>,
        /// Requested shape (-1 for an inferred axis).
        to: Vec<isize>,
        /// Source size.
        size: usize,
    },
    /// An index outside an axis.
    #[error("{op}: index {index} is out of bounds for axis {axis} with size {size}")]
    IndexOutOfBounds {
        /// The op.
        op: String,
        /// The index given.
        index: isize,
        /// The axis.
        axis: usize,
        /// The axis length.
        size: usize,
    },
    /// An invalid index other than an out-of-bounds integer (NumPy's `IndexError`): too many
    /// indices, a boolean index whose shape does not match the indexed axes, index arrays that
    /// do not broadcast together, a non-integer index array.
    #[error("{op}: {msg}")]
    IndexError {
        /// The op.
        op: String,
        /// What is wrong, in NumPy's words.
        msg: String,
    },
    /// A Python-int-like (weak) scalar that does not fit the array's dtype (NEP 50).
    #[error("{op}: Python integer {value} out of bounds for {dtype}")]
    ScalarOverflow {
        /// The op.
        op: String,
        /// The scalar, printed.
        value: String,
        /// The array dtype it had to fit.
        dtype: DType,
    },
    /// Device memory is exhausted.
    #[error("{device}: out of memory allocating {requested} bytes ({detail})")]
    OutOfMemory {
        /// The device.
        device: String,
        /// Bytes requested.
        requested: usize,
        /// The allocator's state (in use, cached, limit).
        detail: String,
    },
    /// A backend could not be loaded or has no device.
    #[error("backend {backend} is unavailable: {reason}")]
    BackendUnavailable {
        /// `cuda`, `hip`, `wgpu` or `cpu`.
        backend: String,
        /// Library missing, no device, ...
        reason: String,
    },
    /// `CUPY_BACKEND` (or a backend name given in code) is not one we know.
    #[error("unknown backend {value:?} (expected one of cuda, hip, wgpu, cpu, auto)")]
    UnknownBackend {
        /// The value given.
        value: String,
    },
    /// Operands live on different devices.
    #[error("{op}: operands are on different devices ({lhs} and {rhs}); move one with to_device")]
    DeviceMismatch {
        /// The op.
        op: String,
        /// First device.
        lhs: String,
        /// Second device.
        rhs: String,
    },
    /// An argument is invalid for the op.
    #[error("{op}: {msg}")]
    InvalidArgument {
        /// The op.
        op: String,
        /// What is wrong.
        msg: String,
    },
    /// The backend lacks this op.
    #[error("{op} is not supported on {backend}: {reason}")]
    Unsupported {
        /// The op.
        op: String,
        /// The backend/device.
        backend: String,
        /// Why.
        reason: String,
    },
    /// A kernel we generated (or the user's raw kernel) failed to compile.
    #[error("{backend}: kernel {kernel} failed to compile:\n{log}\n--- source ---\n{source_code}")]
    Compile {
        /// The backend.
        backend: String,
        /// Kernel name.
        kernel: String,
        /// Compiler log.
        log: String,
        /// The source that was compiled.
        source_code: String,
    },
    /// A custom kernel's source (parameter list, operation, preamble or expression) failed to
    /// parse or type-check. `line`/`column` count from 1; `snippet` shows the line with a caret.
    #[error("kernel {kernel}: {part}:{line}:{column}: {msg}\n{snippet}")]
    Parse {
        /// Kernel name.
        kernel: String,
        /// Which string: `in_params`, `out_params`, `operation`, `preamble`, `map_expr`, ...
        part: String,
        /// Line (from 1).
        line: usize,
        /// Column (from 1, in characters).
        column: usize,
        /// What is wrong.
        msg: String,
        /// The offending line and a caret under the column.
        snippet: String,
    },
    /// A linear-algebra routine cannot produce its result for this input (NumPy's
    /// `numpy.linalg.LinAlgError`): a singular matrix, one that is not positive definite, an
    /// iteration that did not converge, an operand of the wrong dimensions.
    #[error("{op}: {reason}")]
    LinAlgError {
        /// The op, e.g. `"inv"`.
        op: String,
        /// NumPy's message, e.g. `"Singular matrix"`.
        reason: String,
    },
    /// A driver or runtime call failed.
    #[error("{backend}: {msg}")]
    Backend {
        /// The backend/device.
        backend: String,
        /// What failed.
        msg: String,
    },
}

/// `Result<T, cupy_core::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for [`Error::LinAlgError`].
    pub fn linalg(op: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::LinAlgError {
            op: op.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(op: impl Into<String>, msg: impl Into<String>) -> Error {
        Error::InvalidArgument {
            op: op.into(),
            msg: msg.into(),
        }
    }
}
