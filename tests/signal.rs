//! `scipy.signal.convolve2d` against SciPy goldens, including a real photo (camera.png).

use crate::common::{self, Golden, Operand};
use cupy::scipy::signal::{convolve2d, convolve2d_with, Mode};
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    let mode: Mode = case["kwargs"]["mode"].as_str().unwrap().parse()?;
    convolve2d_with(ops[0].array(), ops[1].array(), mode)
}

#[test]
fn convolve2d_matches_scipy() {
    common::run_group(
        "signal",
        exec,
        |g, case, _| common::scaled_tol(g, case),
        |case, e| case["error"] == "ValueError" && matches!(e, Error::InvalidArgument { .. }),
    );
}

/// Decodes tests/data/camera.png with the `png` crate and checks the 64x64 crop the goldens use
/// is the same image (so the image test really filters the photo).
#[test]
fn camera_crop_is_the_golden_input() {
    let file = std::fs::File::open(common::data_path("data/camera.png")).expect("camera.png");
    let dec = png::Decoder::new(file);
    let mut reader = dec.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    assert_eq!((info.width, info.height), (512, 512));
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let crop: Vec<f64> = (200..264)
        .flat_map(|y| (200..264).map(move |x| (y, x)))
        .map(|(y, x)| buf[y * 512 + x] as f64 / 255.0)
        .collect();
    let g = Golden::load("signal");
    let case = g
        .cases
        .iter()
        .find(|c| c["id"] == "convolve2d/camera64/float64/gauss5/same");
    let Some(case) = case else { return };
    let input = g.array(case["inputs"][0]["array"].as_str().unwrap());
    assert_eq!(input.shape, vec![64, 64]);
    assert_eq!(input.f64s(), crop, "the golden's crop differs from the png");

    // And the photo filtered on each device (a smoothing kernel keeps the mean).
    let mut t = common::Tally::new("camera");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let img = Array::from_slice_on(&dev, &crop, &[64, 64])?;
            let k = Array::full_on(&dev, &[3, 3], 1.0 / 9.0, cupy::DType::Float64)?;
            let out = convolve2d_with(&img, &k, Mode::Valid)?;
            let (m_in, m_out) = (
                img.slice(&cupy::s![1..63, 1..63])?.mean()?.item()?.to_f64(),
                out.mean()?.item()?.to_f64(),
            );
            if out.shape() != [62, 62] || (m_in - m_out).abs() > 0.02 {
                return Err(
                    format!("box blur: shape {:?}, mean {m_out} vs {m_in}", out.shape()).into(),
                );
            }
            Ok(())
        })();
        t.check(&dev, "camera box blur", r);
    }
    t.finish();
}

/// SciPy's default mode is "full": `convolve2d(x, k)` is `convolve2d_with(x, k, Mode::Full)`.
#[test]
fn convolve2d_defaults_to_full() {
    let mut t = common::Tally::new("convolve2d_default");
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let x = Array::ones_on(&dev, &[3, 3], cupy::DType::Float32)?;
            let k = Array::from_slice_on(&dev, &[1.0f32, 2.0], &[1, 2])?;
            let c = convolve2d(&x, &k)?;
            let want = [1.0f32, 3.0, 3.0, 2.0];
            if c.shape() != [3, 4] || c.to_vec::<f32>()?[..4] != want[..] {
                return Err(format!("convolve2d(3x3, 1x2) = {c:?}").into());
            }
            let s = convolve2d_with(&x, &k, "same".parse::<Mode>()?)?;
            if s.shape() != [3, 3] || s.to_vec::<f32>()?[..3] != [1.0, 3.0, 3.0] {
                return Err(format!("convolve2d(mode=same) = {s:?}").into());
            }
            Ok(())
        })();
        t.check(&dev, "default", r);
    }
    t.finish();
}

/// SciPy convolves complex inputs (and a real input with a complex kernel); bool alone is
/// refused ("convolve2d not available for this type"). Values from
/// `scipy.signal.convolve2d(np.arange(12).reshape(3, 4), [[1+1j, -2j], [3+.5j, -1+4j]], mode)`.
#[test]
fn convolve2d_complex_matches_scipy() {
    use cupy::DType;
    use num_complex::Complex;
    let mut t = common::Tally::new("convolve2d_complex");
    for dev in common::backends() {
        if dev.backend().supports_dtype(DType::Complex128).is_err() {
            continue;
        }
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let x: Vec<f64> = (0..12).map(f64::from).collect();
            let x = Array::from_slice_on(&dev, &x, &[3, 4])?;
            let c = |re: f64, im: f64| Complex::new(re, im);
            let k = [c(1.0, 1.0), c(0.0, -2.0), c(3.0, 0.5), c(-1.0, 4.0)];
            let want = [
                c(8.0, -2.5),
                c(11.0, 1.0),
                c(14.0, 4.5),
                c(20.0, 11.5),
                c(23.0, 15.0),
                c(26.0, 18.5),
            ];
            for dt in [DType::Complex128, DType::Complex64] {
                let kk = Array::from_slice_on(&dev, &k, &[2, 2])?.astype(dt)?;
                let xx = if dt == DType::Complex64 {
                    x.astype(DType::Float32)?
                } else {
                    x.clone()
                };
                let v = convolve2d_with(&xx, &kk, Mode::Valid)?;
                let got: Vec<Complex<f64>> = v.astype(DType::Complex128)?.to_vec()?;
                if v.dtype() != dt || v.shape() != [2, 3] || got != want {
                    return Err(format!("valid {dt}: {v:?} {got:?}").into());
                }
                let f = convolve2d_with(&xx, &kk, Mode::Full)?;
                let got: Vec<Complex<f64>> = f.astype(DType::Complex128)?.to_vec()?;
                if f.shape() != [4, 5] || got[0] != c(0.0, 0.0) || got[19] != c(-11.0, 44.0) {
                    return Err(format!("full {dt}: {f:?}").into());
                }
            }
            let b = Array::from_slice_on(&dev, &[true, false], &[1, 2])?;
            match convolve2d_with(&b, &b, Mode::Full) {
                Err(Error::TypeError { .. }) => Ok(()),
                other => Err(format!("bool convolve2d: {other:?}").into()),
            }
        })();
        t.check(&dev, "complex", r);
    }
    t.finish();
}

/// float16/bfloat16 convolve2d sums the taps in float32 and rounds once: the result is the
/// float32 convolution rounded, on every backend (the cpu rounded the running sum to float16
/// at every tap and wgpu did not, so they disagreed on 901 of 1200 elements here).
#[test]
fn convolve2d_half_accumulates_in_float32() {
    use cupy::DType;
    let mut t = common::Tally::new("convolve2d_half");
    let img: Vec<f32> = (0..30 * 40)
        .map(|i| ((i * 37) % 101) as f32 / 7.0)
        .collect();
    let ker: Vec<f32> = (0..9 * 11)
        .map(|i| ((i * 13) % 17) as f32 / 3.0 - 2.0)
        .collect();
    for dev in common::backends() {
        let r = (|| -> std::result::Result<(), common::CaseError> {
            let x = Array::from_slice_on(&dev, &img, &[30, 40])?;
            let k = Array::from_slice_on(&dev, &ker, &[9, 11])?;
            for half in [DType::Float16, DType::BFloat16] {
                let (xh, kh) = (x.astype(half)?, k.astype(half)?);
                for mode in [Mode::Same, Mode::Full] {
                    let got = convolve2d_with(&xh, &kh, mode)?;
                    let want = convolve2d_with(
                        &xh.astype(DType::Float32)?,
                        &kh.astype(DType::Float32)?,
                        mode,
                    )?
                    .astype(half)?;
                    let (g, w) = (
                        got.astype(DType::Float32)?.to_vec::<f32>()?,
                        want.astype(DType::Float32)?.to_vec::<f32>()?,
                    );
                    let bad = g.iter().zip(&w).filter(|(a, b)| a != b).count();
                    if got.dtype() != half || got.shape() != want.shape() || bad != 0 {
                        return Err(format!("{half} {mode:?}: {bad} of {} differ", w.len()).into());
                    }
                }
            }
            Ok(())
        })();
        t.check(&dev, "half", r);
    }
    t.finish();
}
