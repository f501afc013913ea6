//! RCCL communicators (`cupy::distributed` on hip) through the shared NCCL/RCCL code
//! ([`cupy_core::gpu::nccl`]). RCCL loads on the first collective call (`librccl.so.1` under
//! `$ROCM_PATH/lib`, `/opt/rocm/lib` or the loader's path, or `CUPY_RCCL_PATH`, a file or a
//! directory); a machine without it gets `BackendUnavailable` from that call only.
//! Never run: no AMD GPU here.

use super::{HipBackend, HipBuffer, HipUserStream};
use crate::result::Hip;
use crate::sys::{load_table, rccl};
use cupy_core::backend::collective::CommBuf;
use cupy_core::backend::stream::{backend_key, current};
use cupy_core::gpu::nccl::{CommDevice, LazyLib, NcclCollectives, NcclLib};
use cupy_core::{Error, Result};
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;

/// The process's RCCL, loaded on first use.
static RCCL: LazyLib = LazyLib::new();

/// Opens RCCL: `CUPY_RCCL_PATH` (a file or a directory) first, then [`rccl::LIB_NAMES`] in the
/// ROCm directories and on the loader's path.
fn load() -> std::result::Result<NcclLib, String> {
    let mut names: Vec<String> = vec![];
    if let Some(p) = std::env::var_os("CUPY_RCCL_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_dir() {
            names.extend(
                rccl::LIB_NAMES
                    .iter()
                    .map(|n| p.join(n).to_string_lossy().into_owned()),
            );
        } else {
            names.push(p.to_string_lossy().into_owned());
        }
    }
    names.extend(rccl::LIB_NAMES.iter().map(|n| n.to_string()));
    let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    // SAFETY: the table was written for RCCL (sys::rccl); the library is kept with it.
    let (api, lib) = unsafe {
        load_table(
            "RCCL (librccl)",
            &refs,
            "ncclCommInitRank",
            rccl::RcclApi::load,
        )
    }?;
    let fns = api.to_nccl_fns();
    let mut version = 0;
    // SAFETY: out-parameter.
    unsafe { (fns.get_version)(&mut version) };
    Ok(NcclLib {
        fns,
        name: "RCCL",
        path: lib.path.clone(),
        version,
        _keep: Box::new(lib.lib),
    })
}

/// What an RCCL communicator needs of a HIP device.
#[derive(Clone)]
pub(crate) struct HipCommDevice {
    label: String,
    hip: Arc<Hip>,
    dev: i32,
    default: usize,
    key: usize,
}

impl std::fmt::Debug for HipCommDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

impl CommDevice for HipCommDevice {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn bind(&self) -> Result<()> {
        self.hip.set_device(self.dev).map_err(|e| Error::Backend {
            backend: self.label.clone(),
            msg: e.to_string(),
        })
    }

    fn stream(&self) -> *mut c_void {
        match current(self.key) {
            Some(s) => s
                .downcast_ref::<HipUserStream>()
                .map_or(self.default as *mut c_void, |u| u.raw.0),
            None => self.default as *mut c_void,
        }
    }

    fn address(&self, op: &str, b: &CommBuf<'_>) -> Result<u64> {
        let hb = b
            .buffer
            .as_any()
            .downcast_ref::<HipBuffer>()
            .filter(|hb| hb.pool.inner.driver().dev == self.dev)
            .ok_or_else(|| Error::invalid(op, format!("a buffer that is not on {}", self.label)))?;
        Ok(hb.ptr + b.byte_offset() as u64)
    }
}

/// The backend's collectives (RCCL).
pub(crate) type HipCollectives = NcclCollectives<HipCommDevice>;

impl HipBackend {
    pub(crate) fn make_collectives(&self) -> HipCollectives {
        NcclCollectives::new(
            &RCCL,
            load,
            "hip",
            HipCommDevice {
                label: self.info.label(),
                hip: self.hip.clone(),
                dev: self.dev,
                default: self.stream.0 as usize,
                key: backend_key(self),
            },
        )
    }
}
