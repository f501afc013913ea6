//! `time_device` through timestamp queries: the work runs, and where the adapter has the
//! timestamp features the elapsed device time comes back (positive and finite).

use super::*;

#[test]
fn device_timer_runs_the_work_and_reports_its_time() {
    let d = dev_or_skip!();
    let n = 1 << 16;
    let a = up(&d, &vec![1.5f32; n]);
    let out = d.alloc(DType::Float32, n).unwrap();
    let k = bin(B::Add, DType::Float32);
    let l = Layout::contiguous(&[n]);
    let mut calls = 0;
    let t = d
        .time_device(&mut || {
            calls += 1;
            run(
                &d,
                &k,
                &[n],
                vec![op(&a, l.clone()), op(&a, l.clone())],
                vec![op(&out, l.clone())],
                vec![],
            );
            Ok(())
        })
        .unwrap();
    assert_eq!(calls, 1);
    assert_eq!(down::<f32>(&d, &out), vec![3.0f32; n]);
    eprintln!("time_device: {t:?} s");
    if let Some(s) = t {
        assert!(s.is_finite() && s > 0.0 && s < 60.0, "device time {s} s");
    }
}
