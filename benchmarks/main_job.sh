#!/bin/bash
# The main job as the side-by-side measurements of docs/pipeline.md run it: `snakemake --cores 8` on the default
# config in CLONE (a fresh clone with no results), timed by /usr/bin/time -v into CLONE.time, its log in CLONE.log.
# Two of them started at once (one per commit) share the host's load alike:
#   bash benchmarks/main_job.sh /tmp/old & bash benchmarks/main_job.sh /tmp/new & wait
# then compare the "User time" + "System time" lines of /tmp/old.time and /tmp/new.time.
set -u
d=$(cd "$1" && pwd)
cd "$d" || exit 2
export PYTHONPATH="$d/src" PYTHONHASHSEED=0
/usr/bin/time -v -o "$d.time" snakemake --cores 8 > "$d.log" 2>&1
echo "rc=$?" >> "$d.time"
