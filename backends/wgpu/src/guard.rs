//! Loop budgets (drivers that cap shader loops: Mesa's llvmpipe) and the loop guard that turns
//! a loop cut short into an error.

use crate::{backend_err, WgpuBackend};
use cupy_core::kernel::wgsl;
use cupy_core::Result;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// Host side of the loop guard.
pub(crate) struct LoopGuard {
    pub(crate) buf: wgpu::Buffer,
    /// Kernel names; a guard word is an index here plus one.
    pub(crate) names: Mutex<Vec<String>>,
    /// A guarded kernel was recorded since the last check.
    pub(crate) dirty: std::sync::atomic::AtomicBool,
}

/// Budget the launch planner uses out of the driver's (the cost model is an upper bound; this
/// leaves room for what it does not see).
pub(crate) fn plan_budget(b: u64) -> u64 {
    b - b / 16
}

/// Loop passes one invocation may run on this adapter: Mesa's llvmpipe (lavapipe) stops every
/// loop of an invocation after 65,535 passes in all and goes on with wrong values
/// ([`wgsl::loops`]); other drivers are not known to cap loops. `CUPY_WGPU_LOOP_BUDGET=N`
/// overrides it (`0`: no budget), e.g. to run the split-launch paths on a hardware GPU.
pub fn loop_budget(info: &wgpu::AdapterInfo) -> Option<u64> {
    if let Ok(v) = std::env::var("CUPY_WGPU_LOOP_BUDGET") {
        if let Ok(n) = v.trim().parse::<u64>() {
            return (n > 0).then_some(n.max(64));
        }
    }
    let n = format!("{} {}", info.name, info.driver).to_ascii_lowercase();
    (n.contains("llvmpipe") || n.contains("lavapipe")).then_some(wgsl::loops::LLVMPIPE_LOOP_BUDGET)
}

impl WgpuBackend {
    /// The guard word of kernel `name` (marks the guard as to be checked), if guards are on.
    pub(crate) fn guard_word(&self, name: &str) -> Option<u32> {
        let g = self.guard.as_ref()?;
        let mut names = g.names.lock().ok()?;
        let i = match names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                names.push(name.to_string());
                names.len() - 1
            }
        };
        g.dirty.store(true, Ordering::Relaxed);
        Some(i as u32 + 1)
    }

    /// Records, into `enc`, the copy of the guard to `staging` and its reset, if a guarded kernel
    /// ran since the last check; returns the staging buffer to map afterwards.
    pub(crate) fn guard_copy(&self, enc: &mut wgpu::CommandEncoder) -> Option<wgpu::Buffer> {
        let g = self.guard.as_ref()?;
        if !g.dirty.swap(false, Ordering::Relaxed) {
            return None;
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cupy-loop-guard-read"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_buffer_to_buffer(&g.buf, 0, &staging, 0, 16);
        enc.clear_buffer(&g.buf, 0, None);
        Some(staging)
    }

    /// Maps a guard staging buffer (after the device finished) and turns a tripped guard into
    /// an error naming the kernel.
    pub(crate) fn guard_result(&self, staging: Option<wgpu::Buffer>) -> Result<()> {
        let Some(staging) = staging else {
            return Ok(());
        };
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        if !matches!(rx.recv(), Ok(Ok(()))) {
            return Err(backend_err(&self.label(), "mapping the loop guard failed"));
        }
        let w = {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| backend_err(&self.label(), format!("get_mapped_range: {e}")))?;
            u32::from_le_bytes([view[0], view[1], view[2], view[3]])
        };
        staging.unmap();
        if w == 0 {
            return Ok(());
        }
        let name = self
            .guard
            .as_ref()
            .and_then(|g| g.names.lock().ok()?.get(w as usize - 1).cloned())
            .unwrap_or_else(|| "?".into());
        Err(backend_err(
            &self.label(),
            format!(
                "kernel {name}: a shader loop was cut short by the driver's loop limit ({} loop \
                 iterations per invocation, shared by all its loops; Mesa's llvmpipe stops loops \
                 there), so results computed since the last synchronization are wrong; use the \
                 cpu backend or a hardware GPU for this size",
                self.loop_budget.unwrap_or(0)
            ),
        ))
    }

    /// Checks the loop guard after all recorded work (a no-op unless a guarded kernel ran).
    pub(crate) fn check_guard(&self) -> Result<()> {
        if !self
            .guard
            .as_ref()
            .is_some_and(|g| g.dirty.load(Ordering::Relaxed))
        {
            return Ok(());
        }
        let staging = {
            let mut p = self.lock_pending()?;
            let enc = p.encoder(&self.device);
            let st = self.guard_copy(enc);
            self.submit_locked(&mut p);
            st
        };
        self.guard_result(staging)
    }
}
