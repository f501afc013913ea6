#!/usr/bin/env bash
# A lean H100/H200 call (~5 min) after a partial staging (the facade and crate test binaries and examples/bench in
# .gpu/bin.tar.gz, scripts/gpu-paths.sh, gpu-mini-peers.py and gpu-report.py copied into .gpu/); carry [".gpu"], run
#   bash .gpu/gpu-lean.sh
# The cuda facade (graphs alone, one thread), random:: on cpu and cuda together (bit identity), the cuda
# crate's tests, the bench's sort/unique/random/mask/gather cases beside CuPy and PyTorch, then ncu's
# per-kernel times of sort, unique and randn.
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
L=$OUT/logs; mkdir -p $L
fac=$(grep -l math_ufuncs_match_numpy .gpu/tests/all-* | head -1); fac=${fac##*/}
cud=$(grep -l gemm_layouts_and_dtypes .gpu/tests/all-* | head -1); cud=${cud##*/}
s() { echo "=== $*  ($(date +%T))"; }
nvidia-smi --query-gpu=name --format=csv,noheader
s tests
( CUPY_TEST_BACKENDS=cuda timeout ${TC:-200} bash .gpu/run.sh tests/$fac --skip graphs --test-threads=14 >$L/cuda_tests.txt 2>&1; echo "cuda facade rc=$? $(grep -h '^test result' $L/cuda_tests.txt)"; grep -E "FAILED|panicked" $L/cuda_tests.txt | head -8 | cut -c1-300
  CUPY_TEST_BACKENDS=cuda timeout 60 bash .gpu/run.sh tests/$fac graphs --test-threads=1 >$L/graphs.txt 2>&1; echo "cuda graphs (1 thread) rc=$? $(grep -h '^test result' $L/graphs.txt)"; grep -E "FAILED|panicked" $L/graphs.txt | head -5 ) &
( CUPY_TEST_BACKENDS=cpu,cuda timeout 170 bash .gpu/run.sh tests/$fac random:: --test-threads=4 >$L/random.txt 2>&1; echo "cpu+cuda random rc=$? $(grep -h '^test result' $L/random.txt)"; grep -E "FAILED|panicked" $L/random.txt | head -5 | cut -c1-300 ) &
( CUPY_TEST_BACKENDS=cuda timeout 170 bash .gpu/run.sh tests/$cud --test-threads=4 >$L/cuda_crate.txt 2>&1; echo "cuda crate rc=$? $(grep -h '^test result' $L/cuda_crate.txt)"; grep -E "FAILED|panicked" $L/cuda_crate.txt | head -5 | cut -c1-300 ) &
wait
grep -A15 -E "^---- .* stdout ----" $L/cuda_tests.txt | cut -c1-240 | head -40
s bench
timeout 90 bash .gpu/run.sh examples/bench --backend cuda --only "unique_f32,argsort_f32,sort_f32_2^26,mask_assign,gather,randn_f32,rand_f32,random_f32" >$OUT/bench_cuda.jsonl 2>$L/bench.err; echo "cuda bench rc=$?"
PYTHONUNBUFFERED=1 timeout 100 python3 .gpu/gpu-mini-peers.py >$OUT/peers.jsonl 2>$L/peers.err; echo "peers rc=$?"; tail -1 $L/peers.err | cut -c1-200
python3 .gpu/gpu-report.py table $OUT
s ncu library
CUPY_TEST_BACKENDS=cuda timeout 70 ncu --target-processes all --clock-control none --csv --metrics gpu__time_duration.sum bash .gpu/run.sh examples/bench --backend cuda --only "unique_f32,sort_f32_2^26,randn_f32" > $OUT/ncu.csv 2>$L/ncu.err; echo "ncu rc=$?"; python3 .gpu/gpu-report.py ncu $OUT/ncu.csv
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
s end
