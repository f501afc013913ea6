//! Runs every emitted complex kernel on the CPU: the C++ the emitter writes for CUDA/HIP (its
//! argument struct, casts, constants, parameters and the prelude's complex arithmetic and
//! functions) is compiled by the system C++ compiler with one-thread stand-ins for the CUDA
//! built-ins, launched through argument bytes packed from the emitter's `ArgsLayout` (whose
//! field offsets the compiler checks with `static_assert`), and its outputs must equal the cpu
//! backend's bit for bit (NaN payloads aside): both implement NumPy's algorithms and call the
//! same libm here. No GPU needed; the device math library's rounding is the H200 run's part.

#[path = "../../../cuda/tests/all/complex_ref.rs"]
mod complex_ref;

use crate::kernels::catalogue;
use cupy_core::kernel::cpp::{
    emit_elementwise, prelude, ArgValue, ElementwiseClass, ElementwiseSpec, Flavor, OperandRef,
    Slot, COMMON_PRELUDE,
};
use cupy_core::kernel::ir::Kernel;
use std::fmt::Write as _;
use std::process::Command;

/// One-thread stand-ins for the CUDA built-ins the elementwise classes use (a grid of one
/// thread walks every element through the grid-stride loop).
const SHIM: &str = r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __shared__ static
#define __syncthreads()
struct cp_dim3 { unsigned x, y, z; };
static const cp_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0};
static const cp_dim3 blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline long long __double_as_longlong(double d) { long long u; memcpy(&u, &d, 8); return u; }
inline double __longlong_as_double(long long u) { double d; memcpy(&d, &u, 8); return d; }
#define CP_WARP 32
#define CP_SHFL_DOWN(v, off) (v)
"#;

/// The C name of an argument-struct field.
fn field_name(s: Slot) -> Option<String> {
    Some(match s {
        Slot::Size => "size".into(),
        Slot::Shape(d) => format!("shape{d}"),
        Slot::Ptr(OperandRef::Input(i)) => format!("in{i}"),
        Slot::Ptr(OperandRef::Output(i)) => format!("out{i}"),
        Slot::Stride(OperandRef::Input(i), d) => format!("st_in{i}_{d}"),
        Slot::Stride(OperandRef::Output(i), d) => format!("st_out{i}_{d}"),
        Slot::Param(k) => format!("p{k}"),
        _ => return None,
    })
}

#[test]
fn emitted_complex_kernels_match_the_cpu_backend_on_the_host() {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let n = complex_ref::N;
    let pre_len = prelude(Flavor::Hip).len();
    let classes = [
        ("s1", ElementwiseClass::Strided, 1, false),
        ("s3", ElementwiseClass::Strided, 3, true),
        ("c", ElementwiseClass::Contiguous, 1, false),
        ("v", ElementwiseClass::Vectorized, 1, false),
        ("v64", ElementwiseClass::Vectorized, 1, true),
    ];
    let kernels: Vec<Kernel> = catalogue::complex_elementwise();
    let mut src = format!("{SHIM}{COMMON_PRELUDE}");
    let mut runs = String::new();
    let mut data: Vec<u8> = vec![];
    let mut expected = vec![];
    for (i, k) in kernels.iter().enumerate() {
        let (tag, class, ndim, index64) = classes[i % classes.len()];
        let mut k = k.clone();
        k.name = format!("{}_{tag}", k.name);
        let spec = ElementwiseSpec {
            ndim,
            class,
            index64,
        };
        let e = emit_elementwise(&k, &spec, Flavor::Hip).unwrap_or_else(|e| panic!("{e}"));
        let entry = &e.entries[0];
        src.push_str(&e.source[pre_len..].replace("extern \"C\" ", ""));
        // Shape [1, 1, n] (3-D) or [n]: contiguous strides.
        let shape: Vec<usize> = if ndim == 3 { vec![1, 1, n] } else { vec![n] };
        let stride = |d: usize| -> i64 { shape[d + 1..].iter().product::<usize>() as i64 };
        let params = complex_ref::params(&k);
        let bytes = e
            .args
            .pack(|s| match s {
                Slot::Size => ArgValue::Int(n as i64),
                Slot::Shape(d) => ArgValue::Int(shape[d] as i64),
                Slot::Ptr(_) => ArgValue::Ptr(0),
                Slot::Stride(_, d) => ArgValue::Int(stride(d)),
                Slot::Param(j) => ArgValue::Scalar(params[j]),
                other => panic!("unexpected slot {other:?}"),
            })
            .unwrap();
        let _ = writeln!(
            runs,
            "static void run_{i}(const unsigned char* args, void* const* ptrs) {{\n  \
             static_assert(sizeof({entry}_args) == {}, \"argument struct size\");\n  \
             {entry}_args a;\n  memcpy(&a, args, sizeof a);",
            e.args.size
        );
        let mut nptr = 0;
        for f in &e.args.fields {
            let name = field_name(f.slot).expect("elementwise field");
            let _ = writeln!(
                runs,
                "  static_assert(offsetof({entry}_args, {name}) == {}, \"{name}\");",
                f.offset
            );
            if let Slot::Ptr(_) = f.slot {
                let _ = writeln!(
                    runs,
                    "  memcpy((char*)&a + {}, &ptrs[{nptr}], 8);",
                    f.offset
                );
                nptr += 1;
            }
        }
        let _ = writeln!(runs, "  {entry}(a);\n}}");
        // Case record: kernel index, argument bytes, inputs, output sizes.
        let ins = complex_ref::input_bytes(&k);
        data.extend((i as u32).to_le_bytes());
        data.extend((bytes.len() as u32).to_le_bytes());
        data.extend(&bytes);
        data.extend((ins.len() as u32).to_le_bytes());
        for b in &ins {
            data.extend((b.len() as u64).to_le_bytes());
            data.extend(b);
        }
        data.extend((k.outputs.len() as u32).to_le_bytes());
        for d in &k.outputs {
            data.extend(((n * d.itemsize()) as u64).to_le_bytes());
        }
        expected.push((k.clone(), complex_ref::cpu_outputs(&k)));
    }
    src.push_str(&runs);
    let _ = writeln!(
        src,
        "typedef void (*run_fn)(const unsigned char*, void* const*);\nstatic const run_fn RUNS[] = {{{}}};",
        (0..kernels.len())
            .map(|i| format!("run_{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    src.push_str(
        r#"static unsigned char* rd(FILE* f, size_t n) {
  unsigned char* p = (unsigned char*)aligned_alloc(64, n < 64 ? 64 : (n + 63) / 64 * 64);
  if (n && fread(p, 1, n, f) != n) { fprintf(stderr, "short read\n"); exit(2); }
  return p;
}
template <typename T> static T num(FILE* f) { T v; if (fread(&v, sizeof v, 1, f) != 1) exit(3); return v; }
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb");
  FILE* o = fopen(argv[2], "wb");
  unsigned kernel;
  while (fread(&kernel, 4, 1, f) == 1) {
    unsigned nargs = num<unsigned>(f);
    unsigned char* args = rd(f, nargs);
    void* ptrs[16];
    size_t sizes[16];
    unsigned nin = num<unsigned>(f);
    for (unsigned i = 0; i < nin; ++i) { size_t n = num<unsigned long long>(f); ptrs[i] = rd(f, n); }
    unsigned nout = num<unsigned>(f);
    for (unsigned i = 0; i < nout; ++i) {
      sizes[i] = num<unsigned long long>(f);
      ptrs[nin + i] = aligned_alloc(64, sizes[i] < 64 ? 64 : (sizes[i] + 63) / 64 * 64);
      memset(ptrs[nin + i], 0xab, sizes[i]);
    }
    RUNS[kernel](args, ptrs);
    for (unsigned i = 0; i < nout; ++i) fwrite(ptrs[nin + i], 1, sizes[i], o);
  }
  fclose(o);
  return 0;
}
"#,
    );
    let dir = std::env::temp_dir().join(format!("cupy-emu-complex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("kernels.cpp"), &src).unwrap();
    std::fs::write(dir.join("cases.bin"), &data).unwrap();
    let exe = dir.join("kernels");
    // -ffp-contract=off as the GPU compilers are told (NVRTC --fmad=false, hipRTC the same flag).
    let out = match Command::new(&compiler)
        .current_dir(&dir)
        .args([
            "-std=c++17",
            "-O1",
            "-ffp-contract=off",
            "-w",
            "kernels.cpp",
            "-o",
        ])
        .arg(&exe)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            let _ = crate::skip(&format!("C++ compiler {compiler:?} could not run: {e}"));
            return;
        }
    };
    assert!(
        out.status.success(),
        "the emitted complex kernels do not compile on the host:\n{}",
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .take(40)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let run = Command::new(&exe)
        .args([dir.join("cases.bin"), dir.join("out.bin")])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "emulated kernels failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let got = std::fs::read(dir.join("out.bin")).unwrap();
    let mut at = 0;
    let mut fails = vec![];
    for (k, want) in &expected {
        for (d, w) in k.outputs.iter().zip(want) {
            let g = &got[at..at + w.len()];
            at += w.len();
            if let Err(e) = complex_ref::compare(*d, g, w, 0) {
                fails.push(format!("{}: {e}", k.name));
            }
        }
    }
    assert_eq!(at, got.len(), "output size");
    assert!(
        fails.is_empty(),
        "{} of {} emitted complex kernels differ from the cpu backend:\n{}",
        fails.len(),
        expected.len(),
        fails.join("\n")
    );
    eprintln!(
        "host emulation: {} emitted complex kernels x {n} elements equal the cpu backend's",
        expected.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
