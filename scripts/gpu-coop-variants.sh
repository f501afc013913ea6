#!/usr/bin/env bash
# wgpu's cooperative-matrix GEMM on the GPU machine (copy into .gpu/ after staging the facade test
# binary, the wgpu crate's test binary and examples/bench; carry [".gpu"]):
#   bash .gpu/gpu-coop-variants.sh
# matmul_float16_8192 with CUPY_WGPU_COOP=1 under K slices of 64 and 16 (CUPY_WGPU_COOP_SHAPE's
# fifth part) and the vec4 staging (CUPY_WGPU_COOP_VEC4=1), beside the float32 path and cuda
# (the thirteenth session's figures: element-wise 4x4x2x2x32 82.6 TFLOP/s, vec4 25-33);
# then the wgpu crate's gemm tests and whole suite and the facade's matmul_half/printing with
# the feature on; cuda golden groups in parallel. Output: $OUT/call.txt (its tail printed).
cd "$(dirname "$0")/.."
rm -rf .gpu/tests .gpu/examples; tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
fac=$(grep -l math_ufuncs_match_numpy .gpu/tests/all-* | head -1); fac=${fac##*/}
wg=$(grep -L math_ufuncs_match_numpy .gpu/tests/all-* | head -1); wg=${wg##*/}
main() {
nvidia-smi --query-gpu=name --format=csv,noheader
G="array_api:: errors:: creation:: printing:: memory:: nanstats:: ufunc_methods:: ufuncs::"
( CUPY_TEST_BACKENDS=cuda timeout 180 bash .gpu/run.sh tests/$fac $G --test-threads=6 >$OUT/cuda.txt 2>&1; echo "cuda rc=$? $(grep -h '^test result' $OUT/cuda.txt)"; grep -E "FAILED|panicked|running for over" $OUT/cuda.txt | head -8 | cut -c1-300 ) &
p1=$!
echo "=== coop ($(date +%T))"
run() { r=$(env CUPY_WGPU_COOP=1 "$@" timeout 45 bash .gpu/run.sh examples/bench --backend wgpu --only matmul_float16 2>>$OUT/coop.err | grep -o '"ms": [0-9.]*\|TFLOPs": [0-9.]*' | tr '\n' ' '); echo "$*: $r"; }
run CUPY_WGPU_COOP_VEC4=0
for s in 4x4x2x2x64 4x4x2x2x16 4x4x1x2x64 4x4x2x1x64 2x2x2x2x64; do run CUPY_WGPU_COOP_SHAPE=$s; done
run CUPY_WGPU_COOP_VEC4=1
run CUPY_WGPU_COOP_VEC4=1 CUPY_WGPU_COOP_SHAPE=4x4x2x2x64
CUPY_WGPU_COOP=0 timeout 45 bash .gpu/run.sh examples/bench --backend wgpu --only matmul_float16 2>/dev/null | tail -1
timeout 45 bash .gpu/run.sh examples/bench --backend cuda --only matmul_float16 2>/dev/null | tail -1
echo "=== wgpu crate gemm with COOP=1 ($(date +%T))"
CUPY_WGPU_COOP=1 timeout 60 bash .gpu/run.sh tests/$wg gemm --test-threads=1 --nocapture > $OUT/wgpu_gemm.txt 2>&1; echo "rc=$?"; grep -E "^test |test result|NOTICE|cooperative|Segmentation|panicked" $OUT/wgpu_gemm.txt | head -20 | cut -c1-250
echo "=== wgpu crate all with COOP=1 ($(date +%T))"
CUPY_WGPU_COOP=1 timeout 60 bash .gpu/run.sh tests/$wg --test-threads=2 > $OUT/wgpu_crate.txt 2>&1; echo "rc=$?"; grep -E "test result|FAILED|Segmentation|panicked" $OUT/wgpu_crate.txt | head -10 | cut -c1-250; tail -3 $OUT/wgpu_crate.txt | cut -c1-250
echo "=== facade wgpu with COOP=1 ($(date +%T))"
CUPY_WGPU_COOP=1 CUPY_TEST_BACKENDS=wgpu timeout 45 bash .gpu/run.sh tests/$fac matmul_half printing array_api errors --test-threads=4 > $OUT/wgpu_fac.txt 2>&1; echo "rc=$? $(grep -h '^test result' $OUT/wgpu_fac.txt)"; grep -E "FAILED|Segmentation|panicked" $OUT/wgpu_fac.txt | head -6 | cut -c1-250
wait $p1
echo "=== end ($(date +%T))"
}
main > $OUT/call.txt 2>&1
tail -c 11500 $OUT/call.txt
