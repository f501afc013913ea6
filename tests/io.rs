//! `.npy`/`.npz` I/O against files NumPy wrote (tests/golden/npy, from its gen.py): every file
//! loads bit-exact on every backend; every C-order little-endian array saved back is the same
//! file byte for byte; archives list and read their members; hostile and truncated input is an
//! `Err` naming the op, never a panic.

use crate::common::{self, Tally};
use cupy::{DType, Device, Error};
use serde_json::Value;
use std::path::PathBuf;

fn dir() -> PathBuf {
    common::data_path("golden/npy")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest.json parses")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn dtype(v: &Value) -> DType {
    common::dtype_of(v)
}

/// Compares a loaded array with the manifest's entry: dtype, shape, C-order bytes.
fn same(a: &cupy::Array, want: &Value) -> Result<(), String> {
    let (dt, shape) = (dtype(&want["dtype"]), common::usizes(&want["shape"]));
    if a.dtype() != dt || a.shape() != shape.as_slice() {
        return Err(format!(
            "got {} {:?}, want {dt} {shape:?}",
            a.dtype(),
            a.shape()
        ));
    }
    let got = a.to_bytes().map_err(|e| e.to_string())?;
    if got != unhex(want["c_bytes"].as_str().unwrap()) {
        return Err("element bytes differ".into());
    }
    Ok(())
}

fn skip_or_fail(t: &mut Tally, dev: &Device, case: &str, e: Error) {
    if matches!(e, Error::DTypeNotSupported { .. }) {
        t.skip(dev, case, e);
    } else {
        t.fail(dev, case, e);
    }
}

#[test]
fn npy_files_of_numpy_load_and_save_bit_exact() {
    let m = manifest();
    let mut t = Tally::new("io");
    let tmp = std::env::temp_dir().join(format!("cupy-io-test-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for dev in common::backends() {
        cupy::with_device(&dev, || {
            for (file, want) in m["files"].as_object().unwrap() {
                let path = dir().join(file);
                let a = match cupy::load(&path) {
                    Ok(a) => a,
                    Err(e) => return skip_or_fail(&mut t, &dev, file, e),
                };
                if let Err(e) = same(&a, want) {
                    t.fail(&dev, file, e);
                    continue;
                }
                let fortran = want["fortran"].as_bool().unwrap();
                if fortran && a.is_c_contiguous() {
                    t.fail(&dev, file, "a Fortran-order file should load F-contiguous");
                    continue;
                }
                t.pass(&dev);
                // Saved back: NumPy's exact bytes for C-order little-endian files of version 1.0.
                let native = !file.starts_with("big_") && !fortran && !file.starts_with("version");
                let out = tmp.join(file);
                match cupy::save(&out, &a) {
                    Err(e) => t.fail(&dev, &format!("{file}/save"), e),
                    Ok(()) if native => {
                        let (ours, theirs) =
                            (std::fs::read(&out).unwrap(), std::fs::read(&path).unwrap());
                        if ours == theirs {
                            t.pass(&dev);
                        } else {
                            t.fail(
                                &dev,
                                &format!("{file}/save"),
                                "file bytes differ from np.save's",
                            );
                        }
                    }
                    Ok(()) => match cupy::load(&out)
                        .map_err(|e| e.to_string())
                        .and_then(|b| same(&b, want))
                    {
                        Ok(()) => t.pass(&dev),
                        Err(e) => t.fail(&dev, &format!("{file}/roundtrip"), e),
                    },
                }
            }
            for (file, members) in m["npz"].as_object().unwrap() {
                let mut z = match cupy::load_npz(dir().join(file)) {
                    Ok(z) => z,
                    Err(e) => {
                        t.fail(&dev, file, e);
                        continue;
                    }
                };
                let mut names: Vec<String> = z.files().to_vec();
                names.sort();
                let mut want_names: Vec<String> =
                    members.as_object().unwrap().keys().cloned().collect();
                want_names.sort();
                if names != want_names {
                    t.fail(
                        &dev,
                        file,
                        format!("members {names:?}, want {want_names:?}"),
                    );
                    continue;
                }
                for (name, want) in members.as_object().unwrap() {
                    let case = format!("{file}/{name}");
                    match z.get(name) {
                        Ok(a) => match same(&a, want) {
                            Ok(()) => t.pass(&dev),
                            Err(e) => t.fail(&dev, &case, e),
                        },
                        Err(e) => skip_or_fail(&mut t, &dev, &case, e),
                    }
                }
                // Our archive of the same members reads back the same.
                let arrays: Vec<(String, cupy::Array)> = members
                    .as_object()
                    .unwrap()
                    .keys()
                    .filter_map(|n| z.get(n).ok().map(|a| (n.clone(), a)))
                    .collect();
                let refs: Vec<(&str, &cupy::Array)> =
                    arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
                for compressed in [false, true] {
                    let out = tmp.join(format!("ours_{compressed}_{file}"));
                    let r = if compressed {
                        cupy::savez_compressed(&out, &refs)
                    } else {
                        cupy::savez(&out, &refs)
                    };
                    let back = r.and_then(|_| cupy::load_npz(&out));
                    match back {
                        Ok(mut b) => {
                            for (name, a) in &arrays {
                                let ok =
                                    b.get(name).and_then(|x| Ok(x.to_bytes()? == a.to_bytes()?));
                                match ok {
                                    Ok(true) => t.pass(&dev),
                                    Ok(false) => {
                                        t.fail(&dev, &format!("{file}/ours/{name}"), "bytes differ")
                                    }
                                    Err(e) => t.fail(&dev, &format!("{file}/ours/{name}"), e),
                                }
                            }
                        }
                        Err(e) => t.fail(&dev, &format!("{file}/ours"), e),
                    }
                }
            }
        });
    }
    let _ = std::fs::remove_dir_all(&tmp);
    t.finish();
}

/// What NumPy can write but cupy-rs has no array for, hostile headers and truncated data: each
/// an `InvalidArgument` naming the op and the reason; nothing panics or allocates what the
/// header claims.
#[test]
fn npy_refusals_and_hostile_input_are_errors() {
    let m = manifest();
    let cpu = Device::get(cupy::BackendKind::Cpu, 0).unwrap();
    cupy::with_device(&cpu, || {
        for (file, why) in m["refused"].as_object().unwrap() {
            let e = cupy::load(dir().join(file)).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{file}: {e}");
            assert!(
                msg.starts_with("load: ") && msg.contains(why.as_str().unwrap()),
                "{file}: {msg}"
            );
        }
        let good = std::fs::read(dir().join("float64.npy")).unwrap();
        let frame = |header: &str, major: u8| {
            let mut v = b"\x93NUMPY".to_vec();
            v.extend_from_slice(&[major, 0]);
            if major == 1 {
                v.extend_from_slice(&(header.len() as u16).to_le_bytes());
            } else {
                v.extend_from_slice(&(header.len() as u32).to_le_bytes());
            }
            v.extend_from_slice(header.as_bytes());
            v
        };
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let long = format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }}{}",
            " ".repeat(20_000)
        );
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("empty", vec![], "magic"),
            ("bad magic", b"\x93NUMPX\x01\x00".to_vec(), "magic"),
            ("version 9", b"\x93NUMPY\x09\x00\x10\x00".to_vec(), "version 9.0"),
            ("short header", good[..40].to_vec(), "truncated .npy header"),
            ("short data", good[..good.len() - 3].to_vec(), "truncated data"),
            (
                "huge shape",
                frame("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 1000000000000), }", 1),
                "overflows",
            ),
            (
                "claims a terabyte",
                frame("{'descr': '<f8', 'fortran_order': False, 'shape': (131072, 1048576), }", 1),
                "truncated data",
            ),
            ("negative dim", frame("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", 1), "non-negative"),
            ("not a dict", frame("[1, 2, 3]", 1), "not a dict"),
            ("no shape", frame("{'descr': '<f8', 'fortran_order': False}", 1), "keys"),
            ("extra key", frame("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'x': 1}", 1), "unexpected"),
            ("bad descr", frame("{'descr': '#f8', 'fortran_order': False, 'shape': (), }", 1), "type string"),
            ("f12", frame("{'descr': '<f12', 'fortran_order': False, 'shape': (), }", 1), "not supported"),
            ("garbage", frame("{'descr': <<<", 1), "Python literal"),
            ("deep nesting", frame(&deep, 2), "deep"),
            ("too long", frame(&long, 2), "max_header_size"),
            ("non-ascii v1", frame("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'é': 1}", 1), "ASCII"),
        ];
        for (what, bytes, want) in cases {
            let e = cupy::io::read_array(&bytes[..]).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{what}: {e}");
            assert!(
                msg.starts_with("read_array: ") && msg.contains(want),
                "{what}: {msg}"
            );
        }
        // A descr without a byte-order character is native order, as NumPy reads it.
        let mut b = frame(
            "{'descr': 'f8', 'fortran_order': False, 'shape': (2,), }",
            1,
        );
        for v in [1.5f64, -2.0] {
            b.extend_from_slice(&v.to_ne_bytes());
        }
        let a = cupy::io::read_array(&b[..]).unwrap();
        assert_eq!(a.to_vec::<f64>().unwrap(), vec![1.5, -2.0]);
        // bool bytes other than 0/1 read as True (NumPy keeps the byte; its value is True).
        let mut b = frame(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
            1,
        );
        b.extend_from_slice(&[0, 7, 1]);
        let a = cupy::io::read_array(&b[..]).unwrap();
        assert_eq!(a.to_vec::<bool>().unwrap(), vec![false, true, true]);
        // Saving bfloat16 (no NumPy dtype) fails before any file is created.
        let path = std::env::temp_dir().join(format!("cupy-io-bf16-{}.npy", std::process::id()));
        let x = cupy::zeros(&[2])
            .and_then(|z| z.astype(DType::BFloat16))
            .unwrap();
        let e = cupy::save(&path, &x).unwrap_err().to_string();
        assert!(e.contains("bfloat16") && e.starts_with("save: "), "{e}");
        assert!(!path.exists(), "a refused save must not create the file");
        // An archive given to load, a missing file, a missing member, a repeated name.
        let e = cupy::load(dir().join("stored.npz"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("load_npz"), "{e}");
        let e = cupy::load(dir().join("no-such-file.npy"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("load: ") && e.contains("no-such-file.npy"),
            "{e}"
        );
        let e = cupy::load_npz(dir().join("float64.npy"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("load_npz: "), "{e}");
        let mut z = cupy::load_npz(dir().join("stored.npz")).unwrap();
        let e = z.get("nope").unwrap_err().to_string();
        assert!(e.contains("\"nope\"") && e.contains("\"a\""), "{e}");
        let y = cupy::zeros(&[2]).unwrap();
        let out = std::env::temp_dir().join(format!("cupy-io-dup-{}.npz", std::process::id()));
        let e = cupy::savez(&out, &[("a", &y), ("a", &y)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("twice"), "{e}");
        assert!(!out.exists());
    });
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]
    /// Fuzzing the reader: arbitrary bytes after a valid magic and version, and arbitrary
    /// header text made of the characters a header uses: every outcome is `Ok` or an `Err`.
    #[test]
    fn npy_reader_never_panics(
        version in 1u8..4,
        body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        text in "[{}()\\[\\]'<>|a-zA-Z0-9_:, \\-]{0,200}",
    ) {
        let cpu = Device::get(cupy::BackendKind::Cpu, 0).unwrap();
        cupy::with_device(&cpu, || {
            let mut raw = b"\x93NUMPY".to_vec();
            raw.extend_from_slice(&[version, 0]);
            raw.extend_from_slice(&body);
            let _ = cupy::io::read_array(&raw[..]);
            let mut framed = b"\x93NUMPY\x01\x00".to_vec();
            framed.extend_from_slice(&(text.len() as u16).to_le_bytes());
            framed.extend_from_slice(text.as_bytes());
            framed.extend_from_slice(&body);
            let _ = cupy::io::read_array(&framed[..]);
        });
    }
}
