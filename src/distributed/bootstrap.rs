//! `init_process_group`: one process (or thread) per device. Rank 0 makes the unique id and
//! publishes it, through a file or a TCP listener on localhost; the other ranks read it, then
//! every rank joins the communicator. Every wait has a deadline and ends in an error naming
//! what did not come, never a hang.

use super::comm::{Communicator, DEFAULT_TIMEOUT};
use super::{get_unique_id_on, CommBackend, UniqueId};
use crate::device::Device;
use cupy_core::backend::collective::UNIQUE_ID_BYTES;
use cupy_core::error::{Error, Result};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The first bytes of a published id (file or TCP).
const MAGIC: &[u8; 8] = b"CUPYUID1";

/// The keyword arguments of [`init_process_group`] (CuPy's `backend=`, `host=`, `port=`).
#[derive(Clone, Debug)]
pub struct InitOptions {
    /// Which communicator (`backend='nccl'`); default [`CommBackend::Auto`].
    pub backend: CommBackend,
    /// Where rank 0 listens (`host=`): default `CUPYX_DISTRIBUTED_HOST`, else `127.0.0.1`.
    pub host: Option<String>,
    /// The port (`port=`): default `CUPYX_DISTRIBUTED_PORT`, else 13333 (CuPy's defaults).
    pub port: Option<u16>,
    /// Publish the id through this file instead of TCP (rank 0 writes it, the others poll for
    /// it). Use a fresh path per run: a file left by an earlier run would be read as this
    /// run's id.
    pub file: Option<PathBuf>,
    /// How long a rank waits for the id, and the host communicator for the other ranks
    /// (default 120 s).
    pub timeout: Duration,
    /// The device of this rank (default: the current device).
    pub device: Option<Device>,
}

impl Default for InitOptions {
    fn default() -> Self {
        InitOptions {
            backend: CommBackend::Auto,
            host: None,
            port: None,
            file: None,
            timeout: DEFAULT_TIMEOUT,
            device: None,
        }
    }
}

/// Joins a communicator of `n_devices` ranks as `rank`
/// (`cupyx.distributed.init_process_group(n_devices, rank)`): one call per process (or thread)
/// per device. Rank 0 makes the unique id and publishes it (a TCP listener on
/// `host:port`, or `file`); the others fetch it, retrying until `timeout`.
///
/// # Errors
/// A rank outside `0..n_devices`; the id not published in time (naming the address or file);
/// the port taken; the library's errors; the host communicator across processes
/// (`Unsupported`: wgpu and the cpu join ranks of one process only).
pub fn init_process_group(
    n_devices: usize,
    rank: usize,
    opts: InitOptions,
) -> Result<Communicator> {
    let op = "init_process_group";
    if n_devices == 0 || rank >= n_devices {
        return Err(Error::invalid(
            op,
            format!("rank {rank} is not one of {n_devices} ranks"),
        ));
    }
    let device = match &opts.device {
        Some(d) => d.clone(),
        None => Device::current()?,
    };
    let deadline = Instant::now() + opts.timeout;
    let id = if n_devices == 1 {
        get_unique_id_on(&device, opts.backend)?
    } else if let Some(path) = &opts.file {
        if rank == 0 {
            let id = get_unique_id_on(&device, opts.backend)?;
            publish_file(path, &id)?;
            id
        } else {
            read_file(path, deadline, opts.timeout)?
        }
    } else {
        let addr = address(&opts);
        if rank == 0 {
            let id = get_unique_id_on(&device, opts.backend)?;
            serve_tcp(&addr, id, n_devices - 1, opts.timeout)?;
            id
        } else {
            fetch_tcp(&addr, deadline, opts.timeout)?
        }
    };
    Communicator::new_on(&device, &id, n_devices, rank, opts.timeout)
}
routine!(init_process_group as "cupyx.distributed.init_process_group", Devices, notes: "unique id over TCP on localhost (CUPYX_DISTRIBUTED_HOST/PORT) or a file");

fn address(opts: &InitOptions) -> String {
    let host = opts
        .host
        .clone()
        .or_else(|| std::env::var("CUPYX_DISTRIBUTED_HOST").ok())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1".into());
    let port = opts
        .port
        .or_else(|| {
            std::env::var("CUPYX_DISTRIBUTED_PORT")
                .ok()
                .and_then(|p| p.trim().parse().ok())
        })
        .unwrap_or(13333);
    format!("{host}:{port}")
}

fn message(id: &UniqueId) -> Vec<u8> {
    let mut m = MAGIC.to_vec();
    m.extend_from_slice(id.as_bytes());
    m
}

fn parse(bytes: &[u8]) -> Option<UniqueId> {
    if bytes.len() != MAGIC.len() + UNIQUE_ID_BYTES || &bytes[..MAGIC.len()] != MAGIC {
        return None;
    }
    UniqueId::from_bytes(&bytes[MAGIC.len()..]).ok()
}

fn io_err(what: String, e: std::io::Error) -> Error {
    Error::invalid("init_process_group", format!("{what}: {e}"))
}

/// Writes the id atomically (a temporary file renamed over `path`).
fn publish_file(path: &Path, id: &UniqueId) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, message(id))
        .map_err(|e| io_err(format!("writing the unique id to {}", tmp.display()), e))?;
    std::fs::rename(&tmp, path)
        .map_err(|e| io_err(format!("moving the unique id to {}", path.display()), e))
}

fn read_file(path: &Path, deadline: Instant, timeout: Duration) -> Result<UniqueId> {
    loop {
        if let Ok(b) = std::fs::read(path) {
            if let Some(id) = parse(&b) {
                return Ok(id);
            }
        }
        if Instant::now() >= deadline {
            return Err(Error::invalid(
                "init_process_group",
                format!(
                    "rank 0 did not publish the unique id in {} within {timeout:?}",
                    path.display()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Binds `addr` now (so a taken port fails here) and serves the id to `clients` connections
/// from a thread that ends after them or after `timeout`.
fn serve_tcp(addr: &str, id: UniqueId, clients: usize, timeout: Duration) -> Result<()> {
    let listener =
        TcpListener::bind(addr).map_err(|e| io_err(format!("rank 0 listening on {addr}"), e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| io_err(format!("configuring the listener on {addr}"), e))?;
    let msg = message(&id);
    std::thread::Builder::new()
        .name("cupy-uid-server".into())
        .spawn(move || {
            let deadline = Instant::now() + timeout;
            let mut served = 0;
            while served < clients && Instant::now() < deadline {
                match listener.accept() {
                    Ok((mut s, _)) => {
                        let _ = s.set_nonblocking(false);
                        if s.write_all(&msg).is_ok() {
                            served += 1;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        })
        .map_err(|e| io_err("starting the unique-id server thread".into(), e))?;
    Ok(())
}

fn fetch_tcp(addr: &str, deadline: Instant, timeout: Duration) -> Result<UniqueId> {
    let mut last = String::from("no attempt");
    while Instant::now() < deadline {
        let sock = addr
            .to_socket_addrs()
            .map_err(|e| io_err(format!("resolving {addr}"), e))?
            .next();
        let Some(sock) = sock else {
            return Err(Error::invalid(
                "init_process_group",
                format!("{addr} resolves to no address"),
            ));
        };
        match TcpStream::connect_timeout(&sock, Duration::from_millis(500)) {
            Ok(mut s) => {
                let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                let mut b = vec![];
                match s.read_to_end(&mut b) {
                    Ok(_) => match parse(&b) {
                        Some(id) => return Ok(id),
                        None => {
                            last = format!(
                                "{addr} answered {} bytes that are not a unique id",
                                b.len()
                            )
                        }
                    },
                    Err(e) => last = format!("reading from {addr}: {e}"),
                }
            }
            Err(e) => last = format!("connecting to {addr}: {e}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(Error::invalid(
        "init_process_group",
        format!("no unique id from rank 0 at {addr} within {timeout:?} (last: {last})"),
    ))
}
