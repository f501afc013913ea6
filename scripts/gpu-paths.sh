#!/usr/bin/env bash
# Sourced by the GPU scripts on the H200, from the carried tree's root: the test binaries find
# tests/data, tests/golden and docs through the absolute path they were built in (written to
# .gpu/built_in by scripts/gpu-prune.sh); where the carried tree lies elsewhere, that path is
# made a link to it (a worktree build, e.g. /work/stage, carried from /work/main).
if [[ -f .gpu/built_in ]]; then
  b=$(cat .gpu/built_in)
  if [[ -n $b && $b != "$PWD" && ! -e $b ]]; then
    mkdir -p "$(dirname "$b")" && ln -s "$PWD" "$b"
  fi
fi
