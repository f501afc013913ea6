//! Collective communication through a vendor library (NCCL on cuda, RCCL on hip): the
//! backend-facing half of `cupy::distributed`.
//!
//! A backend whose vendor has a collective library returns a [`CollectiveBackend`] from
//! [`super::Backend::collectives`]; the frontend makes communicators with it and hands each
//! operation over as one [`CollectiveCall`] on the thread's current stream. Backends without one
//! (wgpu, the cpu) return `None`, and the frontend's host communicator does the work.
//!
//! Calls speak the library's types only ([`WireType`]): the frontend maps every NumPy dtype to
//! them (complex as pairs of floats, bool and 16-bit integers as bytes where only data moves)
//! and checks counts, roots and peers before a call, so a backend passes them on as they are.

use super::Buffer;
use crate::error::Result;
use std::fmt;

/// Bytes of an NCCL/RCCL unique id (`NCCL_UNIQUE_ID_BYTES`).
pub const UNIQUE_ID_BYTES: usize = 128;

/// A reduction operator (`ncclRedOp_t`: `ncclSum ncclProd ncclMax ncclMin ncclAvg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `ncclSum` (0).
    Sum,
    /// `ncclProd` (1).
    Prod,
    /// `ncclMax` (2).
    Max,
    /// `ncclMin` (3).
    Min,
    /// `ncclAvg` (4): the sum divided by the number of ranks (NCCL 2.10 and later).
    Avg,
}

impl ReduceOp {
    /// The C enum value of `ncclRedOp_t` (the same in nccl.h and rccl.h).
    pub fn nccl_value(self) -> i32 {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Prod => 1,
            ReduceOp::Max => 2,
            ReduceOp::Min => 3,
            ReduceOp::Avg => 4,
        }
    }

    /// CuPy's name (`'sum'`, `'prod'`, `'max'`, `'min'`, `'avg'`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Avg => "avg",
        }
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An element type of the collective libraries (`ncclDataType_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireType {
    /// `ncclInt8` (0).
    Int8,
    /// `ncclUint8` (1).
    UInt8,
    /// `ncclInt32` (2).
    Int32,
    /// `ncclUint32` (3).
    UInt32,
    /// `ncclInt64` (4).
    Int64,
    /// `ncclUint64` (5).
    UInt64,
    /// `ncclFloat16` (6).
    Float16,
    /// `ncclFloat32` (7).
    Float32,
    /// `ncclFloat64` (8).
    Float64,
    /// `ncclBfloat16` (9; NCCL 2.10 and later).
    BFloat16,
}

impl WireType {
    /// The C enum value of `ncclDataType_t` (the same in nccl.h and rccl.h).
    pub fn nccl_value(self) -> i32 {
        match self {
            WireType::Int8 => 0,
            WireType::UInt8 => 1,
            WireType::Int32 => 2,
            WireType::UInt32 => 3,
            WireType::Int64 => 4,
            WireType::UInt64 => 5,
            WireType::Float16 => 6,
            WireType::Float32 => 7,
            WireType::Float64 => 8,
            WireType::BFloat16 => 9,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            WireType::Int8 | WireType::UInt8 => 1,
            WireType::Float16 | WireType::BFloat16 => 2,
            WireType::Int32 | WireType::UInt32 | WireType::Float32 => 4,
            WireType::Int64 | WireType::UInt64 | WireType::Float64 => 8,
        }
    }
}

/// A contiguous run of a buffer: `offset` is in elements of the buffer's own dtype (a view's
/// offset), the run's length is the call's count in [`WireType`] elements.
#[derive(Clone, Copy, Debug)]
pub struct CommBuf<'a> {
    /// The buffer.
    pub buffer: &'a Buffer,
    /// First element, in the buffer's dtype.
    pub offset: usize,
}

impl CommBuf<'_> {
    /// Byte offset of the run in its buffer.
    pub fn byte_offset(&self) -> usize {
        self.offset * self.buffer.dtype().itemsize()
    }
}

/// One collective operation, NCCL's argument order. Counts are in [`WireType`] elements.
#[derive(Clone, Copy, Debug)]
pub enum CollectiveCall<'a> {
    /// `ncclAllReduce(send, recv, count, type, op)`.
    AllReduce {
        /// Input.
        send: CommBuf<'a>,
        /// Output (may be the input: in place).
        recv: CommBuf<'a>,
        /// Elements.
        count: usize,
        /// Element type.
        ty: WireType,
        /// Operator.
        op: ReduceOp,
    },
    /// `ncclReduce(send, recv, count, type, op, root)`: only `root`'s `recv` is written.
    Reduce {
        /// Input.
        send: CommBuf<'a>,
        /// Output.
        recv: CommBuf<'a>,
        /// Elements.
        count: usize,
        /// Element type.
        ty: WireType,
        /// Operator.
        op: ReduceOp,
        /// Root rank.
        root: usize,
    },
    /// `ncclBroadcast(send, recv, count, type, root)` (in place when they are the same).
    Broadcast {
        /// Input (read on the root).
        send: CommBuf<'a>,
        /// Output.
        recv: CommBuf<'a>,
        /// Elements.
        count: usize,
        /// Element type.
        ty: WireType,
        /// Root rank.
        root: usize,
    },
    /// `ncclReduceScatter(send, recv, recvcount, type, op)`: `send` holds `n_ranks * count`.
    ReduceScatter {
        /// Input.
        send: CommBuf<'a>,
        /// Output.
        recv: CommBuf<'a>,
        /// Elements per rank.
        count: usize,
        /// Element type.
        ty: WireType,
        /// Operator.
        op: ReduceOp,
    },
    /// `ncclAllGather(send, recv, sendcount, type)`: `recv` holds `n_ranks * count`.
    AllGather {
        /// Input.
        send: CommBuf<'a>,
        /// Output.
        recv: CommBuf<'a>,
        /// Elements per rank.
        count: usize,
        /// Element type.
        ty: WireType,
    },
    /// `ncclSend(buf, count, type, peer)`.
    Send {
        /// Input.
        buf: CommBuf<'a>,
        /// Elements.
        count: usize,
        /// Element type.
        ty: WireType,
        /// Destination rank.
        peer: usize,
    },
    /// `ncclRecv(buf, count, type, peer)`.
    Recv {
        /// Output.
        buf: CommBuf<'a>,
        /// Elements.
        count: usize,
        /// Element type.
        ty: WireType,
        /// Source rank.
        peer: usize,
    },
}

/// One rank of a vendor communicator (`ncclComm_t`), bound to one device. Dropping it destroys
/// the communicator (`ncclCommDestroy`).
pub trait DeviceComm: Send + Sync + fmt::Debug {
    /// Queues `call` on the thread's current stream of the communicator's device.
    ///
    /// # Errors
    /// The library's error (named, with `ncclGetErrorString` and `ncclGetLastError`).
    fn call(&self, call: &CollectiveCall<'_>) -> Result<()>;
}

/// The collective library of a backend (NCCL, RCCL), loaded when first asked for.
pub trait CollectiveBackend: Send + Sync {
    /// The library's name, version and the file it was loaded from
    /// (`"NCCL 2.27.3 (/path/libnccl.so.2)"`).
    ///
    /// # Errors
    /// [`crate::Error::BackendUnavailable`] naming every path tried when it cannot be loaded.
    fn library(&self) -> Result<String>;

    /// A new unique id (`ncclGetUniqueId`): rank 0 makes it and every rank passes it to
    /// [`CollectiveBackend::init_rank`].
    ///
    /// # Errors
    /// The library missing or failing.
    fn unique_id(&self) -> Result<[u8; UNIQUE_ID_BYTES]>;

    /// Joins communicator `id` as `rank` of `n_ranks` on this device (`ncclCommInitRank`).
    /// Blocks until every rank joined, unless called between [`CollectiveBackend::group_start`]
    /// and [`CollectiveBackend::group_end`] (several devices from one thread).
    ///
    /// # Errors
    /// The library missing or failing.
    fn init_rank(
        &self,
        id: &[u8; UNIQUE_ID_BYTES],
        n_ranks: usize,
        rank: usize,
    ) -> Result<Box<dyn DeviceComm>>;

    /// `ncclGroupStart` (per thread, for every communicator of the library).
    ///
    /// # Errors
    /// The library missing or failing.
    fn group_start(&self) -> Result<()>;

    /// `ncclGroupEnd`: launches what was queued since the matching start.
    ///
    /// # Errors
    /// The library's error for any call of the group.
    fn group_end(&self) -> Result<()>;
}
