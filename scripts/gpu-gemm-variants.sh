#!/usr/bin/env bash
# wgpu GEMM kernel shapes on the H200 (copy into .gpu/ after staging, carry [".gpu"]):
#   bash .gpu/gpu-gemm-variants.sh
# matmul_float64_8192 under each CUPY_WGPU_GEMM_SHAPE_F64 in F64 (RMxRNxBK, trailing d:
# double-buffered tiles; see backends/wgpu/src/gemm.rs, GemmShape), matmul_float32_8192 under
# each shape in F32, matmul_float16_8192 under each CUPY_WGPU_COOP_SHAPE in COOP (cooperative
# matrices: WMxWNxFMxFN) and with CUPY_WGPU_COOP=0 (through float32), and float32 with
# CUPY_TF32=1; cuda's three cases first. Lines go to $OUT/gemm_variants.jsonl with the knob
# added as "variant". TW: the limit per run.
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
o=$OUT/gemm_variants.jsonl
run() { # variant, case, env...
  local v=$1 c=$2; shift 2
  env "$@" timeout ${TW:-60} bash .gpu/run.sh examples/bench --backend wgpu --only $c 2>>$OUT/gemm_variants.err |
    sed "s/}\$/, \"variant\": \"$v\"}/" >>$o
}
for c in matmul_float64 matmul_float32 matmul_float16; do
  timeout ${TW:-60} bash .gpu/run.sh examples/bench --backend cuda --only $c >>$o 2>>$OUT/gemm_variants.err
done
for s in ${F64:-8x8x8 8x8x8d 4x8x16 4x8x16d 8x4x16d 4x4x16d 8x8x16d 4x8x8d}; do
  run "f64 $s" matmul_float64 CUPY_WGPU_GEMM_SHAPE_F64=$s
done
for s in ${F32:-8x8x8 8x8x8d 8x8x16d 4x8x16d}; do
  run "f32 $s" matmul_float32 CUPY_WGPU_GEMM_SHAPE=$s
done
for s in ${COOP:-2x2x4x4 2x2x2x4 2x4x4x2 4x2x2x4 2x2x2x2}; do
  run "coop $s" matmul_float16 CUPY_WGPU_COOP_SHAPE=$s
done
run "f16 through f32" matmul_float16 CUPY_WGPU_COOP=0
run "f32 CUPY_TF32=1" matmul_float32 CUPY_TF32=1
grep -h '"ms"' $o | python3 -c '
import json, sys
for l in sys.stdin:
    try:
        r = json.loads(l)
    except ValueError:
        continue
    print("%-26s %-5s %-22s %10.3f ms" % (r["case"], r.get("backend", ""), r.get("variant", ""), r["ms"]))'
