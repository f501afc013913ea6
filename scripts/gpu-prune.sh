#!/usr/bin/env bash
# After ../shared/scripts/gpu-stage.sh: keeps in .gpu/bin.tar.gz only what scripts/gpu-session.sh
# and scripts/gpu-check.sh run on the H200 (the facade, cuda and wgpu `tests/all` binaries, the
# core/cuda/wgpu crate tests and examples/bench), so .gpu plus the tracked tree stay under the
# device tool's 64 MiB carry limit. Then: cp scripts/gpu-{session,check}.sh .gpu/
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
t=$(mktemp -d)
tar -C "$t" -xzf .gpu/bin.tar.gz
for b in "$t"/tests/all-*; do
  grep -q -a -e math_ufuncs_match_numpy -e gemm_layouts_and_dtypes -e refusals_without_features "$b" || rm "$b"
done
find "$t/tests" -type f ! -name 'all-*' ! -name 'cupy_core-*' ! -name 'cupy_cuda-*' ! -name 'cupy_wgpu-*' -delete
find "$t/examples" -type f ! -name bench ! -name overlap ! -name allreduce -delete
tar -C "$t" -czf .gpu/bin.tar.gz tests examples
rm -rf "$t"
cp scripts/gpu-session.sh scripts/gpu-check.sh scripts/gpu-lean.sh scripts/gpu-sort-profile.sh scripts/gpu-wgpu-bench.sh scripts/gpu-gemm-variants.sh scripts/gpu-paths.sh scripts/gpu-mini-peers.py scripts/gpu-report.py .gpu/
# The test binaries read goldens and docs through the path they were built in
# (CARGO_MANIFEST_DIR): the GPU scripts link that path to the carried tree when it is missing there.
pwd >.gpu/built_in
echo "pruned .gpu: $(du -sm .gpu | cut -f1) MiB; tracked tree: $(git ls-files -z | xargs -0 du -cm 2>/dev/null | tail -1 | cut -f1) MiB"
