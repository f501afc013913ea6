//! The pipeline cache: WGSL compiled once per source key, with its bind group layout.

use crate::WgpuBackend;
use cupy_core::kernel::wgsl::MetaLayout;
use cupy_core::{Error, Result};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

pub(crate) struct Pipe {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) meta: MetaLayout,
    /// The kernel's name (for messages).
    pub(crate) name: String,
}

/// The run-time checks naga adds to every shader module: all of wgpu's defaults (bounds checks,
/// guarded integer division) except the loop counters. naga gives every loop of a checked
/// module a 64-bit pass counter that breaks out when it runs down (WebGPU's defence against a
/// driver treating an endless loop as unreachable). That counter is a function variable the
/// driver's compiler cannot see through, so NVIDIA's Vulkan compiler keeps loops with constant
/// trip counts rolled, and the register tiles indexed by their counters (the GEMM's
/// accumulators, the FFT's and the sort's per-invocation arrays) go to local memory. Every loop
/// the kernel IR and the project's shaders emit ends (its trip count is known at launch, or it
/// is a bounded search), as on the cuda and hip backends, which have no such counters. User
/// kernels' loops are the user's, as in CUDA. `CUPY_WGPU_LOOP_BOUNDING=1` puts the counters back
/// (for comparison).
pub(crate) fn runtime_checks() -> wgpu::ShaderRuntimeChecks {
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    checks.force_loop_bounding =
        std::env::var("CUPY_WGPU_LOOP_BOUNDING").is_ok_and(|v| v.trim() == "1");
    checks
}

pub(crate) fn hash_of<T: Hash>(v: &T) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

impl WgpuBackend {
    /// Compiles (or finds) a pipeline; `key` identifies the source.
    pub(crate) fn pipeline(
        &self,
        key: u64,
        kernel: &str,
        make: &dyn Fn() -> Result<(String, MetaLayout, Vec<bool>)>,
    ) -> Result<Arc<Pipe>> {
        self.pipeline_with_checks(key, kernel, make, runtime_checks())
    }

    /// [`WgpuBackend::pipeline`] with the given run-time checks (`key` must tell them apart).
    pub(crate) fn pipeline_with_checks(
        &self,
        key: u64,
        kernel: &str,
        make: &dyn Fn() -> Result<(String, MetaLayout, Vec<bool>)>,
        checks: wgpu::ShaderRuntimeChecks,
    ) -> Result<Arc<Pipe>> {
        if let Some(p) = self.pipes.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(p);
        }
        let (source, meta, rw) = make()?;
        let mut entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            // The meta words' place in the batch's meta buffer is a dynamic offset, so one bind
            // group serves every dispatch on the same buffers (queue.rs).
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: None,
            },
            count: None,
        }];
        for (i, &w) in rw.iter().enumerate() {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: 1 + i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: !w },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        let guard = self.scope.lock();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        // SAFETY: see `runtime_checks`: bounds and integer-division checks stay on; the loop
        // counters are dropped because every loop of these kernels ends.
        let module = unsafe {
            self.device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(kernel),
                    source: wgpu::ShaderSource::Wgsl(source.as_str().into()),
                },
                checks,
            )
        };
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(kernel),
                entries: &entries,
            });
        let pl = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(kernel),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(kernel),
                layout: Some(&pl),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        let err = pollster::block_on(scope.pop());
        drop(guard);
        if let Some(e) = err {
            return Err(Error::Compile {
                backend: self.label(),
                kernel: kernel.into(),
                log: e.to_string(),
                source_code: source,
            });
        }
        let p = Arc::new(Pipe {
            pipeline,
            layout,
            meta,
            name: kernel.into(),
        });
        if let Ok(mut m) = self.pipes.lock() {
            m.insert(key, p.clone());
        }
        Ok(p)
    }
}
