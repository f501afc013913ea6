"""The constants of the cpu backend's vector math (backends/cpu/src/vmath/), recomputed from
their definitions with mpmath at 300 bits, printed with their bit patterns:

    python3 bench/vmath_constants.py          # print
    python3 bench/vmath_constants.py --check  # also find each bit pattern in the Rust sources

Splits (Cody & Waite): a constant c = hi + lo where hi keeps few enough significant bits that
n * hi is exact for the multiples n the reduction produces. Most polynomials are Taylor series
(1/k! for exp, 2/(2k+1) for 2 atanh s in log, (-1)^k/(2k+1)! and (-1)^k/(2k)! for sin and cos,
(-1)^(k+1)/k for log1p), written in the sources as fractions; the rest (tanh near 0, the
portable float32 pow's log) are Chebyshev interpolants computed here with mpmath.chebyfit."""
import math
import os
import struct
import sys
from fractions import Fraction

from mpmath import mp, mpf, floor, log, nint, pi, sqrt

mp.prec = 300


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def h32(v):
    return "0x%08x" % struct.unpack("I", struct.pack("f", v))[0]


def h64(v):
    return "0x%016x" % struct.unpack("Q", struct.pack("d", float(v)))[0]


def rounded_bits(v, bits):
    """v rounded to `bits` significant bits."""
    e = int(floor(mp.log(abs(v), 2)))
    s = mpf(2) ** (bits - 1 - e)
    return nint(v * s) / s


rows = []  # (name, value, hex)


def short32(v):
    """The shortest decimal that rounds to float32 v (how the Rust sources write it)."""
    for digits in range(1, 12):
        text = f"{v:.{digits}g}"
        if f32(float(text)) == v:
            return text
    return repr(v)


def add32(name, v):
    rows.append((name, short32(v), h32(v)))


def add64(name, v):
    rows.append((name, repr(float(v)), h64(v)))


ln2 = log(2)
hi = f32(rounded_bits(ln2, 16))
add32("f32 LN2_HI (16 bits)", hi)
add32("f32 LN2_LO = ln2 - LN2_HI", f32(ln2 - mpf(hi)))
hi = float(rounded_bits(ln2, 42))
add64("f64 LN2_HI (42 bits)", hi)
add64("f64 LN2_LO = ln2 - LN2_HI", float(ln2 - mpf(hi)))
add32("f32 sqrt(1/2)", f32(sqrt(mpf(1) / 2)))
add64("f64 sqrt(1/2)", float(sqrt(mpf(1) / 2)))
p1 = float(rounded_bits(pi / 2, 33))
p2 = float(rounded_bits(pi / 2 - mpf(p1), 33))
add64("PIO2_1 (33 bits)", p1)
add64("PIO2_2 (next 33 bits)", p2)
add64("PIO2_3 = pi/2 - PIO2_1 - PIO2_2", float(pi / 2 - mpf(p1) - mpf(p2)))
add64("PIO2_1T = pi/2 - PIO2_1", float(pi / 2 - mpf(p1)))
add64("2/3 hi", float(mpf(2) / 3))
add64("2/3 lo", float(mpf(2) / 3 - mpf(float(mpf(2) / 3))))


# tanh: x + x^3 g(x^2) for |x| < 0.55, g(z) = (tanh(sqrt z) - sqrt z) / z^(3/2) on [0, 0.3025],
# Chebyshev interpolants of degree 10 (float64) and 4 (float32), coefficients from degree 0 up.
def tanh_g(z):
    if z < mpf(10) ** -40:
        return mpf(-1) / 3 + 2 * z / 15
    x = sqrt(z)
    return (mp.tanh(x) - x) / x ** 3


for n, tag, conv in ((11, "f64", float), (5, "f32", f32)):
    coeffs, err = mp.chebyfit(tanh_g, [0, mpf("0.3025")], n, error=True)
    for k, c in enumerate(coeffs[::-1]):
        if tag == "f64":
            add64(f"tanh {tag} TANH_C[{k}]", conv(c))
        else:
            add32(f"tanh {tag} TANH_C[{k}]", conv(c))
    print(f"(tanh {tag} chebyfit max error {float(err):.3e})")

# pow float32 (portable): ln(1 + f)/f on [sqrt(1/2) - 1, sqrt(2) - 1], Chebyshev interpolant
# of degree 13 (mpmath.chebyfit), coefficients from degree 0 up.
def log1p_over(f):
    return 1 - f / 2 if abs(f) < mpf(10) ** -40 else mp.log1p(f) / f


coeffs, err = mp.chebyfit(log1p_over, [sqrt(mpf(1) / 2) - 1, sqrt(mpf(2)) - 1], 14, error=True)
for k, c in enumerate(coeffs[::-1]):
    add64(f"pow f32 LOG1P_C[{k}]", float(c))
print(f"(chebyfit max error {float(err):.3e})")

# pow float32 (AVX-512): 16 buckets of z in [OFF, 2 OFF), OFF = 0x3f330000, 2^19 ulps each;
# 1/c at the bucket's midpoint (c = 1 for the bucket of 1), -ln of that rounded 1/c; 2^(j/16).
OFF = 0x3f330000
for i in range(16):
    lo = struct.unpack("f", struct.pack("I", OFF + i * (1 << 19)))[0]
    hi = struct.unpack("f", struct.pack("I", OFF + (i + 1) * (1 << 19)))[0]
    invc = 1.0 if lo <= 1.0 < hi else float(2 / (mpf(lo) + mpf(hi)))
    add64(f"pow avx512 invc[{i}]", invc)
    if invc != 1.0:
        add64(f"pow avx512 logc[{i}]", float(-log(mpf(invc))))
for j in range(1, 16):
    if j != 8:  # 2^(1/2) is written std::f64::consts::SQRT_2
        add64(f"pow avx512 2^({j}/16)", float(mpf(2) ** (mpf(j) / 16)))

for name, value, hx in rows:
    print(f"{name:34} {value:>26} {hx}")

if "--check" in sys.argv:
    root = os.path.join(os.path.dirname(__file__), "..", "backends", "cpu", "src", "vmath")
    text = "".join(open(os.path.join(root, f)).read() for f in os.listdir(root) if f.endswith(".rs"))
    flat = text.replace("_", "")
    missing = [(n, v, h) for n, v, h in rows
               if n != "2/3 hi"  # written `2.0 / 3.0`
               and h[2:].lstrip("0") not in flat and v.lstrip("-").replace("e-0", "e-") not in flat]
    for n, v, h in missing:
        print("not found in the sources:", n, v, h)
    sys.exit(1 if missing else 0)
