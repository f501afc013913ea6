//! Raw (user) kernels: argument slots of `RawKernel` launches.

use super::GpuDriver;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// One raw-kernel argument as the launch's `kernelParams` entry points to: a device address, or
/// a scalar at its C size (bool 1 byte, float16/bfloat16 2, complex as two floats), little
/// endian, in a zeroed 16-byte slot.
pub fn raw_scalar_slot(s: &Scalar) -> [u64; 2] {
    let mut bytes = [0u8; 16];
    s.write_le_bytes(&mut bytes[..s.dtype().itemsize()]);
    let (lo, hi) = bytes.split_at(8);
    [
        u64::from_le_bytes(lo.try_into().expect("8 bytes")),
        u64::from_le_bytes(hi.try_into().expect("8 bytes")),
    ]
}

/// The argument slots of a raw launch (`op` names it in errors): buffers become the address of
/// their element `offset` (at most their length), scalars [`raw_scalar_slot`].
///
/// # Errors
/// The backend's foreign-buffer error; `InvalidArgument` for an offset past a buffer's end.
pub fn raw_arg_slots<D: GpuDriver>(
    be: &D,
    op: &str,
    args: &[crate::backend::RawArg<'_>],
) -> Result<Vec<[u64; 2]>> {
    use crate::backend::RawArg;
    let mut slots = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match a {
            RawArg::Buffer { buffer, offset } => {
                let b = be.dev_buf(buffer, op)?;
                if *offset > b.len {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "argument {i}: offset {offset} is past the end of a buffer of {} \
                             elements",
                            b.len
                        ),
                    ));
                }
                slots.push([b.at(*offset), 0]);
            }
            RawArg::Scalar(s) => slots.push(raw_scalar_slot(s)),
        }
    }
    Ok(slots)
}
