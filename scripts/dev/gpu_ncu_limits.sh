#!/usr/bin/env bash
# Nsight Compute's counters for each shape's best spbench row and fastest
# vendor row of the large-matrix study
# (docs/results/2026-12-05-gpu-limits-h200.md): each row run alone, every
# launch profiled at unmodified clocks; OUT.tgz holds ncu's CSV per row and
# index.tsv; scripts/dev/gpu_ncu_limits.py tables them.
#
# usage: scripts/dev/gpu_ncu_limits.sh SPBENCH OUT.tgz [PAIRS.tsv]
#   PAIRS.tsv: lines "MATRIX ROW[,ROW...] [PRECISION]" (default fp64; the
#   study's list below; `gpu_frontier.py STUDY.json --pairs` writes one)
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
spbench=$1 out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
pairs=${3:-}
if [ -z "$pairs" ]; then
    pairs=$work/pairs.tsv
    cat > "$pairs" <<'LIST'
gen:rmat:20:16:45 csr.cuda.stream,cusparse.csr
gen:rmat:20:16 csr.cuda.stream,cusparse.csr
gen:rmat:20:16:70 csr.cuda.adaptive,cusparse.coo
gen:rmat:21:8 csr.cuda.stream,cusparse.coo
gen:rmat:22:16 csr.cuda.stream,cusparse.csr
gen:hubs:2000000:8:40:100000 csr.cuda.merge,cusparse.csr
gen:circuit:4000000:4:400:10000 csr.cuda.stream,cusparse.csr
gen:lp:500000:4000000:3:2:4 csr.cuda.merge,cusparse.csr
gen:random:2000000:8 csr.cuda.stream,cusparse.sell
gen:random:6000000:3 csr.cuda.colblock,cusparse.sell
gen:road:2000:80 hll.cuda.col.pattern,cusparse.sell
gen:lap2d:1500 csr.cuda.thread,cusparse.sell
gen:lap3d:120 hll.cuda.col,cusparse.sell
gen:fem:40:3 csr.cuda.stream,cusparse.sell
gen:fem:35:4 csr.cuda.stream,cusparse.bsr
LIST
fi
mkdir -p "$work/ncu"
i=0
while read -r matrix rows precision; do
    precision=${precision:-fp64}
    for row in ${rows//,/ }; do
        i=$((i + 1))
        printf '%d\t%s\t%s\t%s\n' "$i" "$matrix" "$row" "$precision" >> "$work/ncu/index.tsv"
        # the bandwidth probe (read_stream) is not a product; 12 launches cover the rest
        ncu --clock-control none --metrics "$metrics" --csv --print-units base \
            -k 'regex:^(?!read_stream)' --launch-count 12 \
            "$spbench" run --kernels "$row" --precision "$precision" --reps 1 --warmup 0 --min-time 0 \
            --energy-s 0 --quiet "$matrix" > "$work/ncu/$i.csv" 2> "$work/ncu/$i.err"
        echo "$i $matrix $row $precision: $(grep -c gpu__time_duration "$work/ncu/$i.csv") launches"
    done
done < "$pairs"
tar czf "$out" -C "$work" ncu
