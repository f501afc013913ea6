//! cupy-rs.
