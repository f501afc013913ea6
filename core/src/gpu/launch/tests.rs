use super::*;
use crate::kernel::cpp::{
    reduce_vector_width, vector_width, ArgsLayout, ElementwiseClass, ElementwiseSpec, OperandRef,
    Slot, BLOCK,
};
use crate::kernel::ir::{BinaryOp, Expr};
use crate::kernel::ir::{Kernel, ReduceKernel};
use crate::layout::Layout;
use crate::scalar::Scalar;

fn add(d: DType) -> Kernel {
    Kernel::map(
        "add",
        vec![d, d],
        vec![],
        Expr::binary(BinaryOp::Add, Expr::input(0, d), Expr::input(1, d)),
    )
}

fn buf(ptr: u64, len: usize, dtype: DType) -> DevBuf {
    DevBuf { ptr, len, dtype }
}

fn plan(k: &Kernel, shape: &[usize], ops: &[(DevBuf, Layout)]) -> ElementwisePlan {
    let v: Vec<(DevBuf, &Layout)> = ops.iter().map(|(b, l)| (*b, l)).collect();
    let nin = k.inputs.len();
    ElementwisePlan::new(k, shape, &v[..nin], &v[nin..], &[])
}

#[test]
fn contiguous_classes_and_alignment() {
    let k = add(DType::Float32);
    assert_eq!(vector_width(&k), 4);
    let l = Layout::contiguous(&[1000]);
    let b = buf(1 << 20, 1000, DType::Float32);
    let p = plan(
        &k,
        &[1000],
        &[(b, l.clone()), (b, l.clone()), (b, l.clone())],
    );
    assert!(p.all_contiguous);
    assert_eq!(
        p.spec,
        ElementwiseSpec {
            ndim: 1,
            class: ElementwiseClass::Vectorized,
            index64: false
        }
    );
    // A view starting one element in: not 16-byte aligned.
    let mut off = Layout::contiguous(&[999]);
    off.offset = 1;
    let l999 = Layout::contiguous(&[999]);
    let p = plan(
        &k,
        &[999],
        &[(b, off), (b, l999.clone()), (b, l999.clone())],
    );
    assert_eq!(p.spec.class, ElementwiseClass::Contiguous);
    // Offset 4 f32 = 16 bytes: aligned again.
    let mut off4 = Layout::contiguous(&[996]);
    off4.offset = 4;
    let l996 = Layout::contiguous(&[996]);
    let p = plan(&k, &[996], &[(b, off4), (b, l996.clone()), (b, l996)]);
    assert_eq!(p.spec.class, ElementwiseClass::Vectorized);
    // float64: 2 per vector, 16-byte alignment.
    let k64 = add(DType::Float64);
    assert_eq!(vector_width(&k64), 2);
    let b64 = buf(8, 10, DType::Float64);
    let l10 = Layout::contiguous(&[10]);
    let p = plan(
        &k64,
        &[10],
        &[(b64, l10.clone()), (b64, l10.clone()), (b64, l10)],
    );
    assert_eq!(p.spec.class, ElementwiseClass::Contiguous);
    // A 2-D C-contiguous array is one contiguous launch; a sliced row end merges to 1-D too.
    let l2 = Layout::contiguous(&[8, 16]);
    let b2 = buf(0, 128, DType::Float32);
    let p = plan(
        &k,
        &[8, 16],
        &[(b2, l2.clone()), (b2, l2.clone()), (b2, l2)],
    );
    assert_eq!(
        (p.spec.ndim, p.spec.class),
        (1, ElementwiseClass::Vectorized)
    );
    // Broadcast (stride 0) inputs are strided.
    let bc = Layout {
        shape: vec![8, 16],
        strides: vec![0, 1],
        offset: 0,
    };
    let c = Layout::contiguous(&[8, 16]);
    let p = plan(&k, &[8, 16], &[(b2, bc), (b2, c.clone()), (b2, c)]);
    assert_eq!((p.spec.ndim, p.spec.class), (2, ElementwiseClass::Strided));
}

#[test]
fn tiled_and_strided_classes() {
    let k = add(DType::Float32);
    let b = buf(0, 64 * 64, DType::Float32);
    let c = Layout::contiguous(&[64, 32]);
    let t = Layout::contiguous(&[32, 64]).transposed();
    let p = plan(
        &k,
        &[64, 32],
        &[(b, t.clone()), (b, c.clone()), (b, c.clone())],
    );
    assert_eq!(
        p.spec,
        ElementwiseSpec {
            ndim: 2,
            class: ElementwiseClass::Tiled,
            index64: false
        }
    );
    let (grid, block) = p.launch_dims(1, 132);
    assert_eq!(grid, [2, 1, 1]); // 64 / 32 x 32 / 32 tiles
    assert_eq!(block, [32, 8, 1]);
    // Too narrow for tiles: strided.
    let c8 = Layout::contiguous(&[64, 8]);
    let t8 = Layout::contiguous(&[8, 64]).transposed();
    let p = plan(&k, &[64, 8], &[(b, t8), (b, c8.clone()), (b, c8)]);
    assert_eq!(p.spec.class, ElementwiseClass::Strided);
    // Three axes: strided with 3 dims.
    let t3 = Layout::contiguous(&[4, 4, 4]).permute(&[2, 1, 0]).unwrap();
    let c3 = Layout::contiguous(&[4, 4, 4]);
    let p = plan(&k, &[4, 4, 4], &[(b, t3), (b, c3.clone()), (b, c3)]);
    assert_eq!((p.spec.ndim, p.spec.class), (3, ElementwiseClass::Strided));
    // Reversed 1-D view: merged to one axis of stride -1, strided class.
    let r = Layout {
        shape: vec![100],
        strides: vec![-1],
        offset: 99,
    };
    let c1 = Layout::contiguous(&[100]);
    let p = plan(&k, &[100], &[(b, r), (b, c1.clone()), (b, c1)]);
    assert_eq!((p.spec.ndim, p.spec.class), (1, ElementwiseClass::Strided));
}

#[test]
fn index_width() {
    let k = add(DType::Float32);
    let l = Layout::contiguous(&[16]);
    let small = buf(0, 16, DType::Float32);
    let p = plan(
        &k,
        &[16],
        &[(small, l.clone()), (small, l.clone()), (small, l.clone())],
    );
    assert!(!p.spec.index64);
    // A small view of a buffer of 2^31 elements: 64-bit (offsets may pass 2^31).
    let huge = buf(0, 1 << 31, DType::Float32);
    let p = plan(
        &k,
        &[16],
        &[(huge, l.clone()), (small, l.clone()), (small, l.clone())],
    );
    assert!(p.spec.index64);
    let just = buf(0, (1 << 31) - 1, DType::Float32);
    let p = plan(
        &k,
        &[16],
        &[(just, l.clone()), (small, l.clone()), (small, l.clone())],
    );
    assert!(!p.spec.index64);
    // A raw operand's buffer counts too.
    let v = [(small, &l), (small, &l)];
    let p = ElementwisePlan::new(&k, &[16], &v, &[(small, &l)], &[(huge, 0)]);
    assert!(p.spec.index64);
    // So does the iteration space (a broadcast input of one element).
    let n = 1usize << 31;
    let bc = Layout {
        shape: vec![n],
        strides: vec![0],
        offset: 0,
    };
    let out = Layout::contiguous(&[n]);
    let big_out = buf(0, n, DType::Float32);
    let one = buf(0, 1, DType::Float32);
    let p = plan(&k, &[n], &[(one, bc.clone()), (one, bc), (big_out, out)]);
    assert!(p.spec.index64);
    // Packing a 32-bit kernel with a 64-bit value is refused by ArgsLayout::pack.
}

#[test]
fn grid_sizing() {
    assert_eq!(grid_for(132, 0, 256), 1);
    assert_eq!(grid_for(132, 1, 256), 1);
    assert_eq!(grid_for(132, 257, 256), 2);
    assert_eq!(grid_for(132, 1 << 30, 256), 132 * 32);
    assert_eq!(grid_for(1 << 30, usize::MAX / 2, 1), i32::MAX as u32);
    let k = add(DType::Float32);
    let l = Layout::contiguous(&[1 << 20]);
    let b = buf(0, 1 << 20, DType::Float32);
    let p = plan(&k, &[1 << 20], &[(b, l.clone()), (b, l.clone()), (b, l)]);
    // 2^20 / 4 per thread / 256 threads = 1024 blocks; contiguous classes are not capped
    // at 32 blocks per SM (one item per thread).
    assert_eq!(p.launch_dims(4, 132), ([1024, 1, 1], [256, 1, 1]));
    assert_eq!(p.launch_dims(4, 8), ([1024, 1, 1], [256, 1, 1]));
}

#[test]
fn packing_follows_the_plan() {
    use crate::kernel::cpp::ArgField;
    let k = add(DType::Float32);
    let b = buf(0x1000, 100, DType::Float32);
    let mut off = Layout::contiguous(&[10]);
    off.offset = 3;
    let c = Layout::contiguous(&[10]);
    let ins = [(b, &off), (b, &c)];
    let outs = [(b, &c)];
    let p = ElementwisePlan::new(&k, &[10], &ins, &outs, &[]);
    let field = |slot, offset, size| ArgField { slot, offset, size };
    let layout = ArgsLayout {
        fields: vec![
            field(Slot::Size, 0, 4),
            field(Slot::Ptr(OperandRef::Input(0)), 8, 8),
            field(Slot::Ptr(OperandRef::Output(0)), 16, 8),
        ],
        size: 24,
        params: vec![],
    };
    let bytes = p.pack(&layout, &ins, &outs, &[], &[]).unwrap();
    assert_eq!(&bytes[0..4], &10i32.to_le_bytes());
    assert_eq!(&bytes[8..16], &(0x1000u64 + 12).to_le_bytes());
    assert_eq!(&bytes[16..24], &0x1000u64.to_le_bytes());
}

#[test]
fn raw_scalar_slots() {
    assert_eq!(raw_scalar_slot(&Scalar::Bool(true)), [1, 0]);
    assert_eq!(raw_scalar_slot(&Scalar::Int8(-1)), [0xff, 0]);
    let h = Scalar::Float32(1.0).cast(DType::Float16);
    assert_eq!(raw_scalar_slot(&h), [0x3c00, 0]);
    assert_eq!(
        raw_scalar_slot(&Scalar::Float64(1.0)),
        [1.0f64.to_bits(), 0]
    );
    assert_eq!(raw_scalar_slot(&Scalar::Int64(-2)), [(-2i64) as u64, 0]);
}

fn sum(d: DType) -> ReduceKernel {
    ReduceKernel::simple("sum", d, d, BinaryOp::Add, Scalar::zero(d), d)
}

fn shapes(
    out: &[usize],
    red: &[usize],
    input: (DevBuf, &Layout),
    output: (DevBuf, &Layout),
) -> ReduceShapes {
    ReduceShapes::new(out, red, &[input], &[output])
}

#[test]
fn reduction_shapes_and_entries() {
    let k = sum(DType::Float32);
    let rv = reduce_vector_width(&k);
    assert_eq!(rv, 4);
    // Full sum of a contiguous vector: one output, vectorized, split across the device.
    let n = 1 << 24;
    let x = buf(0, n, DType::Float32);
    let y = buf(0, 1, DType::Float32);
    let lx = Layout::contiguous(&[n]);
    let ly = Layout::contiguous(&[]);
    let s = shapes(&[], &[n], (x, &lx), (y, &ly));
    assert_eq!(
        (s.out_size, s.red_size, s.oshape.clone(), s.rshape.clone()),
        (1, n, vec![1], vec![n])
    );
    assert!(!s.spec.index64);
    assert_eq!(s.entry(&[(x, &lx)], rv), ReduceEntry::Vectorized);
    let l = ReduceLaunch::new(132, 1, n, ReduceEntry::Vectorized, rv, 8);
    // target 132 x 8 = 1056 blocks; splits limited by 2^24 / (256 * 16) = 4096.
    assert_eq!(l.splits, 1056);
    assert_eq!(l.grid, [1, 1056, 1]);
    assert_eq!(l.block, [256, 1, 1]);
    assert_eq!(l.finish, Some(([1, 1, 1], [256, 1, 1])));
    // Misaligned start: plain inner entry.
    let mut lo = Layout::contiguous(&[n - 1]);
    lo.offset = 1;
    let s = shapes(&[], &[n - 1], (x, &lo), (y, &ly));
    assert_eq!(s.entry(&[(x, &lo)], rv), ReduceEntry::Inner);
    // sum(axis=0) of a C-contiguous [4096, 4096]: reduced stride 4096, outputs contiguous.
    let m = 4096;
    let x2 = buf(0, m * m, DType::Float32);
    let y2 = buf(0, m, DType::Float32);
    let t = Layout::contiguous(&[m, m]).transposed(); // out axis (stride 1), red (stride m)
    let ly2 = Layout::contiguous(&[m]);
    let s = shapes(&[m], &[m], (x2, &t), (y2, &ly2));
    assert_eq!(s.entry(&[(x2, &t)], rv), ReduceEntry::Outer);
    let l = ReduceLaunch::new(132, m, m, ReduceEntry::Outer, rv, 4);
    assert_eq!(l.block, [32, 8, 1]);
    // 128 tiles < 528 targets: splits = min(ceil(528 / 128), ceil(4096 / 256)) = 5, then
    // made non-empty: chunk 820 -> 5 splits.
    assert_eq!((l.splits, l.grid), (5, [128, 5, 1]));
    assert_eq!(l.finish, Some(([4096, 1, 1], [64, 1, 1])));
    // sum(axis=1) of [100000, 8]: many short rows, no split, 64 threads.
    let x3 = buf(0, 800_000, DType::Float32);
    let y3 = buf(0, 100_000, DType::Float32);
    let l3 = Layout::contiguous(&[100_000, 8]);
    let ly3 = Layout::contiguous(&[100_000]);
    let s = shapes(&[100_000], &[8], (x3, &l3), (y3, &ly3));
    // Reduced axis of 8 (< 32) with outputs strided: the outer entry.
    assert_eq!(s.entry(&[(x3, &l3)], rv), ReduceEntry::Outer);
    let l = ReduceLaunch::new(132, 100_000, 8, ReduceEntry::Inner, rv, 4);
    assert_eq!((l.splits, l.grid, l.block), (1, [8448, 1, 1], [64, 1, 1]));
    assert_eq!(l.finish, None);
}

#[test]
fn reduction_edge_cases() {
    let k = sum(DType::Float64);
    let rv = reduce_vector_width(&k);
    assert_eq!(rv, 2);
    let x = buf(0, 10, DType::Float64);
    let y = buf(0, 10, DType::Float64);
    // Nothing reduced: [1] with stride 0; one block per output.
    let l = Layout::contiguous(&[10]);
    let s = shapes(&[10], &[], (x, &l), (y, &l));
    assert_eq!((s.red_size, s.rshape.clone()), (1, vec![1]));
    assert_eq!(s.rlays[0].strides, vec![0]);
    assert_eq!(s.entry(&[(x, &l)], rv), ReduceEntry::Outer);
    // An empty reduction (reduce_shape [0]): inner, no split.
    let e = Layout::contiguous(&[10, 0]);
    let s = shapes(&[10], &[0], (x, &e), (y, &l));
    assert_eq!(s.red_size, 0);
    assert_eq!(s.entry(&[(x, &e)], rv), ReduceEntry::Inner);
    let lw = ReduceLaunch::new(132, 10, 0, ReduceEntry::Inner, rv, 4);
    assert_eq!((lw.splits, lw.block, lw.finish), (1, [64, 1, 1], None));
    // 64-bit indices from out x reduced elements or any buffer at 2^31.
    let n = 1usize << 16;
    let xs = buf(0, (n / 2 - 1) * n, DType::Float64);
    let lx = Layout::contiguous(&[n / 2 - 1, n]);
    let ys = buf(0, n / 2 - 1, DType::Float64);
    let ly = Layout::contiguous(&[n / 2 - 1]);
    assert!(
        !shapes(&[n / 2 - 1], &[n], (xs, &lx), (ys, &ly))
            .spec
            .index64
    );
    let lx2 = Layout::contiguous(&[n, n / 2 + 1]);
    let xs2 = buf(0, n * (n / 2 + 1), DType::Float64);
    let ys2 = buf(0, n, DType::Float64);
    let ly2 = Layout::contiguous(&[n]);
    assert!(
        shapes(&[n], &[n / 2 + 1], (xs2, &lx2), (ys2, &ly2))
            .spec
            .index64
    );
    let huge = buf(0, 1 << 31, DType::Float64);
    assert!(shapes(&[10], &[], (huge, &l), (y, &l)).spec.index64);
    // Splits never exceed 65535 and every split has work.
    for red in [1usize << 20, 1 << 26, 3_000_001, 4097] {
        for units in [1usize, 8, 132, 304] {
            let p = ReduceLaunch::new(units, 1, red, ReduceEntry::Inner, rv, 4);
            assert!(p.splits <= 65535);
            let chunk = red.div_ceil(p.splits);
            assert!(chunk * (p.splits - 1) < red, "{red} {units}: empty split");
            assert!(p.block[0] >= 64 && p.block[0] <= BLOCK as u32);
        }
    }
}
