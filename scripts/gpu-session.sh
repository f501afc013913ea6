#!/usr/bin/env bash
# One full H200 call (after ../shared/scripts/gpu-stage.sh and scripts/gpu-prune.sh, run with carry [".gpu"]):
#   bash .gpu/gpu-session.sh
# The facade on cuda and on wgpu in parallel (cuda needs > 5 min on a fresh machine: NVRTC compiles
# thousands of kernels; raise TC), the wgpu math goldens traced, the crates, random:: on cpu,cuda,wgpu
# together (bit identity), then the bench beside CuPy and PyTorch. On cuda the graphs tests run
# after the rest, alone with one thread: a capture refuses other threads' synchronizing calls. CSKIP: extra arguments of the
# cuda facade run (e.g. "--skip nanstats --skip ufunc_methods", the two slowest to compile cold). At most 8 files come back from $OUT,
# so the logs are tarred. TC/TW/TB/TP override the time limits (seconds).
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
L=$OUT/logs; mkdir -p $L
fac=$(grep -l math_ufuncs_match_numpy .gpu/tests/all-* | head -1); fac=${fac##*/}
cud=$(grep -l gemm_layouts_and_dtypes .gpu/tests/all-* | head -1); cud=${cud##*/}
wgc=$(grep -l -a "refusals_without_features" .gpu/tests/all-* | head -1); wgc=${wgc##*/}
echo "facade=$fac cuda=$cud wgpu=$wgc"
s() { echo "=== $*  ($(date +%T))"; }
bash .gpu/run.sh tests/$cud --list >/dev/null 2>&1
s tests start
( CUPY_TEST_BACKENDS=cuda timeout ${TC:-280} bash .gpu/run.sh tests/$fac --test-threads=16 --nocapture --skip graphs $CSKIP >$L/facade_cuda.txt 2>&1; echo "facade cuda rc=$?"; CUPY_TEST_BACKENDS=cuda timeout 60 bash .gpu/run.sh tests/$fac graphs --test-threads=1 >$L/graphs_cuda.txt 2>&1; echo "graphs cuda (alone, one thread) rc=$? $(grep -h '^test result' $L/graphs_cuda.txt)" ) &
( CUPY_TEST_BACKENDS=wgpu timeout ${TW:-280} bash .gpu/run.sh tests/$fac --test-threads=6 --nocapture --skip math_ufuncs_match_numpy >$L/facade_wgpu.txt 2>&1; echo "facade wgpu rc=$?" ) &
( CUPY_TEST_BACKENDS=wgpu CUPY_GOLDEN_TRACE=1 timeout ${TW:-280} bash .gpu/run.sh tests/$fac math_ufuncs_match_numpy --nocapture --test-threads=1 >$L/math_wgpu.txt 2>&1; echo "math wgpu rc=$?" ) &
( timeout 200 bash .gpu/run.sh tests/$cud --test-threads=4 >$L/cuda_crate.txt 2>&1; echo "cuda crate rc=$?"; for b in $wgc $(ls .gpu/tests | grep -e cupy_core -e cupy_wgpu -e cupy_cuda -e '^cupy-'); do timeout 60 bash .gpu/run.sh tests/$b --test-threads=2 >$L/$b.txt 2>&1; echo "$b rc=$? $(grep -h '^test result' $L/$b.txt | tr '\n' ' ')"; done ) &
( CUPY_TEST_BACKENDS=cpu,cuda,wgpu timeout 200 bash .gpu/run.sh tests/$fac random:: --test-threads=2 --nocapture >$L/random3.txt 2>&1; echo "random cpu,cuda,wgpu rc=$?"; CUPY_TEST_BACKENDS=cpu,cuda,wgpu CUPY_ACCURACY_N=${ACC_N:-1000000} timeout 120 bash .gpu/run.sh tests/$fac accuracy32 --test-threads=2 --nocapture >$L/accuracy32.txt 2>&1; echo "accuracy32 rc=$?"; CUPY_TEST_BACKENDS=cuda CUPY_SOLVER_TRACE=1 timeout 60 bash .gpu/run.sh tests/$fac svd_reconstructs --nocapture >$L/svd_trace.txt 2>&1; echo "svd trace rc=$?" ) &
wait
s tests done
echo "--- random cpu,cuda,wgpu"; grep -E "^test |^FAIL|test result|panicked" $L/random3.txt | cut -c1-300 | head -20
for f in facade_cuda facade_wgpu cuda_crate; do echo "--- $f"; grep -E "^test result|FAILED|^FAIL|failed, [1-9]|panicked|running for" $L/$f.txt | cut -c1-200 | head -12; done
echo "--- accuracy32"; grep -E "float32 .*: max|FAIL|panicked|test result" $L/accuracy32.txt | cut -c1-200 | head -60
echo "--- svd trace"; grep -E "h_err_sigma|FAIL" $L/svd_trace.txt | sort | uniq -c | sort -rn | cut -c1-160 | head -30
echo "--- tallies"; grep -h -E "^[a-z_0-9]+: \[(cuda|wgpu)" $L/facade_cuda.txt $L/facade_wgpu.txt $L/math_wgpu.txt | sort | cut -c1-110
echo "--- math wgpu"; grep -v '^golden' $L/math_wgpu.txt | grep -E "^FAIL|passed|panicked|result" | cut -c1-300 | head; grep '^golden' $L/math_wgpu.txt | tail -1
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L; L=/tmp/blogs; mkdir -p $L
s bench
timeout ${TB:-65} bash .gpu/run.sh examples/bench --backend cuda >$OUT/bench_cuda.jsonl 2>$L/bench.err; echo "bench rc=$?"
for c in exp_f32 add_f32_2^28 add_alloc_f32_2^28; do timeout 15 bash .gpu/run.sh examples/bench --backend wgpu --only $c >>$OUT/bench_wgpu.jsonl 2>>$L/bench_wgpu.err; done
s cupy
PYTHONUNBUFFERED=1 timeout ${TP:-100} python3 bench/cupy_baseline.py >$OUT/cupy.jsonl 2>$L/cupy.err; echo "cupy rc=$?"
PYTHONUNBUFFERED=1 timeout ${TP:-50} python3 bench/peers_baseline.py >$OUT/peers.jsonl 2>$L/peers.err; echo "peers rc=$?"; tail -2 $L/*.err | cut -c1-200
s done
