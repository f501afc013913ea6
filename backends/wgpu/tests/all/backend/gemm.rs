//! GEMM: odd sizes, transposed and batched operands.

use super::*;

#[allow(clippy::too_many_arguments)]
fn gemm_ref(
    a: &[f64],
    al: &Layout,
    b: &[f64],
    bl: &Layout,
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
) -> Vec<f64> {
    let at = |v: &[f64], l: &Layout, i: usize, j: usize, z: usize| {
        v[(l.offset as isize
            + z as isize * l.strides[0]
            + i as isize * l.strides[1]
            + j as isize * l.strides[2]) as usize]
    };
    let mut c = vec![0.0; batch * m * n];
    for z in 0..batch {
        for i in 0..m {
            for j in 0..n {
                c[z * m * n + i * n + j] = (0..k)
                    .map(|p| at(a, al, i, p, z) * at(b, bl, p, j, z))
                    .sum();
            }
        }
    }
    c
}

#[test]
fn gemm_odd_sizes_transposed_batched() {
    // The automatic choice (4x4 invocation blocks at these sizes, and always on llvmpipe), then
    // the 8x8 blocks (128x128 tiles) that large float products take on hardware adapters.
    gemm_odd_sizes_body(None);
    cupy_wgpu::with_gemm_block(8, || gemm_odd_sizes_body(Some("8x8x8".into())));
}

#[test]
fn gemm_shapes_rectangular_double_buffered() {
    // The shapes `CUPY_WGPU_GEMM_SHAPE` offers for timing: rectangular blocks, other k slices,
    // double-buffered tiles (the float64 default on hardware adapters), in both code forms
    // the generator writes (straight-line here; `CUPY_WGPU_GEMM_LOOPS=1` in a process).
    // 4x8x16d in float64 needs 48 KiB of workgroup memory: where the adapter has less
    // (llvmpipe: 32 KiB) the automatic shape runs instead, which the body then accepts.
    for s in ["8x8x8d", "4x8x8d", "8x4x8", "2x4x16d", "1x1x16", "4x8x16d"] {
        let sh = cupy_wgpu::GemmShape::parse(s).unwrap();
        assert_eq!(sh.to_string(), s);
        cupy_wgpu::with_gemm_shape(sh, || gemm_odd_sizes_body(Some(s.into())));
    }
    for bad in ["8x8", "9x8x8", "1x1x8", "8x8x12", "axbxc"] {
        assert!(cupy_wgpu::GemmShape::parse(bad).is_none(), "{bad}");
    }
}

fn gemm_odd_sizes_body(block: Option<String>) {
    let d = dev_or_skip!();
    for (batch, m, n, k, ta, tb, bcast) in [
        (1usize, 67usize, 45usize, 33usize, false, false, false),
        (1, 64, 64, 64, false, false, false),
        (1, 5, 130, 1, true, false, false),
        (3, 17, 9, 70, false, true, true),
        (2, 1, 1, 0, false, false, false),
        (1, 129, 257, 23, false, false, false),
        (2, 130, 128, 17, true, true, false),
    ] {
        let an: Vec<f64> = (0..batch * m * k)
            .map(|i| ((i * 7) % 11) as f64 - 5.0)
            .collect();
        let bn: Vec<f64> = (0..batch * k * n)
            .map(|i| ((i * 5) % 9) as f64 * 0.5)
            .collect();
        let al = if ta {
            Layout {
                shape: vec![batch, m, k],
                strides: vec![(m * k) as isize, 1, m as isize],
                offset: 0,
            }
        } else {
            Layout {
                shape: vec![batch, m, k],
                strides: vec![(m * k) as isize, k as isize, 1],
                offset: 0,
            }
        };
        let bl = Layout {
            shape: vec![batch, k, n],
            strides: vec![
                if bcast { 0 } else { (k * n) as isize },
                if tb { 1 } else { n as isize },
                if tb { k as isize } else { 1 },
            ],
            offset: 0,
        };
        let exp = gemm_ref(&an, &al, &bn, &bl, batch, m, n, k);
        for t in [DType::Float32, DType::Float64] {
            if d.supports_dtype(t).is_err() {
                continue;
            }
            let (a, b) = if t == DType::Float32 {
                (
                    up(&d, &an.iter().map(|&x| x as f32).collect::<Vec<_>>()),
                    up(&d, &bn.iter().map(|&x| x as f32).collect::<Vec<_>>()),
                )
            } else {
                (up(&d, &an), up(&d, &bn))
            };
            let c = d.alloc(t, batch * m * n).unwrap();
            d.gemm(&GemmCall {
                a: op(&a, al.clone()),
                b: op(&b, bl.clone()),
                c: op(&c, Layout::contiguous(&[batch, m, n])),
            })
            .unwrap();
            if let (Some(want), Some(got)) = (
                block.as_deref().and_then(cupy_wgpu::GemmShape::parse),
                cupy_wgpu::last_gemm_shape(),
            ) {
                let fits = want.workgroup_bytes(t.itemsize()) <= wg_limit();
                if m > 0 && n > 0 && fits {
                    assert_eq!(got, want, "{t}: the forced shape did not run");
                }
            }
            let got: Vec<f64> = if t == DType::Float32 {
                down::<f32>(&d, &c).iter().map(|&x| x as f64).collect()
            } else {
                down::<f64>(&d, &c)
            };
            assert_eq!(
                got, exp,
                "{t} batch {batch} {m}x{n}x{k} ta={ta} tb={tb} block {block:?}"
            );
        }
    }
    let a = up(&d, &[1i32, 2, 3, 4]);
    let l = Layout::contiguous(&[1, 2, 2]);
    let e = d
        .gemm(&GemmCall {
            a: op(&a, l.clone()),
            b: op(&a, l.clone()),
            c: op(&a, l),
        })
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::DTypeNotSupported {
                dtype: DType::Int32,
                ..
            }
        ),
        "{e}"
    );
}

fn adapter() -> std::result::Result<wgpu::Adapter, String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    let inst = wgpu::Instance::new(desc);
    pollster::block_on(inst.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .map_err(|e| format!("no adapter: {e}"))
}

/// The adapter's workgroup memory in bytes (the device takes the adapter's limits).
fn wg_limit() -> usize {
    static L: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *L.get_or_init(|| {
        adapter().map_or(16384, |a| {
            a.limits().max_compute_workgroup_storage_size as usize
        })
    })
}

/// What the first Vulkan adapter exposes of wgpu's cooperative matrices, or why none.
fn coop_report() -> std::result::Result<Vec<String>, String> {
    let ad = adapter()?;
    let name = ad.get_info().name;
    if !ad
        .features()
        .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    {
        return Err(format!("{name} has no EXPERIMENTAL_COOPERATIVE_MATRIX"));
    }
    let i = cupy_wgpu::CoopInfo::new(
        &ad.cooperative_matrix_properties(),
        ad.get_info().subgroup_min_size,
        ad.get_info().subgroup_max_size,
    );
    eprintln!(
        "{name}: cooperative matrices {:?}; GEMM uses f16 {:?}, f32 {:?}, subgroup {}",
        i.exposed, i.f16, i.f32, i.subgroup
    );
    if i.f16.is_none() {
        return Err(format!(
            "{name} has no square float16->float32 configuration"
        ));
    }
    Ok(i.exposed)
}

#[test]
fn gemm_f16_odd_shapes_cooperative_where_available() {
    // float16 `matmul`: through cooperative matrices where the adapter has them (NVIDIA's
    // Vulkan driver), else through float32 (llvmpipe): the same f32-accumulated, once-rounded
    // results either way, for odd, transposed and batched operands.
    match coop_report() {
        Ok(_) => eprintln!("float16 GEMM through cooperative matrices"),
        Err(why) => eprintln!("NOTICE: float16 GEMM through float32 here ({why})"),
    }
    let d = dev_or_skip!();
    if d.supports_dtype(DType::Float16).is_err() {
        return;
    }
    for (batch, m, n, k, ta, tb) in [
        (1usize, 1usize, 1usize, 1usize, false, false),
        (1, 7, 63, 65, false, false),
        (2, 65, 7, 33, true, false),
        (3, 63, 130, 17, false, true),
        (1, 129, 65, 40, true, true),
        // Row-major with k and n multiples of 4: the cooperative kernel's vec4 reads.
        (2, 68, 132, 36, false, false),
        (1, 33, 256, 128, false, false),
        // Whole 128 x 128 tiles with k a multiple of 64: the direct fragment loads
        // (`CUPY_WGPU_COOP_DIRECT=1`), batched and not.
        (2, 128, 256, 64, false, false),
        (1, 256, 128, 192, false, false),
    ] {
        let an: Vec<f64> = (0..batch * m * k)
            .map(|i| ((i * 7) % 11) as f64 - 5.0)
            .collect();
        let bn: Vec<f64> = (0..batch * k * n)
            .map(|i| ((i * 5) % 9) as f64 * 0.25)
            .collect();
        let al = Layout {
            shape: vec![batch, m, k],
            strides: if ta {
                vec![(m * k) as isize, 1, m as isize]
            } else {
                vec![(m * k) as isize, k as isize, 1]
            },
            offset: 0,
        };
        let bl = Layout {
            shape: vec![batch, k, n],
            strides: if tb {
                vec![(k * n) as isize, 1, k as isize]
            } else {
                vec![(k * n) as isize, n as isize, 1]
            },
            offset: 0,
        };
        let exp = gemm_ref(&an, &al, &bn, &bl, batch, m, n, k);
        let h = |v: &[f64]| v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>();
        let (a, b) = (up(&d, &h(&an)), up(&d, &h(&bn)));
        let c = d.alloc(DType::Float16, batch * m * n).unwrap();
        d.gemm(&GemmCall {
            a: op(&a, al.clone()),
            b: op(&b, bl.clone()),
            c: op(&c, Layout::contiguous(&[batch, m, n])),
        })
        .unwrap();
        let got = down::<f16>(&d, &c);
        for (i, (g, e)) in got.iter().zip(&exp).enumerate() {
            // Exact sums in float32, rounded once to float16.
            assert_eq!(
                g.to_f64(),
                f16::from_f64(*e).to_f64(),
                "batch {batch} {m}x{n}x{k} ta={ta} tb={tb} at {i}"
            );
        }
    }
}
