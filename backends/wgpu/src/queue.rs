//! Recording and submission: dispatches go into one pending command encoder, submitted every
//! [`SUBMIT_EVERY`](crate::SUBMIT_EVERY) dispatches or on a read; validation errors are collected.

use crate::{backend_err, Pipe, WgpuBackend, SUBMIT_EVERY};
use cupy_core::Result;
use wgpu::util::DeviceExt;

/// A buffer and the window of it bound (`None`: all of it).
pub(crate) type Bound<'a> = (&'a wgpu::Buffer, Option<crate::window::Win>);

#[derive(Default)]
pub(crate) struct Pending {
    pub(crate) encoder: Option<wgpu::CommandEncoder>,
    pub(crate) count: usize,
}

/// Splits a 1-D workgroup count into a 2-D grid (x at most 65535).
fn grid(groups: u64) -> (u32, u32) {
    if groups <= 65535 {
        (groups as u32, 1)
    } else {
        let y = groups.div_ceil(65535);
        (groups.div_ceil(y) as u32, y as u32)
    }
}

impl WgpuBackend {
    /// Waits until the queue is idle. A lost device is an `Err` naming it, never a panic: wgpu
    /// panics inside `poll` when the driver reports the loss mid-wait (seen on the H200 after a
    /// shader ran away), so the panic is caught and the device marked lost for every later wait.
    pub(crate) fn wait(&self) -> Result<()> {
        use std::sync::atomic::Ordering;
        let lost = |detail: String| {
            backend_err(
                &self.label(),
                format!("the device was lost ({detail}); open a new Device"),
            )
        };
        if self.lost.load(Ordering::SeqCst) {
            return Err(lost("by an earlier call".into()));
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.device.poll(wgpu::PollType::wait_indefinitely())
        }));
        match r {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(backend_err(&self.label(), format!("poll: {e}"))),
            Err(panic) => {
                self.lost.store(true, Ordering::SeqCst);
                let why = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(lost(format!("wgpu panicked while waiting: {why}")))
            }
        }
    }

    pub(crate) fn take_errors(&self) -> Result<()> {
        let errs: Vec<String> = match self.errors.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(_) => vec![],
        };
        if errs.is_empty() {
            Ok(())
        } else {
            Err(backend_err(&self.label(), errs.join("\n")))
        }
    }

    pub(crate) fn lock_pending(&self) -> Result<std::sync::MutexGuard<'_, Pending>> {
        self.pending
            .lock()
            .map_err(|_| backend_err(&self.label(), "poisoned queue lock"))
    }

    /// Submits the recorded work; the caller holds the pending lock, so submissions (and
    /// `write_buffer` calls made under the same lock) keep program order across threads.
    pub(crate) fn submit_locked(&self, p: &mut Pending) {
        p.count = 0;
        if let Some(e) = p.encoder.take() {
            self.queue.submit([e.finish()]);
        }
    }

    pub(crate) fn flush(&self) -> Result<()> {
        let mut p = self.lock_pending()?;
        self.submit_locked(&mut p);
        Ok(())
    }

    /// Records one dispatch of `groups` workgroups (split into a 2-D grid).
    pub(crate) fn dispatch(
        &self,
        pipe: &Pipe,
        meta: &[u8],
        buffers: &[&wgpu::Buffer],
        groups: u64,
    ) -> Result<()> {
        let bound: Vec<Bound<'_>> = buffers.iter().map(|b| (*b, None)).collect();
        self.dispatch_bound(pipe, meta, &bound, groups)
    }

    /// [`WgpuBackend::dispatch`] with a window per buffer (`None`: the whole buffer).
    pub(crate) fn dispatch_bound(
        &self,
        pipe: &Pipe,
        meta: &[u8],
        buffers: &[Bound<'_>],
        groups: u64,
    ) -> Result<()> {
        if groups == 0 {
            return Ok(());
        }
        let max = self.limits.max_compute_workgroups_per_dimension as u64;
        if groups > max * max {
            return Err(backend_err(
                &self.label(),
                format!("launch of {groups} workgroups is too large"),
            ));
        }
        let (gx, gy) = grid(groups);
        self.dispatch3_bound(pipe, meta, buffers, (gx, gy, 1))
    }

    pub(crate) fn dispatch3(
        &self,
        pipe: &Pipe,
        meta: &[u8],
        buffers: &[&wgpu::Buffer],
        g: (u32, u32, u32),
    ) -> Result<()> {
        let bound: Vec<Bound<'_>> = buffers.iter().map(|b| (*b, None)).collect();
        self.dispatch3_bound(pipe, meta, &bound, g)
    }

    /// Records one dispatch; a buffer bound whole must fit one storage binding (else `Err`
    /// naming the kernel: its launch does not split arrays past the binding cap).
    pub(crate) fn dispatch3_bound(
        &self,
        pipe: &Pipe,
        meta: &[u8],
        buffers: &[Bound<'_>],
        g: (u32, u32, u32),
    ) -> Result<()> {
        for (b, w) in buffers {
            if w.is_none() && b.size() > self.binding_cap {
                return Err(cupy_core::Error::Unsupported {
                    op: pipe.name.clone(),
                    backend: self.label(),
                    reason: format!(
                        "an operand of {} bytes is past one storage binding ({} bytes) and this \
                         kernel does not split its operands across bindings",
                        b.size(),
                        self.binding_cap
                    ),
                });
            }
        }
        let ubuf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("cupy-meta"),
                contents: meta,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: ubuf.as_entire_binding(),
        }];
        for (i, (b, w)) in buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: 1 + i as u32,
                resource: match w {
                    None => b.as_entire_binding(),
                    Some(w) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: b,
                        offset: w.start,
                        size: wgpu::BufferSize::new(w.size),
                    }),
                },
            });
        }
        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipe.layout,
            entries: &entries,
        });
        self.encode(&pipe.pipeline, &bg, g)
    }

    /// Records one dispatch of `pipeline` with `bg` at group 0 into the pending encoder.
    pub(crate) fn encode(
        &self,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        g: (u32, u32, u32),
    ) -> Result<()> {
        let mut p = self.lock_pending()?;
        {
            let enc = p.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                });
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bg, &[]);
                pass.dispatch_workgroups(g.0, g.1, g.2);
            }
            p.count += 1;
        }
        if p.count >= SUBMIT_EVERY {
            self.submit_locked(&mut p);
        }
        Ok(())
    }
}
