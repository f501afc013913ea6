"""scipy.signal goldens: convolve2d modes, boundaries and dtypes, on tests/data/camera.png too."""

from .common import *  # noqa: F401,F403


def load_camera():
    """Decodes tests/data/camera.png (8-bit greyscale, non-interlaced) with zlib alone."""
    import struct
    import zlib
    d = open(os.path.join(HERE, "..", "data", "camera.png"), "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat = 8, b""
    while i < len(d):
        (n,) = struct.unpack(">I", d[i:i + 4])
        t = d[i + 4:i + 8]
        if t == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", d[i + 8:i + 21])
            assert (depth, color, interlace) == (8, 0, 0)
        elif t == b"IDAT":
            idat += d[i + 8:i + 8 + n]
        i += 12 + n
    raw = zlib.decompress(idat)
    img = np.zeros((h, w), np.uint8)
    prev = np.zeros(w, np.int32)
    for y in range(h):
        f = raw[y * (w + 1)]
        line = np.frombuffer(raw, np.uint8, w, y * (w + 1) + 1).astype(np.int32)
        out = np.zeros(w, np.int32)
        for x in range(w):
            a = out[x - 1] if x > 0 else 0
            b = prev[x]
            c = prev[x - 1] if x > 0 else 0
            if f == 0:
                pr = 0
            elif f == 1:
                pr = a
            elif f == 2:
                pr = b
            elif f == 3:
                pr = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[x] = (line[x] + pr) & 0xFF
        img[y] = out
        prev = out
    return img


def gen_signal():
    g = Group("signal")
    rng = np.random.default_rng(13)

    def add(cid, a_base, b_base, mode, a_steps=(), b_steps=()):
        ia, a = operand(g, a_base, a_steps)
        ib, b = operand(g, b_base, b_steps)

        def extra(r):
            if r.dtype.kind != "f":
                return {}
            s = scipy.signal.convolve2d(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)), mode)
            return {"scale_max": float(np.max(s, initial=0.0)), "n": int(min(a.size, b.size))}

        record(g, cid, "convolve2d", [ia, ib], lambda: scipy.signal.convolve2d(a, b, mode), {"mode": mode}, extra)

    for dt in ["float32", "float64"]:
        a = rng.uniform(-1, 1, (6, 7)).astype(dt)
        for kshape in [(3, 3), (2, 4), (4, 4), (1, 1), (5, 2)]:
            k = rng.uniform(-1, 1, kshape).astype(dt)
            for mode in ["full", "same", "valid"]:
                add(f"convolve2d/{dt}/6x7*{kshape[0]}x{kshape[1]}/{mode}", a, k, mode)
        small = rng.uniform(-1, 1, (3, 2)).astype(dt)
        for mode in ["full", "same", "valid"]:
            add(f"convolve2d/{dt}/swap_3x2*6x7/{mode}", small, a, mode)
        add(f"convolve2d/{dt}/views/same", rng.uniform(-1, 1, (7, 12)).astype(dt), rng.uniform(-1, 1, (3, 3)).astype(dt), "same",
            [T(), sl([None, None, -1], [None, None, 2])], [sl([None, None, -1])])
    a = rng.integers(-5, 6, (5, 6)).astype(np.int32)
    k = rng.integers(-2, 3, (3, 2)).astype(np.int32)
    for mode in ["full", "same", "valid"]:
        add(f"convolve2d/int32/5x6*3x2/{mode}", a, k, mode)
    add("convolve2d/mixed/f32*f64/same", rng.uniform(-1, 1, (5, 5)).astype(np.float32), rng.uniform(-1, 1, (3, 3)), "same")
    add("convolve2d/bad_valid/3x5*5x3", rng.uniform(-1, 1, (3, 5)), rng.uniform(-1, 1, (5, 3)), "valid")

    cam = load_camera()
    crop = cam[200:264, 200:264]
    x = np.arange(-2, 3)
    gk = np.exp(-(x[:, None] ** 2 + x[None, :] ** 2) / (2 * 1.2 ** 2))
    gk /= gk.sum()
    for dt in ["float32", "float64"]:
        img = (crop.astype(np.float64) / 255.0).astype(dt)
        for mode in ["same", "full", "valid"]:
            add(f"convolve2d/camera64/{dt}/gauss5/{mode}", img, gk.astype(dt), mode)
    g.write()
