//! GEMM through rocBLAS: how row-major operands are seen by column-major BLAS, and the call.

use super::*;

/// How one row-major matrix (strides `rs`, `cs`, `r` x `c`) is seen by column-major BLAS:
/// `Some((transposed, ld))` where `transposed == false` means the memory is column-major `X^T`.
pub(crate) fn blas_view(r: usize, c: usize, rs: isize, cs: isize) -> Option<(bool, i32)> {
    let fits = |v: usize| i32::try_from(v).ok();
    let rs_eff = if r <= 1 { c.max(1) as isize } else { rs };
    if (cs == 1 || c <= 1) && rs_eff >= c.max(1) as isize {
        return Some((false, fits(rs_eff as usize)?));
    }
    let cs_eff = if c <= 1 { r.max(1) as isize } else { cs };
    if (rs == 1 || r <= 1) && cs_eff >= r.max(1) as isize {
        return Some((true, fits(cs_eff as usize)?));
    }
    None
}

pub(crate) fn gemm(be: &HipBackend, call: &GemmCall<'_>) -> Result<()> {
    let d = call.c.buffer.dtype();
    let op = "matmul";
    if call.a.buffer.dtype() != d || call.b.buffer.dtype() != d {
        return Err(Error::TypeError {
            op: op.into(),
            dtypes: vec![call.a.buffer.dtype(), call.b.buffer.dtype(), d],
            msg: "the HIP GEMM needs one dtype for a, b and c".into(),
        });
    }
    be.check_dtypes(op, &[d])?;
    let (sa, sb, sc) = (
        &call.a.layout.shape,
        &call.b.layout.shape,
        &call.c.layout.shape,
    );
    if sa.len() != 3 || sb.len() != 3 || sc.len() != 3 {
        return Err(Error::invalid(
            op,
            "gemm layouts must be [batch, rows, cols]",
        ));
    }
    let (batch, m, k, n) = (sc[0], sc[1], sa[2], sc[2]);
    if batch * m * n == 0 {
        return Ok(());
    }
    if !matches!(
        d,
        DType::Float32
            | DType::Float64
            | DType::Float16
            | DType::BFloat16
            | DType::Complex64
            | DType::Complex128
    ) {
        return Err(Error::Unsupported {
            op: op.into(),
            backend: be.info.label(),
            reason: format!(
                "rocBLAS has no {d} GEMM and the HIP backend has no fallback kernel for it yet"
            ),
        });
    }
    if k == 0 {
        let fill = Kernel::map(
            &format!("zero_{}", d.name()),
            vec![],
            vec![],
            Expr::constant(Scalar::zero(d)),
        );
        return be.elementwise(&ElementwiseCall {
            kernel: &fill,
            shape: sc.clone(),
            inputs: vec![],
            outputs: vec![call.c.clone()],
            raws: vec![],
            params: vec![],
        });
    }
    let too_big = |v: usize| i32::try_from(v).is_err();
    if too_big(m) || too_big(n) || too_big(k) || too_big(batch) {
        return Err(Error::Unsupported {
            op: op.into(),
            backend: be.info.label(),
            reason: format!(
                "[{batch}, {m}, {k}] @ [{batch}, {k}, {n}] exceeds rocBLAS's 32-bit sizes"
            ),
        });
    }
    // Operands BLAS can read in place, else a contiguous copy.
    let mut temps: Vec<Buffer> = vec![];
    let mut view = |o: &Operand<'_>, r: usize, c: usize| -> Result<(u64, bool, i32, i64)> {
        let l = &o.layout;
        let b = be.buf(op, o.buffer)?;
        if l.strides[0] >= 0 || l.shape[0] <= 1 {
            if let Some((t, ld)) = blas_view(r, c, l.strides[1], l.strides[2]) {
                let bs = if l.shape[0] <= 1 {
                    0
                } else {
                    l.strides[0] as i64
                };
                return Ok((b.addr(l.offset), t, ld, bs));
            }
        }
        let tmp = be.alloc(d, l.shape.iter().product())?;
        be.copy(
            o,
            &Operand {
                buffer: &tmp,
                layout: Layout::contiguous(&l.shape),
            },
        )?;
        let addr = be.buf(op, &tmp)?.addr(0);
        temps.push(tmp);
        Ok((addr, false, c.max(1) as i32, (r * c) as i64))
    };
    let (pa, ta, lda, bsa) = view(&call.a, m, k)?;
    let (pb, tb, ldb, bsb) = view(&call.b, k, n)?;
    let cl = &call.c.layout;
    let direct_c = (batch <= 1 || cl.strides[0] > 0)
        && matches!(
            blas_view(m, n, cl.strides[1], cl.strides[2]),
            Some((false, _))
        );
    let c_tmp = if direct_c {
        None
    } else {
        Some(be.alloc(d, batch * m * n)?)
    };
    let (pc, ldc, bsc) = match &c_tmp {
        None => {
            let (_, ld) =
                blas_view(m, n, cl.strides[1], cl.strides[2]).unwrap_or((false, n as i32));
            let bs = if batch <= 1 {
                (m * n) as i64
            } else {
                cl.strides[0] as i64
            };
            (be.buf(op, call.c.buffer)?.addr(cl.offset), ld, bs)
        }
        Some(t) => (be.buf(op, t)?.addr(0), n.max(1) as i32, (m * n) as i64),
    };
    // Row-major C = A B is column-major C^T = B^T A^T: BLAS's (m, n, k) = (n, m, k), first
    // operand B^T (memory of B), second A^T (memory of A).
    let opb = if tb {
        rb::rocblas_operation_transpose
    } else {
        rb::rocblas_operation_none
    };
    let opa = if ta {
        rb::rocblas_operation_transpose
    } else {
        rb::rocblas_operation_none
    };
    be.current()?;
    {
        let g = be.rocblas()?;
        let Some(Ok(blas)) = &*g else {
            unreachable!("rocblas() returned Ok only with a handle")
        };
        let _s = be.submit.lock().unwrap_or_else(|e| e.into_inner());
        let (m_, n_, k_, bt) = (n as i32, m as i32, k as i32, batch as i32);
        let h = blas.handle.0;
        let api = &blas.api.api;
        // SAFETY: addresses and leading dimensions describe the operands' memory (checked by
        // blas_view or freshly made contiguous); alpha/beta are host scalars (default pointer
        // mode); the handle's stream is ours.
        let status = unsafe {
            match d {
                DType::Float32 => (api.rocblas_sgemm_strided_batched)(
                    h,
                    opb,
                    opa,
                    m_,
                    n_,
                    k_,
                    &1.0f32,
                    pb as *const f32,
                    ldb,
                    bsb,
                    pa as *const f32,
                    lda,
                    bsa,
                    &0.0f32,
                    pc as *mut f32,
                    ldc,
                    bsc,
                    bt,
                ),
                DType::Float64 => (api.rocblas_dgemm_strided_batched)(
                    h,
                    opb,
                    opa,
                    m_,
                    n_,
                    k_,
                    &1.0f64,
                    pb as *const f64,
                    ldb,
                    bsb,
                    pa as *const f64,
                    lda,
                    bsa,
                    &0.0f64,
                    pc as *mut f64,
                    ldc,
                    bsc,
                    bt,
                ),
                // Plain products (transpose, never conjugate-transpose: NumPy's matmul).
                DType::Complex64 => (api.rocblas_cgemm_strided_batched)(
                    h,
                    opb,
                    opa,
                    m_,
                    n_,
                    k_,
                    &rb::rocblas_float_complex { x: 1.0, y: 0.0 },
                    pb as *const rb::rocblas_float_complex,
                    ldb,
                    bsb,
                    pa as *const rb::rocblas_float_complex,
                    lda,
                    bsa,
                    &rb::rocblas_float_complex { x: 0.0, y: 0.0 },
                    pc as *mut rb::rocblas_float_complex,
                    ldc,
                    bsc,
                    bt,
                ),
                DType::Complex128 => (api.rocblas_zgemm_strided_batched)(
                    h,
                    opb,
                    opa,
                    m_,
                    n_,
                    k_,
                    &rb::rocblas_double_complex { x: 1.0, y: 0.0 },
                    pb as *const rb::rocblas_double_complex,
                    ldb,
                    bsb,
                    pa as *const rb::rocblas_double_complex,
                    lda,
                    bsa,
                    &rb::rocblas_double_complex { x: 0.0, y: 0.0 },
                    pc as *mut rb::rocblas_double_complex,
                    ldc,
                    bsc,
                    bt,
                ),
                _ => {
                    let ty = if d == DType::Float16 {
                        rb::rocblas_datatype_f16_r
                    } else {
                        rb::rocblas_datatype_bf16_r
                    };
                    let (one, zero) = (1.0f32, 0.0f32);
                    (api.rocblas_gemm_strided_batched_ex)(
                        h,
                        opb,
                        opa,
                        m_,
                        n_,
                        k_,
                        &one as *const f32 as *const c_void,
                        pb as *const c_void,
                        ty,
                        ldb,
                        bsb,
                        pa as *const c_void,
                        ty,
                        lda,
                        bsa,
                        &zero as *const f32 as *const c_void,
                        pc as *const c_void,
                        ty,
                        ldc,
                        bsc,
                        pc as *mut c_void,
                        ty,
                        ldc,
                        bsc,
                        bt,
                        rb::rocblas_datatype_f32_r,
                        rb::rocblas_gemm_algo_standard,
                        0,
                        0,
                    )
                }
            }
        };
        blas.api.check("rocblas gemm", status).map_err(|e| {
            be.err(format!(
                "matmul {d} [{batch}, {m}, {k}] @ [{batch}, {k}, {n}]: {e}"
            ))
        })?;
    }
    if let Some(t) = &c_tmp {
        be.copy(
            &Operand {
                buffer: t,
                layout: Layout::contiguous(sc),
            },
            &call.c,
        )?;
    }
    drop(temps);
    Ok(())
}
