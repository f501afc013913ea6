//! Packed small types (bool, int8, uint8, int16, uint16: 1 or 2 bytes per element, packed in
//! 32-bit words on wgpu): elementwise ops on views with odd offsets and strides, in-place ops on
//! views, casts to and from every dtype, reductions, argmax, masks, sort, scans, scatter with
//! duplicates, concatenation, each compared exactly with NumPy 2.2's results (the values below
//! were computed by NumPy; the generating script is in the comments of each case).

use crate::common::{self, CaseError};
use cupy::{Array, DType, Device, Reduce, Scalar};

type R = std::result::Result<(), CaseError>;

fn eq<T: PartialEq + std::fmt::Debug>(what: &str, got: Vec<T>, want: &[T]) -> R {
    if got != want {
        return Err(format!("{what}: got {got:?}, NumPy {want:?}").into());
    }
    Ok(())
}

fn add(x: &Array, y: cupy::Arg<'_>, out: &Array) -> cupy::Result<Array> {
    cupy::apply_out(&cupy::ufuncs::add, &[x.into(), y], out)
}

// NumPy 2.2.6 (a0 = np.arange(-20, 20, dtype=int8), m = (a0 % 3 == 0), m[3:17:2] = ~m[3:17:2],
// r = (np.arange(40) * 37 % 256).astype(uint8).view(int8).reshape(4, 10),
// h16 = ((np.arange(30) * 7919) % 65536).astype(uint16).view(int16).reshape(5, 6),
// s8 = ((np.arange(41) * 53) % 256).astype(uint8).view(int8)).
const A1: &[i8] = &[-14, -11, -8, -5, -2, 1, 4, 7, 10, 13, 16, 19, 22];
const A2: &[i8] = &[
    -20, 123, -18, -17, -112, -15, -14, -91, -12, -11, -70, -9, -8, -49, -6, -5, -28, -3, -2, -7,
    0, 1, 14, 3, 4, 35, 6, 7, 56, 9, 10, 77, 12, 13, 98, 15, 16, 119, 18, 19,
];
const A3: &[i8] = &[
    -20, 123, 82, 83, -12, 85, 86, 9, 88, 89, 30, 91, 92, 51, 94, 95, 72, 97, 98, 93, 100, 101,
    114, 103, 104, -121, 106, 107, -100, 109, 110, -79, 112, 113, -58, 115, 116, 119, 18, 19,
];
const A4: &[i8] = &[
    -21, 123, 82, 82, -12, 85, 85, 9, 88, 88, 30, 91, 91, 51, 94, 94, 72, 97, 97, 93, 100, 100,
    114, 103, 103, -121, 106, 106, -100, 109, 109, -79, 112, 112, -58, 115, 115, 119, 18, 18,
];
const B1: &[u8] = &[250, 254, 2, 6, 10, 14, 18, 22, 26];
const B2: &[u8] = &[
    250, 251, 252, 253, 254, 85, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7,
    7,
];
const C1: &[i16] = &[
    17386, 19236, 21086, 22936, 24786, 26636, 28486, 30336, 32186, -31500, -29650, -27800, -25950,
    -24100, -22250, -20400, -18550, -16700, -14850, -13000, -11150, -9300, -7450, -5600, -3750,
    -1900, -50, 1800, 3650, 5500, 7350, 9200, 11050, 12900, 14750, 16600, 18450, 20300, 22150,
    24000, 25850, 27700, 29550, 31400, -32286, -30436, -28586, -26736, -24886, -23036, -21186,
    -19336, -17486, -15636,
];
const C2: &[i16] = &[
    -1000, -22168, -926, -22062, -852, -22140, -778, -22450, -704, -22480, -630, -22278, -556,
    -22356, -482, -21738, -408, -21544, -334, -21630, -260, -21900, -186, -21954, -112, -21792,
    -38, -21846, 36, 21788, 110, 21958, 184, 21896, 258, 21618, 332, 21540, 406, 21742, 480, 22352,
    554, 22298, 628, 22476, 702, 22454, 776, 22136, 850, 22050, 924, 22164, 998,
];
const C3: &[i16] = &[
    -1000, -22278, -186, 21896, 628, -22168, -556, -21954, 258, 22476, -926, -22356, -112, 21618,
    702, -22062, -482, -21792, 332, 22454, -852, -21738, -38, 21540, 776, -22140, -408, -21846,
    406, 22136, -778, -21544, 36, 21742, 850, -22450, -334, 21788, 480, 22050, -704, -21630, 110,
    22352, 924, -22480, -260, 21958, 554, 22164, -630, -21900, 184, 22298, 998,
];
const C4: &[i16] = &[
    -1000, -22168, -926, 843, 22129, 769, 22447, 695, 22469, 628, 22298, 554, 22352, 480, -482,
    -21738, -408, -21544, -334, -21630, -260, -21900, -186, -21954, -112, -21792, -38, -21846, 36,
    21788, 110, 21958, 184, 21896, 258, 21618, 332, 21540, 406, 21742, 480, 22352, 554, 22298, 628,
    22476, 702, 22454, 776, 22136, 850, 22050, 924, 22164, 998,
];
const D1: &[u16] = &[
    63333, 64444, 19, 1130, 2241, 3352, 4463, 5574, 6685, 7796, 8907, 10018, 11129, 12240, 13351,
    14462, 15573, 16684, 17795, 18906, 20017, 21128, 22239, 23350, 24461, 25572, 26683, 27794,
    28905, 30016, 31127, 32238, 33349, 34460, 35571, 36682, 37793, 38904, 40015, 41126, 42237,
    43348, 44459, 45570, 46681, 47792, 48903, 50014, 51125, 52236, 53347, 54458, 55569, 56680,
];
const E1: &[bool] = &[
    false, false, true, true, false, false, false, true, true, true, false, false, false, true,
    true, true, false, true, false, false, true, false, false, true, false, false, true, false,
    false, true, false, false, true, false, false, true, false, false, true, false,
];
const E2: &[bool] = &[
    true, false, false, true, true, false, false, false, true, false, true, true, true, true,
    false, true, false, true, false, true, true,
];
const G_IN: &[i8] = &[
    0, 37, 74, 111, -108, -71, -34, 3, 40, 77, 114, -105, -68, -31, 6, 43, 80, 117, -102, -65, -28,
    9, 46, 83, 120, -99, -62, -25, 12, 49, 86, 123, -96, -59, -22, 15, 52, 89, 126, -93,
];
const G_SUM0: &[i64] = &[172, 64, -44, 104, -4, -112, 36, 184, 76, -32];
const G_SUM1_I8: &[i8] = &[-127, -11, 105, -35];
const G_MAX1: &[i8] = &[111, 117, 120, 126];
const G_MIN0: &[i8] = &[-28, -105, -96, -59, -108, -99, -62, -25, -102, -93];
const G_ANY1: &[bool] = &[true, true, true, true];
const G_ALL0: &[bool] = &[true, true, true, true, true, true, true, true, true, true];
const H_IN: &[i16] = &[
    0, 7919, 15838, 23757, 31676, -25941, -18022, -10103, -2184, 5735, 13654, 21573, 29492, -28125,
    -20206, -12287, -4368, 3551, 11470, 19389, 27308, -30309, -22390, -14471, -6552, 1367, 9286,
    17205, 25124, -32493,
];
const H_ARGMAX1: &[i64] = &[4, 5, 0, 2, 4];
const H_ARGMAX0: &[i64] = &[2, 3, 3, 0, 0, 1];
const H_WHERE: &[i8] = &[
    20, 19, -18, -17, 16, 15, 14, -13, -12, -11, 10, 9, 8, -7, -6, -5, 4, -3, 2, 1, 0, -1, -2, 3,
    -4, -5, 6, -7, -8, 9, -10, -11, 12, -13, -14, 15, -16, -17, 18, -19,
];
const H_MASK: &[i8] = &[
    -18, -17, -13, -12, -11, -7, -6, -5, -3, 0, 3, 6, 9, 12, 15, 18,
];
const H_NONZERO: &[i64] = &[2, 3, 7, 8, 9, 13, 14, 15, 17, 20, 23, 26, 29, 32, 35, 38];
const H_COMPRESS: &[i8] = &[-18, -12, -6, 0, 6, 12, 18];
const H_SETMASK: &[i8] = &[
    -20, -19, 0, 0, -16, -15, -14, 0, 0, 0, -10, -9, -8, 0, 0, 0, -4, 0, -2, -1, 0, 1, 2, 0, 4, 5,
    0, 7, 8, 0, 10, 11, 0, 13, 14, 0, 16, 17, 0, 19,
];
const S_IN: &[i8] = &[
    0, 53, 106, -97, -44, 9, 62, 115, -88, -35, 18, 71, 124, -79, -26, 27, 80, -123, -70, -17, 36,
    89, -114, -61, -8, 45, 98, -105, -52, 1, 54, 107, -96, -43, 10, 63, 116, -87, -34, 19, 72,
];
const S_SORT: &[i8] = &[
    -114, -87, -79, -52, -44, -17, 10, 18, 45, 53, 72, 80, 107, 115,
];
const S_ARGSORT16: &[i64] = &[
    26, 18, 10, 2, 19, 11, 3, 20, 12, 4, 21, 13, 5, 22, 14, 6, 23, 15, 7, 24, 16, 8, 0, 25, 17, 9,
    1,
];
const S_CUMSUM8: &[i8] = &[
    106, 9, -35, -26, 36, -105, 63, 28, 46, 117, -15, -94, -120, -93, -13, 120, 50, 33, 69, -98,
    44, -17, -25, 20, 118, 13, -39, -38, 16, 123, 27, -16, -6, 57, -83, 86, 52, 71, -113,
];
const S_CUMSUM_B: &[i64] = &[
    0, 1, 2, 2, 2, 2, 3, 4, 5, 5, 5, 5, 6, 7, 8, 8, 9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12,
    13, 13, 13, 14, 14, 14, 15, 15, 15, 16, 16,
];
const J_ADDAT: &[i16] = &[1000, 32000, 0, 11, 0, 0, -32768];
const J_MAXAT: &[i8] = &[-3, -3, 9, -3, -3, -3, -3, -3, 100];
const J_ADDAT_U8: &[u8] = &[51, 1, 0, 0, 0, 1];
const K_CAT: &[bool] = &[false, true, true, false, true, false, true, true, true];
const H_ARGMAX: i64 = 1;

/// Elementwise int8/uint8/int16/uint16/bool on views: odd offsets, steps, negative steps,
/// in-place through views (a[1::3] = a[1::3] * 7; a[2:37] += 100; a[::-3] -= 1; ...).
#[test]
#[allow(clippy::reversed_empty_ranges)]
fn packed_elementwise_on_views_match_numpy() {
    let mut t = common::Tally::new("packed_views");
    for dev in common::backends() {
        let r = (|| -> R {
            let a0: Vec<i8> = (-20..20).collect();
            let a = Array::from_slice_on(&dev, &a0, &[40])?;
            let v = a.slice(&cupy::s![1..;3])?;
            eq("a[1::3] + 5", (&v + 5)?.to_vec::<i8>()?, A1)?;
            v.copy_from(&(&v * 7)?)?;
            eq("a[1::3] = a[1::3] * 7", a.to_vec::<i8>()?, A2)?;
            let w = a.slice(&cupy::s![2..37])?;
            add(&w, 100.into(), &w)?;
            eq("a[2:37] += 100", a.to_vec::<i8>()?, A3)?;
            let w = a.slice(&cupy::s![..;-3])?;
            cupy::apply_out(&cupy::ufuncs::subtract, &[(&w).into(), 1.into()], &w)?;
            eq("a[::-3] -= 1", a.to_vec::<i8>()?, A4)?;

            let u0: Vec<u8> = (250u32..279).map(|x| (x % 256) as u8).collect();
            let u = Array::from_slice_on(&dev, &u0, &[29])?;
            eq(
                "u[3:20:2] * 2",
                (&u.slice(&cupy::s![3..20;2])? * 2)?.to_vec::<u8>()?,
                B1,
            )?;
            let w = u.slice(&cupy::s![5..])?;
            cupy::apply_out(&cupy::ufuncs::floor_divide, &[(&w).into(), 3.into()], &w)?;
            eq("u[5:] //= 3", u.to_vec::<u8>()?, B2)?;

            let h0: Vec<i16> = (-1000..1000).step_by(37).map(|x| x as i16).collect();
            let h = Array::from_slice_on(&dev, &h0, &[h0.len()])?;
            eq(
                "h[1:] * 50",
                (&h.slice(&cupy::s![1..])? * 50)?.to_vec::<i16>()?,
                C1,
            )?;
            let w = h.slice(&cupy::s![1..;2])?;
            w.copy_from(&cupy::apply(
                &cupy::ufuncs::bitwise_xor,
                &[(&w).into(), 0x5555.into()],
                None,
            )?)?;
            eq("h[1::2] ^= 0x5555", h.to_vec::<i16>()?, C2)?;
            eq(
                "h.reshape(5, 11).T.copy()",
                h.reshape(&[5, 11])?.t().copy()?.to_vec::<i16>()?,
                C3,
            )?;

            // Strided inputs into a contiguous output view at offset 3 (owned words behind the
            // flag word): g[3:14] = (h[::-5] > 0) * -7 + h[50:39:-1].
            let g = h.copy()?;
            let pos = cupy::apply(
                &cupy::ufuncs::greater,
                &[(&h.slice(&cupy::s![..;-5])?).into(), 0.into()],
                None,
            )?;
            let prod = cupy::apply(
                &cupy::ufuncs::multiply,
                &[(&pos).into(), Scalar::Int16(-7).into()],
                None,
            )?;
            add(
                &prod,
                (&h.slice(&cupy::s![50..39;-1])?).into(),
                &g.slice(&cupy::s![3..14])?,
            )?;
            eq(
                "g[3:14] = (h[::-5] > 0) * -7 + h[50:39:-1]",
                g.to_vec::<i16>()?,
                C4,
            )?;
            let w0: Vec<u16> = (0u32..65535).step_by(1111).map(|x| x as u16).collect();
            let w = Array::from_slice_on(&dev, &w0, &[w0.len()])?;
            let n = w0.len() as isize;
            eq(
                "w[3:-2] + 60000",
                (&w.slice(&cupy::s![3..n - 2])? + 60000)?.to_vec::<u16>()?,
                D1,
            )?;

            let a = Array::from_slice_on(&dev, &a0, &[40])?;
            let m = cupy::apply(&cupy::ufuncs::equal, &[(&(&a % 3)?).into(), 0.into()], None)?;
            let mv = m.slice(&cupy::s![3..17;2])?;
            mv.copy_from(&cupy::apply(
                &cupy::ufuncs::logical_not,
                &[(&mv).into()],
                None,
            )?)?;
            eq("m[3:17:2] = ~m[3:17:2]", m.to_vec::<bool>()?, E1)?;
            let mm = m.reshape(&[8, 5])?.slice(&cupy::s![1.., ..;2])?;
            let x = cupy::apply(
                &cupy::ufuncs::logical_xor,
                &[(&mm).into(), true.into()],
                None,
            )?;
            eq("m.reshape(8, 5)[1:, ::2] ^ true", x.to_vec::<bool>()?, E2)?;
            Ok(())
        })();
        t.check(&dev, "packed views", r);
    }
    t.finish();
}

/// The packed dtypes' test values (x[1::2] is cast: an odd offset and a step).
fn packed_source(dev: &Device, s: &str) -> cupy::Result<Array> {
    match s {
        "bool" => Array::from_slice_on(
            dev,
            &[true, false, true, true, false, true, false, false, true],
            &[9],
        ),
        "int8" => Array::from_slice_on(dev, &[-128i8, -1, 0, 1, 127, -7, 5, 100, -100], &[9]),
        "uint8" => Array::from_slice_on(dev, &[0u8, 1, 127, 128, 255, 7, 200, 3, 9], &[9]),
        "int16" => Array::from_slice_on(
            dev,
            &[-32768i16, -1, 0, 1, 32767, -300, 1234, -20000, 5],
            &[9],
        ),
        _ => Array::from_slice_on(
            dev,
            &[0u16, 1, 32767, 32768, 65535, 300, 1234, 40000, 5],
            &[9],
        ),
    }
}

/// `x[1::2].astype(t).astype(float64)` (the real part for complex `t`), NumPy's values.
#[rustfmt::skip]
const CASTS_FROM: &[(&str, DType, &[f64])] = &[
    ("bool", DType::Bool, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Int8, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::UInt8, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Int16, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::UInt16, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Int32, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::UInt32, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Int64, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::UInt64, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Float16, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Float32, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Float64, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Complex64, &[0.0, 1.0, 1.0, 0.0]),
    ("bool", DType::Complex128, &[0.0, 1.0, 1.0, 0.0]),
    ("int8", DType::Bool, &[1.0, 1.0, 1.0, 1.0]),
    ("int8", DType::Int8, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::UInt8, &[255.0, 1.0, 249.0, 100.0]),
    ("int8", DType::Int16, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::UInt16, &[65535.0, 1.0, 65529.0, 100.0]),
    ("int8", DType::Int32, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::UInt32, &[4294967295.0, 1.0, 4294967289.0, 100.0]),
    ("int8", DType::Int64, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::UInt64, &[1.8446744073709552e+19, 1.0, 1.8446744073709552e+19, 100.0]),
    ("int8", DType::Float16, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::Float32, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::Float64, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::Complex64, &[-1.0, 1.0, -7.0, 100.0]),
    ("int8", DType::Complex128, &[-1.0, 1.0, -7.0, 100.0]),
    ("uint8", DType::Bool, &[1.0, 1.0, 1.0, 1.0]),
    ("uint8", DType::Int8, &[1.0, -128.0, 7.0, 3.0]),
    ("uint8", DType::UInt8, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Int16, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::UInt16, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Int32, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::UInt32, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Int64, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::UInt64, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Float16, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Float32, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Float64, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Complex64, &[1.0, 128.0, 7.0, 3.0]),
    ("uint8", DType::Complex128, &[1.0, 128.0, 7.0, 3.0]),
    ("int16", DType::Bool, &[1.0, 1.0, 1.0, 1.0]),
    ("int16", DType::Int8, &[-1.0, 1.0, -44.0, -32.0]),
    ("int16", DType::UInt8, &[255.0, 1.0, 212.0, 224.0]),
    ("int16", DType::Int16, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::UInt16, &[65535.0, 1.0, 65236.0, 45536.0]),
    ("int16", DType::Int32, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::UInt32, &[4294967295.0, 1.0, 4294966996.0, 4294947296.0]),
    ("int16", DType::Int64, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::UInt64, &[1.8446744073709552e+19, 1.0, 1.8446744073709552e+19, 1.8446744073709531e+19]),
    ("int16", DType::Float16, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::Float32, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::Float64, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::Complex64, &[-1.0, 1.0, -300.0, -20000.0]),
    ("int16", DType::Complex128, &[-1.0, 1.0, -300.0, -20000.0]),
    ("uint16", DType::Bool, &[1.0, 1.0, 1.0, 1.0]),
    ("uint16", DType::Int8, &[1.0, 0.0, 44.0, 64.0]),
    ("uint16", DType::UInt8, &[1.0, 0.0, 44.0, 64.0]),
    ("uint16", DType::Int16, &[1.0, -32768.0, 300.0, -25536.0]),
    ("uint16", DType::UInt16, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Int32, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::UInt32, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Int64, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::UInt64, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Float16, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Float32, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Float64, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Complex64, &[1.0, 32768.0, 300.0, 40000.0]),
    ("uint16", DType::Complex128, &[1.0, 32768.0, 300.0, 40000.0]),
];

/// `src.astype(t)[1::2].astype(s).astype(int64)` with `src` = [0.0, 3.0, 1.0, 120.0, 2.0, 7.0, 0.0, 65.0, 5.0, 1.0, 9.0, 0.0] (float64), or
/// (`true`) [-1, -129, 300, 65537, -40000, 7, 128, 255, 0, -32769] (int64), NumPy's values.
#[rustfmt::skip]
const CASTS_TO: &[(bool, DType, DType, &[i64])] = &[
    (false, DType::Bool, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Bool, DType::Int8, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Bool, DType::UInt8, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Bool, DType::Int16, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Bool, DType::UInt16, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Int8, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Int8, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int8, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int8, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int8, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt8, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::UInt8, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt8, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt8, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt8, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int16, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Int16, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int16, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int16, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int16, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt16, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::UInt16, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt16, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt16, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt16, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int32, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Int32, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int32, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int32, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int32, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt32, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::UInt32, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt32, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt32, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt32, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int64, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Int64, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int64, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int64, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Int64, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt64, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::UInt64, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt64, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt64, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::UInt64, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float16, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Float16, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float16, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float16, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float16, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float32, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Float32, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float32, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float32, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float32, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float64, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Float64, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float64, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float64, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Float64, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex64, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Complex64, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex64, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex64, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex64, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex128, DType::Bool, &[1, 1, 1, 1, 1, 0]),
    (false, DType::Complex128, DType::Int8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex128, DType::UInt8, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex128, DType::Int16, &[3, 120, 7, 65, 1, 0]),
    (false, DType::Complex128, DType::UInt16, &[3, 120, 7, 65, 1, 0]),
    (true, DType::Int32, DType::Bool, &[1, 1, 1, 1, 1]),
    (true, DType::Int32, DType::Int8, &[127, 1, 7, -1, -1]),
    (true, DType::Int32, DType::UInt8, &[127, 1, 7, 255, 255]),
    (true, DType::Int32, DType::Int16, &[-129, 1, 7, 255, 32767]),
    (true, DType::Int32, DType::UInt16, &[65407, 1, 7, 255, 32767]),
    (true, DType::Int64, DType::Bool, &[1, 1, 1, 1, 1]),
    (true, DType::Int64, DType::Int8, &[127, 1, 7, -1, -1]),
    (true, DType::Int64, DType::UInt8, &[127, 1, 7, 255, 255]),
    (true, DType::Int64, DType::Int16, &[-129, 1, 7, 255, 32767]),
    (true, DType::Int64, DType::UInt16, &[65407, 1, 7, 255, 32767]),
    (true, DType::UInt32, DType::Bool, &[1, 1, 1, 1, 1]),
    (true, DType::UInt32, DType::Int8, &[127, 1, 7, -1, -1]),
    (true, DType::UInt32, DType::UInt8, &[127, 1, 7, 255, 255]),
    (true, DType::UInt32, DType::Int16, &[-129, 1, 7, 255, 32767]),
    (true, DType::UInt32, DType::UInt16, &[65407, 1, 7, 255, 32767]),
];

/// Casts from every packed dtype to every dtype and back, through views with odd offsets.
#[test]
fn packed_casts_match_numpy() {
    let mut t = common::Tally::new("packed_casts");
    for dev in common::backends() {
        let r = (|| -> R {
            for &(s, to, want) in CASTS_FROM {
                if dev.backend().supports_dtype(to).is_err() {
                    continue;
                }
                let x = packed_source(&dev, s)?.slice(&cupy::s![1..;2])?;
                let mut y = x.astype(to)?;
                if to.is_complex() {
                    y = cupy::apply(&cupy::ufuncs::real, &[(&y).into()], None)?;
                }
                eq(
                    &format!("{s}[1::2].astype({to})"),
                    y.astype(DType::Float64)?.to_vec::<f64>()?,
                    want,
                )?;
            }
            let src_f = Array::from_slice_on(
                &dev,
                &[
                    0.0, 3.0, 1.0, 120.0, 2.0, 7.0, 0.0, 65.0, 5.0, 1.0, 9.0, 0.0,
                ],
                &[12],
            )?;
            let src_i = Array::from_slice_on(
                &dev,
                &[-1i64, -129, 300, 65537, -40000, 7, 128, 255, 0, -32769],
                &[10],
            )?;
            for &(ints, from, to, want) in CASTS_TO {
                if dev.backend().supports_dtype(from).is_err() {
                    continue;
                }
                let src = if ints { &src_i } else { &src_f };
                let x = src.astype(from)?.slice(&cupy::s![1..;2])?;
                let y = x.astype(to)?.astype(DType::Int64)?;
                eq(
                    &format!("{from}[1::2].astype({to})"),
                    y.to_vec::<i64>()?,
                    want,
                )?;
            }
            Ok(())
        })();
        t.check(&dev, "packed casts", r);
    }
    t.finish();
}

/// Reductions over axes of int8 (sum, sum with dtype=int8, max, min, any, all), argmax of
/// int16 (along axes, and of a strided view), masks (where, a[m], nonzero, compress,
/// a[m] = 0), sort/argsort/cumsum of packed dtypes, add.at/maximum.at with duplicates, and
/// concatenate of bool views.
#[test]
fn packed_reductions_masks_sort_scatter_match_numpy() {
    let mut t = common::Tally::new("packed_ops");
    for dev in common::backends() {
        let r = (|| -> R {
            let g = Array::from_slice_on(&dev, G_IN, &[4, 10])?;
            eq("r.sum(0)", g.sum_axis(0)?.to_vec::<i64>()?, G_SUM0)?;
            let s = g.sum_with(Reduce {
                axis: 1.into(),
                dtype: Some(DType::Int8),
                ..Default::default()
            })?;
            eq("r.sum(1, dtype=int8)", s.to_vec::<i8>()?, G_SUM1_I8)?;
            eq("r.max(1)", g.max_axis(1)?.to_vec::<i8>()?, G_MAX1)?;
            eq("r.min(0)", g.min_axis(0)?.to_vec::<i8>()?, G_MIN0)?;
            let gt = cupy::apply(&cupy::ufuncs::greater, &[(&g).into(), 100.into()], None)?;
            eq(
                "(r > 100).any(1)",
                gt.any_axis(1)?.to_vec::<bool>()?,
                G_ANY1,
            )?;
            let gt = cupy::apply(&cupy::ufuncs::greater, &[(&g).into(), (-120).into()], None)?;
            eq(
                "(r > -120).all(0)",
                gt.all_axis(0)?.to_vec::<bool>()?,
                G_ALL0,
            )?;

            let h = Array::from_slice_on(&dev, H_IN, &[5, 6])?;
            eq(
                "h16.argmax(1)",
                h.argmax_axis(1)?.to_vec::<i64>()?,
                H_ARGMAX1,
            )?;
            eq(
                "h16.argmax(0)",
                h.argmax_axis(0)?.to_vec::<i64>()?,
                H_ARGMAX0,
            )?;
            eq(
                "h16[:, 1::2].argmax()",
                h.slice(&cupy::s![.., 1..;2])?.argmax()?.to_vec::<i64>()?,
                &[H_ARGMAX],
            )?;

            let a0: Vec<i8> = (-20..20).collect();
            let a = Array::from_slice_on(&dev, &a0, &[40])?;
            let m = Array::from_slice_on(&dev, E1, &[40])?;
            eq(
                "where(m, a0, -a0)",
                cupy::where_(&m, &a, &(-&a)?)?.to_vec::<i8>()?,
                H_WHERE,
            )?;
            eq("a0[m]", a.get(&cupy::s![&m])?.to_vec::<i8>()?, H_MASK)?;
            eq("nonzero(m)", m.nonzero()?[0].to_vec::<i64>()?, H_NONZERO)?;
            let c = cupy::compress(&m.slice(&cupy::s![..;2])?, &a.slice(&cupy::s![..;2])?, None)?;
            eq("compress(m[::2], a0[::2])", c.to_vec::<i8>()?, H_COMPRESS)?;
            a.set(&cupy::s![&m], 0)?;
            eq("a0[m] = 0", a.to_vec::<i8>()?, H_SETMASK)?;

            let s8 = Array::from_slice_on(&dev, S_IN, &[41])?;
            eq(
                "sort(s8[1::3])",
                cupy::sort(&s8.slice(&cupy::s![1..;3])?)?.to_vec::<i8>()?,
                S_SORT,
            )?;
            let s16 = h.ravel()?.slice(&cupy::s![3..])?;
            eq(
                "argsort(h16.ravel()[3:])",
                cupy::argsort(&s16)?.to_vec::<i64>()?,
                S_ARGSORT16,
            )?;
            let cs = s8.slice(&cupy::s![2..])?.cumsum_with(cupy::Scan {
                axis: None,
                dtype: Some(DType::Int8),
            })?;
            eq("cumsum(s8[2:], dtype=int8)", cs.to_vec::<i8>()?, S_CUMSUM8)?;
            eq(
                "cumsum(m[1:])",
                m.slice(&cupy::s![1..])?.cumsum()?.to_vec::<i64>()?,
                S_CUMSUM_B,
            )?;

            let tz = Array::from_slice_on(&dev, &[0i16; 7], &[7])?;
            let idx = Array::from_slice_on(&dev, &[0i64, 1, 1, 3, 3, 3, 6, 6], &[8])?;
            let val =
                Array::from_slice_on(&dev, &[1000i16, 2000, 30000, -5, 7, 9, 32767, 1], &[8])?;
            cupy::add_at(&tz, &idx, &val)?;
            eq("add.at(int16)", tz.to_vec::<i16>()?, J_ADDAT)?;
            let t8 = Array::from_slice_on(&dev, &[-3i8; 9], &[9])?;
            let idx = Array::from_slice_on(&dev, &[1i64, 2, 2, 5, 8, 8, 8], &[7])?;
            let val = Array::from_slice_on(&dev, &[-7i8, 4, 9, -128, 1, 100, 50], &[7])?;
            cupy::maximum_at(&t8, &idx, &val)?;
            eq("maximum.at(int8)", t8.to_vec::<i8>()?, J_MAXAT)?;
            let tu = Array::from_slice_on(&dev, &[0u8; 6], &[6])?;
            let idx = Array::from_slice_on(&dev, &[0i64, 0, 0, 1, 5, 5], &[6])?;
            let val = Array::from_slice_on(&dev, &[200u8, 100, 7, 1, 255, 2], &[6])?;
            tu.scatter_add(&idx, &val, None)?;
            eq("scatter_add(uint8)", tu.to_vec::<u8>()?, J_ADDAT_U8)?;

            let ones = Array::from_slice_on(&dev, &[true; 3], &[3])?;
            let k = cupy::concatenate(
                &[
                    &m.slice(&cupy::s![1..4])?,
                    &m.slice(&cupy::s![5..12;3])?,
                    &ones,
                ],
                0,
            )?;
            eq("concatenate(bool views)", k.to_vec::<bool>()?, K_CAT)?;
            Ok(())
        })();
        t.check(&dev, "packed ops", r);
    }
    t.finish();
}

/// NumPy 2.2.6: `a = np.arange(-10, 10, 0.7).astype(float16)`; `a[1::3] * 3.3`; `a[2:27] += 0.1`;
/// `a[::-4] = -a[::-4]`; special values and their float32 bits; float32 -> float16 stores into
/// `out[1::2]` (bits); `r.sum(1)`, `r.max(0)`; sort with NaN; cumsum; matmul; add.at. bfloat16
/// (no NumPy dtype): float32 arithmetic rounded to nearest-even on the top 16 bits.
#[rustfmt::skip]
mod f16_want {
    pub const F_IN: &[f64] = &[-10.0, -9.296875, -8.6015625, -7.8984375, -7.19921875, -6.5, -5.80078125, -5.1015625, -4.3984375, -3.69921875, -3.0, -2.30078125, -1.599609375, -0.89990234375, -0.199951171875, 0.5, 1.2001953125, 1.900390625, 2.599609375, 3.30078125, 4.0, 4.69921875, 5.3984375, 6.1015625, 6.80078125, 7.5, 8.203125, 8.8984375, 9.6015625];
    pub const F1: &[f64] = &[-30.6875, -23.765625, -16.84375, -9.90625, -2.970703125, 3.9609375, 10.8984375, 17.8125, 24.75, 31.6875];
    pub const F2: &[f64] = &[-10.0, -9.296875, -8.5, -7.796875, -7.09765625, -6.3984375, -5.69921875, -5.0, -4.296875, -3.599609375, -2.900390625, -2.201171875, -1.5, -0.7998046875, -0.0999755859375, 0.60009765625, 1.2998046875, 2.0, 2.69921875, 3.400390625, 4.1015625, 4.80078125, 5.5, 6.203125, 6.90234375, 7.6015625, 8.3046875, 8.8984375, 9.6015625];
    pub const F3: &[f64] = &[10.0, -9.296875, -8.5, -7.796875, 7.09765625, -6.3984375, -5.69921875, -5.0, 4.296875, -3.599609375, -2.900390625, -2.201171875, 1.5, -0.7998046875, -0.0999755859375, 0.60009765625, -1.2998046875, 2.0, 2.69921875, 3.400390625, -4.1015625, 4.80078125, 5.5, 6.203125, -6.90234375, 7.6015625, 8.3046875, 8.8984375, -9.6015625];
    pub const SP_BITS: &[u16] = &[15360, 31743, 1, 32768, 31744, 11878, 64512, 168, 32256, 16896];
    pub const SP_VIEW_F32_BITS: &[u32] = &[1199562752, 2147483648, 1036828672, 925368320, 1077936128];
    pub const ST_SRC: &[f32] = &[0.1, 1e-6, 70000.0, -65519.0, 65520.0, 3e-8, -2.5, 1.000_976_6, 1.000_488_3];
    pub const ST_BITS: &[u16] = &[0, 11878, 0, 31744, 0, 31744, 0, 49408, 0];
    pub const R_SUM1: &[f64] = &[10.0, 1000.0, 8.875];
    pub const R_MAX0: &[f64] = &[100.0, 200.0, 300.0, 400.0];
    pub const S_SORT: &[f64] = &[-8.0, -1.0, -0.5, 0.0, 1.0, 2.5, 7.0, f64::NAN, f64::NAN];
    pub const S_CUMSUM: &[f64] = &[1.0, 3.5, 3.75, 103.75, 106.75];
    pub const MM: &[f64] = &[1.0, 27.0, -7.0, 25.0, 8.0, 4.5];
    pub const ADDAT: &[f64] = &[0.75, 1000.0, 0.0, 0.0, 6.0];
    pub const BF_IN: &[f64] = &[1.0, 3.140625, -2.5, 1000.0, 0.00099945068359375, 7.0, -0.0078125, 12352.0, 2.0];
    pub const BF1: &[f64] = &[6.28125, 2000.0, 14.0, 24704.0];
    pub const BF2: &[f64] = &[4.125, -1.5, 1000.0, 1.0, 8.0, 0.9921875, 12352.0, 3.0];
}

/// Values equal bit for bit in float64 (NaN matches any NaN; zeros keep their sign).
fn eq_f(what: &str, got: Vec<f64>, want: &[f64]) -> R {
    let same = got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            (g.is_nan() && w.is_nan()) || (g == w && g.is_sign_negative() == w.is_sign_negative())
        });
    if !same {
        return Err(format!("{what}: got {got:?}, NumPy {want:?}").into());
    }
    Ok(())
}

fn f64s(a: &Array) -> cupy::Result<Vec<f64>> {
    a.astype(DType::Float64)?.to_vec::<f64>()
}

/// float16 and bfloat16 (packed two to a word on wgpu): views, in-place ops on views,
/// special values, rounding stores into strided views, reductions, sort, cumsum, matmul, add.at.
#[test]
fn packed_float16_bfloat16_match_numpy() {
    use cupy::half::{bf16, f16};
    use f16_want::*;
    let mut t = common::Tally::new("packed_half");
    for dev in common::backends() {
        let r = (|| -> R {
            let h = |v: &[f64]| -> Vec<f16> { v.iter().map(|&x| f16::from_f64(x)).collect() };
            let a = Array::from_slice_on(&dev, &h(F_IN), &[F_IN.len()])?;
            eq_f(
                "a[1::3] * 3.3",
                f64s(&(&a.slice(&cupy::s![1..;3])? * 3.3)?)?,
                F1,
            )?;
            let w = a.slice(&cupy::s![2..27])?;
            add(&w, 0.1.into(), &w)?;
            eq_f("a[2:27] += 0.1", f64s(&a)?, F2)?;
            let w = a.slice(&cupy::s![..;-4])?;
            w.copy_from(&(-&w)?)?;
            eq_f("a[::-4] = -a[::-4]", f64s(&a)?, F3)?;

            let sp: Vec<f16> = SP_BITS.iter().map(|&b| f16::from_bits(b)).collect();
            let s = Array::from_slice_on(&dev, &sp, &[sp.len()])?;
            let bits: Vec<u32> = s
                .slice(&cupy::s![1..;2])?
                .astype(DType::Float32)?
                .to_vec::<f32>()?
                .iter()
                .map(|x| x.to_bits())
                .collect();
            eq("special[1::2].astype(float32) bits", bits, SP_VIEW_F32_BITS)?;
            let back: Vec<u16> = s
                .copy()?
                .to_vec::<f16>()?
                .iter()
                .map(|x| x.to_bits())
                .collect();
            eq("special values round trip", back, SP_BITS)?;

            let src = Array::from_slice_on(&dev, ST_SRC, &[ST_SRC.len()])?;
            let out = Array::from_slice_on(&dev, &[f16::ZERO; 9], &[9])?;
            out.slice(&cupy::s![1..;2])?
                .copy_from(&src.slice(&cupy::s![..8;2])?)?;
            let bits: Vec<u16> = out.to_vec::<f16>()?.iter().map(|x| x.to_bits()).collect();
            eq("out[1::2] = float32 src[::2][:4]", bits, ST_BITS)?;

            let rv = h(&[
                1.0, 2.0, 3.0, 4.0, 100.0, 200.0, 300.0, 400.0, 0.5, 0.25, 0.125, 8.0,
            ]);
            let r = Array::from_slice_on(&dev, &rv, &[3, 4])?;
            eq_f("r.sum(1)", f64s(&r.sum_axis(1)?)?, R_SUM1)?;
            eq_f("r.max(0)", f64s(&r.max_axis(0)?)?, R_MAX0)?;
            let sv = h(&[
                3.0,
                f64::NAN,
                -1.0,
                2.5,
                -0.5,
                7.0,
                f64::NAN,
                0.0,
                -8.0,
                1.0,
            ]);
            let s = Array::from_slice_on(&dev, &sv, &[10])?;
            eq_f(
                "sort(s[1:])",
                f64s(&cupy::sort(&s.slice(&cupy::s![1..])?)?)?,
                S_SORT,
            )?;
            let c = Array::from_slice_on(&dev, &h(&[1.0, 2.5, 0.25, 100.0, 3.0]), &[5])?;
            eq_f("cumsum", f64s(&c.cumsum()?)?, S_CUMSUM)?;
            let ma = h(&[1.0, 2.0, 3.0, 4.0, 0.0, -1.0, 2.0, 5.0, 8.0, 0.5, 0.0, 1.0]);
            let mb = h(&[1.0, 0.0, 2.0, 1.0, 0.0, 3.0, -1.0, 4.0]);
            let ma = Array::from_slice_on(&dev, &ma, &[3, 4])?;
            let mb = Array::from_slice_on(&dev, &mb, &[4, 2])?;
            eq_f("A @ B", f64s(&ma.matmul(&mb)?)?, MM)?;
            let tz = Array::from_slice_on(&dev, &[f16::ZERO; 5], &[5])?;
            let idx = Array::from_slice_on(&dev, &[0i64, 0, 1, 4, 4, 4], &[6])?;
            let val = Array::from_slice_on(&dev, &h(&[0.5, 0.25, 1000.0, 1.0, 2.0, 3.0]), &[6])?;
            cupy::add_at(&tz, &idx, &val)?;
            eq_f("add.at(float16)", f64s(&tz)?, ADDAT)?;

            let bv: Vec<bf16> = BF_IN.iter().map(|&x| bf16::from_f64(x)).collect();
            let b = Array::from_slice_on(&dev, &bv, &[bv.len()])?;
            eq_f(
                "b[1::2] * 2",
                f64s(&(&b.slice(&cupy::s![1..;2])? * 2.0)?)?,
                BF1,
            )?;
            eq_f("b[1:] + 1", f64s(&(&b.slice(&cupy::s![1..])? + 1.0)?)?, BF2)?;
            Ok(())
        })();
        t.check(&dev, "packed float16/bfloat16", r);
    }
    t.finish();
}
