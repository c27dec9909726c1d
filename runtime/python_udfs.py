"""Find the Python function behind a session's Python UDF, for DEFINE's glue.

``spark.udf.register("hav", hav, "double")`` keeps the function in the JVM's function
registry, pickled as PySpark sends it to its workers. DEFINE's glue calls the UDF on
values from several rows itself (``planner.python_udfs``), so it needs the function back:
the registry builds the UDF's expression for the name, whose ``func.command`` holds the
pickled ``(function, return type)``, read with PySpark's own serializer.

A classic session only (Spark Connect keeps no JVM on the client): elsewhere the lookup
finds nothing and the call stays a positioned error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matchrec.planner.python_udfs import PythonFunction, PythonLookup

from .session import is_connect, quiet_analysis

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def session_python_function(spark: SparkSession) -> PythonLookup:
    """Looks a name up among ``spark``'s temporary Python UDFs (None for anything else:
    a built-in function, a SQL UDF, an unknown name, a Connect session)."""

    def lookup(name: str) -> PythonFunction | None:
        if is_connect(spark):
            return None
        try:
            with quiet_analysis():
                return _registered(spark, name)
        except Exception:  # not a Python UDF Spark can build: the planner reports the call
            return None

    return lookup


def _registered(spark: SparkSession, name: str) -> PythonFunction | None:
    from pyspark.serializers import CloudPickleSerializer

    jvm = spark._jvm
    option = jvm.scala.Option.apply
    identifier = jvm.org.apache.spark.sql.catalyst.FunctionIdentifier(
        name.lower(), option("session"), option("system")
    )
    registry = spark._jsparkSession.sessionState().functionRegistry()
    builder = registry.lookupFunctionBuilder(identifier)
    if not builder.isDefined():
        return None
    # a Python UDF takes any number of arguments: build its expression over none
    udf = builder.get().apply(jvm.org.apache.spark.api.python.PythonUtils.toSeq([]))
    if udf.getClass().getSimpleName() != "PythonUDF":
        return None
    command = bytes(udf.func().command().toArray(jvm.scala.reflect.ClassTag.Byte()))
    fn, return_type = CloudPickleSerializer().loads(command)
    return PythonFunction(
        fn=fn,
        return_type=return_type.simpleString(),
        eval_type=int(udf.evalType()),
        deterministic=bool(udf.udfDeterministic()),
    )
