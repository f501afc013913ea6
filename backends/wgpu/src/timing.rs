//! Device-side timing (`Backend::time_device`) through timestamp queries: a timestamp written
//! into the pending encoder before the timed work and one after it (wgpu's
//! `TIMESTAMP_QUERY_INSIDE_ENCODERS`), resolved and read back, scaled by the queue's timestamp
//! period. Adapters without the feature time on the host clock instead (`None`).

use crate::{backend_err, WgpuBackend};
use cupy_core::Result;

/// The two timestamps' query set and the buffers they are resolved into and read from (made
/// on first use).
pub(crate) struct Timer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// One timing at a time: the queries and buffers are shared.
    busy: std::sync::Mutex<()>,
}

/// The features device-side timing needs.
pub(crate) const FEATURES: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

impl WgpuBackend {
    fn timer(&self) -> &Timer {
        self.timer.get_or_init(|| Timer {
            queries: self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("cupy-timer"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cupy-timer-resolved"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cupy-timer-readback"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            busy: std::sync::Mutex::default(),
        })
    }

    /// `Backend::time_device`: seconds of device time between a timestamp before `work`'s
    /// commands and one after them, or `None` (after running `work`) without the features.
    pub(crate) fn time_on_device(
        &self,
        work: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Option<f64>> {
        if !self.features.contains(FEATURES)
            || std::env::var("CUPY_WGPU_HOST_CLOCK").is_ok_and(|v| v.trim() == "1")
        {
            work()?;
            return Ok(None);
        }
        let timer = self.timer();
        let _busy = timer
            .busy
            .lock()
            .map_err(|_| backend_err(&self.label(), "poisoned timer lock"))?;
        self.lock_pending()?
            .encoder(&self.device)
            .write_timestamp(&timer.queries, 0);
        work()?;
        let sub = {
            let mut p = self.lock_pending()?;
            let e = p.encoder(&self.device);
            e.write_timestamp(&timer.queries, 1);
            e.resolve_query_set(&timer.queries, 0..2, &timer.resolved, 0);
            e.copy_buffer_to_buffer(&timer.resolved, 0, &timer.readback, 0, 16);
            self.submit_locked(&mut p)
        };
        let (tx, rx) = std::sync::mpsc::channel();
        timer.readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r.is_ok());
        });
        let ticks = (|| -> Result<[u64; 2]> {
            self.wait_submission(sub)?;
            let mapped = rx
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap_or(false);
            if !mapped {
                return Err(backend_err(
                    &self.label(),
                    "the timestamps' readback was not mapped",
                ));
            }
            let view = timer
                .readback
                .get_mapped_range(..)
                .map_err(|e| backend_err(&self.label(), format!("get_mapped_range: {e}")))?;
            Ok(bytemuck::pod_read_unaligned(&view[..16]))
        })();
        // Unmapped on every path (a pending map is cancelled), so the next timing's copy into
        // it (in the same submission as its timed work) stays valid.
        timer.readback.unmap();
        let ticks = ticks?;
        self.take_errors()?;
        let ns =
            ticks[1].saturating_sub(ticks[0]) as f64 * f64::from(self.queue.get_timestamp_period());
        Ok(Some(ns * 1e-9))
    }
}
