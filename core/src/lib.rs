//! cupy-core: the vendor-neutral heart of cupy-rs.
//!
//! - [`DType`], [`Scalar`]: NumPy's numeric types and typed values.
//! - [`Layout`]: shapes, element strides (negative and zero allowed) and offsets; broadcasting.
//! - [`kernel`]: the scalar expression IR every op is defined in once, and its emitters.
//! - [`Backend`]: the object-safe trait every device implements.
#![warn(missing_docs)]

pub mod backend;
pub mod dtype;
pub mod error;
pub mod kernel;
pub mod layout;
pub mod scalar;

pub use backend::{Backend, BackendKind, BackendProvider, Buffer, DeviceBuffer, DeviceInfo};
pub use dtype::{DType, Element, Kind};
pub use error::{Error, Result};
pub use layout::{Layout, SliceItem};
pub use scalar::Scalar;
