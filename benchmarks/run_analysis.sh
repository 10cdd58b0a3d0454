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
#   bash benchmarks/run_analysis.sh --steps      # the steps' names, in order
# The steps are the array `all` below (--steps prints it): pilot is the Equilibrium section and the
# book's pilot, dealt the Equilibrium section's deals as dealt; profile and soundness write JSON
# lines named by the date.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
print=0
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
  case "$1" in
    --quick) quick=1 ;;
    --print) print=1 ;;
    --steps) print=2 ;;
    *) echo "run_analysis.sh: unknown option $1 (--quick, --print, --steps)" >&2; exit 2 ;;
  esac
  shift
done
steps=("$@")
all=(pilot dealt profile population heuristics convergence sensitivity uniqueness style safe batch best-response
     structure structure-bounds security security-recheck kmix marginal soundness reread book notebook)
if [ $print -eq 2 ]; then printf '%s\n' "${all[@]}"; exit 0; fi
[ ${#steps[@]} -eq 0 ] && steps=("${all[@]}")
tmp=${TMPDIR:-/tmp}/quintet-analysis-quick
b=benchmarks
command_of() {  # the step's command: full size, or (--quick) toy size with --no-write and scratch files
  if [ $quick -eq 0 ]; then
    case "$1" in
      pilot)         echo "python $b/bench_equilibrium.py --deals 300 --epsilon 0.01 --time-limit 60 --verify 5 --verify-time-limit 60" ;;
      dealt)         echo "python $b/bench_equilibrium.py --population dealt --deals 300 --epsilon 0.01 --time-limit 60 --verify 5 --verify-time-limit 60" ;;
      profile)       echo "python $b/profile_equilibrium.py --jsonl $b/data/profile-$(date -u +%F).jsonl" ;;
      population)    echo "python $b/bench_population.py --dealt 20000" ;;
      heuristics)    echo "python $b/bench_heuristics.py --deals 300 --epsilon 0.05 --resume" ;;
      convergence)   echo "python $b/bench_convergence.py --deals 100 --budget 10 --population both" ;;
      sensitivity)   echo "python $b/bench_convergence.py --sensitivity --budget 10" ;;
      uniqueness)    echo "python $b/bench_uniqueness.py --deals 30 --epsilon 0.01" ;;
      style)         echo "python $b/bench_style_robustness.py --deals 15 --draws 5 --records 1,2,3,5,10,20,50,100" ;;
      safe)          echo "python $b/bench_safe.py --deals 30 --limits 0,0.25,0.5,1,2" ;;
      batch)         echo "python $b/bench_batch.py --deals 8 --seed 2026 --workers 2 --epsilon 0.01 --time-limit 600 --tournament-deals 20 --book-sample 100" ;;
      best-response) echo "python $b/bench_best_response.py" ;;
      structure)     echo "python $b/bench_structure.py --deals 100 --milp-time-limit 5 --coupling-time-limit 1" ;;
      structure-bounds) echo "python $b/bench_structure.py --bounds --coupling-time-limit 3" ;;
      security)      echo "python $b/bench_security.py --deals 100 --close-cpu 300" ;;
      security-recheck) echo "python $b/bench_security.py --recheck 120" ;;
      kmix)          echo "python $b/bench_kmix.py --deals 30 --cpu-per-k 5" ;;
      marginal)      echo "python $b/bench_marginal_baseline.py --deals 10 --budget 60 --target 0.01" ;;
      soundness)     echo "python $b/bench_soundness.py --jsonl $b/data/soundness-$(date -u +%F).jsonl" ;;
      reread)        echo "python $b/bench_reread.py" ;;
      book)          echo "python $b/bench_book.py --frame 1500 --sample 300 --calibrate 40" ;;
      notebook)      echo "python notebooks/src/build_overview.py --execute" ;;
      *) return 1 ;;
    esac
  else
    case "$1" in
      pilot)         echo "python $b/bench_equilibrium.py --deals 2 --epsilon 0.2 --time-limit 20 --verify 1 --verify-time-limit 10 --no-write" ;;
      dealt)         echo "python $b/bench_equilibrium.py --population dealt --deals 2 --epsilon 0.2 --time-limit 20 --verify 1 --verify-time-limit 10 --no-write" ;;
      profile)       echo "python $b/profile_equilibrium.py --deals 300 --count 2 --epsilon 0.2 --time-limit 20 --jsonl $tmp/profile.jsonl --no-write" ;;
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
      security-recheck) echo "python $b/bench_security.py --deals 1 --recheck 10 --jsonl $tmp/security.jsonl --no-write" ;;
      kmix)          echo "python $b/bench_kmix.py --deals 1 --ks 1,2 --cpu-per-k 2 --cpu-limit 30 --recheck-every 1 --recheck-time-limit 10 --structure $tmp/structure.jsonl --security $tmp/security.jsonl --jsonl $tmp/kmix.jsonl --no-write" ;;
      marginal)      echo "python $b/bench_marginal_baseline.py --quick --no-write" ;;
      structure-bounds) echo "python $b/bench_structure.py --bounds --coupling-time-limit 1 --jsonl $tmp/structure.jsonl --bounds-jsonl $tmp/structure-bounds.jsonl --no-write" ;;
      soundness)     echo "python $b/bench_soundness.py --instances 3 --do-seconds 2 --basic-limit 5 --cpsat-limit 10 --jsonl $tmp/soundness.jsonl --no-write" ;;
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
