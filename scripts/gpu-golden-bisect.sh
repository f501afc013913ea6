#!/usr/bin/env bash
# Copy into .gpu/ after ../shared/scripts/gpu-stage.sh (which empties .gpu), then on the GPU
# machine: bash .gpu/gpu-golden-bisect.sh  (T= seconds per attempt, FILTER= test filter).
# Finds the math golden cases that hang or lose the device on wgpu: run, and on a run that does
# not finish, skip the last traced case and run again.
cd "$(dirname "$0")/.."
[[ -d .gpu/tests ]] || tar -C .gpu -xzf .gpu/bin.tar.gz
bin=$(grep -l CUPY_GOLDEN_TRACE .gpu/tests/* | head -1)
skip=""
for i in 1 2 3 4 5 6 7; do
  start=$(date +%s)
  CUPY_TEST_BACKENDS=wgpu CUPY_GOLDEN_TRACE=1 CUPY_GOLDEN_SKIP="$skip" timeout ${T:-75} bash .gpu/run.sh tests/${bin##*/} ${FILTER:-ufuncs::math_ufuncs_match_numpy} --test-threads=1 --nocapture >/tmp/out.txt 2>&1; cp /tmp/out.txt /tmp/err.txt
  rc=$?
  echo "=== attempt $i rc=$rc $(( $(date +%s) - start ))s traced=$(grep -c '^golden' /tmp/err.txt)"
  if grep -q "test result:" /tmp/out.txt; then
    grep -v '^golden' /tmp/err.txt | tail -30; tail -30 /tmp/out.txt; break
  fi
  last=$(grep '^golden' /tmp/err.txt | tail -1 | awk '{print $4}')
  echo "NOT FINISHED after case: $last"
  grep -v '^golden' /tmp/err.txt | tail -8
  skip="$skip,$last"
  nvidia-smi --query-gpu=name,utilization.gpu --format=csv,noheader
done
echo "skipped: $skip"
