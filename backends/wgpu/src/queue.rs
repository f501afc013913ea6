//! Recording and submission: dispatches go into one pending command encoder, submitted every
//! [`SUBMIT_EVERY`](crate::SUBMIT_EVERY) dispatches or on a read; validation errors are collected.

use crate::{backend_err, Pipe, WgpuBackend, SUBMIT_EVERY};
use cupy_core::Result;
use wgpu::util::DeviceExt;

/// A buffer and the window of it bound (`None`: all of it).
pub(crate) type Bound<'a> = (&'a wgpu::Buffer, Option<crate::window::Win>);

/// Bytes of the meta buffer the dispatches of one batch share (each dispatch's meta words at
/// its own aligned offset); a batch whose metas would pass it is submitted early.
const META_BYTES: usize = 64 * 1024;

#[derive(Default)]
pub(crate) struct Pending {
    encoder: Option<wgpu::CommandEncoder>,
    /// The compute pass dispatches are recorded into, open across dispatches (one pass per
    /// dispatch cost a pass's setup and its end each time); ended before any other command
    /// ([`Pending::encoder`]) and before the submit. wgpu still orders the dispatches of one
    /// pass (each is its own usage scope, with the barriers between them).
    pass: Option<wgpu::ComputePass<'static>>,
    pub(crate) count: usize,
    /// The meta words of this batch's dispatches, laid out as they go into `meta_buf`: one
    /// `write_buffer` just before the submit puts them there, instead of one uniform buffer
    /// created per dispatch (a buffer creation and a mapping each: the larger part of a small
    /// op's host time). Reusing `meta_buf` across batches is ordered by the queue: a
    /// `write_buffer` lands after every earlier submission and before its own.
    pub(crate) meta: Vec<u8>,
    pub(crate) meta_buf: Option<wgpu::Buffer>,
}

impl Pending {
    /// The pending encoder for commands other than dispatches (copies, clears): the open
    /// compute pass is ended first.
    pub(crate) fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.pass = None;
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        })
    }
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
        self.wait_submission(None)
    }

    /// [`WgpuBackend::wait`] for submission `sub` only (`None`: the latest).
    pub(crate) fn wait_submission(&self, sub: Option<wgpu::SubmissionIndex>) -> Result<()> {
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
            self.device.poll(wgpu::PollType::Wait {
                submission_index: sub,
                timeout: None,
            })
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

    /// Submits the recorded work (its submission, if there was any); the caller holds the
    /// pending lock, so submissions (and `write_buffer` calls made under the same lock) keep
    /// program order across threads.
    pub(crate) fn submit_locked(&self, p: &mut Pending) -> Option<wgpu::SubmissionIndex> {
        p.count = 0;
        p.pass = None;
        if !p.meta.is_empty() {
            if let Some(b) = &p.meta_buf {
                self.queue.write_buffer(b, 0, &p.meta);
            }
            p.meta.clear();
        }
        p.encoder.take().map(|e| self.queue.submit([e.finish()]))
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
        let mut p = self.lock_pending()?;
        // The meta words' place in this batch's share of the meta buffer (16-byte multiples,
        // as uniform structs are); a meta larger than the whole buffer gets its own.
        let size = meta.len().max(16).next_multiple_of(16);
        let align = (self.limits.min_uniform_buffer_offset_alignment as usize).max(16);
        let own;
        let (ubuf, offset) = if size > META_BYTES {
            own = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("cupy-meta"),
                    contents: &[meta, &vec![0u8; size - meta.len()]].concat(),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            (&own, 0)
        } else {
            if p.meta.len().next_multiple_of(align) + size > META_BYTES {
                self.submit_locked(&mut p);
            }
            let off = p.meta.len().next_multiple_of(align);
            p.meta.resize(off, 0);
            p.meta.extend_from_slice(meta);
            p.meta.resize(off + size, 0);
            let buf = p.meta_buf.get_or_insert_with(|| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("cupy-meta"),
                    size: META_BYTES as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            });
            // A handle to the same buffer, so the bind group can be made with `p` borrowed.
            own = buf.clone();
            (&own, off as u64)
        };
        // One bind group per (layout, meta buffer, storage buffers and windows), made once:
        // the meta words' place in the batch is the dynamic offset of binding 0. The cache
        // lives in the pool, which drops it with any buffer it frees (pool.rs).
        let meta_size = size as u64;
        let make = || {
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: ubuf,
                    offset: 0,
                    size: wgpu::BufferSize::new(meta_size),
                }),
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
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipe.layout,
                entries: &entries,
            })
        };
        let bg = if size > META_BYTES {
            make()
        } else {
            let key = crate::pool::BindKey {
                layout: pipe.layout.clone(),
                meta: (ubuf.clone(), meta_size),
                buffers: buffers
                    .iter()
                    .map(|(b, w)| ((*b).clone(), w.map(|w| (w.start, w.size))))
                    .collect(),
            };
            self.pool.bind_group(key, make)
        };
        self.encode_locked(&mut p, &pipe.pipeline, &bg, &[offset as u32], g);
        Ok(())
    }

    /// Records one dispatch of `pipeline` with `bg` at group 0 into the pending encoder.
    pub(crate) fn encode(
        &self,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        g: (u32, u32, u32),
    ) -> Result<()> {
        let mut p = self.lock_pending()?;
        self.encode_locked(&mut p, pipeline, bg, &[], g);
        Ok(())
    }

    /// [`WgpuBackend::encode`] with the pending lock held (`offsets`: the bind group's dynamic
    /// offsets).
    fn encode_locked(
        &self,
        p: &mut Pending,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        offsets: &[u32],
        g: (u32, u32, u32),
    ) {
        if p.pass.is_none() {
            let enc = p.encoder.get_or_insert_with(|| {
                self.device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
            });
            p.pass = Some(
                enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                })
                .forget_lifetime(),
            );
        }
        if let Some(pass) = p.pass.as_mut() {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bg, offsets);
            pass.dispatch_workgroups(g.0, g.1, g.2);
        }
        p.count += 1;
        if p.count >= SUBMIT_EVERY {
            self.submit_locked(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::WgpuBackend;
    use cupy_core::backend::{Backend, ElementwiseCall, Operand};
    use cupy_core::kernel::ir::{BinaryOp, Expr, Kernel};
    use cupy_core::{DType, Layout};

    /// Repeated dispatches on the same buffers share one bind group; freeing the pool's
    /// buffers drops it (a bind group holds its buffers).
    #[test]
    fn bind_groups_are_reused_and_dropped_with_freed_buffers() {
        let Some(a) = crate::device::sorted_adapters().into_iter().next() else {
            eprintln!("NOTICE: no wgpu adapter; skipped");
            return;
        };
        let be = WgpuBackend::new(0, a).unwrap();
        let f = DType::Float32;
        let k = Kernel::map(
            "add",
            vec![f, f],
            vec![],
            Expr::binary(BinaryOp::Add, Expr::input(0, f), Expr::input(1, f)),
        );
        let n = 1000;
        let (x, y, z) = (
            be.alloc(f, n).unwrap(),
            be.alloc(f, n).unwrap(),
            be.alloc(f, n).unwrap(),
        );
        let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
        be.write(&x, 0, bytemuck::cast_slice(&v)).unwrap();
        be.write(&y, 0, bytemuck::cast_slice(&v)).unwrap();
        let l = Layout::contiguous(&[n]);
        let before = be.pool.bind_groups();
        for _ in 0..10 {
            be.elementwise(&ElementwiseCall {
                kernel: &k,
                shape: vec![n],
                inputs: vec![
                    Operand {
                        buffer: &x,
                        layout: l.clone(),
                    },
                    Operand {
                        buffer: &y,
                        layout: l.clone(),
                    },
                ],
                outputs: vec![Operand {
                    buffer: &z,
                    layout: l.clone(),
                }],
                raws: vec![],
                params: vec![],
            })
            .unwrap();
        }
        let got: Vec<f32> = bytemuck::cast_slice(&be.read(&z, 0, n).unwrap()).to_vec();
        assert!(got.iter().enumerate().all(|(i, g)| *g == 2.0 * i as f32));
        assert_eq!(be.pool.bind_groups() - before, 1);
        drop((x, y, z));
        // The buffers are cached in the pool: the bind group stays usable.
        assert_eq!(be.pool.bind_groups() - before, 1);
        be.pool_free_all_blocks().unwrap();
        assert_eq!(be.pool.bind_groups(), 0);
    }
}
