//! `cupyx.distributed` and `cupy.cuda.nccl`: collective communication between devices.
//!
//! ```no_run
//! use cupy as cp;
//! use cp::distributed::{init_process_group, InitOptions, ReduceOp};
//!
//! # fn main() -> cp::Result<()> {
//! // One process per GPU: rank 0 publishes the unique id on 127.0.0.1:13333 (CuPy's default).
//! let rank = 0;
//! let comm = init_process_group(2, rank, InitOptions::default())?;
//! let g = cp::ones(&[1024])?;
//! let out = cp::empty_like(&g)?;
//! comm.all_reduce(&g, &out, ReduceOp::Sum)?;
//! # Ok(()) }
//! ```
//!
//! A [`Communicator`] is one rank, bound to one device. On cuda it is an NCCL communicator, on
//! hip an RCCL one (both loaded at run time, `CUPY_NCCL_PATH` / `CUPY_RCCL_PATH`); on wgpu and the
//! cpu, or with [`CommBackend::Host`], the host communicator joins ranks that are devices of
//! this process (threads, or one thread with [`group_start`]/[`group_end`]) and reduces on the
//! host. Operations go on the thread's current stream of the communicator's device and are
//! ordered after the arrays' last writes like every other op (docs/streams.md).
//!
//! Several devices driven from one process: [`Communicator::init_all`] (NCCL's
//! `ncclCommInitAll`), then either a thread per device, or one thread issuing each collective
//! for every rank between [`group_start`] and [`group_end`] ([`group`]).
//!
//! See docs/distributed.md for the CuPy name of every routine and what ran where.

mod bootstrap;
mod comm;
mod host;
mod reduce;

pub use bootstrap::{init_process_group, InitOptions};
pub use comm::Communicator;
pub use cupy_core::backend::collective::ReduceOp;

use crate::device::Device;
use cupy_core::backend::collective::UNIQUE_ID_BYTES;
use cupy_core::error::{Error, Result};
use std::cell::RefCell;
use std::fmt;

/// Which communicator to make (`init_process_group(backend=...)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CommBackend {
    /// The device's collective library where it has one (NCCL on cuda, RCCL on hip), else the
    /// host communicator (wgpu, the cpu).
    #[default]
    Auto,
    /// The device's collective library; an error where there is none.
    Nccl,
    /// The host communicator on any backend: ranks are devices of this process, data goes
    /// through the host.
    Host,
}

/// The id every rank of one communicator is made with (`cupy.cuda.nccl.get_unique_id()`):
/// NCCL's/RCCL's `ncclUniqueId`, or a host communicator's id. 128 bytes, sent to the other
/// ranks as they are ([`UniqueId::as_bytes`], [`UniqueId::from_bytes`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniqueId(pub(crate) [u8; UNIQUE_ID_BYTES]);

impl UniqueId {
    /// The 128 bytes.
    pub fn as_bytes(&self) -> &[u8; UNIQUE_ID_BYTES] {
        &self.0
    }

    /// An id received from another rank.
    ///
    /// # Errors
    /// `InvalidArgument` unless `bytes` holds exactly 128 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let a: [u8; UNIQUE_ID_BYTES] = bytes.try_into().map_err(|_| {
            Error::invalid(
                "UniqueId::from_bytes",
                format!(
                    "a unique id has {UNIQUE_ID_BYTES} bytes, got {}",
                    bytes.len()
                ),
            )
        })?;
        Ok(UniqueId(a))
    }

    /// Whether this is a host communicator's id (not NCCL's/RCCL's).
    pub fn is_host(&self) -> bool {
        host::is_host_id(&self.0)
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_host() { "host" } else { "nccl" };
        write!(f, "UniqueId({kind}, ")?;
        for b in &self.0[..8] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("..)")
    }
}

/// A new unique id for a communicator on the current device's backend
/// (`cupy.cuda.nccl.get_unique_id()`): NCCL's on cuda, RCCL's on hip, a host communicator's on
/// wgpu and the cpu.
///
/// # Errors
/// `BackendUnavailable` when NCCL/RCCL cannot be loaded (naming the paths tried).
pub fn get_unique_id() -> Result<UniqueId> {
    get_unique_id_on(&Device::current()?, CommBackend::Auto)
}
routine!(get_unique_id as "cupy.cuda.nccl.get_unique_id", Devices, notes: "NCCL's id on cuda, RCCL's on hip, a host communicator's on wgpu and cpu");

/// [`get_unique_id`] for `device`, choosing the communicator kind.
///
/// # Errors
/// As [`get_unique_id`]; `Unsupported` for [`CommBackend::Nccl`] on a backend without a
/// collective library.
pub fn get_unique_id_on(device: &Device, backend: CommBackend) -> Result<UniqueId> {
    match (backend, device.backend().collectives()) {
        (CommBackend::Host, _) | (CommBackend::Auto, None) => Ok(UniqueId(host::new_id())),
        (_, Some(c)) => Ok(UniqueId(c.unique_id()?)),
        (CommBackend::Nccl, None) => Err(no_library(device, "get_unique_id")),
    }
}

pub(crate) fn no_library(device: &Device, op: &str) -> Error {
    Error::Unsupported {
        op: op.into(),
        backend: device.label(),
        reason: "this backend has no collective library (NCCL/RCCL); use CommBackend::Host or \
                 Auto"
            .into(),
    }
}

/// The name and version of the collective library of `device`'s backend and the file it was
/// loaded from (`"NCCL 2.27.3 (/…/libnccl.so.2)"`), loading it if needed
/// (`cupy.cuda.nccl.get_version()`); `"host"` for backends without one.
///
/// # Errors
/// `BackendUnavailable` naming the paths tried when the library cannot be loaded.
pub fn get_version(device: &Device) -> Result<String> {
    match device.backend().collectives() {
        Some(c) => c.library(),
        None => Ok("host".into()),
    }
}
routine!(get_version as "cupy.cuda.nccl.get_version", Devices);

// ---- groups (ncclGroupStart / ncclGroupEnd) ----

/// A thread's open group: the libraries whose group was started, and the host operations
/// whose completion waits for [`group_end`].
#[derive(Default)]
struct GroupState {
    depth: usize,
    libs: Vec<Device>,
    pending: Vec<host::Pending>,
    /// Copies made for the group's calls (non-contiguous inputs), freed after its launch.
    keep: Vec<crate::array::Array>,
}

thread_local! {
    static GROUP: RefCell<Option<GroupState>> = const { RefCell::new(None) };
}

/// Opens a group (`cupy.cuda.nccl.groupStart()`): until the matching [`group_end`], this
/// thread's collective calls are queued and launched together, so one thread can drive every
/// rank of a communicator (each rank's call made in turn) and sends and receives progress
/// together. Groups nest.
pub fn group_start() {
    GROUP.with(|g| g.borrow_mut().get_or_insert_with(GroupState::default).depth += 1);
}
routine!(group_start as "cupy.cuda.nccl.groupStart", Devices);

/// Closes a group (`cupy.cuda.nccl.groupEnd()`); the outermost one launches the queued calls
/// (`ncclGroupEnd`) and completes the host communicator's.
///
/// # Errors
/// `InvalidArgument` without an open group; the first error of a queued call (every call is
/// still completed or abandoned).
pub fn group_end() -> Result<()> {
    let done = GROUP.with(|g| {
        let mut g = g.borrow_mut();
        match g.as_mut() {
            None => Err(Error::invalid(
                "group_end",
                "no group is open (call group_start first)",
            )),
            Some(s) if s.depth > 1 => {
                s.depth -= 1;
                Ok(None)
            }
            Some(_) => Ok(g.take()),
        }
    })?;
    let Some(state) = done else { return Ok(()) };
    let mut first: Option<Error> = None;
    for d in &state.libs {
        if let Some(c) = d.backend().collectives() {
            if let Err(e) = c.group_end() {
                first.get_or_insert(e);
            }
        }
    }
    if let Err(e) = host::run_group(state.pending) {
        first.get_or_insert(e);
    }
    first.map_or(Ok(()), Err)
}
routine!(group_end as "cupy.cuda.nccl.groupEnd", Devices);

/// Runs `f` inside [`group_start`] / [`group_end`] (closing the group on an error too).
///
/// # Errors
/// `f`'s error, else [`group_end`]'s.
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    group_start();
    let r = f();
    let e = group_end();
    let r = r?;
    e.map(|_| r)
}

/// Keeps `a` alive until the open group ends (a temporary input of a queued library call).
pub(crate) fn keep_alive(a: &crate::array::Array) {
    GROUP.with(|g| {
        if let Some(s) = g.borrow_mut().as_mut() {
            s.keep.push(a.clone());
        }
    });
}

/// Whether this thread has a group open.
pub(crate) fn in_group() -> bool {
    GROUP.with(|g| g.borrow().is_some())
}

/// Starts the group of `device`'s library in the open group, once per backend family.
pub(crate) fn group_join_library(device: &Device) -> Result<()> {
    let need = GROUP.with(|g| {
        g.borrow()
            .as_ref()
            .is_some_and(|s| !s.libs.iter().any(|d| d.kind() == device.kind()))
    });
    if need {
        if let Some(c) = device.backend().collectives() {
            c.group_start()?;
            GROUP.with(|g| {
                if let Some(s) = g.borrow_mut().as_mut() {
                    s.libs.push(device.clone());
                }
            });
        }
    }
    Ok(())
}

/// Defers a host operation to the open group's end; returns it back when no group is open.
pub(crate) fn defer_or_return(p: host::Pending) -> Option<host::Pending> {
    GROUP.with(|g| match g.borrow_mut().as_mut() {
        Some(s) => {
            s.pending.push(p);
            None
        }
        None => Some(p),
    })
}
