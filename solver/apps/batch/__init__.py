"""``quintet-batch`` — solve many deals into the store: resumable, parallel, or on Dask.

    quintet-batch "8h 7h 9d Ts 7s Qc Jc" "As Ks Qs Js Ts Ah Kh"   # deals as arguments
    quintet-batch --file deals.txt                                # one deal (7 cards) per line
    quintet-batch --random 100 --seed 1 --workers 2               # a seeded random sample
    quintet-batch --all --limit 1000                              # the book, first 1,000 classes
    quintet-batch --random 20 --executor dask                       # on a Dask LocalCluster
    quintet-batch --random 20 --executor dask --scheduler tcp://host:8786
    quintet-batch --book-size --sample 10                         # the book's size and cost

What a batch does
-----------------
Every deal is reduced to its suit-canonical form (``quintet.symmetry``); suit-equivalent
deals in the list are one job.  A deal whose canonical key already has an entry in the
store certified at the requested ε (stored exploitability ≤ ε) is **skipped**; a weaker
entry (an earlier run hit its time limit), or one written by an earlier certificate version
(*stale*: never served), warm-starts the new solve — the look-up ``solve_equilibrium`` does,
through the same ``solver.advisor.equilibrium.EquilibriumStore``.  Each job runs
``solver.advisor.equilibrium.equilibrium`` on the canonical deal in a worker, and the batch process
commits its record to the store **as soon as it arrives**, in its own transaction (the
store keeps the better record).  So the store always holds every finished deal: kill the
batch at any moment, start it again with the same arguments, and it skips what is done and
solves the rest (a deal in flight when the batch was killed is solved again).  Only the
batch process writes the store, so workers need no access to it — which is what lets the
same work run on a remote Dask cluster.

The modules, one concern each:

* ``deals`` — deal sources: arguments, files, seeded random samples, the whole book;
* ``jobs`` — one job as a worker runs it (``solve_job`` → ``JobResult``: plain data);
* ``executors`` — where jobs run: in-process, a local process pool, a Dask cluster;
* ``run`` — ``run_batch``: store look-ups, the job queue, commits, ``BatchSummary``;
* ``progress`` — the progress display on stderr (``BatchProgress``, tqdm);
* ``book`` — the book's size and the CPU-hours estimate (``book_estimate``);
* ``cli`` — the ``quintet-batch`` command.
"""

from solver.apps.batch.book import BookEstimate, book_estimate
from solver.apps.batch.deals import all_deals, book_sample, canonical_key, random_deals, read_deal_file
from solver.apps.batch.executors import EXECUTORS
from solver.apps.batch.progress import BatchProgress
from solver.apps.batch.run import BatchSummary, run_batch
from solver.apps.batch.tasks import JobResult, solve_job

__all__ = [
    "EXECUTORS",
    "JobResult",
    "BatchSummary",
    "BatchProgress",
    "BookEstimate",
    "all_deals",
    "canonical_key",
    "random_deals",
    "read_deal_file",
    "book_sample",
    "solve_job",
    "run_batch",
    "book_estimate",
]
