//! GEMM through cooperative matrices (`shaders/gemm_coop.wgsl`): float16 inputs with float32
//! accumulation where the adapter exposes wgpu's `EXPERIMENTAL_COOPERATIVE_MATRIX` with a square
//! float16 x float16 -> float32 configuration (NVIDIA's tensor cores through
//! `VK_KHR_cooperative_matrix`), and float32 inputs through them only with `CUPY_TF32=1` and a
//! float32 configuration, as the cuda backend does. Everything else, and any adapter without the
//! feature (Mesa's llvmpipe), takes the tiled kernel of `gemm.rs`.

use crate::gemm_coop_text::{
    coop_direct, coop_text, coop_tile_bytes, coop_vec4, CoopShape, CoopStaging,
};
use crate::{hash_of, WgpuBackend};
use cupy_core::backend::{GemmCall, Operand};
use cupy_core::kernel::wgsl::MetaLayout;
use cupy_core::{DType, Error, Layout, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// What the adapter's cooperative matrices offer the GEMM: the square fragment size of each
/// input type with float32 accumulation (naga's `coop_mat8x8` and `coop_mat16x16`), and the
/// subgroup size the kernel's workgroups are planned for.
#[derive(Clone, Debug, Default)]
pub struct CoopInfo {
    /// Fragment size (16 or 8) of float16 x float16 -> float32, if the adapter has one.
    pub f16: Option<u32>,
    /// Fragment size of float32 x float32 -> float32 (used only with `CUPY_TF32=1`).
    pub f32: Option<u32>,
    /// The adapter's subgroup size (its minimum and maximum agree; else no cooperative path).
    pub subgroup: u32,
    /// Every configuration wgpu reports, `MxNxK A->C` (for reports and the tests' output).
    pub exposed: Vec<String>,
}

impl CoopInfo {
    /// The GEMM's view of `props` on an adapter whose subgroups are `sg_min` to `sg_max` wide.
    pub fn new(props: &[wgpu::CooperativeMatrixProperties], sg_min: u32, sg_max: u32) -> Self {
        use wgpu::CooperativeScalarType as T;
        let size = |ab: T| {
            [16, 8].into_iter().find(|&s| {
                props.iter().any(|p| {
                    (p.m_size, p.n_size, p.k_size) == (s, s, s)
                        && p.ab_type == ab
                        && p.cr_type == T::F32
                })
            })
        };
        let usable = sg_min == sg_max && sg_min >= 8;
        CoopInfo {
            f16: size(T::F16).filter(|_| usable),
            f32: size(T::F32).filter(|_| usable),
            subgroup: sg_min,
            exposed: props
                .iter()
                .map(|p| {
                    format!(
                        "{}x{}x{} {:?}->{:?}",
                        p.m_size, p.n_size, p.k_size, p.ab_type, p.cr_type
                    )
                })
                .collect(),
        }
    }
}

/// Set once a cooperative pipeline failed to build: every later GEMM takes the tiled kernel.
static COOP_BROKEN: AtomicBool = AtomicBool::new(false);

impl WgpuBackend {
    /// What the adapter's cooperative matrices offer the GEMM (`None`: no
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX`: an adapter without it, one other than NVIDIA's
    /// driver without `CUPY_WGPU_COOP=1`, or `CUPY_WGPU_COOP=0`).
    pub fn cooperative_matrix(&self) -> Option<&CoopInfo> {
        self.coop.as_ref()
    }

    /// `C = A @ B` through cooperative matrices when the adapter has them for `call`'s dtype
    /// (float16; float32 with `CUPY_TF32=1`): `Ok(true)` when done, `Ok(false)` when the tiled
    /// kernel must do it (no such configuration, or the cooperative pipeline did not build: then
    /// never again in this process).
    pub(crate) fn gemm_coop(&self, call: &GemmCall<'_>) -> Result<bool> {
        let Some(info) = &self.coop else {
            return Ok(false);
        };
        if COOP_BROKEN.load(Ordering::Relaxed) || self.loop_budget.is_some() {
            return Ok(false);
        }
        let d = call.a.buffer.dtype();
        let tf32 = || std::env::var("CUPY_TF32").is_ok_and(|v| v.trim() == "1");
        let (ab, s) = match (d, info.f16, info.f32) {
            (DType::Float16, Some(s), _) => ("f16", s),
            (DType::Float32, _, Some(s)) if tf32() => ("f32", s),
            _ => return Ok(false),
        };
        let sg = info.subgroup;
        let fits = |sh: CoopShape, double: bool| {
            sh.bk.is_multiple_of(s)
                && coop_tile_bytes(ab, s, sh, double)
                    <= self.limits.max_compute_workgroup_storage_size as usize
                && sh.wm * sh.wn * sg <= self.limits.max_compute_invocations_per_workgroup
        };
        let sh = std::env::var("CUPY_WGPU_COOP_SHAPE")
            .ok()
            .and_then(|v| CoopShape::parse(&v))
            .unwrap_or_else(|| {
                [CoopShape::WIDE, CoopShape::default()]
                    .into_iter()
                    .find(|&sh| fits(sh, false))
                    .unwrap_or_default()
            });
        let (bm, bn) = ((sh.wm * sh.fm * s) as usize, (sh.wn * sh.fn_ * s) as usize);
        let elem = if ab == "f16" { 2 } else { 4 };
        if !fits(sh, false) {
            return Ok(false);
        }
        let shape3 = |o: &Operand<'_>| -> Option<[usize; 3]> {
            let s = &o.layout.shape;
            (s.len() == 3).then(|| [s[0], s[1], s[2]])
        };
        let (Some([batch, m, kk]), Some([_, _, n])) = (shape3(&call.a), shape3(&call.b)) else {
            return Ok(false);
        };
        if m == 0 || n == 0 || batch == 0 {
            return Ok(true);
        }
        let (mp, np) = (m.div_ceil(bm) * bm, n.div_ceil(bn) * bn);
        let words = |o: &Operand<'_>| -> Option<[i32; 4]> {
            let l = &o.layout;
            Some([
                i32::try_from(l.offset).ok()?,
                i32::try_from(l.strides[0]).ok()?,
                i32::try_from(l.strides[1]).ok()?,
                i32::try_from(l.strides[2]).ok()?,
            ])
        };
        let (Some(sa), Some(sb), Ok(c_sb)) =
            (words(&call.a), words(&call.b), u32::try_from(mp * np))
        else {
            return Ok(false);
        };
        // Every binding within one storage binding and every index within u32 (else the tiled
        // kernel, which windows large operands).
        let ct_len = batch * mp * np;
        if u32::try_from(ct_len).is_err()
            || (ct_len * 4) as u64 > self.binding_cap
            || [call.a.buffer, call.b.buffer]
                .iter()
                .any(|b| b.len() as u64 * elem as u64 > self.binding_cap)
        {
            return Ok(false);
        }
        // Timing knobs. The vec4 staging is off unless `CUPY_WGPU_COOP_VEC4=1`: on the H100
        // (2026-12-07, float16 8192, shape 4x4x2x2) it ran at 25.4 TFLOP/s double-buffered and
        // 32.8 single, against 82.6 for the element-wise staging.
        let knob = |name: &str| std::env::var(name).map_or(true, |v| v.trim() != "0");
        let on = |name: &str| std::env::var(name).is_ok_and(|v| v.trim() == "1");
        let vec4 = coop_vec4(&sa, &sb, batch, kk, n) && on("CUPY_WGPU_COOP_VEC4");
        // Double-buffered where the two tiles fit (`CUPY_WGPU_COOP_DOUBLE=0`: single).
        let double = vec4 && fits(sh, true) && knob("CUPY_WGPU_COOP_DOUBLE");
        // Fragments loaded straight from the operands (`CUPY_WGPU_COOP_DIRECT=1`, one slice ahead
        // with `CUPY_WGPU_COOP_PREFETCH=1`; untimed).
        let direct = on("CUPY_WGPU_COOP_DIRECT")
            && coop_direct(&sa, &sb, [batch, m, kk, n], [bm, bn, sh.bk as usize]);
        // Timing probes (`CUPY_WGPU_COOP_PROBE=tiles|resident`: C is not A @ B; see
        // `CoopStaging::Probe`), on the layouts of the direct loads only.
        let probe = std::env::var("CUPY_WGPU_COOP_PROBE")
            .ok()
            .filter(|_| coop_direct(&sa, &sb, [batch, m, kk, n], [bm, bn, sh.bk as usize]));
        let staging = if let Some(p) = probe {
            CoopStaging::Probe {
                tiles: p.trim() == "tiles",
            }
        } else if direct {
            CoopStaging::Direct {
                prefetch: on("CUPY_WGPU_COOP_PREFETCH"),
            }
        } else if vec4 {
            CoopStaging::Vec4 { double }
        } else {
            CoopStaging::Pairs
        };
        // Timing probe: the kernel without naga's bounds checks (`CUPY_WGPU_COOP_UNCHECKED=1`).
        let unchecked = on("CUPY_WGPU_COOP_UNCHECKED");
        let checks = if unchecked {
            wgpu::ShaderRuntimeChecks::unchecked()
        } else {
            crate::pipeline::runtime_checks()
        };
        let key = hash_of(&("gemm_coop", ab, s, sg, sh, staging, unchecked));
        let name = format!("gemm_coop_{ab}_{s}");
        let make = || {
            Ok((
                coop_text(ab, s, sg, sh, staging),
                MetaLayout {
                    params: vec![],
                    words_offset: 0,
                    n_words: 16,
                },
                vec![false, false, true],
            ))
        };
        let pipe = match self.pipeline_with_checks(key, &name, &make, checks) {
            Ok(p) => p,
            Err(e) => {
                eprintln!(
                    "cupy-rs: the cooperative-matrix GEMM did not build on {} ({e}); \
                     the tiled kernel takes over",
                    self.label()
                );
                COOP_BROKEN.store(true, Ordering::Relaxed);
                return Ok(false);
            }
        };
        let ct = self.temp(DType::Float32, ct_len)?;
        let (a, b, c) = (
            self.buf(call.a.buffer, "matmul")?,
            self.buf(call.b.buffer, "matmul")?,
            self.buf(&ct, "matmul")?,
        );
        let maxz = self.limits.max_compute_workgroups_per_dimension as usize;
        let mut b0 = 0;
        while b0 < batch {
            let nb = (batch - b0).min(maxz);
            let mut w: Vec<u32> = vec![m as u32, n as u32, kk as u32, b0 as u32];
            w.extend(sa.iter().chain(&sb).map(|&x| x as u32));
            w.extend([c_sb, np as u32, 0, 0]);
            let meta = pipe.meta.pack(&[], &w);
            self.dispatch3(
                &pipe,
                &meta,
                &[&a.buf, &b.buf, &c.buf],
                ((np / bn) as u32, (mp / bm) as u32, nb as u32),
            )?;
            b0 += nb;
        }
        let cl = Layout {
            shape: vec![batch, m, n],
            strides: vec![(mp * np) as isize, np as isize, 1],
            offset: 0,
        };
        self.cast_into(&ct, &cl, call.c.buffer, &call.c.layout)
            .map_err(|e| Error::invalid("matmul", format!("cooperative GEMM store: {e}")))?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coop_info_picks_square_f32_accumulators() {
        use wgpu::CooperativeScalarType as T;
        let p = |m, n, k, ab, cr| wgpu::CooperativeMatrixProperties {
            m_size: m,
            n_size: n,
            k_size: k,
            ab_type: ab,
            cr_type: cr,
            saturating_accumulation: false,
        };
        let props = [
            p(16, 8, 16, T::F16, T::F32),
            p(16, 16, 16, T::F16, T::F16),
            p(16, 16, 16, T::F16, T::F32),
            p(8, 8, 8, T::F32, T::F32),
        ];
        let i = CoopInfo::new(&props, 32, 32);
        assert_eq!((i.f16, i.f32, i.subgroup), (Some(16), Some(8), 32));
        assert_eq!(i.exposed.len(), 4);
        assert_eq!(i.exposed[0], "16x8x16 F16->F32");
        // Subgroups of varying size: the kernel's workgroup plan does not hold.
        let i = CoopInfo::new(&props, 32, 64);
        assert_eq!((i.f16, i.f32), (None, None));
    }
}
