"""matchrec benchmarks: run on demand, not part of the test run.

From the repository root::

    python -m benchmarks run --rows 10000000 [--symbols 1000] [--repeat 3] [--warmup 1]
        [--workloads W1,W2,...] [--data-dir benchmarks/data] [--out results.md]
        [--budget SECONDS] [--flink [--flink-python VENV/bin/python]]
    python -m benchmarks gen --rows 10000000        # only generate the data

What runs (``workloads.py`` has the table): W1 V-shape (row-local DEFINE), W1-ALL (ALL
ROWS PER MATCH), W2 (match-dependent DEFINE with a running AVG), W3 (WITHIN 10 seconds),
W4 and W4/10 (adversarial ``((A+)+ B)``, their time ratio shows linearity), W5 (W1 in one
partition), W6 (W1 over partitions of 10 rows), and with ``--flink`` W1-FLINK, the
V-shape in the form Flink SQL accepts, by matchrec and by PyFlink if installed.
Baselines in the same run: the floor (repartition + sort + a ``mapInArrow`` that only
counts rows) for each dataset and partitioning, and naive W1 (``applyInPandas`` with a
Python loop). Everything is written to Spark's ``noop`` sink.

Spark: ``local[2]`` from :func:`matchrec.runtime.session.get_spark`, with its settings
(2 shuffle partitions, UTC) except ``spark.driver.memory``, which in local mode is the
memory of the one executor: ``--driver-memory auto`` gives 1g up to 1M rows, 2g up to
4M, 4g beyond (at 10M rows, W5 sorts every row in one task). Each job gets a fresh
SparkContext unless ``--no-isolate``, so that the Python workers' peak RSS is per job.

Data (``datagen.py``) is generated once per parameters into ``--data-dir`` (~4 MB of
Parquet per million rows) and reused. Counts of the V-shape workloads are checked with
an independent pure-Python matcher (``reference.py``) up to ``--check-max-rows``.

Timing: per job, ``--warmup`` untimed runs, then ``--repeat`` timed runs (median); each
run also counts its result rows (a Spark ``Observation``). ``--budget S`` starts no
further run of a job once its runs took S seconds (for slow workloads at 10M rows).

The run exits 1 if any job failed or any count mismatched.
"""
