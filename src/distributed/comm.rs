//! [`Communicator`]: one rank (CuPy's `cupyx.distributed.NCCLBackend`, and
//! `cupy.cuda.nccl.NcclCommunicator`).

use super::host::HostComm;
use super::{CommBackend, UniqueId};
use crate::array::Array;
use crate::device::Device;
use cupy_core::backend::collective::{CollectiveCall, CommBuf, DeviceComm, ReduceOp, WireType};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use std::time::Duration;

/// The default time a host communicator waits for the other ranks (and the bootstrap for
/// rank 0's id) before failing.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

enum Kind {
    Library(Box<dyn DeviceComm>),
    Host(HostComm),
}

/// One rank of a communicator, bound to one device (`cupyx.distributed.NCCLBackend`,
/// `cupy.cuda.nccl.NcclCommunicator`).
///
/// Every operation takes contiguous arrays on the communicator's device (a non-contiguous
/// input is copied first; outputs must be C-contiguous), is queued on the thread's current
/// stream of that device after the arrays' last uses, and is checked before anything is
/// queued: a refused call leaves every array unchanged. Sizes follow CuPy: `count` elements
/// per rank for `reduce_scatter` and `all_gather`.
///
/// dtypes: every type NCCL has (int8, uint8, int32, uint32, int64, uint64, float16, bfloat16,
/// float32, float64) for every operation; complex64/complex128 as pairs of floats (`sum` and
/// `avg` only); bool as bytes (`sum`/`max` are logical or, `prod`/`min` logical and, as
/// NumPy's `add`/`multiply` on bool); int16/uint16 move (`broadcast`, `all_gather`, `send`,
/// `recv`) but are not reduced (NCCL has no 16-bit integers: cast to int32).
pub struct Communicator {
    device: Device,
    n_ranks: usize,
    rank: usize,
    kind: Kind,
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = match &self.kind {
            Kind::Library(_) => "library",
            Kind::Host(_) => "host",
        };
        write!(
            f,
            "<Communicator rank {} of {} on {} ({k})>",
            self.rank, self.n_ranks, self.device
        )
    }
}

fn check_ranks(op: &str, n_ranks: usize, rank: usize) -> Result<()> {
    if n_ranks == 0 || rank >= n_ranks || n_ranks > i32::MAX as usize {
        return Err(Error::invalid(
            op,
            format!("rank {rank} is not one of {n_ranks} ranks"),
        ));
    }
    Ok(())
}

impl Communicator {
    /// Joins communicator `id` as `rank` of `n_ranks` on the current device
    /// (`cupy.cuda.nccl.NcclCommunicator(n_ranks, id, rank)`). Blocks until every rank joined
    /// (NCCL's own rules; the host communicator waits at most 120 s).
    ///
    /// # Errors
    /// `InvalidArgument` for a rank outside `0..n_ranks`; the library missing or failing; a
    /// host id on another process (`Unsupported`).
    pub fn new(id: &UniqueId, n_ranks: usize, rank: usize) -> Result<Communicator> {
        Communicator::new_on(&Device::current()?, id, n_ranks, rank, DEFAULT_TIMEOUT)
    }

    /// [`Communicator::new`] on `device`, with the host communicator's `timeout`.
    ///
    /// # Errors
    /// As [`Communicator::new`].
    pub fn new_on(
        device: &Device,
        id: &UniqueId,
        n_ranks: usize,
        rank: usize,
        timeout: Duration,
    ) -> Result<Communicator> {
        let c = Communicator::join(device, id, n_ranks, rank, timeout)?;
        if let Kind::Host(h) = &c.kind {
            h.wait_joined()?;
        }
        Ok(c)
    }

    fn join(
        device: &Device,
        id: &UniqueId,
        n_ranks: usize,
        rank: usize,
        timeout: Duration,
    ) -> Result<Communicator> {
        check_ranks("NcclCommunicator", n_ranks, rank)?;
        let kind = if id.is_host() {
            Kind::Host(HostComm::join(&id.0, n_ranks, rank, timeout)?)
        } else {
            let c = device
                .backend()
                .collectives()
                .ok_or_else(|| super::no_library(device, "NcclCommunicator"))?;
            Kind::Library(c.init_rank(&id.0, n_ranks, rank)?)
        };
        Ok(Communicator {
            device: device.clone(),
            n_ranks,
            rank,
            kind,
        })
    }

    /// One communicator over `devices`, one rank per device in that order, made from this one
    /// thread (`cupy.cuda.nccl.NcclCommunicator.initAll(devices)`, `ncclCommInitAll`). NCCL/RCCL
    /// where every device's backend has it (`CommBackend::Auto`), else the host communicator.
    ///
    /// # Errors
    /// No devices; devices of different backend families under NCCL; the library failing.
    pub fn init_all(devices: &[Device]) -> Result<Vec<Communicator>> {
        Communicator::init_all_with(devices, CommBackend::Auto)
    }

    /// [`Communicator::init_all`] choosing the communicator kind.
    ///
    /// # Errors
    /// As [`Communicator::init_all`].
    pub fn init_all_with(devices: &[Device], backend: CommBackend) -> Result<Vec<Communicator>> {
        let first = devices
            .first()
            .ok_or_else(|| Error::invalid("initAll", "no devices"))?;
        for (i, d) in devices.iter().enumerate() {
            if let Some(j) = devices[..i].iter().position(|e| e == d) {
                return Err(Error::invalid(
                    "initAll",
                    format!("device {d} is given twice (positions {j} and {i})"),
                ));
            }
        }
        let id = super::get_unique_id_on(first, backend)?;
        let n = devices.len();
        if id.is_host() {
            let comms = devices
                .iter()
                .enumerate()
                .map(|(r, d)| Communicator::join(d, &id, n, r, DEFAULT_TIMEOUT))
                .collect::<Result<Vec<_>>>()?;
            for c in &comms {
                if let Kind::Host(h) = &c.kind {
                    h.wait_joined()?;
                }
            }
            return Ok(comms);
        }
        if let Some(d) = devices.iter().find(|d| d.kind() != first.kind()) {
            return Err(Error::DeviceMismatch {
                op: "initAll (NCCL)".into(),
                lhs: first.label(),
                rhs: d.label(),
            });
        }
        let lib = first
            .backend()
            .collectives()
            .ok_or_else(|| super::no_library(first, "initAll"))?;
        lib.group_start()?;
        let comms: Vec<Result<Communicator>> = devices
            .iter()
            .enumerate()
            .map(|(r, d)| Communicator::join(d, &id, n, r, DEFAULT_TIMEOUT))
            .collect();
        let end = lib.group_end();
        let comms = comms.into_iter().collect::<Result<Vec<_>>>()?;
        end?;
        Ok(comms)
    }

    /// This rank (`NCCLBackend.rank`, `NcclCommunicator.rank_id()`).
    pub fn rank_id(&self) -> usize {
        self.rank
    }

    /// The number of ranks (`NcclCommunicator.size()`).
    pub fn size(&self) -> usize {
        self.n_ranks
    }

    /// The device this rank is bound to (`NcclCommunicator.device_id()`).
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Whether this is the host communicator (not NCCL/RCCL).
    pub fn is_host(&self) -> bool {
        matches!(self.kind, Kind::Host(_))
    }

    // ---- checks ----

    fn on_device<'a>(&self, op: &str, a: &'a Array) -> Result<&'a Array> {
        if a.device() != &self.device {
            return Err(Error::DeviceMismatch {
                op: op.into(),
                lhs: format!("communicator rank {} on {}", self.rank, self.device),
                rhs: format!("an array on {}", a.device()),
            });
        }
        Ok(a)
    }

    /// An input as a contiguous array (a copy when it is not).
    fn input(&self, op: &str, a: &Array) -> Result<Array> {
        self.on_device(op, a)?;
        if a.layout().is_c_contiguous() {
            Ok(a.clone())
        } else {
            let c = a.copy()?;
            // A library call in a group launches at the group's end: its copy must live so long.
            super::keep_alive(&c);
            Ok(c)
        }
    }

    fn output(&self, op: &str, a: &Array) -> Result<()> {
        self.on_device(op, a)?;
        if !a.layout().is_c_contiguous() {
            return Err(Error::invalid(
                op,
                format!(
                    "the output (shape {:?}, strides {:?}) is not C-contiguous",
                    a.shape(),
                    a.strides()
                ),
            ));
        }
        Ok(())
    }

    fn same_dtype(op: &str, a: &Array, b: &Array) -> Result<()> {
        if a.dtype() != b.dtype() {
            return Err(Error::TypeError {
                op: op.into(),
                dtypes: vec![a.dtype(), b.dtype()],
                msg: "the input and output dtypes differ".into(),
            });
        }
        Ok(())
    }

    fn rank_arg(&self, op: &str, what: &str, r: usize) -> Result<()> {
        if r >= self.n_ranks {
            return Err(Error::invalid(
                op,
                format!(
                    "{what} {r} is not a rank of this communicator (0..{})",
                    self.n_ranks
                ),
            ));
        }
        Ok(())
    }

    fn too_small(op: &str, what: &str, a: &Array, need: usize) -> Result<()> {
        if a.size() < need {
            return Err(Error::invalid(
                op,
                format!(
                    "the {what} (shape {:?}, {} elements) needs at least {need} elements",
                    a.shape(),
                    a.size()
                ),
            ));
        }
        Ok(())
    }

    fn run(&self, call: &CollectiveCall<'_>, reads: &[&Array], writes: &[&Array]) -> Result<()> {
        match &self.kind {
            Kind::Library(c) => {
                let r: Vec<_> = reads.iter().map(|a| a.buffer()).collect();
                let w: Vec<_> = writes.iter().map(|a| a.buffer()).collect();
                crate::cuda::order::order(&self.device, &r, &w)?;
                super::group_join_library(&self.device)?;
                c.call(call)
            }
            Kind::Host(h) => {
                let r: Vec<_> = reads.iter().map(|a| a.buffer()).collect();
                crate::cuda::order::order(&self.device, &r, &[])?;
                h.call(&self.device, call)
            }
        }
    }

    // ---- operations ----

    /// Reduces `input` over every rank into `output` on every rank
    /// (`NCCLBackend.all_reduce(in_array, out_array, op)`; in place when they are the same).
    ///
    /// # Errors
    /// Arrays on another device (`DeviceMismatch`), different sizes or dtypes, a non-contiguous
    /// output, a dtype/op pair without a loop (`TypeError`); the library's error.
    pub fn all_reduce(&self, input: &Array, output: &Array, op: ReduceOp) -> Result<()> {
        let name = "all_reduce";
        let i = self.input(name, input)?;
        self.output(name, output)?;
        Communicator::same_dtype(name, input, output)?;
        if input.size() != output.size() {
            return Err(Error::ShapeMismatch {
                op: name.into(),
                lhs: input.shape().to_vec(),
                rhs: output.shape().to_vec(),
            });
        }
        let (ty, per, op) = wire_reduce(name, input.dtype(), op)?;
        let call = CollectiveCall::AllReduce {
            send: buf(&i),
            recv: buf(output),
            count: input.size() * per,
            ty,
            op,
        };
        self.run(&call, &[&i], &[output])
    }

    /// Reduces `input` over every rank into `output` on rank `root`
    /// (`NCCLBackend.reduce(in_array, out_array, root, op)`); other ranks' outputs are not
    /// written.
    ///
    /// # Errors
    /// As [`Communicator::all_reduce`]; a root outside the ranks.
    pub fn reduce(&self, input: &Array, output: &Array, root: usize, op: ReduceOp) -> Result<()> {
        let name = "reduce";
        self.rank_arg(name, "root", root)?;
        let i = self.input(name, input)?;
        self.output(name, output)?;
        Communicator::same_dtype(name, input, output)?;
        if input.size() != output.size() {
            return Err(Error::ShapeMismatch {
                op: name.into(),
                lhs: input.shape().to_vec(),
                rhs: output.shape().to_vec(),
            });
        }
        let (ty, per, op) = wire_reduce(name, input.dtype(), op)?;
        let call = CollectiveCall::Reduce {
            send: buf(&i),
            recv: buf(output),
            count: input.size() * per,
            ty,
            op,
            root,
        };
        self.run(&call, &[&i], &[output])
    }

    /// Copies `root`'s `in_out` into every rank's `in_out` (`NCCLBackend.broadcast(in_out,
    /// root)`). Every rank passes an array of the same size and dtype.
    ///
    /// # Errors
    /// Another device, a non-contiguous array, a root outside the ranks.
    pub fn broadcast(&self, in_out: &Array, root: usize) -> Result<()> {
        let name = "broadcast";
        self.rank_arg(name, "root", root)?;
        self.output(name, in_out)?;
        let (ty, per) = wire_move(in_out.dtype());
        let call = CollectiveCall::Broadcast {
            send: buf(in_out),
            recv: buf(in_out),
            count: in_out.size() * per,
            ty,
            root,
        };
        self.run(&call, &[in_out], &[in_out])
    }

    /// Reduces `input` (`count * size()` elements) over the ranks; rank `r` gets elements
    /// `r * count .. (r + 1) * count` of the result in `output`
    /// (`NCCLBackend.reduce_scatter(in_array, out_array, count, op)`).
    ///
    /// # Errors
    /// As [`Communicator::all_reduce`]; arrays smaller than the counts.
    pub fn reduce_scatter(
        &self,
        input: &Array,
        output: &Array,
        count: usize,
        op: ReduceOp,
    ) -> Result<()> {
        let name = "reduce_scatter";
        let i = self.input(name, input)?;
        self.output(name, output)?;
        Communicator::same_dtype(name, input, output)?;
        Communicator::too_small(name, "input", input, count * self.n_ranks)?;
        Communicator::too_small(name, "output", output, count)?;
        let (ty, per, op) = wire_reduce(name, input.dtype(), op)?;
        let call = CollectiveCall::ReduceScatter {
            send: buf(&i),
            recv: buf(output),
            count: count * per,
            ty,
            op,
        };
        self.run(&call, &[&i], &[output])
    }

    /// Gathers `count` elements of `input` from every rank into `output` (`count * size()`
    /// elements, rank `r`'s at `r * count`) on every rank
    /// (`NCCLBackend.all_gather(in_array, out_array, count)`).
    ///
    /// # Errors
    /// Another device, different dtypes, arrays smaller than the counts.
    pub fn all_gather(&self, input: &Array, output: &Array, count: usize) -> Result<()> {
        let name = "all_gather";
        let i = self.input(name, input)?;
        self.output(name, output)?;
        Communicator::same_dtype(name, input, output)?;
        Communicator::too_small(name, "input", input, count)?;
        Communicator::too_small(name, "output", output, count * self.n_ranks)?;
        let (ty, per) = wire_move(input.dtype());
        let call = CollectiveCall::AllGather {
            send: buf(&i),
            recv: buf(output),
            count: count * per,
            ty,
        };
        self.run(&call, &[&i], &[output])
    }

    /// Sends `array` to rank `peer`, which receives it with [`Communicator::recv`] of the same
    /// size and dtype (`NCCLBackend.send(array, peer)`). A send and a receive that must
    /// progress together go in one [`super::group`] ([`Communicator::send_recv`]).
    ///
    /// # Errors
    /// Another device, a peer outside the ranks.
    pub fn send(&self, array: &Array, peer: usize) -> Result<()> {
        let name = "send";
        self.rank_arg(name, "peer", peer)?;
        let a = self.input(name, array)?;
        let (ty, per) = wire_move(array.dtype());
        let call = CollectiveCall::Send {
            buf: buf(&a),
            count: array.size() * per,
            ty,
            peer,
        };
        self.run(&call, &[&a], &[])
    }

    /// Receives into `output` what rank `peer` sent (`NCCLBackend.recv(out_array, peer)`).
    ///
    /// # Errors
    /// Another device, a non-contiguous output, a peer outside the ranks; on the host
    /// communicator a message of another size or dtype, or none within the timeout.
    pub fn recv(&self, output: &Array, peer: usize) -> Result<()> {
        let name = "recv";
        self.rank_arg(name, "peer", peer)?;
        self.output(name, output)?;
        let (ty, per) = wire_move(output.dtype());
        let call = CollectiveCall::Recv {
            buf: buf(output),
            count: output.size() * per,
            ty,
            peer,
        };
        self.run(&call, &[], &[output])
    }

    /// Sends `input` to `peer` and receives `output` from it, in one group
    /// (`NCCLBackend.send_recv(in_array, out_array, peer)`).
    ///
    /// # Errors
    /// As [`Communicator::send`] and [`Communicator::recv`].
    pub fn send_recv(&self, input: &Array, output: &Array, peer: usize) -> Result<()> {
        self.rank_arg("send_recv", "peer", peer)?;
        self.output("send_recv", output)?;
        self.on_device("send_recv", input)?;
        super::group(|| {
            self.send(input, peer)?;
            self.recv(output, peer)
        })
    }

    /// Waits until every rank reached this call (`NCCLBackend.barrier()`: an all-reduce of one
    /// element, then the current stream is synchronized). One thread driving several ranks
    /// calls it inside a group for each rank; the wait then happens at the group's end.
    ///
    /// # Errors
    /// The library's error; on the host communicator, a rank that does not come in time.
    pub fn barrier(&self) -> Result<()> {
        let x = Array::zeros_on(&self.device, &[1], DType::Float32)?;
        self.all_reduce(&x, &x, ReduceOp::Sum)?;
        if !super::in_group() {
            let s = crate::cuda::get_current_stream_on(&self.device);
            self.device.backend().stream_synchronize(s.native())?;
        }
        Ok(())
    }
}

fn buf(a: &Array) -> CommBuf<'_> {
    CommBuf {
        buffer: a.buffer(),
        offset: a.layout().offset,
    }
}

/// How an array's elements travel when only data moves: the library type and how many of its
/// elements make one array element.
pub(crate) fn wire_move(d: DType) -> (WireType, usize) {
    match d {
        DType::Int8 => (WireType::Int8, 1),
        DType::UInt8 => (WireType::UInt8, 1),
        DType::Int32 => (WireType::Int32, 1),
        DType::UInt32 => (WireType::UInt32, 1),
        DType::Int64 => (WireType::Int64, 1),
        DType::UInt64 => (WireType::UInt64, 1),
        DType::Float16 => (WireType::Float16, 1),
        DType::BFloat16 => (WireType::BFloat16, 1),
        DType::Float32 => (WireType::Float32, 1),
        DType::Float64 => (WireType::Float64, 1),
        DType::Complex64 => (WireType::Float32, 2),
        DType::Complex128 => (WireType::Float64, 2),
        DType::Bool | DType::Int16 | DType::UInt16 => (WireType::UInt8, d.itemsize()),
    }
}

/// The library type, elements per array element and operator of a reduction of `d` by `op`.
///
/// # Errors
/// `TypeError` where NumPy/NCCL have no such reduction (complex max/min/prod, bool avg,
/// 16-bit integers).
pub(crate) fn wire_reduce(
    name: &str,
    d: DType,
    op: ReduceOp,
) -> Result<(WireType, usize, ReduceOp)> {
    let refuse = |msg: String| Error::TypeError {
        op: format!("{name} (op {op})"),
        dtypes: vec![d],
        msg,
    };
    match d {
        DType::Bool => match op {
            ReduceOp::Sum | ReduceOp::Max => Ok((WireType::UInt8, 1, ReduceOp::Max)),
            ReduceOp::Prod | ReduceOp::Min => Ok((WireType::UInt8, 1, ReduceOp::Min)),
            ReduceOp::Avg => Err(refuse(
                "the average of bool values is not a bool; cast to a float type first".into(),
            )),
        },
        DType::Int16 | DType::UInt16 => Err(refuse(
            "NCCL/RCCL have no 16-bit integer type; cast to int32 first".into(),
        )),
        DType::Complex64 | DType::Complex128 => match op {
            ReduceOp::Sum | ReduceOp::Avg => {
                let (ty, per) = wire_move(d);
                Ok((ty, per, op))
            }
            _ => Err(refuse(
                "complex numbers are reduced as pairs of floats: only sum and avg".into(),
            )),
        },
        _ => {
            let (ty, per) = wire_move(d);
            Ok((ty, per, op))
        }
    }
}

/// The registry probe of the reducing collectives: every dtype but int16/uint16 (NCCL has no
/// 16-bit integers; they move but are not reduced).
fn reducing(t: DType) -> Option<crate::registry::Need> {
    (!matches!(t, DType::Int16 | DType::UInt16)).then_some(crate::registry::Need::Store)
}

routine!("cupyx.distributed.NCCLBackend.all_reduce", Devices, probe: reducing, notes: "sum prod max min avg; complex sum/avg; bool as logical or/and; not int16/uint16");
routine!("cupyx.distributed.NCCLBackend.reduce", Devices, probe: reducing);
routine!("cupyx.distributed.NCCLBackend.broadcast", Devices);
routine!("cupyx.distributed.NCCLBackend.reduce_scatter", Devices, probe: reducing);
routine!("cupyx.distributed.NCCLBackend.all_gather", Devices);
routine!(
    "cupyx.distributed.NCCLBackend.send / recv / send_recv",
    Devices
);
routine!("cupyx.distributed.NCCLBackend.barrier", Devices);
routine!("cupy.cuda.nccl.NcclCommunicator / initAll", Devices, notes: "NCCL on cuda, RCCL on hip (never run), the host communicator on wgpu and cpu");
