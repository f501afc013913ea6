#!/usr/bin/env bash
# Sort, unique and randn on cuda, measured apart (after a partial staging of the facade test binary and
# examples/bench into .gpu/bin.tar.gz, or ../shared/scripts/gpu-stage.sh; run with carry [".gpu"] and
#   bash .gpu/gpu-sort-profile.sh   (scripts/gpu-prune.sh copies it, gpu-report.py and gpu-mini-peers.py into .gpu/).
# The cuda facade (graphs alone, one thread), random:: on cpu and cuda together (bit identity), the
# sort harness (hip-kernels/bench) in the default build and with HK_SORT_GHL=1, the bench beside CuPy
# and PyTorch, then ncu: per-kernel times of the library's sort/unique/randn, of the harness beside
# CUB's kernels, and the stall reasons of the harness's first two onesweep passes.
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
source .gpu/gpu-paths.sh
L=$OUT/logs; mkdir -p $L
fac=$(grep -l math_ufuncs_match_numpy .gpu/tests/all-* | head -1); fac=${fac##*/}
s() { echo "=== $*  ($(date +%T))"; }
nvidia-smi --query-gpu=name --format=csv,noheader
s start
( CUPY_TEST_BACKENDS=cuda timeout 170 bash .gpu/run.sh tests/$fac --skip graphs --test-threads=14 >$L/cuda_tests.txt 2>&1; echo "cuda facade rc=$? $(grep -h '^test result' $L/cuda_tests.txt)"; grep -E "FAILED|panicked" $L/cuda_tests.txt | head -8 | cut -c1-300 ) &
( CUPY_TEST_BACKENDS=cpu,cuda timeout 170 bash .gpu/run.sh tests/$fac random:: --test-threads=4 >$L/random.txt 2>&1; echo "cpu+cuda random rc=$? $(grep -h '^test result' $L/random.txt)"; grep -E "FAILED|panicked" $L/random.txt | head -5 | cut -c1-300 ) &
( CUPY_TEST_BACKENDS=cuda timeout 60 bash .gpu/run.sh tests/$fac graphs --test-threads=1 >$L/graphs.txt 2>&1; echo "cuda graphs (1 thread) rc=$? $(grep -h '^test result' $L/graphs.txt)"; grep -E "FAILED|panicked" $L/graphs.txt | head -5 ) &
( for v in "base=" "ghl1=-DHK_SORT_GHL=1"; do name=${v%%=*}; flags=${v#*=}
    nvcc -O3 -arch=sm_90 -std=c++17 -I hip-kernels -DHK_WARP_SIZE=32 $flags -Xptxas -v hip-kernels/bench/sort_harness.cu -o /tmp/sh_$name 2>/tmp/ptx_$name.txt || { echo "$name: compile failed"; tail -5 /tmp/ptx_$name.txt; } &
  done; wait; echo "harness compiled" ) &
wait
grep -A15 -E "^---- .* stdout ----" $L/cuda_tests.txt | cut -c1-240 | head -40
for name in base ghl1; do grep -A4 "entry function 'cupy_sort_tinit_float32'" /tmp/ptx_$name.txt | grep -E -o "[0-9]+ bytes smem|Used [0-9]+ registers" | tr "\n" " "; echo "$name: $(/tmp/sh_$name 26 | tr '\n' ' ')"; done
s bench
timeout 90 bash .gpu/run.sh examples/bench --backend cuda --only "unique_f32,argsort_f32,sort_f32_2^26,mask_assign,gather,randn_f32,rand_f32,random_f32" >$OUT/bench_cuda.jsonl 2>$L/bench.err; echo "cuda bench rc=$?"
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/gpu-mini-peers.py >$OUT/peers.jsonl 2>/tmp/p.err; echo "peers rc=$?"; tail -1 /tmp/p.err | cut -c1-200
python3 .gpu/gpu-report.py table $OUT
s ncu library
export CUPY_TEST_BACKENDS=cuda
timeout 80 ncu --target-processes all --clock-control none --csv --metrics gpu__time_duration.sum bash .gpu/run.sh examples/bench --backend cuda --only "unique_f32,sort_f32_2^26,randn_f32" > $OUT/ncu.csv 2>$L/ncu.err; echo "ncu rc=$?"; python3 .gpu/gpu-report.py ncu $OUT/ncu.csv
s ncu harness incl CUB
timeout 90 ncu --clock-control none --csv --metrics gpu__time_duration.sum /tmp/sh_base 26 > $OUT/hncu.csv 2>/dev/null; echo "harness ncu rc=$?"; python3 .gpu/gpu-report.py ncu $OUT/hncu.csv
s ncu stalls pass0 vs pass1
timeout 60 ncu --clock-control none --csv --metrics "gpu__time_duration.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum" -k regex:onesweepk --launch-count 2 /tmp/sh_base 26 > $OUT/stall.csv 2>/dev/null; echo "stall ncu rc=$?"
python3 - <<'PY'
import csv, os
lines = [l for l in open(os.path.join(os.environ["OUT"], "stall.csv")) if l.startswith('"')]
rows = {}
for r in csv.DictReader(lines):
    rows.setdefault(r["Metric Name"], []).append(r["Metric Value"])
for k, v in sorted(rows.items(), key=lambda kv: -max(float(x.replace(",", "") or 0) for x in kv[1]) if "stalled" in kv[0] else 0):
    print("%-80s %s" % (k.replace("smsp__average_warps_issue_stalled_", "stall_"), "  ".join(v)))
PY
s end
