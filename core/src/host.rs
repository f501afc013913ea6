//! Host allocations that a caller's absurd size turns into an `Err` on every machine.
//!
//! `Vec::try_reserve_exact` fails only where the operating system refuses the address space. On
//! a Linux machine that overcommits memory (`vm.overcommit_memory = 1`, common in containers) a
//! reservation of terabytes succeeds and the process is killed when the pages are touched. So a
//! request larger than the machine's physical memory is refused before it is made (NumPy would
//! raise `MemoryError` or be killed, depending on the machine).

use crate::error::{Error, Result};

/// The machine's physical memory in bytes (`sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE)`
/// on Unix), or `None` where it is not known.
pub fn physical_memory() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf takes no pointers and only reads system configuration.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && size > 0 {
            return (pages as usize).checked_mul(size as usize);
        }
    }
    None
}

/// Whether `bytes` can be held on the host: within the machine's physical memory
/// ([`physical_memory`]; any size where that is not known) and `isize::MAX`.
pub fn fits(bytes: usize) -> bool {
    bytes <= isize::MAX as usize && physical_memory().is_none_or(|total| bytes <= total)
}

/// Reserves room for exactly `additional` more elements in `v`, or an
/// [`Error::OutOfMemory`] on the host naming `op` and `what` the memory is for, when the bytes
/// overflow, exceed the machine's physical memory ([`physical_memory`]) or cannot be reserved.
///
/// # Errors
/// [`Error::OutOfMemory`] with `device` "host".
pub fn reserve_exact<T>(op: &str, v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    let item = std::mem::size_of::<T>().max(1);
    let bytes = additional.checked_mul(item);
    if bytes.is_some_and(fits) && v.try_reserve_exact(additional).is_ok() {
        return Ok(());
    }
    Err(Error::OutOfMemory {
        device: "host".into(),
        requested: bytes.unwrap_or(usize::MAX),
        detail: format!("{op}: {what}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_reservations_are_errors_and_small_ones_succeed() {
        let mut v: Vec<f64> = Vec::new();
        reserve_exact("probe", &mut v, 16, "values").unwrap();
        assert!(v.capacity() >= 16);
        // 8 TiB: past any machine's physical memory here, whatever the overcommit policy
        let e = reserve_exact("histogram", &mut v, 1 << 40, "the bin edges").unwrap_err();
        let s = e.to_string();
        assert!(s.contains("histogram") && s.contains("host"), "{s}");
        assert!(reserve_exact("probe", &mut v, usize::MAX, "values").is_err());
        if cfg!(unix) {
            assert!(physical_memory().is_some_and(|m| m > 1 << 20));
        }
    }
}
