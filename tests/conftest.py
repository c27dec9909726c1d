"""Shared fixtures.

``spark`` is the one SparkSession of the test run (:func:`matchrec.runtime.session.get_spark`).
Only tests that ask for it start Spark; pure-Python tests never do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The session-wide local SparkSession (started on first use, reused after)."""
    from matchrec.runtime.session import get_spark

    yield get_spark()
