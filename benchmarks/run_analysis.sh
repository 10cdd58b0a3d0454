#!/usr/bin/env bash
# The analysis benchmarks of issue 23 at full size, one heavy job at a time (each writes its
# RESULTS section, its benchmarks/data/*.json and its plot), then the notebook.  About 4-6
# CPU-hours in all on a 2-core AMD EPYC; every figure they print is CPU time.
#   bash benchmarks/run_analysis.sh            # everything
#   bash benchmarks/run_analysis.sh heuristics # one step (population heuristics convergence
#                                              # uniqueness style safe batch best-response reread notebook)
set -euo pipefail
cd "$(dirname "$0")/.."
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(population heuristics convergence uniqueness style safe batch best-response reread notebook)
for step in "${steps[@]}"; do
  echo "== $step $(date -u '+%F %T')"
  case "$step" in
    population)    python benchmarks/bench_population.py --dealt 20000 ;;
    heuristics)    python benchmarks/bench_heuristics.py --deals 300 --epsilon 0.05 --resume ;;
    convergence)   python benchmarks/bench_convergence.py --deals 30 --budget 20 ;;
    uniqueness)    python benchmarks/bench_uniqueness.py --deals 30 --epsilon 0.01 ;;
    style)         python benchmarks/bench_style_robustness.py --deals 30 --records 5,10,20,50,100 ;;
    safe)          python benchmarks/bench_safe.py --deals 30 --limits 0,0.25,0.5,1,2 ;;
    batch)         python benchmarks/bench_batch.py ;;
    best-response) python benchmarks/bench_best_response.py ;;
    reread)        python benchmarks/bench_reread.py ;;
    notebook)      python notebooks/src/build_overview.py --execute ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
