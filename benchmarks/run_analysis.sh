#!/usr/bin/env bash
# The analysis benchmarks at full size, one heavy job at a time (each writes its RESULTS
# section, its benchmarks/data/ files and its plot), then the notebook.  Many CPU-hours in
# all on a 2-core machine (the structure, security, K-mix and book steps are the longest; they
# are resumable: run them again to go on).  Times are CPU time; run on a quiet machine.
#   bash benchmarks/run_analysis.sh              # every step
#   bash benchmarks/run_analysis.sh heuristics   # one step (or several, in the order given)
#   bash benchmarks/run_analysis.sh --quick      # every step at toy size, writing nothing under
#                                                # benchmarks/ (a few minutes: does the pipeline run?)
#   bash benchmarks/run_analysis.sh --print      # the commands, not run
# Steps: population heuristics convergence sensitivity uniqueness style safe batch best-response structure
#        security kmix marginal reread book notebook
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
print=0
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
  case "$1" in
    --quick) quick=1 ;;
    --print) print=1 ;;
    *) echo "run_analysis.sh: unknown option $1 (--quick, --print)" >&2; exit 2 ;;
  esac
  shift
done
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(population heuristics convergence sensitivity uniqueness style safe batch best-response
                                 structure security kmix marginal reread book notebook)
tmp=${TMPDIR:-/tmp}/quintet-analysis-quick
b=benchmarks
command_of() {  # the step's command: full size, or (--quick) toy size with --no-write and scratch files
  if [ $quick -eq 0 ]; then
    case "$1" in
      population)    echo "python $b/bench_population.py --dealt 20000" ;;
      heuristics)    echo "python $b/bench_heuristics.py --deals 300 --epsilon 0.05 --resume" ;;
      convergence)   echo "python $b/bench_convergence.py --deals 100 --budget 10 --population both" ;;
      sensitivity)   echo "python $b/bench_convergence.py --sensitivity --budget 10" ;;
      uniqueness)    echo "python $b/bench_uniqueness.py --deals 30 --epsilon 0.01" ;;
      style)         echo "python $b/bench_style_robustness.py --deals 15 --draws 5 --records 1,2,3,5,10,20,50,100" ;;
      safe)          echo "python $b/bench_safe.py --deals 30 --limits 0,0.25,0.5,1,2" ;;
      batch)         echo "python $b/bench_batch.py --deals 8 --seed 2026 --workers 2 --epsilon 0.01 --time-limit 600 --tournament-deals 20 --book-sample 100" ;;
      best-response) echo "python $b/bench_best_response.py" ;;
      structure)     echo "python $b/bench_structure.py --deals 100" ;;
      security)      echo "python $b/bench_security.py --deals 100 --close-cpu 120" ;;
      kmix)          echo "python $b/bench_kmix.py --deals 30 --cpu-per-k 5" ;;
      marginal)      echo "python $b/bench_marginal_baseline.py --deals 10 --budget 60 --target 0.01" ;;
      reread)        echo "python $b/bench_reread.py" ;;
      book)          echo "python $b/bench_book.py --frame 1500 --sample 300 --calibrate 40" ;;
      notebook)      echo "python notebooks/src/build_overview.py --execute" ;;
      *) return 1 ;;
    esac
  else
    case "$1" in
      population)    echo "python $b/bench_population.py --dealt 200 --no-write" ;;
      heuristics)    echo "python $b/bench_heuristics.py --deals 2 --epsilon 0.2 --support-scan 3 --no-store --no-write" ;;
      convergence)   echo "python $b/bench_convergence.py --deals 1 --budget 2 --population both --hardest 1 --jsonl $tmp/convergence.jsonl --no-write" ;;
      sensitivity)   echo "python $b/bench_convergence.py --sensitivity --deals 1 --budget 2 --hardest 1 --jsonl $tmp/convergence.jsonl --sensitivity-jsonl $tmp/sensitivity.jsonl --no-write" ;;
      uniqueness)    echo "python $b/bench_uniqueness.py --deals 1 --epsilon 0.2 --reweight 1 --rounds 1 --no-write" ;;
      style)         echo "python $b/bench_style_robustness.py --deals 1 --draws 2 --records 1,2 --epsilon 0.2 --no-store --no-write" ;;
      safe)          echo "python $b/bench_safe.py --deals 1 --limits 0,1 --style-records 5 --no-store --no-write" ;;
      batch)         echo "python $b/bench_batch.py --deals 2 --repeat 1 --epsilon 0.2 --tournament-deals 2 --book-sample 2 --no-write" ;;
      best-response) echo "python $b/bench_best_response.py --deals 2 --cpsat-deals 1 --cli-runs 1 --no-write" ;;
      structure)     echo "python $b/bench_structure.py --deals 1 --cpu-limit 30 --milp-time-limit 2 --coupling-time-limit 1 --jsonl $tmp/structure.jsonl --bounds-jsonl $tmp/structure-bounds.jsonl --no-write" ;;
      security)      echo "python $b/bench_security.py --deals 1 --max-evaluations 20 --cpu-limit 30 --close-cpu 5 --structure $tmp/structure.jsonl --jsonl $tmp/security.jsonl --no-write" ;;
      kmix)          echo "python $b/bench_kmix.py --deals 1 --ks 1,2 --cpu-per-k 2 --cpu-limit 30 --recheck-every 1 --recheck-time-limit 10 --structure $tmp/structure.jsonl --security $tmp/security.jsonl --jsonl $tmp/kmix.jsonl --no-write" ;;
      marginal)      echo "python $b/bench_marginal_baseline.py --quick --no-write" ;;
      reread)        echo "python $b/bench_reread.py --no-write" ;;
      book)          echo "python $b/bench_book.py --frame 4 --sample 2 --strata 2 --pilot-classes 30 --repeats 20 --epsilon 0.2 --calibrate 1 --jsonl-dir $tmp --no-write" ;;
      notebook)      echo "python -m pytest -q -n 0 -m notebook tests/test_notebooks.py" ;;
      *) return 1 ;;
    esac
  fi
}
for step in "${steps[@]}"; do
  command=$(command_of "$step") || { echo "run_analysis.sh: unknown step $step" >&2; exit 2; }
  if [ $print -eq 1 ]; then echo "$command"; continue; fi
  [ $quick -eq 1 ] && mkdir -p "$tmp"
  echo "== $step $(date -u '+%F %T'): $command"
  $command
done
