#!/usr/bin/env bash
# On the GPU machine: compile sort_harness.cu in several variants (extra -D flags per line of
# VARIANTS), run each, and profile the default's second pass with ncu into $OUT.
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi --query-gpu=name --format=csv,noheader
V=${VARIANTS:-"base=
it16m2=-DHK_SORT_IT32=16 -DHK_SORT_MINB=2
it8m4=-DHK_SORT_IT32=8 -DHK_SORT_MINB=4
ballot=-DHK_SORT_MATCH=0"}
while IFS='=' read -r name flags; do
  [[ -z $name ]] && continue
  nvcc -O3 -arch=sm_90 -std=c++17 -I hip-kernels -DHK_WARP_SIZE=32 $flags -Xptxas -v \
    hip-kernels/bench/sort_harness.cu -o /tmp/sh_$name 2>/tmp/ptx_$name.txt || { echo "$name: compile failed"; tail -5 /tmp/ptx_$name.txt; continue; }
  grep -A4 "entry function 'cupy_sort_onesweepk_u32'" /tmp/ptx_$name.txt | grep -E -o "[0-9]+ bytes spill stores|Used [0-9]+ registers" | tr '\n' ' ' | sed "s/^/$name: /"; echo
  echo "$name: $(/tmp/sh_$name ${LG:-26} | tr '\n' ' ')"
done <<<"$V"
if [[ -n $NCU ]]; then
  ncu --clock-control none -k regex:cupy_sort_onesweepk_u32 --launch-skip 1 --launch-count 1 --set full \
    --import-source no -o $OUT/pass /tmp/sh_base ${LG:-26} >/tmp/ncu.log 2>&1; tail -3 /tmp/ncu.log
  ncu -i $OUT/pass.ncu-rep --page details > $OUT/details.txt 2>&1
  ncu -i $OUT/pass.ncu-rep --page source --print-source sass --csv > $OUT/sass.csv 2>&1
  grep -E "Duration|Registers|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Stall|Throughput" $OUT/details.txt | head -40
  ls -la $OUT
fi
