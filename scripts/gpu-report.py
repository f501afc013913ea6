"""Summaries printed by the GPU scripts (scripts/gpu-lean.sh, scripts/gpu-sort-profile.sh), copied into .gpu/:
  python3 .gpu/gpu-report.py table OUT_DIR   the bench's cuda figures beside the peers' (bench_cuda.jsonl, peers.jsonl)
  python3 .gpu/gpu-report.py ncu FILE.csv    ncu's per-kernel gpu__time_duration: count, median, min, max (us)"""
import collections, csv, json, os, statistics, sys


def table(out):
    rows = {}
    for f, lib in [("bench_cuda.jsonl", "cuda"), ("peers.jsonl", None)]:
        try:
            for line in open(os.path.join(out, f)):
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if "case" in r:
                    rows.setdefault(r["case"], {})[lib or r.get("lib", "?")] = r.get("error") or r.get("ms", "?")
        except FileNotFoundError:
            pass
    for k in sorted(rows):
        cells = ("%s=%s" % (a, ("%.4g" % b) if isinstance(b, (int, float)) else str(b)[:80]) for a, b in sorted(rows[k].items()))
        print("%-34s " % k + " ".join(cells))


def ncu(path):
    d, order = collections.defaultdict(list), []
    units = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6}
    for r in csv.DictReader([line for line in open(path) if line.startswith('"')]):
        k = r.get("Kernel Name", "?")[:70]
        if k not in d:
            order.append(k)
        try:
            d[k].append(float(r["Metric Value"].replace(",", "")) * units.get(r.get("Metric Unit", ""), 1e-3))
        except (KeyError, ValueError):
            pass
    for k in order:
        v = d[k] or [-1.0]
        print("%-70s n=%3d median %.1f us  min %.1f max %.1f" % (k, len(d[k]), statistics.median(v), min(v), max(v)))


if __name__ == "__main__":
    {"table": table, "ncu": ncu}[sys.argv[1]](sys.argv[2])
