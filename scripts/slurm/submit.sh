#!/usr/bin/env bash
# Submits a spbench study to Slurm: a job array with one task per shard of
# the matrix list, each task running `spbench run --shard I/N --resume` into
# OUTDIR/shard-I.{csv,json}, and a job that waits for the whole array
# (afterany) and merges the shards into OUTDIR/results.{csv,json} and draws
# OUTDIR/charts/. Prints the two job ids. Submitting the same command again
# after a failure measures only what is missing, then merges again.
#
# usage: submit.sh [--shards N] [--gpus G] [--cpus C] [--partition P] [--time T]
#                  [--ranks LIST [--nodes N --tasks-per-node T]] [--spbench BIN]
#                  OUTDIR MATRIX... [-- RUN-OPTIONS]
#   --shards N     array tasks (default 4)
#   --gpus G       GPUs per task, requested with --gres gpu:G (default none)
#   --cpus C       CPUs per task, or per rank with --ranks (--cpus-per-task)
#   --partition P, --time T   passed to sbatch
#   --ranks LIST   a distributed study (spbench run --ranks LIST): each task holds
#                  an allocation of the most ranks (--ntasks, or N nodes x T tasks)
#                  and measures every rank count in it, through mpirun
#   --spbench BIN  the spbench binary (default: this repository's build/spbench,
#                  or PREFIX/bin/spbench where this script was installed)
# MATRIX: files, directories, @lists and gen: specs, as for spbench run;
# RUN-OPTIONS go to every task's spbench run (e.g. --kernels 'csr.*' --threads 1-8).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=4 gpus=0 cpus="" partition="" time_limit="" bin="$here/../../build/spbench"
# installed (cmake --install): this script is PREFIX/share/spbench/slurm/submit.sh
[ -x "$bin" ] || [ ! -x "$here/../../../bin/spbench" ] || bin="$here/../../../bin/spbench"
ranks="" nodes="" tasks_per_node=""
usage() { # asked for (--help): to stdout, exit 0; a mistake: to stderr, exit 2
  if [ "${1:-2}" -eq 0 ]; then
    sed -n '9,21p' "$0" | sed 's/^# \{0,1\}//'
  else
    sed -n '9,21p' "$0" | sed 's/^# \{0,1\}//' >&2
  fi
  exit "${1:-2}"
}
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) shards=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --partition) partition=$2; shift 2 ;;
    --time) time_limit=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --tasks-per-node) tasks_per_node=$2; shift 2 ;;
    --spbench) bin=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    --*) echo "submit.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: --shards expects a positive count" >&2; exit 2; }
[[ "$gpus" =~ ^[0-9]+$ ]] || { echo "submit.sh: --gpus expects a count" >&2; exit 2; }
most_ranks=0
if [ -n "$ranks" ]; then # the largest count of LIST (1,2,4 or 1-8): the allocation's size
  for item in ${ranks//,/ }; do
    [[ "$item" =~ ^[1-9][0-9]*(-[1-9][0-9]*)?$ ]] ||
      { echo "submit.sh: --ranks expects counts like 1,2,4 or 1-8, not '$ranks'" >&2; exit 2; }
    [ "${item#*-}" -gt "$most_ranks" ] && most_ranks=${item#*-}
  done
fi
if [ -n "$nodes$tasks_per_node" ]; then
  [[ "$nodes" =~ ^[1-9][0-9]*$ && "$tasks_per_node" =~ ^[1-9][0-9]*$ && -n "$ranks" ]] ||
    { echo "submit.sh: --nodes N and --tasks-per-node T go together, with --ranks" >&2; exit 2; }
  [ $((nodes * tasks_per_node)) -ge "$most_ranks" ] ||
    { echo "submit.sh: $nodes nodes x $tasks_per_node tasks hold fewer than the $most_ranks ranks of --ranks" >&2; exit 2; }
fi
command -v sbatch >/dev/null || { echo "submit.sh: sbatch not found: is Slurm loaded (module load slurm)?" >&2; exit 2; }
[ -x "$bin" ] || { echo "submit.sh: $bin is not an executable spbench (build it, or --spbench BIN)" >&2; exit 2; }
# Slurm's commands retry a SLURM_CONF they cannot read for a minute: say so at once
why=""
if [ -n "${SLURM_CONF:-}" ] && [ ! -r "$SLURM_CONF" ]; then
  why="SLURM_CONF names $SLURM_CONF, which cannot be read"
elif ! timeout 60 scontrol ping >/dev/null 2>&1; then
  why="'scontrol ping' fails"
fi
if [ -n "$why" ]; then
  cat >&2 <<EOF
submit.sh: no Slurm controller is reachable ($why): submit from a
cluster's login node. Without Slurm, run the shards here and merge them:
  for i in \$(seq $shards); do $bin run --shard \$i/$shards --resume --csv OUTDIR/shard-\$i.csv --json OUTDIR/shard-\$i.json MATRIX...; done
  $bin merge OUTDIR/results.csv OUTDIR/shard-*.csv --json OUTDIR/results.json OUTDIR/shard-*.json
EOF
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$1"
outdir=$(cd "$1" && pwd)
shift
matrices=() run_options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  # relative paths are made absolute: tasks may start elsewhere
  if [ -e "$1" ]; then matrices+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
  elif [[ "$1" == @* ]] && [ -e "${1#@}" ]; then matrices+=("@$(cd "$(dirname "${1#@}")" && pwd)/$(basename "${1#@}")")
  else matrices+=("$1"); fi
  shift
done
[ $# -gt 0 ] && shift && run_options=("$@")
[ ${#matrices[@]} -gt 0 ] || usage

# The task and merge scripts, with every argument quoted, kept in OUTDIR so
# that a resubmission runs exactly the same study.
{
  echo '#!/usr/bin/env bash'
  echo 'i=$SLURM_ARRAY_TASK_ID n=$SLURM_ARRAY_TASK_COUNT'
  printf 'exec %q run --shard "$i/$n" --resume --quiet' "$bin"
  [ -n "$ranks" ] && printf ' --ranks %q' "$ranks"
  printf ' --csv %q/shard-"$i".csv --json %q/shard-"$i".json' "$outdir" "$outdir"
  printf ' %q' "${run_options[@]}" "${matrices[@]}"
  echo
} >"$outdir/task.sh"
{
  echo '#!/usr/bin/env bash'
  echo 'set -e'
  printf 'cd %q\n' "$outdir"
  printf 'csvs=() jsons=(); for i in $(seq 1 %d); do csvs+=(shard-$i.csv); jsons+=(shard-$i.json); done\n' "$shards"
  printf '%q merge --force results.csv "${csvs[@]}" --json results.json "${jsons[@]}"\n' "$bin"
  printf '%q plot results.csv charts\n' "$bin"
} >"$outdir/merge.sh"
chmod +x "$outdir/task.sh" "$outdir/merge.sh"

options=(--parsable --job-name spbench --chdir "$outdir")
[ -n "$partition" ] && options+=(--partition "$partition")
[ -n "$time_limit" ] && options+=(--time "$time_limit")
task_options=(--array "1-$shards" --output "$outdir/shard-%a.log")
[ "$gpus" -gt 0 ] && task_options+=(--gres "gpu:$gpus")
[ -n "$cpus" ] && task_options+=(--cpus-per-task "$cpus")
if [ -n "$nodes" ]; then task_options+=(--nodes "$nodes" --ntasks-per-node "$tasks_per_node")
elif [ -n "$ranks" ]; then task_options+=(--ntasks "$most_ranks"); fi
array=$(sbatch "${options[@]}" "${task_options[@]}" "$outdir/task.sh")
array=${array%%;*}
merge=$(sbatch "${options[@]}" --dependency "afterany:$array" --output "$outdir/merge.log" \
  "$outdir/merge.sh")
merge=${merge%%;*}
echo "submitted: shards job array $array ($shards tasks), merge job $merge"
echo "results will be in $outdir/results.csv, $outdir/results.json and $outdir/charts/"
