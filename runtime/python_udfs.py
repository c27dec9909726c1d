"""Find the Python function behind a session's Python UDF, for DEFINE's glue.

``spark.udf.register("hav", hav, "double")`` keeps the function in the JVM's function
registry, pickled as PySpark sends it to its workers. DEFINE's glue calls the UDF on
values from several rows itself (``planner.python_udfs``), so it needs the function back:
the registry builds the UDF's expression for the name, whose ``func.command`` holds the
pickled ``(function, return type)``, read with PySpark's own serializer.

A classic session only (Spark Connect keeps no JVM on the client): on Spark Connect the
lookup finds a UDF registered on the session by name only (``DESCRIBE FUNCTION
EXTENDED`` names the class that ``spark.udf.register`` builds), so that its call of
several rows is refused as such, with what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from matchrec.planner.python_udfs import ARROW_BATCHED_UDF, ON_SERVER, PythonFunction, PythonLookup

from .session import describe_function, is_connect, quiet_analysis

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType


def session_python_function(spark: SparkSession) -> PythonLookup:
    """Looks a name up among ``spark``'s temporary Python UDFs (None for anything else:
    a built-in function, a SQL UDF, an unknown name, a Connect session)."""

    def lookup(name: str) -> PythonFunction | None:
        if is_connect(spark):
            return _on_server(spark, name)
        try:
            with quiet_analysis():
                return _registered(spark, name)
        except Exception:  # not a Python UDF Spark can build: the planner reports the call
            return None

    return lookup


def _on_server(spark: SparkSession, name: str) -> PythonFunction | None:
    """A UDF that ``spark.udf.register`` registered on a Connect session, by name only."""
    try:
        lines = describe_function(spark, name)
    except Exception:  # noqa: BLE001 - no function of that name: the planner reports the call
        return None
    registered = any(line.startswith("Class:") and _REGISTERED_CLASS in line for line in lines)
    if not registered:
        return None
    return PythonFunction(fn=None, return_type="", eval_type=ON_SERVER, deterministic=True)


#: the class that Spark's DESCRIBE FUNCTION names for a UDF ``spark.udf.register`` made
_REGISTERED_CLASS = ".UDFRegistration$"


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
    eval_type = int(udf.evalType())
    return PythonFunction(
        fn=fn,
        return_type=return_type.simpleString(),
        eval_type=eval_type,
        deterministic=bool(udf.udfDeterministic()),
        arrow_result=_arrow_result(spark, return_type) if eval_type == ARROW_BATCHED_UDF else None,
    )


def _arrow_result(spark: SparkSession, return_type: DataType) -> Callable[[Any], Any] | None:
    """An Arrow-optimized UDF's result as Spark gets it: PySpark's worker converts the
    Python value for Arrow, makes an Arrow array of the declared type or, failing that,
    infers one and casts it (safely as the session says). None under the legacy pandas
    conversion, which the glue does not copy."""
    if _setting(spark, _LEGACY_CONVERSION):
        return None
    try:
        import pyarrow as pa
        from pyspark.sql.conversion import LocalDataToArrowConversion
        from pyspark.sql.pandas.types import to_arrow_type
    except ImportError:  # a PySpark without these: the UDF stays refused
        return None
    safe = _setting(spark, _SAFE_CAST)
    arrow_type = to_arrow_type(
        return_type, timezone="UTC", prefers_large_types=_setting(spark, _LARGE)
    )
    to_arrow = LocalDataToArrowConversion._create_converter(
        return_type,
        none_on_identity=True,
        int_to_decimal_coercion_enabled=_setting(spark, _INT_TO_DECIMAL),
    )

    def convert(value: Any) -> Any:
        try:
            value = to_arrow(value) if to_arrow is not None else value
            try:
                array = pa.array([value], type=arrow_type)
            except pa.lib.ArrowInvalid:
                array = pa.array([value]).cast(target_type=arrow_type, safe=safe)
        except Exception as err:  # noqa: BLE001 - Spark's job fails with the same error
            failed = f"{type(err).__name__}: {err}"
            raise ValueError(f"PySpark's Arrow conversion failed: {failed}") from err
        return array.to_pylist()[0]

    return convert


#: the session settings PySpark's worker reads for an Arrow-optimized UDF's results
_LEGACY_CONVERSION = "spark.sql.legacy.execution.pythonUDF.pandas.conversion.enabled"
_SAFE_CAST = "spark.sql.execution.pandas.convertToArrowArraySafely"
_LARGE = "spark.sql.execution.arrow.useLargeVarTypes"
_INT_TO_DECIMAL = "spark.sql.execution.pythonUDF.pandas.intToDecimalCoercionEnabled"


def _setting(spark: SparkSession, key: str) -> bool:
    """A boolean setting as the session's workers get it: set, or Spark's default (which
    ``conf.get(key, default)`` would not give); False for a key this Spark lacks."""
    try:
        return str(spark.conf.get(key)).lower() == "true"
    except Exception:  # noqa: BLE001 - a setting this version of Spark does not have
        return False
