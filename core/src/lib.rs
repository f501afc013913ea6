//! cupy-core: the vendor-neutral heart of cupy-rs.
//!
//! - [`DType`], [`Scalar`]: NumPy's numeric types and typed values; [`promote`]: NEP 50 promotion.
//! - [`Layout`]: shapes, element strides (negative and zero allowed) and offsets; broadcasting.
//! - [`Array`]: the n-dimensional array (`cupy.ndarray`), its views, transfers and printing.
//! - [`ops`]: ufuncs, reductions, matmul, creation and `convolve2d`, each defined once in the IR.
//! - [`kernel`]: the scalar expression IR and its emitters.
//! - [`Backend`]: the object-safe trait every device implements; [`device`]: discovery logic.
#![warn(missing_docs)]

pub mod array;
pub mod backend;
pub mod device;
pub mod dtype;
pub mod error;
mod fmt;
pub mod index;
pub mod kernel;
pub mod layout;
pub mod ops;
pub mod promote;
pub mod scalar;

pub use array::Array;
pub use backend::{Backend, BackendKind, BackendProvider, Buffer, DeviceBuffer, DeviceInfo};
pub use device::Device;
pub use dtype::{DType, Element, Kind};
pub use error::{Error, Result};
pub use index::{SliceArg, ELLIPSIS, NEW_AXIS};
pub use layout::{Layout, SliceItem};
pub use ops::reduce::Axes;
pub use ops::signal::Mode;
pub use ops::ufunc::{Arg, Ufunc};
pub use promote::WeakScalar;
pub use scalar::Scalar;
