#!/usr/bin/env bash
# The coop GEMM's staging variants: direct fragment loads (CUPY_WGPU_COOP_DIRECT=1, with and without
# CUPY_WGPU_COOP_PREFETCH=1) over several shapes, K slices of 64/16, then the wgpu gemm tests with
# the direct path and facade groups on cuda,wgpu. Stage the facade and wgpu test binaries and
# examples/bench into .gpu/bin.tar.gz, copy this into .gpu/, run `bash .gpu/gpu-coop-direct.sh`.
cd "$(dirname "$0")/.."
rm -rf .gpu/tests .gpu/examples; tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
fac=$(grep -l math_ufuncs_match_numpy .gpu/tests/all-* | head -1); fac=${fac##*/}
wg=$(grep -L math_ufuncs_match_numpy .gpu/tests/all-* | head -1); wg=${wg##*/}
main() {
nvidia-smi --query-gpu=name --format=csv,noheader
echo "=== coop ($(date +%T))"
run() { r=$(env "$@" timeout 30 bash .gpu/run.sh examples/bench --backend wgpu --only matmul_float16 2>>$OUT/coop.err | grep -o '"ms": [0-9.]*\|TFLOPs": [0-9.]*' | tr '\n' ' '); echo "$*: $r"; }
run X=default
for s in 2x2x4x4 4x4x2x2 2x2x2x2 1x1x4x4 2x4x4x4 4x2x4x4 2x2x4x4x64; do run CUPY_WGPU_COOP_DIRECT=1 CUPY_WGPU_COOP_SHAPE=$s; done
for s in 2x2x4x4x16 2x2x4x4 4x4x2x2 1x1x4x4x16 2x4x4x4x16; do run CUPY_WGPU_COOP_DIRECT=1 CUPY_WGPU_COOP_PREFETCH=1 CUPY_WGPU_COOP_SHAPE=$s; done
for s in 4x4x2x2x64 4x4x2x2x16; do run CUPY_WGPU_COOP_SHAPE=$s; done
timeout 30 bash .gpu/run.sh examples/bench --backend cuda --only matmul_float16 2>/dev/null | tail -1 | cut -c1-200
tail -4 $OUT/coop.err | cut -c1-300
echo "=== wgpu crate gemm, direct ($(date +%T))"
for v in "CUPY_WGPU_COOP_SHAPE=2x2x4x4" "CUPY_WGPU_COOP_PREFETCH=1 CUPY_WGPU_COOP_SHAPE=2x2x4x4x16" "CUPY_WGPU_COOP_PREFETCH=1"; do
env CUPY_WGPU_COOP_DIRECT=1 $v timeout 40 bash .gpu/run.sh tests/$wg gemm --test-threads=1 > $OUT/wgpu_gemm.txt 2>&1; echo "$v rc=$?"; grep -E "test result|FAILED|Segmentation|panicked|cooperative" $OUT/wgpu_gemm.txt | head -8 | cut -c1-250
done
echo "=== facade cuda,wgpu groups ($(date +%T))"
CUPY_TEST_BACKENDS=cuda,wgpu timeout 300 bash .gpu/run.sh tests/$fac histograms array_api errors ufuncs scalar like printing manipulation special out_keywords quantiles indexing2 --test-threads=6 > $OUT/fac.txt 2>&1; echo "rc=$? $(grep -h '^test result' $OUT/fac.txt)"; grep -E "FAILED|panicked|Segmentation" $OUT/fac.txt | head -8 | cut -c1-300
echo "=== end ($(date +%T))"
}
main > $OUT/call.txt 2>&1
tail -c 11500 $OUT/call.txt
