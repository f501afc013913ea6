//! Host transfers through the staging rings: several chunks in flight (more chunks than
//! staging buffers), element offsets and lengths that cut chunks and words, bool normalised,
//! and small transfers between large ones.

use super::*;

#[test]
fn large_writes_and_reads_in_chunks() {
    let d = dev_or_skip!();
    // 160 MiB of float32: 5 chunks of 32 MiB, more than the ring's 4 buffers.
    let n = 40 << 20;
    let v: Vec<f32> = (0..n).map(|i| (i % 1_000_003) as f32 - 7.5).collect();
    let b = up(&d, &v);
    assert_eq!(down::<f32>(&d, &b), v);
    // A read starting and ending inside chunks.
    let (off, len) = (3usize, n - 4_000_001);
    let got: Vec<f32> = f32::vec_from_bytes(&d.read(&b, off, len).unwrap());
    assert_eq!(got, &v[off..off + len]);
    // read_into a caller's buffer; a small write and read in between.
    let mut dst = vec![0u8; 4 * (n - 10)];
    d.read_into(&b, 10, &mut dst).unwrap();
    assert_eq!(f32::vec_from_bytes(&dst), &v[10..]);
    d.write(&b, 5, f32::slice_as_bytes(&[1.25, 2.5])).unwrap();
    assert_eq!(
        f32::vec_from_bytes(&d.read(&b, 4, 4).unwrap()),
        vec![v[4], 1.25, 2.5, v[7]]
    );
    // uint8 (packed words): reads at odd offsets and lengths.
    let m = (40 << 20) + 3;
    let u: Vec<u8> = (0..m).map(|i| (i * 7 % 251) as u8).collect();
    let ub = up(&d, &u);
    for (off, len) in [(0usize, m), (1, m - 2), (5, 17), (m - 3, 3)] {
        assert_eq!(
            d.read(&ub, off, len).unwrap(),
            &u[off..off + len],
            "u8 {off} {len}"
        );
    }
    // bool: bytes other than 0/1 are stored as 1.
    let raw: Vec<u8> = (0..(6 << 20)).map(|i| (i % 3) as u8 * 2).collect();
    let bb = d.alloc(DType::Bool, raw.len()).unwrap();
    d.write(&bb, 0, &raw).unwrap();
    let back = d.read(&bb, 0, raw.len()).unwrap();
    assert!(back.iter().zip(&raw).all(|(g, r)| *g == u8::from(*r != 0)));
    // free_all_blocks drops the staging buffers; the next transfers make them again.
    d.pool_free_all_blocks().unwrap();
    assert_eq!(down::<f32>(&d, &b)[..5], v[..5]);
    let b2 = up(&d, &v[..(5 << 20)]);
    assert_eq!(down::<f32>(&d, &b2), &v[..(5 << 20)]);
}
