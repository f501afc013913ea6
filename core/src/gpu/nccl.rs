//! What the NCCL (cuda) and RCCL (hip) communicators share: the C API is the same in both
//! libraries (rccl.h keeps NCCL's names, enum values and signatures), so one table of function
//! pointers ([`NcclFns`]), one communicator ([`NcclComm`]) and one [`CollectiveBackend`]
//! ([`NcclCollectives`]) serve both; each backend loads its library and says how to bind its
//! device, find the current stream and address a buffer ([`CommDevice`]).
//!
//! The declarations were checked against NCCL's `src/nccl.h.in` and RCCL's `src/nccl.h.in`
//! (the commits are named in `backends/cuda/src/nccl.rs` and `backends/hip/src/sys/rccl.rs`).

use crate::backend::collective::{
    CollectiveBackend, CollectiveCall, CommBuf, DeviceComm, UNIQUE_ID_BYTES,
};
use crate::error::{Error, Result};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// `ncclUniqueId` (`typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;`),
/// passed by value to `ncclCommInitRank`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct NcclUniqueId {
    /// The opaque bytes.
    pub internal: [c_char; UNIQUE_ID_BYTES],
}

/// `ncclComm_t` (a pointer to an opaque struct).
pub type NcclCommPtr = *mut c_void;

/// The NCCL/RCCL entry points cupy-rs calls (`ncclResult_t` and the enums are C `int`s; a
/// stream is `cudaStream_t`/`hipStream_t`, a pointer).
#[derive(Clone, Copy)]
#[allow(clippy::type_complexity)]
pub struct NcclFns {
    /// `ncclResult_t ncclGetVersion(int* version)`.
    pub get_version: unsafe extern "C" fn(*mut c_int) -> c_int,
    /// `ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId)`.
    pub get_unique_id: unsafe extern "C" fn(*mut NcclUniqueId) -> c_int,
    /// `ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank)`.
    pub comm_init_rank: unsafe extern "C" fn(*mut NcclCommPtr, c_int, NcclUniqueId, c_int) -> c_int,
    /// `ncclResult_t ncclCommDestroy(ncclComm_t comm)`.
    pub comm_destroy: unsafe extern "C" fn(NcclCommPtr) -> c_int,
    /// `const char* ncclGetErrorString(ncclResult_t result)`.
    pub get_error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    /// `const char* ncclGetLastError(ncclComm_t comm)` (NCCL 2.13 and later; `None` before).
    pub get_last_error: Option<unsafe extern "C" fn(NcclCommPtr) -> *const c_char>,
    /// `ncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream)`.
    pub all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        NcclCommPtr,
        *mut c_void,
    ) -> c_int,
    /// `ncclReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream)`.
    pub reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        c_int,
        NcclCommPtr,
        *mut c_void,
    ) -> c_int,
    /// `ncclBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream)`.
    pub broadcast: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        NcclCommPtr,
        *mut c_void,
    ) -> c_int,
    /// `ncclReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream)`.
    pub reduce_scatter: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        NcclCommPtr,
        *mut c_void,
    ) -> c_int,
    /// `ncclAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream)`.
    pub all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        NcclCommPtr,
        *mut c_void,
    ) -> c_int,
    /// `ncclSend(sendbuff, count, datatype, peer, comm, stream)`.
    pub send:
        unsafe extern "C" fn(*const c_void, usize, c_int, c_int, NcclCommPtr, *mut c_void) -> c_int,
    /// `ncclRecv(recvbuff, count, datatype, peer, comm, stream)`.
    pub recv:
        unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, NcclCommPtr, *mut c_void) -> c_int,
    /// `ncclResult_t ncclGroupStart()`.
    pub group_start: unsafe extern "C" fn() -> c_int,
    /// `ncclResult_t ncclGroupEnd()`.
    pub group_end: unsafe extern "C" fn() -> c_int,
}

impl NcclFns {
    /// Resolves every entry point through `get` (a symbol lookup in the opened library; `None`
    /// when missing). `ncclGetLastError` is optional.
    ///
    /// # Errors
    /// The first missing symbol, named.
    ///
    /// # Safety
    /// `get` must return addresses of functions with the C signatures documented on the fields
    /// (NCCL's or RCCL's), valid while the returned table is used.
    #[allow(clippy::missing_transmute_annotations)]
    pub unsafe fn resolve(get: &dyn Fn(&str) -> Option<*const c_void>) -> Result<NcclFns, String> {
        let need = |name: &str| get(name).ok_or_else(|| format!("symbol {name} not found"));
        macro_rules! f {
            ($name:literal) => {
                // SAFETY: the caller vouches for the symbol's signature.
                unsafe { std::mem::transmute::<*const c_void, _>(need($name)?) }
            };
        }
        Ok(NcclFns {
            get_version: f!("ncclGetVersion"),
            get_unique_id: f!("ncclGetUniqueId"),
            comm_init_rank: f!("ncclCommInitRank"),
            comm_destroy: f!("ncclCommDestroy"),
            get_error_string: f!("ncclGetErrorString"),
            get_last_error: get("ncclGetLastError").map(|p| {
                // SAFETY: as above.
                unsafe {
                    std::mem::transmute::<
                        *const c_void,
                        unsafe extern "C" fn(NcclCommPtr) -> *const c_char,
                    >(p)
                }
            }),
            all_reduce: f!("ncclAllReduce"),
            reduce: f!("ncclReduce"),
            broadcast: f!("ncclBroadcast"),
            reduce_scatter: f!("ncclReduceScatter"),
            all_gather: f!("ncclAllGather"),
            send: f!("ncclSend"),
            recv: f!("ncclRecv"),
            group_start: f!("ncclGroupStart"),
            group_end: f!("ncclGroupEnd"),
        })
    }
}

/// A loaded NCCL or RCCL.
pub struct NcclLib {
    /// The entry points.
    pub fns: NcclFns,
    /// `"NCCL"` or `"RCCL"`.
    pub name: &'static str,
    /// The file it was loaded from.
    pub path: String,
    /// `ncclGetVersion`'s code (e.g. 22703 for 2.27.3).
    pub version: i32,
    /// Keeps the library loaded (a `libloading::Library`).
    pub _keep: Box<dyn std::any::Any + Send + Sync>,
}

impl fmt::Debug for NcclLib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.description(), self.path)
    }
}

impl NcclLib {
    /// `"NCCL 2.27.3"`. The version code is `X*10000 + Y*100 + Z` since 2.9 and
    /// `X*1000 + Y*100 + Z` before.
    pub fn description(&self) -> String {
        let v = self.version;
        let (x, y, z) = if v >= 10000 {
            (v / 10000, (v / 100) % 100, v % 100)
        } else {
            (v / 1000, (v / 100) % 10, v % 100)
        };
        format!("{} {x}.{y}.{z}", self.name)
    }

    /// The error of a failed call `what` (with `ncclGetLastError` of `comm` where there is one).
    fn error(&self, device: &str, what: &str, code: c_int, comm: NcclCommPtr) -> Error {
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: the library returns NUL-terminated static or per-thread strings.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        // SAFETY: plain query.
        let mut msg = text(unsafe { (self.fns.get_error_string)(code) });
        if let Some(last) = self.fns.get_last_error {
            // SAFETY: ncclGetLastError accepts a null communicator (the thread's last error).
            let l = text(unsafe { last(comm) });
            if !l.is_empty() {
                msg = format!("{msg}: {l}");
            }
        }
        Error::Backend {
            backend: device.to_string(),
            msg: format!("{what} failed ({}): error {code}, {msg}", self.name),
        }
    }

    fn check(&self, device: &str, what: &str, code: c_int, comm: NcclCommPtr) -> Result<()> {
        if code == 0 {
            Ok(())
        } else {
            Err(self.error(device, what, code, comm))
        }
    }
}

/// What a communicator needs of its device.
pub trait CommDevice: Send + Sync + fmt::Debug {
    /// `"cuda:0 (NVIDIA H200)"`.
    fn label(&self) -> String;
    /// Makes the device current on this thread (NCCL reads the current device).
    ///
    /// # Errors
    /// Driver errors.
    fn bind(&self) -> Result<()>;
    /// The thread's current stream of the device (`cudaStream_t`/`hipStream_t`).
    fn stream(&self) -> *mut c_void;
    /// The device address of the run's first byte.
    ///
    /// # Errors
    /// `InvalidArgument` for a buffer of another device.
    fn address(&self, op: &str, b: &CommBuf<'_>) -> Result<u64>;
}

/// A library loaded on first use: `Err` keeps why it could not be.
pub type LazyLib = OnceLock<std::result::Result<Arc<NcclLib>, String>>;

/// The [`CollectiveBackend`] of one device: the library (loaded when first asked for, once per
/// process) and the device.
pub struct NcclCollectives<D: CommDevice + Clone + 'static> {
    lib: &'static LazyLib,
    load: fn() -> std::result::Result<NcclLib, String>,
    backend: &'static str,
    device: D,
}

impl<D: CommDevice + Clone + 'static> NcclCollectives<D> {
    /// `lib` is the process-wide slot, `load` opens the library, `backend` is `"cuda"`/`"hip"`.
    pub fn new(
        lib: &'static LazyLib,
        load: fn() -> std::result::Result<NcclLib, String>,
        backend: &'static str,
        device: D,
    ) -> Self {
        NcclCollectives {
            lib,
            load,
            backend,
            device,
        }
    }

    fn lib(&self) -> Result<Arc<NcclLib>> {
        self.lib
            .get_or_init(|| (self.load)().map(Arc::new))
            .clone()
            .map_err(|reason| Error::BackendUnavailable {
                backend: format!("{} (collectives)", self.backend),
                reason,
            })
    }
}

impl<D: CommDevice + Clone + 'static> CollectiveBackend for NcclCollectives<D> {
    fn library(&self) -> Result<String> {
        let l = self.lib()?;
        Ok(format!("{} ({})", l.description(), l.path))
    }

    fn unique_id(&self) -> Result<[u8; UNIQUE_ID_BYTES]> {
        let l = self.lib()?;
        let mut id = NcclUniqueId {
            internal: [0; UNIQUE_ID_BYTES],
        };
        // SAFETY: out-parameter of the right size.
        let r = unsafe { (l.fns.get_unique_id)(&mut id) };
        l.check(
            &self.device.label(),
            "ncclGetUniqueId",
            r,
            std::ptr::null_mut(),
        )?;
        Ok(id.internal.map(|c| c as u8))
    }

    fn init_rank(
        &self,
        id: &[u8; UNIQUE_ID_BYTES],
        n_ranks: usize,
        rank: usize,
    ) -> Result<Box<dyn DeviceComm>> {
        let l = self.lib()?;
        let label = self.device.label();
        let (n, r) = match (c_int::try_from(n_ranks), c_int::try_from(rank)) {
            (Ok(n), Ok(r)) if rank < n_ranks => (n, r),
            _ => {
                return Err(Error::invalid(
                    "ncclCommInitRank",
                    format!("rank {rank} of {n_ranks} ranks"),
                ))
            }
        };
        self.device.bind()?;
        let mut comm: NcclCommPtr = std::ptr::null_mut();
        let uid = NcclUniqueId {
            internal: id.map(|b| b as c_char),
        };
        // SAFETY: out-parameter; the device is current on this thread.
        let code = unsafe { (l.fns.comm_init_rank)(&mut comm, n, uid, r) };
        l.check(&label, "ncclCommInitRank", code, comm)?;
        Ok(Box::new(NcclComm {
            lib: l,
            comm,
            device: self.device.clone(),
        }))
    }

    fn group_start(&self) -> Result<()> {
        let l = self.lib()?;
        // SAFETY: no arguments.
        let r = unsafe { (l.fns.group_start)() };
        l.check(
            &self.device.label(),
            "ncclGroupStart",
            r,
            std::ptr::null_mut(),
        )
    }

    fn group_end(&self) -> Result<()> {
        let l = self.lib()?;
        // SAFETY: no arguments.
        let r = unsafe { (l.fns.group_end)() };
        l.check(
            &self.device.label(),
            "ncclGroupEnd",
            r,
            std::ptr::null_mut(),
        )
    }
}

/// One rank of an NCCL/RCCL communicator.
pub struct NcclComm<D: CommDevice> {
    lib: Arc<NcclLib>,
    comm: NcclCommPtr,
    device: D,
}

// SAFETY: an NCCL communicator may be used from any thread (one call at a time per
// communicator is the caller's rule, as in CuPy; calls are serialized by the frontend's use).
unsafe impl<D: CommDevice> Send for NcclComm<D> {}
// SAFETY: as above.
unsafe impl<D: CommDevice> Sync for NcclComm<D> {}

impl<D: CommDevice> fmt::Debug for NcclComm<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} communicator on {}",
            self.lib.name,
            self.device.label()
        )
    }
}

impl<D: CommDevice> Drop for NcclComm<D> {
    fn drop(&mut self) {
        if self.comm.is_null() {
            return;
        }
        let _ = self.device.bind();
        // SAFETY: created by ncclCommInitRank, destroyed once.
        let _ = unsafe { (self.lib.fns.comm_destroy)(self.comm) };
    }
}

impl<D: CommDevice> DeviceComm for NcclComm<D> {
    fn call(&self, call: &CollectiveCall<'_>) -> Result<()> {
        let f = &self.lib.fns;
        let d = &self.device;
        d.bind()?;
        let s = d.stream();
        let c = self.comm;
        let p = |op: &str, b: &CommBuf<'_>| d.address(op, b).map(|a| a as *mut c_void);
        let int = |v: usize| v as c_int;
        // SAFETY: the frontend checked every count, root and peer against the buffers and the
        // communicator; addresses are device memory of this device, the stream is its own.
        let (what, code) = unsafe {
            match *call {
                CollectiveCall::AllReduce {
                    send,
                    recv,
                    count,
                    ty,
                    op,
                } => (
                    "ncclAllReduce",
                    (f.all_reduce)(
                        p("all_reduce", &send)?,
                        p("all_reduce", &recv)?,
                        count,
                        ty.nccl_value(),
                        op.nccl_value(),
                        c,
                        s,
                    ),
                ),
                CollectiveCall::Reduce {
                    send,
                    recv,
                    count,
                    ty,
                    op,
                    root,
                } => (
                    "ncclReduce",
                    (f.reduce)(
                        p("reduce", &send)?,
                        p("reduce", &recv)?,
                        count,
                        ty.nccl_value(),
                        op.nccl_value(),
                        int(root),
                        c,
                        s,
                    ),
                ),
                CollectiveCall::Broadcast {
                    send,
                    recv,
                    count,
                    ty,
                    root,
                } => (
                    "ncclBroadcast",
                    (f.broadcast)(
                        p("broadcast", &send)?,
                        p("broadcast", &recv)?,
                        count,
                        ty.nccl_value(),
                        int(root),
                        c,
                        s,
                    ),
                ),
                CollectiveCall::ReduceScatter {
                    send,
                    recv,
                    count,
                    ty,
                    op,
                } => (
                    "ncclReduceScatter",
                    (f.reduce_scatter)(
                        p("reduce_scatter", &send)?,
                        p("reduce_scatter", &recv)?,
                        count,
                        ty.nccl_value(),
                        op.nccl_value(),
                        c,
                        s,
                    ),
                ),
                CollectiveCall::AllGather {
                    send,
                    recv,
                    count,
                    ty,
                } => (
                    "ncclAllGather",
                    (f.all_gather)(
                        p("all_gather", &send)?,
                        p("all_gather", &recv)?,
                        count,
                        ty.nccl_value(),
                        c,
                        s,
                    ),
                ),
                CollectiveCall::Send {
                    buf,
                    count,
                    ty,
                    peer,
                } => (
                    "ncclSend",
                    (f.send)(p("send", &buf)?, count, ty.nccl_value(), int(peer), c, s),
                ),
                CollectiveCall::Recv {
                    buf,
                    count,
                    ty,
                    peer,
                } => (
                    "ncclRecv",
                    (f.recv)(p("recv", &buf)?, count, ty.nccl_value(), int(peer), c, s),
                ),
            }
        };
        self.lib.check(&d.label(), what, code, c)
    }
}
