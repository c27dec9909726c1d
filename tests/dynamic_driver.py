"""A driver process for the killed-driver test of MATCH_RECOGNIZE_DYNAMIC: runs the
rule stream of ``test_dynamic`` over ``ROOT/in`` and ``ROOT/rules`` into ``ROOT/out``
(checkpoint ``ROOT/chk``) until it is killed. Usage: ``python dynamic_driver.py ROOT``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from matchrec.runtime.session import get_spark  # noqa: E402
from streams import FolderStream  # noqa: E402
from test_dynamic import EVENTS, dynamic_stream  # noqa: E402


def main(root: str) -> None:
    spark = get_spark()
    spark.conf.set("spark.matchrec.stream.buckets", "2")
    stream = FolderStream(spark, Path(root), EVENTS, "ts", "5 minutes")
    query = stream.start(dynamic_stream(spark, stream.source(), Path(root) / "rules"))
    while True:  # until killed
        query.processAllAvailable()
        time.sleep(0.2)


if __name__ == "__main__":
    main(sys.argv[1])
