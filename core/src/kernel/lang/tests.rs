//! Unit tests of the kernel language.
