//! The limit on a pool's bytes (`set_limit`, `CUPY_GPU_MEMORY_LIMIT`).

/// Parses a memory limit as CuPy's `CUPY_GPU_MEMORY_LIMIT` takes it: a byte count (`"1073741824"`)
/// or a percentage of the device's memory (`"50%"`, which needs `total`). Unset or empty: `None`;
/// `0` (or `0%`) is no limit either, as CuPy's `set_limit(size=0)` that the variable goes
/// through ("If ... `0` is specified, the limit will be disabled").
///
/// # Errors
/// A message naming the variable and its value when it is neither.
pub fn parse_limit(value: &str, total: Option<usize>) -> Result<Option<usize>, String> {
    let v = value.trim();
    if v.is_empty() {
        return Ok(None);
    }
    let bad = || {
        format!("CUPY_GPU_MEMORY_LIMIT={value:?} is neither a byte count nor a percentage such as \"50%\"")
    };
    if let Some(pct) = v.strip_suffix('%') {
        let p: f64 = pct.trim().parse().map_err(|_| bad())?;
        if !(0.0..=100.0).contains(&p) {
            return Err(bad());
        }
        if p == 0.0 {
            return Ok(None);
        }
        let total = total.ok_or_else(|| {
            format!("CUPY_GPU_MEMORY_LIMIT={value:?}: the device's memory size is unknown")
        })?;
        let bytes = (total as f64 * p / 100.0) as usize;
        return Ok((bytes > 0).then_some(bytes));
    }
    let bytes = v.parse::<usize>().map_err(|_| bad())?;
    Ok((bytes > 0).then_some(bytes))
}

/// A pool's limit on the bytes it holds: `set_limit`'s value, else `CUPY_GPU_MEMORY_LIMIT`'s as
/// read when the pool was made. A variable that does not parse is kept as the error every
/// allocation reports, until `set_limit` replaces it. Shared by the CUDA/HIP pool, the wgpu
/// buffer pool and the cpu backend's count.
#[derive(Clone, Debug, Default)]
pub struct PoolLimit {
    limit: Option<usize>,
    env_error: Option<String>,
}

impl PoolLimit {
    /// The limit `CUPY_GPU_MEMORY_LIMIT` sets ([`limit_from_env`]; `total`: the device's bytes,
    /// for a percentage).
    pub fn from_env(total: Option<usize>) -> PoolLimit {
        match limit_from_env(total) {
            Ok(limit) => PoolLimit {
                limit,
                env_error: None,
            },
            Err(e) => PoolLimit {
                limit: None,
                env_error: Some(e),
            },
        }
    }

    /// The limit in bytes, if there is one.
    pub fn get(&self) -> Option<usize> {
        self.limit
    }

    /// Sets (or with `None` removes) the limit; a bad `CUPY_GPU_MEMORY_LIMIT` is forgotten.
    pub fn set(&mut self, limit: Option<usize>) {
        self.limit = limit;
        self.env_error = None;
    }

    /// `Err` with the reason when `CUPY_GPU_MEMORY_LIMIT` did not parse.
    ///
    /// # Errors
    /// The parse error's message.
    pub fn env_ok(&self) -> Result<(), String> {
        match &self.env_error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Whether holding `bytes` would pass the limit.
    pub fn exceeded_by(&self, bytes: usize) -> bool {
        self.limit.is_some_and(|l| bytes > l)
    }

    /// The out-of-memory detail of a refused allocation: the limit, the bytes in use and the
    /// cached bytes released before refusing.
    pub fn refusal(&self, in_use: usize, released: usize) -> String {
        format!(
            "the pool's limit is {} bytes (set_limit or CUPY_GPU_MEMORY_LIMIT) and {in_use} are \
             in use (released {released} cached bytes)",
            self.limit.unwrap_or(0)
        )
    }
}

/// [`parse_limit`] of the `CUPY_GPU_MEMORY_LIMIT` environment variable.
///
/// # Errors
/// As [`parse_limit`].
pub fn limit_from_env(total: Option<usize>) -> Result<Option<usize>, String> {
    match std::env::var("CUPY_GPU_MEMORY_LIMIT") {
        Ok(v) => parse_limit(&v, total),
        Err(_) => Ok(None),
    }
}
