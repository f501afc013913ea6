//! Packed small types on wgpu: bool/int8/uint8 take 1 byte and int16/uint16/float16/bfloat16 2 bytes of device
//! memory per element; host writes and reads at element offsets that split words keep the
//! neighbouring elements. Each test opens its own device, so the pool's counters are its own.

use cupy_core::{Backend, BackendProvider, DType};
use cupy_wgpu::WgpuProvider;
use std::sync::Arc;

fn fresh() -> Option<Arc<dyn Backend>> {
    if let Err(e) = WgpuProvider.probe() {
        eprintln!("NOTICE: skipping packed wgpu tests: {e}");
        return None;
    }
    match WgpuProvider.open(0) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("NOTICE: skipping packed wgpu tests: {e}");
            None
        }
    }
}

#[test]
fn device_bytes_per_element_are_numpys() {
    let Some(d) = fresh() else { return };
    let n = 1usize << 20;
    for (dt, per) in [
        (DType::Bool, 1),
        (DType::Int8, 1),
        (DType::UInt8, 1),
        (DType::Int16, 2),
        (DType::UInt16, 2),
        (DType::Float16, 2),
        (DType::BFloat16, 2),
        (DType::Int32, 4),
        (DType::Float64, 8),
    ] {
        let before = d.pool_stats().used_bytes;
        let b = d.alloc(dt, n).unwrap();
        let used = d.pool_stats().used_bytes - before;
        eprintln!("wgpu device bytes per element of {dt}: {}", used / n);
        assert_eq!(used, n * per, "{dt}: {used} bytes for {n} elements");
        drop(b);
    }
}

#[test]
fn writes_and_reads_that_split_words_keep_neighbours() {
    let Some(d) = fresh() else { return };
    let n = 23usize;
    let base: Vec<u8> = (0..n as u8).map(|i| i * 11).collect();
    let b = d.alloc(DType::UInt8, n).unwrap();
    d.write(&b, 0, &base).unwrap();
    // 5 bytes at element 3 (inside words 0 and 1), 2 at 21 (the tail word), 1 at 9.
    let mut want = base.clone();
    for (off, data) in [
        (3usize, vec![200u8, 201, 202, 203, 204]),
        (21, vec![7, 8]),
        (9, vec![99]),
    ] {
        d.write(&b, off, &data).unwrap();
        want[off..off + data.len()].copy_from_slice(&data);
    }
    assert_eq!(d.read(&b, 0, n).unwrap(), want);
    for (off, len) in [(1usize, 2usize), (3, 5), (5, 17), (22, 1), (0, 23)] {
        assert_eq!(
            d.read(&b, off, len).unwrap(),
            want[off..off + len],
            "{off}+{len}"
        );
    }
    // int16: two per word.
    let h: Vec<i16> = vec![-1, 2, -3, 4, -5, 6, -7];
    let hb: Vec<u8> = h.iter().flat_map(|v| v.to_le_bytes()).collect();
    let b = d.alloc(DType::Int16, h.len()).unwrap();
    d.write(&b, 0, &hb).unwrap();
    d.write(&b, 3, &(-300i16).to_le_bytes()).unwrap();
    let got = d.read(&b, 1, 5).unwrap();
    let got: Vec<i16> = got
        .chunks(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(got, vec![2, -3, -300, -5, 6]);
    // bool is normalised to 0/1 on upload.
    let b = d.alloc(DType::Bool, 5).unwrap();
    d.write(&b, 0, &[0, 2, 1, 255, 0]).unwrap();
    assert_eq!(d.read(&b, 0, 5).unwrap(), vec![0, 1, 1, 1, 0]);
}
