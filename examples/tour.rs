//! The cupy-rs tour: the seed's walkthrough on the best backend found (the CPU if nothing else).
//!
//! ```text
//! cargo run --release --example tour
//! CUPY_BACKEND=wgpu cargo run --release --example tour   # e.g. Mesa's llvmpipe on a CI box
//! ```
//!
//! Prints `show_config()`, then creation, broadcasting and reductions, a 100x100 matmul, a device query, a
//! host<->device round trip, and a Gaussian blur of a real photograph (NASA's astronaut, public
//! domain) through `cupyx.scipy.signal.convolve2d`, written as a PNG. Every step is timed (after
//! a device synchronize). On the CPU backend the photo is downscaled so the tour ends quickly.

use cupy as cp;
use cupy::scipy::signal::{convolve2d_with, Mode};
use cupy::{BackendKind, DType};
use std::time::Instant;

fn step<T>(name: &str, dev: &cp::Device, f: impl FnOnce() -> cp::Result<T>) -> cp::Result<T> {
    let t = Instant::now();
    let r = f()?;
    dev.synchronize()?;
    println!("  [{:>9.3} ms] {name}", t.elapsed().as_secs_f64() * 1e3);
    Ok(r)
}

/// A normalized 2-D Gaussian kernel of `size x size` with standard deviation `sigma` (pixels),
/// as `scipy.signal.windows.gaussian(size, sigma)` outer-multiplied and normalized to sum 1.
fn gaussian_kernel(size: usize, sigma: f64) -> Vec<f32> {
    let c = (size as f64 - 1.0) / 2.0;
    let g: Vec<f64> = (0..size)
        .map(|i| (-((i as f64 - c).powi(2)) / (2.0 * sigma * sigma)).exp())
        .collect();
    let total: f64 = g.iter().sum::<f64>().powi(2);
    let mut k = Vec::with_capacity(size * size);
    for a in &g {
        for b in &g {
            k.push((a * b / total) as f32);
        }
    }
    k
}

/// Pixels (row-major, interleaved channels), height, width, channels.
type Image = (Vec<u8>, usize, usize, usize);

fn load_png(path: &std::path::Path) -> Result<Image, Box<dyn std::error::Error>> {
    let decoder = png::Decoder::new(std::fs::File::open(path)?);
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf)?;
    buf.truncate(info.buffer_size());
    let channels = info.color_type.samples();
    if info.bit_depth != png::BitDepth::Eight {
        return Err("expected an 8-bit PNG".into());
    }
    Ok((buf, info.height as usize, info.width as usize, channels))
}

fn save_png(
    path: &std::path::Path,
    data: &[u8],
    h: usize,
    w: usize,
    channels: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::fs::File::create(path)?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    enc.set_color(if channels == 3 {
        png::ColorType::Rgb
    } else {
        png::ColorType::Grayscale
    });
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(data)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    println!("== cupy-rs tour ==");
    cp::show_config();
    let dev = cp::Device::current()?;
    // The CPU backend and software rasterizers (llvmpipe) get smaller problems.
    let on_cpu = dev.kind() == BackendKind::Cpu || dev.info().software;
    println!("\nrunning on {dev}\n");

    println!("creation (NumPy's defaults: float64 unless the data says otherwise)");
    let x = step("arange(10)", &dev, || cp::arange(10))?;
    println!("    {x}");
    let z = step("zeros((2, 3))", &dev, || cp::zeros(&[2, 3]))?;
    println!(
        "    {} {}",
        z.dtype(),
        z.to_string().replace('\n', "\n    ")
    );
    let l = step("linspace(0, 1, 5)", &dev, || cp::linspace(0.0, 1.0, 5))?;
    println!("    {l}");
    let f = step(
        "full(3, 7) (a Rust integer is a Python int: int64)",
        &dev,
        || cp::full(&[3], 7),
    )?;
    println!("    {} {f}", f.dtype());
    let host = cp::ndarray::array![[1.0f32, 2.0], [3.0, 4.0]];
    let h = step("asarray(ndarray 2x2 float32)", &dev, || cp::asarray(&host))?;
    println!("    {}", h.to_string().replace('\n', "\n    "));

    println!("broadcasting and reductions");
    let col = cp::asarray([[1.0f32], [2.0], [3.0]])?;
    let row = cp::asarray([10.0f32, 20.0, 30.0, 40.0])?;
    let b = step("(3, 1) + (4,) -> (3, 4)", &dev, || &col + &row)?;
    println!("    {}", b.to_string().replace('\n', "\n    "));
    let scaled = step("float32 array * 2.5 stays float32 (NEP 50)", &dev, || {
        &b * 2.5
    })?;
    println!(
        "    dtype {}, sum {}, mean {:.2}",
        scaled.dtype(),
        scaled.sum()?.item()?,
        scaled.mean()?.item()?
    );
    let cols = step("b.sum(axis=0)", &dev, || b.sum_axis(0))?;
    println!("    {cols}");
    let kept = step("b.max(axis=1, keepdims=True)", &dev, || {
        b.max_with(cp::Reduce {
            axis: 1.into(),
            keepdims: true,
            ..Default::default()
        })
    })?;
    println!(
        "    shape {:?}: {}",
        kept.shape(),
        kept.to_string().replace('\n', " ")
    );

    println!("matmul");
    let n = 100;
    let a = cp::arange_with(0.0, (n * n) as f64, 1.0, DType::Float32)?
        .reshape(&[n as isize, n as isize])?;
    let a = (&a / (n * n) as f64)?;
    let i = cp::eye_with(n, DType::Float32)?;
    let p = step("100x100 @ 100x100 (float32)", &dev, || a.matmul(&i))?;
    let err = cp::abs(&(&p - &a)?)?.max()?.item()?;
    println!("    max |A @ I - A| = {err}");
    let pt = step("A @ A.T, then sum", &dev, || a.matmul(&a.t())?.sum())?;
    println!("    sum(A @ A.T) = {:.3}", pt.item()?);

    println!("user kernels (one definition, every backend)");
    let sq =
        cp::ElementwiseKernel::new("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")?;
    let xs = cp::linspace_with(0.0, 4.0, 5, DType::Float32)?;
    let ys = cp::full(&[1], 1.0f32)?;
    let sd = step("ElementwiseKernel squared_diff", &dev, || {
        sq.call(&[(&xs).into(), (&ys).into()])
    })?;
    println!("    {sd}");
    let rev = cp::ElementwiseKernel::new(
        "raw T x",
        "raw T y",
        "y[_ind.size() - 1 - i] = x[i]",
        "reverse",
    )?;
    let r = step(
        "ElementwiseKernel with a raw output (scatter)",
        &dev,
        || {
            Ok(rev
                .call_with(&[(&xs).into()], &[], Some(xs.size()))?
                .remove(0))
        },
    )?;
    println!("    {r}");
    let l2 = cp::ReductionKernel::new(
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        Some("0"),
        "l2norm",
    )?;
    let nrm = step("ReductionKernel l2norm", &dev, || {
        l2.call(&[(&xs).into()], cp::Axes::All, false)
    })?;
    println!("    l2norm(x) = {}", nrm.item()?);
    let f = cp::fuse(|x: cp::Sym, y: cp::Sym| ((x - y) * (x - y) + x.sin()).sum());
    let fz = step("fuse: sum((x - y)^2 + sin(x)) in one kernel", &dev, || {
        f.call(&[(&xs).into(), (&ys).into()])
    })?;
    println!("    = {}", fz.item()?);

    println!("device query");
    for kind in BackendKind::ALL {
        println!(
            "    {:<5} devices: {}",
            kind.name(),
            cp::Device::count(kind)
        );
    }
    println!(
        "    current: {} (total memory: {})",
        dev.label(),
        dev.info().total_memory.map_or("n/a".into(), |m| format!(
            "{:.1} GiB",
            m as f64 / (1u64 << 30) as f64
        ))
    );

    println!("host <-> device");
    let m = if on_cpu { 1 << 20 } else { 1 << 24 };
    let host: Vec<f32> = (0..m).map(|v| v as f32 * 0.5).collect();
    let d = step(&format!("upload {} MiB", (m * 4) >> 20), &dev, || {
        cp::from_slice(&host, &[m])
    })?;
    let back = step(&format!("download {} MiB", (m * 4) >> 20), &dev, || {
        d.to_vec::<f32>()
    })?;
    println!("    round trip exact: {}", back == host);

    println!("image: Gaussian blur of a photograph with convolve2d");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/astronaut.png");
    let src = if src.exists() {
        src
    } else {
        std::path::PathBuf::from("examples/data/astronaut.png")
    };
    let (pixels, h, w, ch) = load_png(&src)?;
    // The CPU backend blurs a 2x-downscaled photo with a smaller kernel so the tour stays short.
    let (stride, ksize, sigma) = if on_cpu { (2, 9, 2.0) } else { (1, 25, 4.0) };
    let (hh, ww) = (h / stride, w / stride);
    let img = step(
        &format!("load {}x{}x{} photo to the device as float32", hh, ww, ch),
        &dev,
        || {
            let full = cp::from_slice(&pixels, &[h, w, ch])?;
            full.slice(&cp::s![..;stride, ..;stride, ..])?
                .astype(DType::Float32)
        },
    )?;
    let kernel = cp::from_slice(&gaussian_kernel(ksize, sigma), &[ksize, ksize])?;
    let blurred = step(
        &format!("convolve2d, {ch} channels, {ksize}x{ksize} Gaussian, mode='same'"),
        &dev,
        || {
            let mut planes = Vec::with_capacity(ch);
            for c in 0..ch as isize {
                let plane = img.slice(&cp::s![.., .., c])?;
                planes.push(convolve2d_with(&plane, &kernel, Mode::Same)?);
            }
            Ok(planes)
        },
    )?;
    let out = step(
        "clip to [0, 255], interleave, download as uint8",
        &dev,
        || {
            let mut rgb = vec![0u8; hh * ww * ch];
            for (c, plane) in blurred.iter().enumerate() {
                let clipped = cp::minimum(&cp::maximum(plane, 0.0)?, 255.0)?;
                let rounded = cp::floor(&(&clipped + 0.5)?)?.astype(DType::UInt8)?;
                for (k, v) in rounded.to_vec::<u8>()?.into_iter().enumerate() {
                    rgb[k * ch + c] = v;
                }
            }
            Ok(rgb)
        },
    )?;
    let out_dir = std::path::Path::new("target").join("tour");
    std::fs::create_dir_all(&out_dir)?;
    let out_path = out_dir.join("astronaut_blurred.png");
    save_png(&out_path, &out, hh, ww, ch)?;
    let mean_in = img.mean()?.item()?;
    let mean_out = cp::from_slice(&out, &[hh, ww, ch])?.mean()?.item()?;
    println!("    mean intensity before {mean_in:.2}, after {mean_out:.2}");
    println!("    wrote {}", out_path.display());
    println!(
        "\ntour finished in {:.2} s on {}",
        t0.elapsed().as_secs_f64(),
        dev.label()
    );
    Ok(())
}
