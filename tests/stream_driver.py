"""A driver process for the killed-driver test: runs the card-fraud stream of
``test_streaming`` over ``ROOT/in`` into ``ROOT/out`` (checkpoint ``ROOT/chk``) until it
is killed. Usage: ``python stream_driver.py ROOT``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from matchrec.runtime.session import get_spark  # noqa: E402
from streams import FolderStream  # noqa: E402
from test_streaming import CARDS, FRAUD  # noqa: E402

import matchrec  # noqa: E402


def main(root: str) -> None:
    spark = get_spark()
    stream = FolderStream(spark, Path(root), CARDS, "ts", "2 minutes")
    stream.source().createOrReplaceTempView("events")
    query = stream.start(matchrec.sql(spark, FRAUD))
    print("started", flush=True)
    while True:  # until killed
        query.processAllAvailable()
        time.sleep(0.2)


if __name__ == "__main__":
    main(sys.argv[1])
