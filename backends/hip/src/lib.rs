//! cupy-hip: the ROCm/HIP backend of cupy-rs.
//!
//! Layered as cudarc is: [`sys`] (function-pointer tables for libamdhip64, hipRTC, rocBLAS,
//! rocFFT, rocSOLVER, loaded at run time with `libloading`), [`result`] (calls returning
//! `Result` with the error's name and text) and the backend ([`HipProvider`], [`HipBackend`]).
//! Nothing is linked at build time; a machine without ROCm builds this crate and gets a clear
//! `Err` from `HipProvider`'s `BackendProvider::probe`.
//!
//! Status: compiled against ROCm 5.2's headers and its hipRTC in CI; **never run on AMD
//! hardware** (see README.md).
#![warn(missing_docs)]

pub mod backend;
pub mod cache;
pub mod kernels;
pub mod raw;
pub mod result;
pub mod sys;

pub use backend::{probe_devices, HipBackend, HipBuffer, HipProvider};
