//! Fused batch-norm cases (issue 19): `fuse_batchnorm_*` / `unfused_batchnorm_*` (two-pass
//! statistics: the variance reads the mean, 3 kernels) and `fuse_batchnorm1p_*` (one-pass
//! statistics: `mean(x)` and `mean(x * x)` merged into one reduction kernel, 2 kernels).

use super::{rand_f32, Bench};
use cupy as cp;
use cupy::Device;

/// The batch-norm cases over axis 0 of a (8192, 4096) float32 array (`quick`: (1024, 512)).
pub(crate) fn batchnorm_cases(b: &Bench, dev: &Device, quick: bool) -> cp::Result<()> {
    // GB/s, and the number of kernels one call runs.
    let gb = |bytes: f64, kernels: usize| {
        move |ms: f64| vec![("GBps", bytes / ms / 1e6), ("kernels", kernels as f64)]
    };
    // A fused batch-norm over axis 0 (issue 19): mean, variance, normalize, as 3 kernels (each
    // needs the one before); 4 passes over the (rows, cols) float32 array (3 reads, 1 write).
    let (rows, cols) = if quick { (1024, 512) } else { (8192, 4096) };
    for fused in [true, false] {
        let case = format!(
            "{}_batchnorm_{rows}x{cols}_f32",
            if fused { "fuse" } else { "unfused" }
        );
        if !b.want(&case) {
            continue;
        }
        let a = rand_f32(dev, rows * cols, 3)?.reshape(&[rows as isize, cols as isize])?;
        let bn = cp::fuse(|x: cp::Sym| {
            let m = x.mean_axis(0);
            let d = x - m;
            d / ((d * d).mean_axis(0) + 1e-5).sqrt()
        });
        let r = b.time(3, 10, || {
            if fused {
                bn.call(&[(&a).into()]).map(|_| ())
            } else {
                let m = a.mean_axis(0)?;
                let d = (&a - &m)?;
                let v = (&d * &d)?.mean_axis(0)?;
                let t = (&d / &(&v + 1e-5)?.sqrt()?)?;
                drop(t);
                Ok(())
            }
        });
        let kernels = if fused {
            bn.kernel_count(&[(&a).into()])?
        } else {
            7
        };
        b.report(&case, r, gb(16.0 * (rows * cols) as f64, kernels));
    }
    // The batch-norm with one-pass statistics (mean(x) and mean(x * x), independent): the two
    // reductions run as one kernel of two outputs, then the normalize: 2 kernels (3 before
    // reductions were merged), 3 passes (2 reads, 1 write).
    let case = format!("fuse_batchnorm1p_{rows}x{cols}_f32");
    if b.want(&case) {
        let a = rand_f32(dev, rows * cols, 3)?.reshape(&[rows as isize, cols as isize])?;
        let bn = cp::fuse(|x: cp::Sym| {
            let m = x.mean_axis(0);
            (x - m) / ((x * x).mean_axis(0) - m * m + 1e-5).sqrt()
        });
        let r = b.time(3, 10, || bn.call(&[(&a).into()]).map(|_| ()));
        let kernels = bn.kernel_count(&[(&a).into()])?;
        b.report(&case, r, gb(12.0 * (rows * cols) as f64, kernels));
    }
    Ok(())
}
