//! NCCL (collectives, `cupy::distributed`) and peer copies between CUDA devices.
//!
//! NCCL is loaded with `libloading` on the first collective call, never at start-up, so the
//! backend works without it: `CUPY_NCCL_PATH` (a file, or a directory holding `libnccl.so.2`)
//! first, then the loader's default path (`libnccl.so.2`, `libnccl.so`). NCCL from pip
//! (`nvidia-nccl-cu13`) lives in `site-packages/nvidia/nccl/lib/`, off the default path: set
//! `CUPY_NCCL_PATH` to it. cudarc's own NCCL binding is not used: its loader takes no path and
//! does not try the `libnccl.so.2` SONAME. A missing library is `BackendUnavailable` naming every
//! path tried, returned by the collective call only.
//!
//! The entry points ([`cupy_core::gpu::nccl::NcclFns`]) were checked by hand against NVIDIA's
//! `src/nccl.h.in` at NVIDIA/nccl commit 5067397c2676d5aed50042fc39e5c8ee96eb0027 (2026-06-11,
//! NCCL 2.30.7), and by running the `nccl_header` test against that header (its `${nccl:*}`
//! placeholders filled in):
//! `ncclGetVersion(int*)`, `ncclGetUniqueId(ncclUniqueId*)`, `ncclCommInitRank(ncclComm_t*, int,
//! ncclUniqueId, int)`, `ncclCommDestroy`, `ncclGetErrorString(ncclResult_t)`,
//! `ncclGetLastError(ncclComm_t)`, the collectives with `(const void*, void*, size_t,
//! ncclDataType_t, [ncclRedOp_t,] [int root,] ncclComm_t, cudaStream_t)`, `ncclSend/ncclRecv
//! (buf, size_t, ncclDataType_t, int peer, ncclComm_t, cudaStream_t)`, `ncclGroupStart/End()`;
//! `ncclDataType_t` int8 0, uint8 1, int32 2, uint32 3, int64 4, uint64 5, float16 6, float32 7,
//! float64 8, bfloat16 9; `ncclRedOp_t` sum 0, prod 1, max 2, min 3, avg 4;
//! `NCCL_UNIQUE_ID_BYTES` 128. The test `nccl_header` compiles them against an installed
//! `nccl.h` (pip's, found through `CUPY_NCCL_PATH`) where there is one.

use crate::{CudaBackend, CudaBuffer, CudaUserStream};
use cudarc::driver::{result, sys, CudaContext, CudaStream};
use cupy_core::backend::collective::CommBuf;
use cupy_core::backend::stream::current;
use cupy_core::backend::Buffer;
use cupy_core::gpu::nccl::{CommDevice, LazyLib, NcclFns, NcclLib};
use cupy_core::{Error, Result};
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;

/// The process's NCCL, loaded on first use.
pub(crate) static NCCL: LazyLib = LazyLib::new();

/// The file names tried, in order.
const NAMES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];

/// The candidate paths: `CUPY_NCCL_PATH` (a file, or a directory with `libnccl.so.2` or
/// `libnccl.so`), then the bare names for the system loader.
pub fn candidates() -> Vec<String> {
    let mut v = vec![];
    if let Some(p) = std::env::var_os("CUPY_NCCL_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_dir() {
            for d in [p.clone(), p.join("lib")] {
                v.extend(
                    NAMES
                        .iter()
                        .map(|n| d.join(n).to_string_lossy().into_owned()),
                );
            }
        } else {
            v.push(p.to_string_lossy().into_owned());
        }
    }
    v.extend(NAMES.iter().map(|n| n.to_string()));
    v
}

/// Opens NCCL (the first candidate that loads and has every entry point).
pub(crate) fn load() -> std::result::Result<NcclLib, String> {
    let mut tried = vec![];
    for c in candidates() {
        // SAFETY: opening NCCL runs its initialisers, which using it requires; the library
        // stays loaded (kept in the returned table) while its pointers are used.
        let lib = match unsafe { libloading::Library::new(&c) } {
            Ok(l) => l,
            Err(e) => {
                tried.push(format!("{c}: {e}"));
                continue;
            }
        };
        let get = |name: &str| {
            let mut n = name.as_bytes().to_vec();
            n.push(0);
            // SAFETY: symbol lookup only.
            unsafe { lib.get::<*const c_void>(n.as_slice()) }
                .ok()
                .map(|s| *s)
        };
        // SAFETY: the symbols are NCCL's, with the signatures of `NcclFns` (module docs).
        let fns = match unsafe { NcclFns::resolve(&get) } {
            Ok(f) => f,
            Err(e) => {
                tried.push(format!("{c}: {e}"));
                continue;
            }
        };
        let mut version = 0;
        // SAFETY: out-parameter.
        unsafe { (fns.get_version)(&mut version) };
        return Ok(NcclLib {
            fns,
            name: "NCCL",
            path: c,
            version,
            _keep: Box::new(lib),
        });
    }
    Err(format!(
        "NCCL not found (set CUPY_NCCL_PATH to libnccl.so.2 or its directory, e.g. pip's \
         site-packages/nvidia/nccl/lib); tried: {}",
        tried.join("; ")
    ))
}

/// What an NCCL communicator needs of a CUDA device.
#[derive(Clone)]
pub(crate) struct CudaCommDevice {
    pub(crate) label: String,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) default: Arc<CudaStream>,
    /// `backend_key` of the backend (the thread's current stream is looked up by it).
    pub(crate) key: usize,
}

impl std::fmt::Debug for CudaCommDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

impl CommDevice for CudaCommDevice {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(|e| Error::Backend {
            backend: self.label.clone(),
            msg: format!("binding the context: {e:?}"),
        })
    }

    fn stream(&self) -> *mut c_void {
        let s = match current(self.key) {
            Some(s) => s
                .downcast_ref::<CudaUserStream>()
                .map_or(self.default.cu_stream(), |u| u.raw),
            None => self.default.cu_stream(),
        };
        s as *mut c_void
    }

    fn address(&self, op: &str, b: &CommBuf<'_>) -> Result<u64> {
        let cb = b
            .buffer
            .as_any()
            .downcast_ref::<CudaBuffer>()
            .filter(|cb| Arc::ptr_eq(&cb.pool.0.driver().ctx, &self.ctx))
            .ok_or_else(|| Error::invalid(op, format!("a buffer that is not on {}", self.label)))?;
        Ok(cb.ptr + b.byte_offset() as u64)
    }
}

impl CudaBackend {
    /// Copies `bytes` from a buffer of another CUDA device (`cuMemcpyPeerAsync` on this
    /// device's current stream, after enabling peer access where the hardware has it), and
    /// waits for the copy. `Ok(false)` for a buffer that is not a CUDA one.
    pub(crate) fn peer_copy(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<bool> {
        let Some(s) = src.as_any().downcast_ref::<CudaBuffer>() else {
            return Ok(false);
        };
        let d = self.buf(dst, "to_device")?;
        if bytes == 0 {
            return Ok(true);
        }
        let src_ctx = s.pool.0.driver().ctx.clone();
        self.bind()?;
        self.enable_peer(&src_ctx)?;
        let stream = self.cur_stream();
        // SAFETY: both ranges were checked by the caller against their buffers; the contexts
        // are live (held by the buffers' pools); the copy is waited for before returning, so
        // the source may be freed afterwards.
        unsafe {
            result::memcpy_peer_async(
                self.ctx.cu_ctx(),
                d.ptr + dst_offset as u64,
                src_ctx.cu_ctx(),
                s.ptr + src_offset as u64,
                bytes,
                stream,
            )
            .map_err(|e| self.err(format!("cuMemcpyPeerAsync: {e:?}")))?;
            result::stream::synchronize(stream)
                .map_err(|e| self.err(format!("cuStreamSynchronize: {e:?}")))?;
        }
        Ok(true)
    }

    /// `cuCtxEnablePeerAccess` from this context to `peer`'s, once per pair, where
    /// `cuDeviceCanAccessPeer` says the hardware can (NVLink or PCIe P2P); without it
    /// `cuMemcpyPeer` still works, staged by the driver.
    fn enable_peer(&self, peer: &Arc<CudaContext>) -> Result<()> {
        let key = peer.cu_ctx() as usize;
        let mut done = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        if done.contains(&key) {
            return Ok(());
        }
        let mut can = 0;
        // SAFETY: out-parameter; valid devices.
        let r =
            unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.ctx.cu_device(), peer.cu_device()) };
        if r == sys::CUresult::CUDA_SUCCESS && can == 1 {
            // SAFETY: this context is bound; `peer` is live.
            let r = unsafe { sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) };
            if r != sys::CUresult::CUDA_SUCCESS
                && r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
            {
                return Err(self.err(format!("cuCtxEnablePeerAccess: {r:?}")));
            }
        }
        done.push(key);
        Ok(())
    }
}
