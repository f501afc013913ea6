//! `scipy.signal.convolve2d` against SciPy goldens, including a real photo (camera.png).

use crate::common::{self, Golden, Operand};
use cupy::{Array, Device, Error, Result};
use serde_json::Value;

fn exec(_: &Golden, case: &Value, ops: &[Operand], _: &Device) -> Result<Array> {
    cupy::scipy::signal::convolve2d(
        ops[0].array(),
        ops[1].array(),
        case["kwargs"]["mode"].as_str().unwrap(),
    )
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
            let out = cupy::scipy::signal::convolve2d(&img, &k, "valid")?;
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
