//! `cupyx.scipy.sparse.linalg` (written in a later step).
