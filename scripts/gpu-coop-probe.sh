#!/usr/bin/env bash
# The coop GEMM ceilings: CUPY_WGPU_COOP_PROBE=resident (products alone) and tiles (fragment loads from
# staged tiles, no global reads), beside the staged kernel with and without bounds checks; then
# the wgpu crate's gemm tests with K slices of 16 (a candidate default: 89.3 TFLOP/s against
# 82.3 in the fifteenth session's one run). Stage examples/bench and the wgpu crate's test binary
# into .gpu/bin.tar.gz (STAGE/examples/bench, STAGE/tests/all-*; tar -C STAGE -czf
# .gpu/bin.tar.gz tests examples), copy this into .gpu/, run `bash .gpu/gpu-coop-probe.sh` with
# carry [".gpu"] (about 90 s on the machine).
cd "$(dirname "$0")/.."
rm -rf .gpu/tests .gpu/examples; tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
main() {
nvidia-smi --query-gpu=name --format=csv,noheader
echo "=== coop probes ($(date +%T))"
run() { r=$(env "$@" timeout 30 bash .gpu/run.sh examples/bench --backend wgpu --only matmul_float16 2>>$OUT/coop.err | grep -o '"ms": [0-9.]*\|TFLOPs": [0-9.]*' | tr '\n' ' '); echo "$*: $r"; }
run CUPY_WGPU_COOP_SHAPE=4x4x2x2x16; run CUPY_WGPU_COOP_UNCHECKED=1 CUPY_WGPU_COOP_SHAPE=4x4x2x2x16
for s in 4x4x2x2x16 2x2x4x4 1x1x4x4 4x4x1x1; do run CUPY_WGPU_COOP_PROBE=resident CUPY_WGPU_COOP_SHAPE=$s; done
for s in 4x4x2x2x16 2x2x4x4; do run CUPY_WGPU_COOP_PROBE=tiles CUPY_WGPU_COOP_SHAPE=$s; done
run CUPY_WGPU_COOP_PROBE=tiles CUPY_WGPU_COOP_UNCHECKED=1 CUPY_WGPU_COOP_SHAPE=4x4x2x2x16
tail -3 $OUT/coop.err | cut -c1-300
echo "=== wgpu crate gemm, BK 16 ($(date +%T))"
wg=$(ls .gpu/tests/ | head -1)
CUPY_WGPU_COOP_SHAPE=4x4x2x2x16 timeout 60 bash .gpu/run.sh tests/$wg gemm --test-threads=1 > $OUT/wgpu_gemm.txt 2>&1; echo "rc=$?"; grep -E "test result|FAILED|panicked|cooperative" $OUT/wgpu_gemm.txt | head -8 | cut -c1-250
echo "=== end ($(date +%T))"
}
main > $OUT/call.txt 2>&1
tail -c 11500 $OUT/call.txt
