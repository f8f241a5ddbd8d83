#!/bin/bash
# Queue a tribo sweep on Slurm: the shards as an array job, then the merge once they have all ended.
# Run it from the directory the job scripts' paths are relative to (here the tribo repository).
set -euo pipefail
here=$(dirname "$0")

mkdir -p shards   # the array tasks' logs go to shards/K.log
array=$(sbatch --parsable "$here/shard.sbatch")
sbatch --dependency=afterany:"${array%%;*}" "$here/merge.sbatch"
