"""Stateful processors that Spark's driver-side Python worker can unpickle where matchrec
is shipped to the executors rather than installed.

On a stream's first micro-batch Spark starts one Python worker on the driver's machine
(PySpark's ``transform_with_state_driver_worker``) to run the processor's ``init`` and learn
its state's schema. That worker runs the executors' Python but, unlike the executors'
workers, never puts the files of ``SparkContext.addPyFile`` on its ``sys.path``: with
matchrec shipped (:mod:`.cluster`), unpickling the processor failed with "No module named
'matchrec'" and the stream died before its first batch, while the same query ran in batch.

:class:`ShippedProcessor` pickles a processor as a call of a loader that travels by value
(cloudpickle copies the code of a function defined inside another one): the loader puts
the driver's copy of the shipped zip (matchrec, Lark, sqlglot; or the zips of
``--py-files`` the driver imported them from) first on ``sys.path``, as the executors'
workers have them, then unpickles the processor itself from bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _loader() -> Callable[[tuple[str, ...], bytes], Any]:
    """The loader, made inside this function so that cloudpickle copies it by value (the
    worker cannot import this module). It reads nothing of this module's globals."""

    def load_processor(paths: tuple[str, ...], payload: bytes) -> Any:
        import os
        import pickle
        import sys

        for path in paths:  # first, as the executors' workers put the shipped files
            if os.path.exists(path) and path not in sys.path:
                sys.path.insert(0, path)
        cls, state = pickle.loads(payload)
        processor = cls.__new__(cls)
        processor.__dict__.update(state)
        return processor

    return load_processor


class ShippedProcessor:
    """Mixin of matchrec's stateful processors: pickled through :func:`_loader`, which
    puts ``import_paths`` (:func:`.cluster.driver_worker_paths`, set by the runtime;
    empty when the workers run the driver's Python) on the path before it unpickles the
    rest."""

    import_paths: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[tuple[str, ...], bytes]]:
        from pyspark import cloudpickle

        state = dict(self.__dict__)
        return _loader(), (tuple(self.import_paths), cloudpickle.dumps((type(self), state)))
