#!/bin/bash -eu
# Builds every fuzz target for OSS-Fuzz / ClusterFuzzLite and ships each with its initial
# inputs (fuzz/initial/<target>/), zipped under the name those services look for
# (<target>_seed_corpus.zip). Expects $SRC (holding this repository as resbench/) and
# $OUT, as both services set them; runnable by hand with those two variables.
cd "$SRC/resbench/fuzz"
cargo fuzz build -O
for target in $(cargo fuzz list); do
  cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
  (cd "initial/$target" && zip -q -j "$OUT/${target}_seed_corpus.zip" ./*)
done
