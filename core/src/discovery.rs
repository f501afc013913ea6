//! Devices and discovery: which backend and device an array lives on, and how one is chosen.
//!
//! Discovery (DESIGN.md) probes, in order, CUDA devices, HIP devices, wgpu hardware adapters
//! (discrete before integrated) and the CPU. A software Vulkan adapter (llvmpipe) is used only when
//! asked for by name (`CUPY_BACKEND=wgpu`). `CUPY_BACKEND=cuda|hip|wgpu|cpu|auto` forces a
//! family; `CUPY_DEVICE=N` picks the device index within it. A forced backend that is unavailable
//! makes the first array operation fail with [`Error::BackendUnavailable`] naming the reason.
//!
//! This module is pure logic over a list of [`BackendProvider`]s; the `cupy` crate owns the
//! process-wide list of providers and the current device.

use crate::backend::{Backend, BackendKind, BackendProvider, DeviceInfo};
use crate::error::{Error, Result};
use std::sync::Arc;

/// What probing one backend family found.
#[derive(Clone, Debug)]
pub struct ProbeReport {
    /// The family.
    pub kind: BackendKind,
    /// Its devices, or why there are none.
    pub result: std::result::Result<Vec<DeviceInfo>, String>,
}

/// The device selection asked for by `CUPY_BACKEND` / `CUPY_DEVICE` (or from code).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// A forced family, or `None` for automatic discovery.
    pub backend: Option<BackendKind>,
    /// A device index within the chosen family.
    pub device: Option<usize>,
}

impl Selection {
    /// Reads `CUPY_BACKEND` and `CUPY_DEVICE` from the given values (the environment's, usually).
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for a bad `CUPY_BACKEND`; [`Error::InvalidArgument`] for a
    /// `CUPY_DEVICE` that is not a non-negative integer.
    pub fn parse(backend: Option<&str>, device: Option<&str>) -> Result<Selection> {
        let backend = match backend {
            Some(v) => BackendKind::parse(v)?,
            None => None,
        };
        let device = match device.map(str::trim).filter(|s| !s.is_empty()) {
            Some(v) => Some(v.parse::<usize>().map_err(|_| {
                Error::invalid(
                    "CUPY_DEVICE",
                    format!("{v:?} is not a device index (a non-negative integer)"),
                )
            })?),
            None => None,
        };
        Ok(Selection { backend, device })
    }

    /// Reads the process environment.
    ///
    /// # Errors
    /// As [`Selection::parse`].
    pub fn from_env() -> Result<Selection> {
        let b = std::env::var("CUPY_BACKEND").ok();
        let d = std::env::var("CUPY_DEVICE").ok();
        Selection::parse(b.as_deref(), d.as_deref())
    }
}

/// Probes one provider, never panicking (a panic becomes the reason it is unavailable).
pub fn probe_one(p: &dyn BackendProvider) -> ProbeReport {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.probe()))
        .unwrap_or_else(|_| Err("the probe panicked".to_string()));
    ProbeReport {
        kind: p.kind(),
        result,
    }
}

/// Probes every provider (in [`BackendKind::ALL`] order), never panicking.
pub fn probe_all(providers: &[&dyn BackendProvider]) -> Vec<ProbeReport> {
    let mut sorted: Vec<&dyn BackendProvider> = providers.to_vec();
    sorted.sort_by_key(|p| p.kind());
    sorted.into_iter().map(probe_one).collect()
}

/// Chooses and opens a device following DESIGN.md's discovery rules.
///
/// `report(kind)` gives the probe report of a family (`None`: not compiled in). It is called
/// lazily, in discovery order, only for the families the selection needs: a forced backend
/// probes that family alone, and automatic discovery stops at the first family that opens, so
/// `CUPY_BACKEND=cpu` (or a CUDA machine) never probes wgpu and its Vulkan loader. `op` names
/// what asked for the device in an index error (`"Device::get"`, `"CUPY_DEVICE=3"`).
///
/// # Errors
/// [`Error::BackendUnavailable`] when the forced backend is not compiled in, failed to load or
/// has no device, or when nothing at all is available; [`Error::InvalidArgument`] when the
/// requested index is past the family's devices ("the cpu backend has 1 device (index 1
/// requested)").
pub fn select(
    providers: &[&dyn BackendProvider],
    report: &dyn Fn(BackendKind) -> Option<ProbeReport>,
    sel: Selection,
    op: &str,
) -> Result<Arc<dyn Backend>> {
    let provider = |k: BackendKind| providers.iter().find(|p| p.kind() == k).copied();
    let open = |k: BackendKind, idx: usize| -> Result<Arc<dyn Backend>> {
        let p = provider(k).ok_or_else(|| Error::BackendUnavailable {
            backend: k.name().into(),
            reason: "not compiled in".into(),
        })?;
        let b = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.open(idx)))
            .unwrap_or_else(|_| {
                Err(Error::BackendUnavailable {
                    backend: k.name().into(),
                    reason: "opening the device panicked".into(),
                })
            })?;
        Ok(b)
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if let Some(k) = sel.backend {
        let devices = match report(k).map(|r| r.result) {
            None => {
                return Err(Error::BackendUnavailable {
                    backend: k.name().into(),
                    reason: "not compiled in".into(),
                })
            }
            Some(Err(reason)) => {
                return Err(Error::BackendUnavailable {
                    backend: k.name().into(),
                    reason,
                })
            }
            Some(Ok(d)) if d.is_empty() => {
                return Err(Error::BackendUnavailable {
                    backend: k.name().into(),
                    reason: "no device found".into(),
                })
            }
            Some(Ok(d)) => d,
        };
        let idx = sel.device.unwrap_or(0);
        if idx >= devices.len() {
            let n = devices.len();
            return Err(Error::invalid(
                op,
                format!(
                    "the {} backend has {n} device{} (index {idx} requested)",
                    k.name(),
                    plural(n)
                ),
            ));
        }
        return open(k, idx);
    }
    let mut failures = vec![];
    let mut most = 0;
    for k in BackendKind::ALL {
        let Some(Ok(devices)) = report(k).map(|r| r.result) else {
            continue;
        };
        // Automatic discovery skips software adapters; hardware ones come in probe order.
        let hw: Vec<&DeviceInfo> = devices.iter().filter(|d| !d.software).collect();
        most = most.max(hw.len());
        if hw.is_empty() {
            continue;
        }
        let idx = match sel.device {
            Some(i) if i < hw.len() => hw[i].index,
            Some(_) => continue,
            None => hw[0].index,
        };
        match open(k, idx) {
            Ok(d) => return Ok(d),
            Err(e) => failures.push(e.to_string()),
        }
    }
    if let (Some(i), true) = (sel.device, failures.is_empty() && most > 0) {
        return Err(Error::invalid(
            op,
            format!(
                "no backend has a device with index {i} (the most any has is {most}; software \
                 adapters are used only when CUPY_BACKEND names their backend)"
            ),
        ));
    }
    Err(Error::BackendUnavailable {
        backend: "auto".into(),
        reason: if failures.is_empty() {
            "no backend has a usable device".into()
        } else {
            failures.join("; ")
        },
    })
}

/// Formats probe reports as `show_config()` prints them.
pub fn format_config(
    reports: &[ProbeReport],
    selection: Selection,
    current: &Result<String>,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "cupy-rs {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        s,
        "CUPY_BACKEND={}  CUPY_DEVICE={}",
        selection.backend.map_or("auto", |k| k.name()),
        selection.device.map_or("-".to_string(), |d| d.to_string())
    );
    for kind in BackendKind::ALL {
        match reports.iter().find(|r| r.kind == kind) {
            None => {
                let _ = writeln!(s, "  {:<5} not compiled in", kind.name());
            }
            Some(ProbeReport {
                result: Err(reason),
                ..
            }) => {
                let _ = writeln!(s, "  {:<5} unavailable: {reason}", kind.name());
            }
            Some(ProbeReport {
                result: Ok(devs), ..
            }) if devs.is_empty() => {
                let _ = writeln!(s, "  {:<5} unavailable: no device found", kind.name());
            }
            Some(ProbeReport {
                result: Ok(devs), ..
            }) => {
                for d in devs {
                    let mem = d.total_memory.map_or(String::new(), |m| {
                        format!(", {:.1} GiB", m as f64 / (1u64 << 30) as f64)
                    });
                    let sw = if d.software {
                        " [software: used only when CUPY_BACKEND names it]"
                    } else {
                        ""
                    };
                    let _ = writeln!(
                        s,
                        "  {:<5} device {}: {} ({}{mem}){sw}",
                        kind.name(),
                        d.index,
                        d.name,
                        d.details
                    );
                }
            }
        }
    }
    match current {
        Ok(d) => {
            let _ = writeln!(s, "current device: {d}");
        }
        Err(e) => {
            let _ = writeln!(s, "current device: none ({e})");
        }
    }
    s
}
