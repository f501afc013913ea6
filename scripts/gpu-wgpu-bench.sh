#!/usr/bin/env bash
# wgpu against cuda on the H200, case by case (copy into .gpu/ after staging, carry [".gpu"]):
#   bash .gpu/gpu-wgpu-bench.sh
# Each case runs on cuda, then on wgpu (NVIDIA's Vulkan driver), into $OUT/bench_cw.jsonl;
# LOOPB cases also run on wgpu with CUPY_WGPU_LOOP_BOUNDING=1 (naga's loop counters back on,
# "loop_bounding": 1 added to their lines). WCASES / LOOPB override the lists; TW the limit per run.
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
o=$OUT/bench_cw.jsonl
for c in ${WCASES:-matmul_float32 matmul_float64 transpose_copy sum_f32 add_f32_2^28 fused_chain4 sort_f32 fft_c64_2^24 randn_f32 inv_f32 qr_f32 cholesky_f32 small_add}; do
  for be in cuda wgpu; do
    timeout ${TW:-40} bash .gpu/run.sh examples/bench --backend $be --only $c >>$o 2>>$OUT/bench_cw.err || echo "{\"case\": \"$c\", \"backend\": \"$be\", \"error\": \"rc $?\"}" >>$o
  done
done
for c in ${LOOPB:-sort_f32 fft_c64_2^24 transpose_copy sum_f32}; do
  CUPY_WGPU_LOOP_BOUNDING=1 timeout ${TW:-40} bash .gpu/run.sh examples/bench --backend wgpu --only $c 2>>$OUT/bench_cw.err | sed 's/}$/, "loop_bounding": 1}/' >>$o
done
grep -h '"ms"' $o | python3 -c '
import json, sys
for l in sys.stdin:
    try:
        r = json.loads(l)
    except ValueError:
        continue
    case, be, ms = r["case"], r.get("backend", ""), r["ms"]
    tag = "(loop counters)" if r.get("loop_bounding") else ""
    print("%-32s %-5s %10.3f ms %s" % (case, be, ms, tag))'
