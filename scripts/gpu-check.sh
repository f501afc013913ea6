#!/usr/bin/env bash
# A second, shorter H200 call (copy into .gpu/ after ../shared/scripts/gpu-stage.sh, carry [".gpu"]):
#   bash .gpu/gpu-check.sh
# Re-runs chosen facade tests (T_WGPU on wgpu, T_CUDA on cuda, T_RANDOM on cpu,cuda,wgpu) in
# parallel, then the bench per case group (BENCH_GROUPS, each `--only` one substring: the linalg
# cases, host round trips on cuda until cuSOLVER exists, stay out) beside CuPy and PyTorch.
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
L=$OUT/logs; mkdir -p $L
fac=$(grep -l math_ufuncs_match_numpy .gpu/tests/all-* | head -1); fac=${fac##*/}
s() { echo "=== $*  ($(date +%T))"; }
s tests
( CUPY_TEST_BACKENDS=wgpu timeout ${TW:-200} bash .gpu/run.sh tests/$fac ${T_WGPU:-complex:: ufuncs:: accuracy64:: errors::} --test-threads=6 --nocapture >$L/wgpu.txt 2>&1; echo "wgpu rc=$?" ) &
( CUPY_TEST_BACKENDS=cuda timeout ${TC:-200} bash .gpu/run.sh tests/$fac ${T_CUDA:-nanstats:: accuracy64::} --test-threads=8 --nocapture >$L/cuda.txt 2>&1; echo "cuda rc=$?" ) &
( CUPY_TEST_BACKENDS=cpu,cuda,wgpu timeout ${TC:-200} bash .gpu/run.sh tests/$fac ${T_RANDOM:-random::} --test-threads=2 --nocapture >$L/random3.txt 2>&1; echo "random rc=$?" ) &
wait
for f in wgpu cuda random3; do echo "--- $f"; grep -h -E "^test result|FAILED|panicked|^FAIL|max [0-9]+ ulps" $L/$f.txt | sort -u | cut -c1-240 | head -24; grep -h -E "^[a-z_0-9]+: \[" $L/$f.txt | grep -v " 0 failed" | head; done
s bench
for g in ${BENCH_GROUPS:-add_ copy_ sum_ argmax_ var_ median_ sort_ unique gather mask_ random_ randn_ fft rfft matmul transpose fused_ exp_ convolve squared reductionkernel}; do
  timeout 40 bash .gpu/run.sh examples/bench --backend cuda --only $g >>$OUT/bench_cuda.jsonl 2>>$L/bench.err
done
for c in exp_f32 add_f32_2^28 add_alloc_f32_2^28 fft_c64_2^24 randn_f32_2^28; do timeout 20 bash .gpu/run.sh examples/bench --backend wgpu --only $c >>$OUT/bench_wgpu.jsonl 2>>$L/bench_wgpu.err; done
s cupy
PYTHONUNBUFFERED=1 timeout ${TP:-70} python3 bench/cupy_baseline.py >$OUT/cupy.jsonl 2>$L/cupy.err; echo "cupy rc=$?"
PYTHONUNBUFFERED=1 timeout ${TP:-70} python3 bench/peers_baseline.py >$OUT/peers.jsonl 2>$L/peers.err; echo "peers rc=$?"
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
s done
