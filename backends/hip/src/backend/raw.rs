//! Raw (user) kernels on HIP: their hipRTC modules, cached per (source, options, name
//! expressions), and their launches with by-value arguments.

use super::*;

impl HipBackend {
    /// Loads (compiling through hipRTC and the disk cache on first use) a raw module with its
    /// name expressions; cached by (source, options, names) for the backend's life. Returns
    /// its key, handle, and the lowered name of each name expression.
    pub(super) fn raw_module(
        &self,
        kernel: &str,
        source: &str,
        options: &[String],
        names: &[String],
    ) -> Result<(String, Handle, HashMap<String, String>)> {
        let key = raw_module_key_named(source, options, names);
        if let Some((m, lowered)) = self
            .raw_modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok((key, *m, lowered.clone()));
        }
        self.current()?;
        let (m, lowered) = crate::raw::build_raw(
            &self.info.label(),
            (kernel, source, &self.arch),
            options,
            names,
            &self.stats,
            |code, lowered| {
                let m = self
                    .hip
                    .module_load(code)
                    .map_err(|e| self.err(format!("raw module {kernel}: {e}")))?;
                Ok((m, lowered.iter().cloned().collect::<HashMap<_, _>>()))
            },
        )?;
        self.modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Handle(m));
        self.raw_modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.clone(), (Handle(m), lowered.clone()));
        Ok((key, Handle(m), lowered))
    }

    /// A raw (user) kernel launch: checks, hipRTC module, by-value arguments,
    /// `hipModuleLaunchKernel` on the backend's stream.
    pub(super) fn raw_run(&self, call: &RawLaunch<'_>) -> Result<()> {
        let op = format!("RawKernel {}", call.name);
        let max_threads = self
            .hip
            .attribute(h::hipDeviceAttributeMaxThreadsPerBlock, self.dev)
            .ok()
            .filter(|&t| t > 0)
            .unwrap_or(1024) as u32;
        crate::raw::check_raw_dims(&op, call.grid, call.block, max_threads)?;
        let mut slots = launch::raw_arg_slots(self, &op, call.args)?;
        let (key, module, lowered) =
            self.raw_module(call.name, call.source, call.options, call.name_expressions)?;
        // A name expression's kernel is its lowered (mangled) name.
        let fname = lowered.get(call.name).map_or(call.name, String::as_str);
        let fkey = (key, call.name.to_string());
        let cached = self
            .raw_funcs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&fkey)
            .copied();
        let f = match cached {
            Some(f) => f,
            None => {
                // SAFETY: the module stays loaded until the backend drops.
                let f = unsafe { self.hip.module_function(module.0, fname) }
                    .map(Handle)
                    .map_err(|e| Error::Compile {
                        backend: self.info.label(),
                        kernel: call.name.into(),
                        log: format!(
                            "the module has no kernel named {:?} (declare it `extern \"C\" \
                             __global__` so its name is not mangled, or give a template's \
                             instance as a name expression): {e}",
                            call.name
                        ),
                        source_code: call.source.into(),
                    })?;
                self.raw_funcs
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(fkey, f);
                f
            }
        };
        let mut params: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s.as_mut_ptr() as *mut c_void)
            .collect();
        self.current()?;
        let _g = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: each parameter points at a slot holding the argument's bytes (device addresses
        // checked against their buffers, scalars at their C size); the kernel's signature is the
        // user's responsibility, as in CuPy. The stream belongs to this device.
        unsafe {
            self.hip.launch_params(
                f.0,
                (call.grid[0], call.grid[1], call.grid[2]),
                (call.block[0], call.block[1], call.block[2]),
                call.shared_mem,
                self.cur_stream(),
                &mut params,
            )
        }
        .map_err(|e| {
            self.err(format!(
                "launching raw kernel {} (grid {:?}, block {:?}, shared_mem {}) failed: {e}",
                call.name, call.grid, call.block, call.shared_mem
            ))
        })
    }
}
