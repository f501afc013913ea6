//! The host communicator: ranks that are devices of this process (wgpu, the cpu, or any
//! backend with `CommBackend::Host`), data through the host.
//!
//! Ranks meet in a [`Shared`] state keyed by the unique id. A collective is a *round*: rank
//! `r`'s `k`-th collective is its contribution to round `k` (its description and its input
//! bytes, read on its own thread). The rank whose contribution completes a round checks that
//! every rank described the same operation, computes every rank's output bytes (reductions in
//! rank order, [`super::reduce`]), and wakes the others; each rank then writes its own output on
//! its own thread. A contribution never blocks, so one thread can make every rank's call inside
//! a group and wait at the group's end; outside a group each call waits for its round. Sends
//! are queued in a mailbox per (sender, receiver) pair; a receive waits for its message (at the
//! group's end inside a group). Every wait has the communicator's timeout: a rank that never
//! comes makes the others fail with an error naming it, never hang, and the communicator is
//! then broken (later calls fail at once).

use super::reduce;
use crate::device::Device;
use cupy_core::backend::collective::{
    CollectiveCall, CommBuf, ReduceOp, WireType, UNIQUE_ID_BYTES,
};
use cupy_core::backend::Buffer;
use cupy_core::error::{Error, Result};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

const MAGIC: &[u8; 16] = b"cupy-rs:hostcomm";

/// Whether `id` was made by [`new_id`].
pub(crate) fn is_host_id(id: &[u8; UNIQUE_ID_BYTES]) -> bool {
    &id[..16] == MAGIC
}

/// A new host communicator id: the magic, this process's id, and a nonce.
pub(crate) fn new_id() -> [u8; UNIQUE_ID_BYTES] {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut id = [0u8; UNIQUE_ID_BYTES];
    id[..16].copy_from_slice(MAGIC);
    id[16..20].copy_from_slice(&std::process::id().to_le_bytes());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    id[20..28].copy_from_slice(&nanos.to_le_bytes());
    id[28..36].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    id
}

/// What a rank said it does in a round (must agree across ranks).
#[derive(Clone, Debug, PartialEq)]
struct Desc {
    kind: &'static str,
    count: usize,
    ty: WireType,
    op: Option<ReduceOp>,
    root: Option<usize>,
}

impl std::fmt::Display for Desc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} of {} {:?}", self.kind, self.count, self.ty)?;
        if let Some(op) = self.op {
            write!(f, " op {op}")?;
        }
        if let Some(r) = self.root {
            write!(f, " root {r}")?;
        }
        Ok(())
    }
}

/// A rank's contribution to a round: what it called and its input bytes.
type Given = Option<(Desc, Option<Vec<u8>>)>;

/// Messages from one rank to another: (count, type, bytes), oldest first.
type Mailbox = VecDeque<(usize, WireType, Vec<u8>)>;

#[derive(Default)]
struct Round {
    given: Vec<Given>,
    arrived: usize,
    /// Per rank: the bytes to write (`None`: nothing to write), once computed.
    results: Option<std::result::Result<Vec<Option<Vec<u8>>>, String>>,
    taken: usize,
}

struct State {
    joined: Vec<bool>,
    rounds: HashMap<u64, Round>,
    mail: HashMap<(usize, usize), Mailbox>,
    broken: Option<String>,
}

/// What the ranks of one host communicator share.
pub(crate) struct Shared {
    n: usize,
    state: Mutex<State>,
    cv: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `done(state)` or the deadline; `Err(state)` at the deadline.
    fn wait_until<'a>(
        &'a self,
        mut g: MutexGuard<'a, State>,
        deadline: Instant,
        done: impl Fn(&State) -> bool,
    ) -> std::result::Result<MutexGuard<'a, State>, MutexGuard<'a, State>> {
        while !done(&g) {
            let now = Instant::now();
            if now >= deadline || g.broken.is_some() {
                return if done(&g) { Ok(g) } else { Err(g) };
            }
            g = self
                .cv
                .wait_timeout(g, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        Ok(g)
    }
}

fn registry() -> &'static Mutex<HashMap<[u8; UNIQUE_ID_BYTES], Weak<Shared>>> {
    static R: OnceLock<Mutex<HashMap<[u8; UNIQUE_ID_BYTES], Weak<Shared>>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// One rank of a host communicator.
pub(crate) struct HostComm {
    shared: Arc<Shared>,
    rank: usize,
    timeout: Duration,
    handle: Handle,
}

impl std::fmt::Debug for HostComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "host communicator rank {} of {}",
            self.rank, self.shared.n
        )
    }
}

impl HostComm {
    /// Joins communicator `id` as `rank` of `n` (without waiting for the others: see
    /// [`HostComm::wait_joined`]).
    pub(crate) fn join(
        id: &[u8; UNIQUE_ID_BYTES],
        n: usize,
        rank: usize,
        timeout: Duration,
    ) -> Result<HostComm> {
        let op = "init_process_group";
        let pid = u32::from_le_bytes(id[16..20].try_into().expect("4 bytes"));
        if pid != std::process::id() {
            return Err(Error::Unsupported {
                op: op.into(),
                backend: "host communicator".into(),
                reason: format!(
                    "the id was made by process {pid}, this is process {}: the host \
                     communicator (wgpu, cpu) joins ranks of one process only (threads or \
                     group_start); several processes need NCCL (cuda) or RCCL (hip)",
                    std::process::id()
                ),
            });
        }
        let mut reg = registry().lock().unwrap_or_else(|e| e.into_inner());
        reg.retain(|_, w| w.strong_count() > 0);
        let shared = match reg.get(id).and_then(Weak::upgrade) {
            Some(s) => s,
            None => {
                let s = Arc::new(Shared {
                    n,
                    state: Mutex::new(State {
                        joined: vec![false; n],
                        rounds: HashMap::new(),
                        mail: HashMap::new(),
                        broken: None,
                    }),
                    cv: Condvar::new(),
                });
                reg.insert(*id, Arc::downgrade(&s));
                s
            }
        };
        drop(reg);
        if shared.n != n {
            return Err(Error::invalid(
                op,
                format!(
                    "rank {rank} says {n} ranks, but the communicator was made with {}",
                    shared.n
                ),
            ));
        }
        {
            let mut st = shared.lock();
            if st.joined[rank] {
                return Err(Error::invalid(op, format!("rank {rank} joined twice")));
            }
            st.joined[rank] = true;
        }
        shared.cv.notify_all();
        Ok(HostComm {
            handle: Handle {
                shared: shared.clone(),
                rank,
                timeout,
                next_round: Arc::new(AtomicU64::new(0)),
            },
            shared,
            rank,
            timeout,
        })
    }

    /// Waits until every rank joined.
    pub(crate) fn wait_joined(&self) -> Result<()> {
        let deadline = Instant::now() + self.timeout;
        let g = self.shared.lock();
        match self
            .shared
            .wait_until(g, deadline, |s| s.joined.iter().all(|&j| j))
        {
            Ok(_) => Ok(()),
            Err(g) => {
                let missing: Vec<usize> = (0..self.shared.n).filter(|&r| !g.joined[r]).collect();
                Err(Error::Backend {
                    backend: "host communicator".into(),
                    msg: format!(
                        "init_process_group: rank(s) {missing:?} of {} did not join within {:?}",
                        self.shared.n, self.timeout
                    ),
                })
            }
        }
    }

    /// Runs `call` for this rank on `device`: at once (waiting for the other ranks), or, inside
    /// a group, at the group's end in the order of this communicator's calls.
    pub(crate) fn call(&self, device: &Device, call: &CollectiveCall<'_>) -> Result<()> {
        let mut p = Pending {
            comm: self.handle.clone(),
            device: device.clone(),
            call: Owned::of(call),
            waiting: None,
        };
        match super::defer_or_return(p) {
            None => Ok(()),
            Some(q) => {
                p = q;
                if p.start()? {
                    return Ok(());
                }
                p.finish(Some(Instant::now() + self.handle.timeout))
                    .map(|_| ())
            }
        }
    }
}

fn broken(st: &State, op: &str) -> Result<()> {
    match &st.broken {
        Some(why) => Err(Error::Backend {
            backend: "host communicator".into(),
            msg: format!("{op}: the communicator is broken ({why})"),
        }),
        None => Ok(()),
    }
}

/// A call with its buffers held (it may run at the group's end).
struct Owned {
    kind: &'static str,
    send: Option<(Buffer, usize)>,
    recv: Option<(Buffer, usize)>,
    count: usize,
    ty: WireType,
    op: Option<ReduceOp>,
    root: Option<usize>,
    peer: Option<usize>,
}

impl Owned {
    fn of(c: &CollectiveCall<'_>) -> Owned {
        let b = |b: &CommBuf<'_>| Some((b.buffer.clone(), b.offset));
        let mut o = Owned {
            kind: "",
            send: None,
            recv: None,
            count: 0,
            ty: WireType::UInt8,
            op: None,
            root: None,
            peer: None,
        };
        match *c {
            CollectiveCall::AllReduce {
                send,
                recv,
                count,
                ty,
                op,
            } => {
                (o.kind, o.send, o.recv, o.count, o.ty, o.op) =
                    ("all_reduce", b(&send), b(&recv), count, ty, Some(op));
            }
            CollectiveCall::Reduce {
                send,
                recv,
                count,
                ty,
                op,
                root,
            } => {
                (o.kind, o.send, o.recv, o.count, o.ty, o.op, o.root) = (
                    "reduce",
                    b(&send),
                    b(&recv),
                    count,
                    ty,
                    Some(op),
                    Some(root),
                );
            }
            CollectiveCall::Broadcast {
                send,
                recv,
                count,
                ty,
                root,
            } => {
                (o.kind, o.send, o.recv, o.count, o.ty, o.root) =
                    ("broadcast", b(&send), b(&recv), count, ty, Some(root));
            }
            CollectiveCall::ReduceScatter {
                send,
                recv,
                count,
                ty,
                op,
            } => {
                (o.kind, o.send, o.recv, o.count, o.ty, o.op) =
                    ("reduce_scatter", b(&send), b(&recv), count, ty, Some(op));
            }
            CollectiveCall::AllGather {
                send,
                recv,
                count,
                ty,
            } => {
                (o.kind, o.send, o.recv, o.count, o.ty) =
                    ("all_gather", b(&send), b(&recv), count, ty);
            }
            CollectiveCall::Send {
                buf,
                count,
                ty,
                peer,
            } => {
                (o.kind, o.send, o.count, o.ty, o.peer) = ("send", b(&buf), count, ty, Some(peer));
            }
            CollectiveCall::Recv {
                buf,
                count,
                ty,
                peer,
            } => {
                (o.kind, o.recv, o.count, o.ty, o.peer) = ("recv", b(&buf), count, ty, Some(peer));
            }
        }
        o
    }
}

/// What a started [`Pending`] waits for.
enum What {
    Round(u64),
    Recv { peer: usize },
}

/// A rank's handle on its communicator's shared state.
#[derive(Clone)]
pub(crate) struct Handle {
    shared: Arc<Shared>,
    rank: usize,
    timeout: Duration,
    next_round: Arc<AtomicU64>,
}

/// A host operation: started (input read, contribution made), then finished (output written
/// when its round or message is there).
pub(crate) struct Pending {
    comm: Handle,
    device: Device,
    call: Owned,
    waiting: Option<What>,
}

impl Pending {
    /// Reads this rank's input and makes its contribution; `true` when that finished the call
    /// (a send).
    fn start(&mut self) -> Result<bool> {
        let h = &self.comm;
        let c = &self.call;
        let n = h.shared.n;
        let be = self.device.backend();
        let read = |count: usize| -> Result<Vec<u8>> {
            let (b, off) = c.send.as_ref().expect("an input");
            be.read(b, *off, count * c.ty.size() / b.dtype().itemsize())
        };
        if c.kind == "send" {
            let bytes = read(c.count)?;
            let peer = c.peer.expect("peer");
            let mut st = h.shared.lock();
            broken(&st, "send")?;
            st.mail
                .entry((h.rank, peer))
                .or_default()
                .push_back((c.count, c.ty, bytes));
            drop(st);
            h.shared.cv.notify_all();
            return Ok(true);
        }
        if c.kind == "recv" {
            self.waiting = Some(What::Recv {
                peer: c.peer.expect("peer"),
            });
            return Ok(false);
        }
        let input = match c.kind {
            "broadcast" if c.root != Some(h.rank) => None,
            "reduce_scatter" => Some(read(c.count * n)?),
            _ => Some(read(c.count)?),
        };
        let desc = Desc {
            kind: c.kind,
            count: c.count,
            ty: c.ty,
            op: c.op,
            root: c.root,
        };
        let round = h.next_round.fetch_add(1, Ordering::Relaxed);
        {
            let mut st = h.shared.lock();
            broken(&st, desc.kind)?;
            let r = st.rounds.entry(round).or_default();
            if r.given.is_empty() {
                r.given = vec![None; n];
            }
            r.given[h.rank] = Some((desc, input));
            r.arrived += 1;
            if r.arrived == n {
                r.results = Some(compute(&r.given));
                for g in r.given.iter_mut() {
                    *g = None;
                }
            }
        }
        h.shared.cv.notify_all();
        self.waiting = Some(What::Round(round));
        Ok(false)
    }

    /// Writes this rank's output once its round (or message) is there: `Ok(false)` if it is not
    /// yet and `deadline` is `None` (a poll); waits until `deadline` otherwise, then fails
    /// naming the ranks that did not come (and breaks the communicator).
    fn finish(&mut self, deadline: Option<Instant>) -> Result<bool> {
        let h = &self.comm;
        let fail = |msg: String| Error::Backend {
            backend: "host communicator".into(),
            msg: format!("{} on rank {}: {msg}", self.call.kind, h.rank),
        };
        let what = self.waiting.as_ref().expect("started");
        let bytes = match *what {
            What::Round(k) => {
                let done = |s: &State| s.rounds.get(&k).is_some_and(|r| r.results.is_some());
                let g = h.shared.lock();
                let g = match deadline {
                    None if !done(&g) => {
                        return match &g.broken {
                            Some(why) => Err(fail(format!("the communicator is broken ({why})"))),
                            None => Ok(false),
                        };
                    }
                    None => Ok(g),
                    Some(d) => h.shared.wait_until(g, d, done),
                };
                let mut g = match g {
                    Ok(g) => g,
                    Err(mut g) => {
                        let missing: Vec<usize> = g.rounds.get(&k).map_or(vec![], |r| {
                            (0..h.shared.n).filter(|&i| r.given[i].is_none()).collect()
                        });
                        let why = g.broken.clone().unwrap_or_else(|| {
                            format!(
                                "collective #{k}: rank(s) {missing:?} did not take part within \
                                 {:?} (one thread driving several ranks must use \
                                 group_start/group_end)",
                                h.timeout
                            )
                        });
                        g.broken.get_or_insert(why.clone());
                        drop(g);
                        h.shared.cv.notify_all();
                        return Err(fail(why));
                    }
                };
                let r = g.rounds.get_mut(&k).expect("round present");
                let res = match r.results.as_mut().expect("computed") {
                    Ok(v) => Ok(v[h.rank].take()),
                    Err(e) => Err(e.clone()),
                };
                r.taken += 1;
                if r.taken == h.shared.n {
                    g.rounds.remove(&k);
                }
                res.map_err(fail)?
            }
            What::Recv { peer } => {
                let key = (peer, h.rank);
                let has = |s: &State| s.mail.get(&key).is_some_and(|q| !q.is_empty());
                let g = h.shared.lock();
                let g = match deadline {
                    None if !has(&g) => {
                        return match &g.broken {
                            Some(why) => Err(fail(format!("the communicator is broken ({why})"))),
                            None => Ok(false),
                        };
                    }
                    None => Ok(g),
                    Some(d) => h.shared.wait_until(g, d, has),
                };
                let mut g = match g {
                    Ok(g) => g,
                    Err(g) => {
                        let why = g.broken.clone().unwrap_or_else(|| {
                            format!("nothing came from rank {peer} within {:?}", h.timeout)
                        });
                        return Err(fail(why));
                    }
                };
                let (c, t, b) = g
                    .mail
                    .get_mut(&key)
                    .and_then(|q| q.pop_front())
                    .expect("a message");
                if c != self.call.count || t != self.call.ty {
                    return Err(fail(format!(
                        "rank {peer} sent {c} {t:?}, {} {:?} expected",
                        self.call.count, self.call.ty
                    )));
                }
                Some(b)
            }
        };
        let out = match self.call.kind {
            "reduce" if self.call.root != Some(h.rank) => None,
            _ => self.call.recv.as_ref(),
        };
        if let (Some(b), Some((buf, off))) = (bytes, out) {
            if !b.is_empty() {
                crate::cuda::order::order(&self.device, &[], &[buf])?;
                self.device.backend().write(buf, *off, &b)?;
            }
        }
        Ok(true)
    }

    fn key(&self) -> (usize, usize) {
        (Arc::as_ptr(&self.comm.shared) as usize, self.comm.rank)
    }
}

/// Runs a group's host operations: each communicator's calls in their order (a call starts,
/// reading its input, once the previous call of its communicator finished), every
/// communicator's together, so one thread can play every rank. Fails a call whose round makes
/// no progress within its communicator's timeout.
pub(crate) fn run_group(pending: Vec<Pending>) -> Result<()> {
    let mut queues: Vec<((usize, usize), VecDeque<Pending>)> = vec![];
    for p in pending {
        let k = p.key();
        match queues.iter_mut().find(|(q, _)| *q == k) {
            Some((_, q)) => q.push_back(p),
            None => queues.push((k, VecDeque::from([p]))),
        }
    }
    let mut first: Option<Error> = None;
    let mut last_progress = Instant::now();
    loop {
        let mut progress = false;
        for (_, q) in queues.iter_mut() {
            while let Some(p) = q.front_mut() {
                let step = if p.waiting.is_none() {
                    p.start().map(|done| (true, done))
                } else {
                    p.finish(None).map(|done| (done, done))
                };
                match step {
                    Ok((moved, done)) => {
                        progress |= moved;
                        if done {
                            q.pop_front();
                        } else if !moved {
                            break;
                        }
                    }
                    Err(e) => {
                        first.get_or_insert(e);
                        q.pop_front();
                        progress = true;
                    }
                }
            }
        }
        queues.retain(|(_, q)| !q.is_empty());
        if queues.is_empty() {
            break;
        }
        if progress {
            last_progress = Instant::now();
            continue;
        }
        let timeout = queues[0].1[0].comm.timeout;
        if last_progress.elapsed() >= timeout {
            for (_, q) in queues.iter_mut() {
                if let Some(mut p) = q.pop_front() {
                    if p.waiting.is_some() {
                        if let Err(e) = p.finish(Some(Instant::now())) {
                            first.get_or_insert(e);
                        }
                    }
                }
            }
            continue;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    first.map_or(Ok(()), Err)
}

/// Every rank's output of a complete round, or why the ranks disagree.
fn compute(given: &[Given]) -> std::result::Result<Vec<Option<Vec<u8>>>, String> {
    let n = given.len();
    let descs: Vec<&Desc> = given
        .iter()
        .map(|g| &g.as_ref().expect("all given").0)
        .collect();
    for (r, d) in descs.iter().enumerate().skip(1) {
        if d != &descs[0] {
            return Err(format!(
                "the ranks disagree: rank 0 called {}, rank {r} called {d}",
                descs[0]
            ));
        }
    }
    let d = descs[0];
    let input = |r: usize| given[r].as_ref().and_then(|g| g.1.as_deref());
    let reduced = || -> std::result::Result<Vec<u8>, String> {
        let op = d.op.expect("reductions have an op");
        let mut acc = input(0).expect("input").to_vec();
        for r in 1..n {
            reduce::combine(&mut acc, input(r).expect("input"), d.ty, op);
        }
        if op == ReduceOp::Avg {
            reduce::divide(&mut acc, d.ty, n);
        }
        Ok(acc)
    };
    Ok(match d.kind {
        "all_reduce" => vec![Some(reduced()?); n],
        "reduce" => {
            let root = d.root.expect("root");
            let r = reduced()?;
            (0..n).map(|i| (i == root).then(|| r.clone())).collect()
        }
        "broadcast" => {
            let root = d.root.expect("root");
            let b = input(root).expect("root input").to_vec();
            vec![Some(b); n]
        }
        "reduce_scatter" => {
            let r = reduced()?;
            let chunk = d.count * d.ty.size();
            (0..n)
                .map(|i| Some(r[i * chunk..(i + 1) * chunk].to_vec()))
                .collect()
        }
        "all_gather" => {
            let mut all = Vec::with_capacity(n * d.count * d.ty.size());
            for r in 0..n {
                all.extend_from_slice(input(r).expect("input"));
            }
            vec![Some(all); n]
        }
        other => return Err(format!("unknown collective {other}")),
    })
}
