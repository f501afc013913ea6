//! `save_npz` / `load_npz` (SciPy's format, written in a later step).
