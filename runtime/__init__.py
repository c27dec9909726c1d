"""matchrec on Spark: running planned clauses, and the surfaces users reach it through.

Where each concern lives (one module each):

Entry points (Python)
    ``api``          ``matchrec.sql`` and ``matchrec.match_recognize``: find, plan, build
    ``session``      the shared local (or Spark Connect) SparkSession
Execution (build the Spark job for a plan; what runs on executors)
    ``batch``        a plan over a batch DataFrame: shuffle, sort, ``mapInArrow``, measures
    ``partitions``   the ``mapInArrow`` functions (executor side; core imports only)
    ``streaming``    a plan over a streaming DataFrame: buckets, ``transformWithStateInPandas``
    ``dynamic``      MATCH_RECOGNIZE_DYNAMIC, batch and stream: rules from a table
    ``udtf``         the SQL table function ``match_recognize(TABLE(t), '...')``
    ``cluster``      ship matchrec to executors that lack it, and probe them
Surfaces (tools built on the entry points)
    ``cli``          the ``matchrec`` command (run, test, explain, demo); ``tables`` its files
    ``explain``      what ``matchrec.sql`` would run, without running it
    ``magic``        the ``%%matchrec`` Jupyter magic
    ``slt``          the query-suite runner (``slt_parser``, ``slt_format``), ``pytest_plugin``
    ``demo``         the main job on the sample data

Nothing here parses SQL itself: the grammar and the planner do (``matchrec.grammar``,
``matchrec.planner``).
"""
