//! Raw WGSL kernels (`RawKernel` / `RawModule` on wgpu).
//!
//! The user's WGSL is parsed and validated with naga first, so errors come back as
//! [`Error::Compile`] with naga's report (line, column and the offending source excerpt).
//! The entry point is then reflected to build the bind group layout; the binding convention is:
//!
//! - The `k`-th [`RawArg::Buffer`] argument (counting buffers only, in argument order) binds to
//!   `@group(0) @binding(k)` as a storage buffer, starting at its element `offset` and ending at
//!   the buffer's last element (so `arrayLength` is the element count from the offset). Whether it
//!   is `read` or `read_write` is what the shader declares.
//! - All [`RawArg::Scalar`] arguments, in order, are packed into one uniform buffer bound at
//!   `@group(0) @binding(n_buffers)`, laid out as a WGSL struct whose members are the scalars'
//!   types, each aligned to its size, the struct size rounded up to 16 bytes. The shader declares
//!   that struct. Scalar types in WGSL: bool, int8, int16 -> `u32`/`i32` words (bool is 0/1,
//!   int8/int16 `i32`, uint8/uint16 `u32`), float16 and bfloat16 -> `f32`, int32 `i32`, uint32
//!   `u32`, float32 `f32`, int64 `i64`, uint64 `u64`, float64 `f64`, complex64 `vec2<f32>`,
//!   complex128 `vec2<f64>`.
//! - Buffers are seen as the backend stores them: bool/int8/uint8 (4 per word) and
//!   int16/uint16/float16/bfloat16 (2 per word) packed little-endian in `array<u32>` (element `i` is bits
//!   `(i % 4) * 8 ..` of word `i / 4`, or `(i % 2) * 16 ..` of word `i / 2`; a shader that
//!   writes them must not race with neighbours: one invocation per word, or `atomic<u32>` and
//!   `atomicAnd`/`atomicOr`); float16/bfloat16 likewise two per word (their 16-bit patterns:
//!   `unpack2x16float`, or `bits << 16` for bfloat16); int64/uint64/float64 as 64-bit words.
//!   Storage element types are checked against that.
//! - Only the bindings the entry point uses are in the layout; other groups, textures, samplers
//!   and immediates are refused.
//! - `grid` is the number of workgroups dispatched; `block` must equal the entry point's
//!   `@workgroup_size`. Dynamic shared memory does not exist in WGSL (declare
//!   `var<workgroup>` arrays instead): a nonzero `shared_mem` is refused.
//! - A buffer offset must be a multiple of the adapter's `min_storage_buffer_offset_alignment`
//!   (in bytes; 256 on most adapters): pass a contiguous copy of such a view.
//!
//! Pipelines are cached per device by (source, entry point); compiler options are ignored.

use crate::{backend_err, hash_of, word_bytes, WgpuBackend, WgpuBuffer};
use cupy_core::backend::{RawArg, RawLaunch};
use cupy_core::kernel::wgsl;
use cupy_core::{DType, Error, Result, Scalar};
use naga::{AddressSpace, ScalarKind, StorageAccess, TypeInner};
use std::fmt::Write as _;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// A type's scalar as WGSL sees it: kind, width in bytes, vector length (1 or 2).
type Word = (ScalarKind, u8, u8);

/// The WGSL type of a scalar argument in the uniform struct (see the module docs).
pub fn uniform_word(d: DType) -> Word {
    use ScalarKind::*;
    match d {
        DType::Bool | DType::UInt8 | DType::UInt16 | DType::UInt32 => (Uint, 4, 1),
        DType::Int8 | DType::Int16 | DType::Int32 => (Sint, 4, 1),
        DType::Float16 | DType::BFloat16 | DType::Float32 => (Float, 4, 1),
        DType::Int64 => (Sint, 8, 1),
        DType::UInt64 => (Uint, 8, 1),
        DType::Float64 => (Float, 8, 1),
        DType::Complex64 => (Float, 4, 2),
        DType::Complex128 => (Float, 8, 2),
    }
}

fn word_name(w: Word) -> String {
    let s = match (w.0, w.1) {
        (ScalarKind::Sint, 4) => "i32",
        (ScalarKind::Uint, 4) => "u32",
        (ScalarKind::Float, 4) => "f32",
        (ScalarKind::Sint, 8) => "i64",
        (ScalarKind::Uint, 8) => "u64",
        (ScalarKind::Float, 8) => "f64",
        (ScalarKind::Float, 2) => "f16",
        (ScalarKind::Sint, 2) => "i16",
        (ScalarKind::Uint, 2) => "u16",
        (ScalarKind::Bool, _) => "bool",
        _ => "?",
    };
    if w.2 > 1 {
        format!("vec{}<{s}>", w.2)
    } else {
        s.to_string()
    }
}

/// Packs scalars as the uniform struct: each aligned to its size, total rounded up to 16.
/// Returns the bytes and each member's (offset, word).
pub fn pack_scalars(scalars: &[Scalar]) -> (Vec<u8>, Vec<(u32, Word)>) {
    let mut out: Vec<u8> = vec![];
    let mut members = vec![];
    for s in scalars {
        let w = uniform_word(s.dtype());
        let size = w.1 as usize * w.2 as usize;
        let off = out.len().div_ceil(size) * size;
        out.resize(off, 0);
        match *s {
            Scalar::Bool(v) => out.extend((v as u32).to_le_bytes()),
            Scalar::Int8(v) => out.extend((v as i32).to_le_bytes()),
            Scalar::Int16(v) => out.extend((v as i32).to_le_bytes()),
            Scalar::Int32(v) => out.extend(v.to_le_bytes()),
            Scalar::UInt8(v) => out.extend((v as u32).to_le_bytes()),
            Scalar::UInt16(v) => out.extend((v as u32).to_le_bytes()),
            Scalar::UInt32(v) => out.extend(v.to_le_bytes()),
            Scalar::Int64(v) => out.extend(v.to_le_bytes()),
            Scalar::UInt64(v) => out.extend(v.to_le_bytes()),
            Scalar::Float16(v) => out.extend(v.to_f32().to_le_bytes()),
            Scalar::BFloat16(v) => out.extend(v.to_f32().to_le_bytes()),
            Scalar::Float32(v) => out.extend(v.to_le_bytes()),
            Scalar::Float64(v) => out.extend(v.to_le_bytes()),
            Scalar::Complex64(c) => {
                out.extend(c.re.to_le_bytes());
                out.extend(c.im.to_le_bytes());
            }
            Scalar::Complex128(c) => {
                out.extend(c.re.to_le_bytes());
                out.extend(c.im.to_le_bytes());
            }
        }
        members.push((off as u32, w));
    }
    let total = out.len().max(1).div_ceil(16) * 16;
    out.resize(total, 0);
    (out, members)
}

/// The WGSL struct the scalars of one launch are packed as, for error messages.
fn expected_struct(members: &[(u32, Word)]) -> String {
    let fields: Vec<String> = members
        .iter()
        .enumerate()
        .map(|(i, (_, w))| format!("a{i}: {}", word_name(*w)))
        .collect();
    format!("struct Params {{ {} }}", fields.join(", "))
}

/// The storage word of a buffer dtype (see the crate docs).
fn storage_word(d: DType) -> Word {
    if wgsl::packed_bits(d).is_some() {
        // Packed: 4 (8-bit) or 2 (16-bit) elements per little-endian u32 word.
        return (ScalarKind::Uint, 4, 1);
    }
    uniform_word(d)
}

#[derive(Clone, Debug)]
enum BindKind {
    Storage { read_only: bool, elem: Option<Word> },
    Uniform { members: Option<Vec<(u32, Word)>> },
}

#[derive(Clone, Debug)]
struct Binding {
    binding: u32,
    name: String,
    kind: BindKind,
}

/// A raw pipeline and what was reflected from its entry point.
pub(crate) struct RawPipe {
    source: String,
    entry: String,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    bindings: Vec<Binding>,
    workgroup: [u32; 3],
}

/// The scalar (kind, width, vector size) of a type, if it is a scalar, vector or atomic.
fn scalar_of(inner: &TypeInner) -> Option<Word> {
    match inner {
        TypeInner::Scalar(s) => Some((s.kind, s.width, 1)),
        TypeInner::Atomic(s) => Some((s.kind, s.width, 1)),
        TypeInner::Vector { size, scalar } => Some((scalar.kind, scalar.width, *size as u8)),
        _ => None,
    }
}

/// The element scalar of a storage buffer's type (`array<T>`, or a struct ending in one).
fn storage_elem(module: &naga::Module, ty: naga::Handle<naga::Type>) -> Option<Word> {
    match &module.types[ty].inner {
        TypeInner::Array { base, .. } => scalar_of(&module.types[*base].inner),
        TypeInner::Struct { members, .. } if members.len() == 1 => {
            storage_elem(module, members[0].ty)
        }
        other => scalar_of(other),
    }
}

fn parse(
    source: &str,
    caps: naga::valid::Capabilities,
) -> std::result::Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    Ok((module, info))
}

/// Checks a launch's grid and block before anything is compiled (shared rule of all backends:
/// every dimension at least 1).
fn check_dims(name: &str, grid: [u32; 3], block: [u32; 3]) -> Result<()> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(Error::invalid(
            format!("RawKernel {name}"),
            format!("grid {grid:?} and block {block:?} must be at least 1 in every dimension"),
        ));
    }
    Ok(())
}

impl WgpuBackend {
    fn naga_caps(&self) -> naga::valid::Capabilities {
        use naga::valid::Capabilities as C;
        let mut c = C::empty();
        if self.features.contains(wgpu::Features::SHADER_F64) {
            c |= C::FLOAT64;
        }
        if self.features.contains(wgpu::Features::SHADER_INT64) {
            c |= C::SHADER_INT64;
        }
        if self.features.contains(wgpu::Features::SHADER_F16) {
            c |= C::SHADER_FLOAT16;
        }
        c
    }

    fn compile_err(&self, kernel: &str, log: String, source: &str) -> Error {
        Error::Compile {
            backend: self.label(),
            kernel: kernel.into(),
            log,
            source_code: source.into(),
        }
    }

    /// Parses and validates raw WGSL (naga), returning `Error::Compile` with naga's report.
    pub(crate) fn raw_validate(&self, source: &str) -> Result<()> {
        parse(source, self.naga_caps())
            .map(|_| ())
            .map_err(|log| self.compile_err("RawModule", log, source))
    }

    fn raw_pipe(&self, source: &str, entry: &str) -> Result<Arc<RawPipe>> {
        let key = hash_of(&("raw", source, entry));
        if let Some(p) = self
            .raw_pipes
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            if p.source == source && p.entry == entry {
                return Ok(p);
            }
        }
        let op = format!("RawKernel {entry}");
        let (module, info) =
            parse(source, self.naga_caps()).map_err(|log| self.compile_err(entry, log, source))?;
        let Some((ep_index, ep)) = module
            .entry_points
            .iter()
            .enumerate()
            .find(|(_, e)| e.name == entry && e.stage == naga::ShaderStage::Compute)
        else {
            let names: Vec<String> = module
                .entry_points
                .iter()
                .filter(|e| e.stage == naga::ShaderStage::Compute)
                .map(|e| e.name.clone())
                .collect();
            return Err(self.compile_err(
                entry,
                format!(
                    "no @compute entry point named {entry:?} in the module (compute entry points: {})",
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                ),
                source,
            ));
        };
        let fi = info.get_entry_point(ep_index);
        let mut bindings = vec![];
        for (h, g) in module.global_variables.iter() {
            if fi[h].is_empty() {
                continue;
            }
            let Some(rb) = &g.binding else { continue };
            let name = g
                .name
                .clone()
                .unwrap_or_else(|| format!("binding {}", rb.binding));
            if rb.group != 0 {
                return Err(Error::invalid(
                    &op,
                    format!(
                        "`{name}` is bound at @group({}); raw WGSL kernels bind everything in @group(0)",
                        rb.group
                    ),
                ));
            }
            let kind = match g.space {
                AddressSpace::Storage { access } => BindKind::Storage {
                    read_only: !access.contains(StorageAccess::STORE),
                    elem: storage_elem(&module, g.ty),
                },
                AddressSpace::Uniform => {
                    let members = match &module.types[g.ty].inner {
                        TypeInner::Struct { members, .. } => members
                            .iter()
                            .map(|m| scalar_of(&module.types[m.ty].inner).map(|w| (m.offset, w)))
                            .collect::<Option<Vec<_>>>(),
                        other => scalar_of(other).map(|w| vec![(0, w)]),
                    };
                    BindKind::Uniform { members }
                }
                _ => {
                    return Err(Error::invalid(
                        &op,
                        format!(
                            "`{name}` (@binding({})) is not a storage or uniform buffer; raw WGSL \
                             kernels take storage buffers and one uniform struct of scalars only",
                            rb.binding
                        ),
                    ))
                }
            };
            bindings.push(Binding {
                binding: rb.binding,
                name,
                kind,
            });
        }
        bindings.sort_by_key(|b| b.binding);
        let workgroup = ep.workgroup_size;
        let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
            .iter()
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match b.kind {
                        BindKind::Storage { read_only, .. } => {
                            wgpu::BufferBindingType::Storage { read_only }
                        }
                        BindKind::Uniform { .. } => wgpu::BufferBindingType::Uniform,
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let guard = self.scope.lock();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        // SAFETY: as the pipeline cache (`pipeline::runtime_checks`): only the loop counters
        // are dropped; an endless loop in a raw kernel is the kernel's, as in CUDA.
        let sm = unsafe {
            self.device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(entry),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                },
                crate::pipeline::runtime_checks(),
            )
        };
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(entry),
                entries: &entries,
            });
        let pl = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(entry),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pl),
                module: &sm,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        let err = pollster::block_on(scope.pop());
        drop(guard);
        if let Some(e) = err {
            return Err(self.compile_err(entry, e.to_string(), source));
        }
        let p = Arc::new(RawPipe {
            source: source.into(),
            entry: entry.into(),
            pipeline,
            layout,
            bindings,
            workgroup,
        });
        if let Ok(mut m) = self.raw_pipes.lock() {
            m.insert(key, p.clone());
        }
        Ok(p)
    }

    pub(crate) fn raw_dispatch(&self, call: &RawLaunch<'_>) -> Result<()> {
        let op = format!("RawKernel {}", call.name);
        check_dims(call.name, call.grid, call.block)?;
        if call.shared_mem != 0 {
            return Err(Error::invalid(
                &op,
                "dynamic shared memory is not available on wgpu: declare a var<workgroup> array in \
                 the WGSL instead (shared_mem must be 0)",
            ));
        }
        let threads: u64 = call.block.iter().map(|&b| b as u64).product();
        if threads > self.limits.max_compute_invocations_per_workgroup as u64 {
            return Err(Error::invalid(
                &op,
                format!(
                    "block {:?} has {threads} threads, more than this adapter's \
                     max_compute_invocations_per_workgroup ({})",
                    call.block, self.limits.max_compute_invocations_per_workgroup
                ),
            ));
        }
        let maxg = self.limits.max_compute_workgroups_per_dimension;
        if call.grid.iter().any(|&g| g > maxg) {
            return Err(Error::invalid(
                &op,
                format!(
                    "grid {:?} exceeds this adapter's max_compute_workgroups_per_dimension ({maxg})",
                    call.grid
                ),
            ));
        }
        // Arguments: buffers and scalars, checked before compiling.
        let mut bufs: Vec<(&WgpuBuffer, usize)> = vec![];
        let mut scalars: Vec<Scalar> = vec![];
        for (i, a) in call.args.iter().enumerate() {
            match a {
                RawArg::Buffer { buffer, offset } => {
                    let b = self.buf(buffer, &op)?;
                    if *offset > b.len {
                        return Err(Error::invalid(
                            &op,
                            format!(
                                "argument {i}: offset {offset} is past the end of a buffer of {} elements",
                                b.len
                            ),
                        ));
                    }
                    self.check_dtype(&op, b.dtype)?;
                    bufs.push((b, *offset));
                }
                RawArg::Scalar(s) => {
                    self.check_dtype(&op, s.dtype())?;
                    scalars.push(*s);
                }
            }
        }
        let pipe = self.raw_pipe(call.source, call.name)?;
        if call.block != pipe.workgroup {
            return Err(Error::invalid(
                &op,
                format!(
                    "block {:?} does not match the entry point's @workgroup_size({}, {}, {}); on \
                     wgpu the block is fixed by the shader",
                    call.block, pipe.workgroup[0], pipe.workgroup[1], pipe.workgroup[2]
                ),
            ));
        }
        let nb = bufs.len() as u32;
        let (packed, members) = pack_scalars(&scalars);
        let align = self.limits.min_storage_buffer_offset_alignment.max(1) as u64;
        let mut ubuf: Option<wgpu::Buffer> = None;
        let mut entries: Vec<(u32, &wgpu::Buffer, u64, u64)> = vec![];
        for bnd in &pipe.bindings {
            let k = bnd.binding;
            match &bnd.kind {
                BindKind::Storage { elem, .. } => {
                    let Some(&(b, off)) = bufs.get(k as usize) else {
                        return Err(Error::invalid(
                            &op,
                            format!(
                                "the shader's storage buffer `{}` is @binding({k}) but the launch \
                                 has {nb} buffer argument(s) (buffers bind to @binding(0..{nb}) in \
                                 argument order, scalars to one uniform struct at @binding({nb}))",
                                bnd.name
                            ),
                        ));
                    };
                    let want = storage_word(b.dtype);
                    if let Some(e) = elem {
                        if (e.0, e.1) != (want.0, want.1) {
                            return Err(Error::invalid(
                                &op,
                                format!(
                                    "buffer argument {k} is {} (stored as {} words on wgpu) but the \
                                     shader's `{}` has element type {}",
                                    b.dtype,
                                    word_name(want),
                                    bnd.name,
                                    word_name(*e)
                                ),
                            ));
                        }
                    }
                    let wb = word_bytes(b.dtype) as u64;
                    let start = off as u64 * wb;
                    if !start.is_multiple_of(align) {
                        return Err(Error::invalid(
                            &op,
                            format!(
                                "buffer argument {k} starts at element {off} ({start} bytes), which \
                                 is not a multiple of this adapter's \
                                 min_storage_buffer_offset_alignment ({align} bytes); pass a \
                                 contiguous copy of the view"
                            ),
                        ));
                    }
                    // Bind to the last element (at least one word: bindings cannot be empty;
                    // packed elements in whole words, the allocation is padded to them).
                    let size = (((b.len - off).max(1) as u64) * wb).div_ceil(4) * 4;
                    entries.push((k, &b.buf, start, size));
                }
                BindKind::Uniform { members: declared } => {
                    if k != nb || scalars.is_empty() {
                        return Err(Error::invalid(
                            &op,
                            format!(
                                "the shader's uniform `{}` is @binding({k}) but the launch {}",
                                bnd.name,
                                if scalars.is_empty() {
                                    "has no scalar arguments".to_string()
                                } else {
                                    format!(
                                        "packs its {} scalar argument(s) at @binding({nb}) (after \
                                         its {nb} buffer(s))",
                                        scalars.len()
                                    )
                                }
                            ),
                        ));
                    }
                    if let Some(d) = declared {
                        let same =
                            d.len() == members.len() && d.iter().zip(&members).all(|(a, b)| a == b);
                        if !same {
                            let mut got = String::new();
                            for (o, w) in d {
                                let _ = write!(got, "{} at byte {o}, ", word_name(*w));
                            }
                            return Err(Error::invalid(
                                &op,
                                format!(
                                    "the scalar arguments ({}) are packed as `{}` but the shader's \
                                     `{}` declares [{}]; pass scalars of the declared types (e.g. \
                                     5i32, 2.0f32)",
                                    scalars
                                        .iter()
                                        .map(|s| s.dtype().to_string())
                                        .collect::<Vec<_>>()
                                        .join(", "),
                                    expected_struct(&members),
                                    bnd.name,
                                    got.trim_end_matches(", ")
                                ),
                            ));
                        }
                    }
                    ubuf = Some(self.device.create_buffer_init(
                        &wgpu::util::BufferInitDescriptor {
                            label: Some("cupy-raw-scalars"),
                            contents: &packed,
                            usage: wgpu::BufferUsages::UNIFORM,
                        },
                    ));
                }
            }
        }
        let bg_entries: Vec<wgpu::BindGroupEntry> = pipe
            .bindings
            .iter()
            .map(|bnd| {
                let (buffer, offset, size) = match entries.iter().find(|e| e.0 == bnd.binding) {
                    Some(e) => (e.1, e.2, Some(e.3)),
                    None => (ubuf.as_ref().expect("uniform created above"), 0, None),
                };
                wgpu::BindGroupEntry {
                    binding: bnd.binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: size.and_then(wgpu::BufferSize::new),
                    }),
                }
            })
            .collect();
        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(call.name),
            layout: &pipe.layout,
            entries: &bg_entries,
        });
        self.encode(
            &pipe.pipeline,
            &bg,
            (call.grid[0], call.grid[1], call.grid[2]),
        )
        .map_err(|e| match e {
            Error::Backend { backend, msg } => {
                backend_err(&backend, format!("launching {op}: {msg}"))
            }
            e => e,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_packing_follows_wgsl_alignment() {
        let (b, m) = pack_scalars(&[Scalar::Float32(1.0), Scalar::Float64(2.0), Scalar::Int32(3)]);
        assert_eq!(m.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0, 8, 16]);
        assert_eq!(b.len(), 32);
        assert_eq!(&b[8..16], &2.0f64.to_le_bytes());
        let (b, m) = pack_scalars(&[
            Scalar::Bool(true),
            Scalar::Float16(half::f16::from_f32(0.5)),
        ]);
        assert_eq!(b.len(), 16);
        assert_eq!(m[1], (4, (ScalarKind::Float, 4, 1)));
        assert_eq!(&b[4..8], &0.5f32.to_le_bytes());
        assert_eq!(expected_struct(&m), "struct Params { a0: u32, a1: f32 }");
        let (b, m) = pack_scalars(&[Scalar::Int32(1), Scalar::one(DType::Complex128)]);
        assert_eq!(m[1], (16, (ScalarKind::Float, 8, 2)));
        assert_eq!(b.len(), 32);
    }

    #[test]
    fn naga_errors_carry_positions() {
        let src = "@compute @workgroup_size(1)\nfn main() {\n  let x: f32 = 1u;\n}\n";
        let e = parse(src, naga::valid::Capabilities::empty()).unwrap_err();
        assert!(e.contains("wgsl:3:"), "{e}");
    }
}
