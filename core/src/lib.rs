//! cupy-core: the vendor-neutral heart of cupy-rs.
//!
//! - [`DType`], [`Scalar`]: NumPy's numeric types and typed values; [`promote`]: NEP 50 promotion.
//! - [`Layout`]: shapes, element strides (negative and zero allowed) and offsets; broadcasting.
//! - [`kernel`]: the scalar expression IR and its emitters.
//! - [`Backend`]: the object-safe trait every device implements; [`discovery`]: choosing a device.
//!
//! Backends depend on this crate only; the `cupy` crate builds `Array` and the routines on top.
#![warn(missing_docs)]

pub mod backend;
pub mod discovery;
pub mod dtype;
pub mod error;
pub mod fft;
pub mod gpu;
pub mod host;
pub mod kernel;
pub mod layout;
pub mod promote;
pub mod scalar;

pub use backend::{
    Backend, BackendKind, BackendProvider, Buffer, DeviceBuffer, DeviceInfo, KeepAlive,
};
pub use dtype::{DType, Element, Kind};
pub use error::{Error, Result};
pub use layout::{Layout, SliceItem};
pub use promote::{Casting, WeakScalar};
pub use scalar::Scalar;
