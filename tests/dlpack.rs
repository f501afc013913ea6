//! DLPack export and import (`cupy::dlpack`): zero-copy round trips on every backend with an
//! address (cpu here; cuda/hip on their machines), foreign host tensors with a counting deleter,
//! and refusals that leave the tensor to its caller.

use crate::common;
use cupy::dlpack::{self, ffi};
use cupy::{s, Array, BackendKind, DType, Error};
use half::f16;
use num_complex::Complex64;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[test]
fn round_trips_share_memory_on_every_backend() {
    for dev in common::backends() {
        let a = Array::from_slice_on(
            &dev,
            &(0..24).map(|v| v as f32).collect::<Vec<_>>(),
            &[4, 6],
        )
        .unwrap();
        if dev.kind() == BackendKind::Wgpu {
            assert!(
                matches!(a.to_dlpack(), Err(Error::Unsupported { .. })),
                "wgpu export must be refused"
            );
            assert!(a.dlpack_device().is_err());
            continue;
        }
        let want_type = match dev.kind() {
            BackendKind::Cuda => ffi::DL_CUDA,
            BackendKind::Hip => ffi::DL_ROCM,
            _ => ffi::DL_CPU,
        };
        assert_eq!(a.dlpack_device().unwrap().device_type, want_type);
        // A view with an offset, a step and a reversed axis travels as it is.
        let v = a.slice(&s![1..4, ..;-2]).unwrap();
        for (label, x) in [("contiguous", &a), ("strided view", &v)] {
            let t = x.to_dlpack().unwrap();
            // SAFETY: produced just above, consumed once.
            let (shape, strides, dtype) = unsafe {
                let d = &(*t).dl_tensor;
                (
                    std::slice::from_raw_parts(d.shape, d.ndim as usize).to_vec(),
                    std::slice::from_raw_parts(d.strides, d.ndim as usize).to_vec(),
                    d.dtype,
                )
            };
            assert_eq!(
                shape,
                x.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
                "{label}"
            );
            assert_eq!(
                dtype,
                ffi::DLDataType {
                    code: ffi::DL_FLOAT,
                    bits: 32,
                    lanes: 1
                }
            );
            if label == "strided view" {
                assert_eq!(strides, vec![6, -2]);
            }
            // SAFETY: a valid tensor from `to_dlpack`.
            let b = unsafe { dlpack::from_dlpack(t) }.unwrap();
            let first = |y: &Array| y.buffer().address().unwrap() + (y.layout().offset * 4) as u64;
            assert_eq!(
                first(&b),
                first(x),
                "{} {label}: element 0 at the same address",
                dev.label()
            );
            assert_eq!(
                b.to_vec::<f32>().unwrap(),
                x.to_vec::<f32>().unwrap(),
                "{} {label}",
                dev.label()
            );
            // Writes through the import are seen by the original (shared memory).
            if label == "contiguous" {
                cupy::manipulation::basic::copyto(&b, &cupy::full_like(&b, 7.0).unwrap()).unwrap();
                assert!(
                    a.to_vec::<f32>().unwrap().iter().all(|&v| v == 7.0),
                    "{}",
                    dev.label()
                );
            }
        }
        // Every dtype maps to a DLPack type and back (versioned structure this time).
        let bools = Array::from_slice_on(&dev, &[true, false, true], &[3]).unwrap();
        let halves =
            Array::from_slice_on(&dev, &[f16::from_f32(1.5), f16::from_f32(-2.0)], &[2]).unwrap();
        let cx = Array::from_slice_on(
            &dev,
            &[Complex64::new(1.0, -2.0), Complex64::new(0.5, 3.0)],
            &[2],
        )
        .unwrap();
        let ints = Array::from_slice_on(&dev, &[-5i64, 7, 1 << 40], &[3]).unwrap();
        for x in [&bools, &halves, &cx, &ints] {
            let t = x.to_dlpack_versioned().unwrap();
            // SAFETY: produced just above.
            let (version, flags) = unsafe { ((*t).version, (*t).flags) };
            assert_eq!((version.major, flags), (1, 0));
            // SAFETY: a valid tensor from `to_dlpack_versioned`.
            let b = unsafe { dlpack::from_dlpack_versioned(t) }.unwrap();
            assert_eq!(b.dtype(), x.dtype());
            assert_eq!(
                b.to_bytes().unwrap(),
                x.to_bytes().unwrap(),
                "{} {}",
                dev.label(),
                x.dtype()
            );
        }
    }
}

static DELETED: AtomicUsize = AtomicUsize::new(0);
/// Tests that count deletions run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// A host tensor in the style of a foreign library: its own shape array and data, freed by
/// its deleter (which counts).
struct Foreign {
    data: Vec<f64>,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

unsafe extern "C" fn foreign_deleter(p: *mut ffi::DLManagedTensor) {
    // SAFETY: made by `foreign` below with Box::into_raw.
    unsafe {
        let m = Box::from_raw(p);
        drop(Box::from_raw(m.manager_ctx as *mut Foreign));
    }
    DELETED.fetch_add(1, Ordering::SeqCst);
}

fn foreign(
    data: Vec<f64>,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
) -> *mut ffi::DLManagedTensor {
    let mut f = Box::new(Foreign {
        data,
        shape,
        strides: strides.clone().unwrap_or_default(),
    });
    let t = ffi::DLTensor {
        data: f.data.as_mut_ptr() as *mut c_void,
        device: ffi::DLDevice {
            device_type: ffi::DL_CPU,
            device_id: 0,
        },
        ndim: f.shape.len() as i32,
        dtype: ffi::DLDataType {
            code: ffi::DL_FLOAT,
            bits: 64,
            lanes: 1,
        },
        shape: f.shape.as_mut_ptr(),
        strides: if strides.is_some() {
            f.strides.as_mut_ptr()
        } else {
            std::ptr::null_mut()
        },
        byte_offset: 0,
    };
    Box::into_raw(Box::new(ffi::DLManagedTensor {
        dl_tensor: t,
        manager_ctx: Box::into_raw(f) as *mut c_void,
        deleter: Some(foreign_deleter),
    }))
}

#[test]
fn foreign_host_tensor_is_wrapped_and_deleted_once() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let before = DELETED.load(Ordering::SeqCst);
    // C order (null strides) 2 x 3.
    let t = foreign((0..6).map(|v| v as f64 * 1.5).collect(), vec![2, 3], None);
    // SAFETY: a valid tensor, consumed once.
    let a = unsafe { dlpack::from_dlpack(t) }.unwrap();
    assert_eq!(a.device().kind(), BackendKind::Cpu);
    assert_eq!(a.shape(), &[2, 3]);
    assert_eq!(
        a.to_vec::<f64>().unwrap(),
        vec![0.0, 1.5, 3.0, 4.5, 6.0, 7.5]
    );
    let s = cupy::sum(&a).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(s, vec![22.5]);
    let view = a.slice(&s![.., 1..]).unwrap();
    drop(a);
    assert_eq!(
        DELETED.load(Ordering::SeqCst),
        before,
        "a view still uses the memory"
    );
    assert_eq!(view.to_vec::<f64>().unwrap(), vec![1.5, 3.0, 6.0, 7.5]);
    drop(view);
    assert_eq!(
        DELETED.load(Ordering::SeqCst),
        before + 1,
        "deleted once, after the last view"
    );

    // Fortran-order strides, and a reversed axis (negative stride from the last element).
    let t = foreign(
        (0..6).map(|v| v as f64).collect(),
        vec![2, 3],
        Some(vec![1, 2]),
    );
    // SAFETY: as above.
    let a = unsafe { dlpack::from_dlpack(t) }.unwrap();
    assert_eq!(
        a.to_vec::<f64>().unwrap(),
        vec![0.0, 2.0, 4.0, 1.0, 3.0, 5.0]
    );
    drop(a);
    let t = foreign((0..4).map(|v| v as f64).collect(), vec![4], Some(vec![-1]));
    // SAFETY: data points at element 0 of the view, the last of the allocation.
    unsafe {
        (*t).dl_tensor.data = ((*t).dl_tensor.data as *mut f64).add(3) as *mut c_void;
    }
    // SAFETY: as above.
    let a = unsafe { dlpack::from_dlpack(t) }.unwrap();
    assert_eq!(a.to_vec::<f64>().unwrap(), vec![3.0, 2.0, 1.0, 0.0]);
    drop(a);
    assert_eq!(DELETED.load(Ordering::SeqCst), before + 3);
}

#[test]
fn bad_tensors_are_refused_and_left_to_the_caller() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: null is checked first.
    assert!(matches!(
        unsafe { dlpack::from_dlpack(std::ptr::null_mut()) },
        Err(Error::InvalidArgument { .. })
    ));
    let before = DELETED.load(Ordering::SeqCst);
    type Spoil = fn(&mut ffi::DLTensor);
    let cases: [(&str, Spoil); 6] = [
        ("two lanes", |t| t.dtype.lanes = 2),
        ("unknown type code", |t| t.dtype.code = 9),
        ("float of 24 bits", |t| t.dtype.bits = 24),
        ("Vulkan device type", |t| t.device.device_type = 7),
        ("null shape", |t| t.shape = std::ptr::null_mut()),
        ("misaligned data", |t| t.byte_offset = 3),
    ];
    for (what, spoil) in cases {
        let t = foreign(vec![1.0; 4], vec![4], None);
        // SAFETY: a valid tensor that we then spoil in one field.
        unsafe { spoil(&mut (*t).dl_tensor) };
        // SAFETY: the spoiled field is what the import checks.
        let r = unsafe { dlpack::from_dlpack(t) };
        assert!(r.is_err(), "{what}: must be refused");
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains("from_dlpack"), "{what}: {msg}");
        assert_eq!(
            DELETED.load(Ordering::SeqCst),
            before,
            "{what}: a refused tensor is not consumed"
        );
        // The caller still owns it and deletes it.
        // SAFETY: our own tensor, deleted once.
        unsafe { foreign_deleter(t) };
        DELETED.fetch_sub(1, Ordering::SeqCst);
    }
    // A negative extent.
    let t = foreign(vec![1.0; 4], vec![-4], None);
    // SAFETY: a valid tensor apart from its shape.
    assert!(unsafe { dlpack::from_dlpack(t) }.is_err());
    // SAFETY: not consumed: ours to delete.
    unsafe { foreign_deleter(t) };
    DELETED.fetch_sub(1, Ordering::SeqCst);

    // Versioned: a read-only tensor and an unknown major version are refused.
    let a = Array::from_slice_on(
        &cupy::Device::get(BackendKind::Cpu, 0).unwrap(),
        &[1.0f32, 2.0],
        &[2],
    )
    .unwrap();
    for (what, spoil) in [
        (
            "read-only",
            (|m: &mut ffi::DLManagedTensorVersioned| m.flags = ffi::FLAG_READ_ONLY) as fn(&mut _),
        ),
        ("major version 2", |m| m.version.major = 2),
    ] {
        let t = a.to_dlpack_versioned().unwrap();
        // SAFETY: our own export, spoiled in one field.
        unsafe { spoil(&mut *t) };
        // SAFETY: as above.
        let r = unsafe { dlpack::from_dlpack_versioned(t) };
        assert!(r.unwrap_err().to_string().contains("from_dlpack"), "{what}");
        // SAFETY: not consumed, so the deleter is ours to call.
        unsafe { ((*t).deleter.unwrap())(t) };
    }
    assert_eq!(
        a.to_vec::<f32>().unwrap(),
        vec![1.0, 2.0],
        "the source array is untouched"
    );
    let _ = DType::Float32;
}
