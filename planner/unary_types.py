"""Which argument types Spark refuses for a built-in function called with one argument
(``abs(flag)`` of a BOOLEAN, ``size(n)`` of an INT, ``upper(arr)`` of an ARRAY), when it
analyses the query, ANSI mode or not: the batch doors hear it from Spark; the table
function, which computes the call in Python, would answer something instead. Spark's
answer is the refusal, checked in every door at the argument as written.

:data:`_TABLE` lists, per function, the types refused as one-letter codes (:data:`CODES`)
and, after a ``/``, Spark's condition where it is not UNEXPECTED_INPUT_TYPE; read from
Spark 4.3 itself by calling each function of ``SHOW FUNCTIONS`` that takes one argument
with a NULL of each type under both ANSI settings (``tests/test_unary_types.py`` compares
it with Spark's answers). The casts written as functions (``int(x)``) have their own
checks and are not in it. A type not among the codes (SMALLINT, ARRAY<DATE>) is not
checked here; a DECIMAL of any precision reads as ``m``.
"""

from __future__ import annotations

#: a code of :data:`_TABLE` -> Spark's simple name of the type it stands for
CODES = {
    "i": "int",
    "l": "bigint",
    "d": "double",
    "m": "decimal(10,2)",
    "s": "string",
    "b": "boolean",
    "D": "date",
    "T": "timestamp",
    "N": "timestamp_ntz",
    "B": "binary",
    "a": "array<int>",
    "A": "array<string>",
    "M": "map<string,int>",
    "S": "struct<a:int>",
    "y": "interval day",
    "Y": "interval year to month",
}

_TABLE = """
    abs:bDTNBaAMS acos:bDTNBaAMSyY acosh:bDTNBaAMSyY
    approx_top_k/TYPE_CHECK_FAILURE_WITH_HINT:BaAMSyY
    approx_top_k_accumulate/TYPE_CHECK_FAILURE_WITH_HINT:BaAMSyY
    approx_top_k_combine/TYPE_CHECK_FAILURE_WITH_HINT:S approx_top_k_combine:ildmsbDTNBaAMyY
    approx_top_k_estimate/TYPE_CHECK_FAILURE_WITH_HINT:S
    approx_top_k_estimate:ildmsbDTNBaAMyY array_compact:ildmsbDTNBMSyY
    array_distinct:ildmsbDTNBMSyY array_max:ildmsbDTNBMSyY array_min:ildmsbDTNBMSyY
    array_size:ildmsbDTNBMSyY array_sort:ildmsbDTNBMSyY ascii:aAMS asin:bDTNBaAMSyY
    asinh:bDTNBaAMSyY assert_true:ildmsDTNBaAMSyY atan:bDTNBaAMSyY atanh:bDTNBaAMSyY
    avg:bDNBaAMS base64:ildmbDTNaAMSyY bin:bDTNBaAMSyY bit_and:dmsbDTNBaAMSyY
    bit_count:dmsDTNBaAMSyY bit_length:aAMS bit_or:dmsbDTNBaAMSyY bit_xor:dmsbDTNBaAMSyY
    bitmap_and_agg:ildmsbDTNaAMSyY bitmap_bit_position:bDTNBaAMSyY
    bitmap_bucket_number:bDTNBaAMSyY bitmap_construct_agg:bDTNBaAMSyY
    bitmap_count:ildmsbDTNaAMSyY bitmap_or_agg:ildmsbDTNaAMSyY bool_and:ildmDTNBaAMSyY
    bool_or:ildmDTNBaAMSyY bround:bDTNBaAMSyY btrim:aAMS cardinality:ildmsbDTNBSyY
    cbrt:bDTNBaAMSyY ceil:bDTNBaAMSyY ceiling:bDTNBaAMSyY char:bDTNBaAMSyY char_length:aAMS
    character_length:aAMS chr:bDTNBaAMSyY collation:ildmbDTNBaAMSyY
    collect_set/UNSUPPORTED_INPUT_TYPE:M collect_union:ildmsbDTNBMSyY concat_ws:aAMS
    cos:bDTNBaAMSyY cosh:bDTNBaAMSyY cot:bDTNBaAMSyY count_if:ildmDTNBaAMSyY
    counter_diff:sbDTNBaAMSyY crc32:ildmbDTNaAMSyY csc:bDTNBaAMSyY
    date_from_unix_date:bDTNBaAMSyY day:ildmbBaAMSyY dayname:ildmbBaAMSyY
    dayofmonth:ildmbBaAMSyY dayofweek:ildmbBaAMSyY dayofyear:ildmbBaAMSyY
    degrees:bDTNBaAMSyY every:ildmDTNBaAMSyY exp:bDTNBaAMSyY explode:ildmsbDTNBSyY
    explode_outer:ildmsbDTNBSyY expm1:bDTNBaAMSyY factorial:bDTNBaAMSyY
    flatten:ildmsbDTNBaAMSyY floor:bDTNBaAMSyY format_string:aAMS from_base32:aAMS
    from_unixtime:bDTNBaAMSyY hex:aAMS hll_sketch_agg:dmbDTNaAMSyY
    hll_sketch_estimate:ildmsbDTNaAMSyY hll_union_agg:ildmsbDTNaAMSyY hour:ildmbBaAMSyY
    initcap:aAMS inline:ildmsbDTNBaAMSyY inline_outer:ildmsbDTNBaAMSyY is_valid_utf8:aAMS
    is_valid_variant:ildmsbDTNBaAMSyY is_variant_null:ildmsbDTNBaAMSyY isnan:bDTNBaAMSyY
    json_array_length:ildmbDTNBaAMSyY json_object_keys:ildmbDTNBaAMSyY
    kll_merge_agg_bigint:ildmsbDTNaAMSyY kll_merge_agg_double:ildmsbDTNaAMSyY
    kll_merge_agg_float:ildmsbDTNaAMSyY kll_sketch_agg_bigint:dmsbDTNBaAMSyY
    kll_sketch_agg_double:ilmsbDTNBaAMSyY kll_sketch_agg_float:ildmsbDTNBaAMSyY
    kll_sketch_get_n_bigint:ildmbDTNaAMSyY kll_sketch_get_n_double:ildmbDTNaAMSyY
    kll_sketch_get_n_float:ildmbDTNaAMSyY kll_sketch_to_string_bigint:ildmbDTNaAMSyY
    kll_sketch_to_string_double:ildmbDTNaAMSyY kll_sketch_to_string_float:ildmbDTNaAMSyY
    kurtosis:bDTNBaAMSyY last_day:ildmbBaAMSyY lcase:aAMS len:aAMS length:aAMS listagg:aAMS
    ln:bDTNBaAMSyY log:bDTNBaAMSyY log10:bDTNBaAMSyY log1p:bDTNBaAMSyY log2:bDTNBaAMSyY
    lower:aAMS ltrim:aAMS luhn_check:aAMS make_dt_interval:bDTNBaAMSyY
    make_interval:bDTNBaAMSyY make_timestamp:ildmsbTNBaAMSyY make_valid_utf8:aAMS
    make_ym_interval:bDTNBaAMSyY map_entries:ildmsbDTNBaASyY
    map_from_entries:ildmsbDTNBaAMSyY map_keys:ildmsbDTNBaASyY map_values:ildmsbDTNBaASyY
    mask:ildmbDTNBaAMSyY md5:ildmbDTNaAMSyY mean:bDNBaAMS median:bBaAMS minute:ildmbBaAMSyY
    month:ildmbBaAMSyY monthname:ildmbBaAMSyY negative:bDTNBaAMS ntile:ldmsbDTNBaAMSyY
    octet_length:aAMS parse_json:ildmbDTNBaAMSyY posexplode:ildmsbDTNBSyY
    posexplode_outer:ildmsbDTNBSyY positive:bDTNBaAMS printf:aAMS quarter:ildmbBaAMSyY
    quote:aAMS radians:bDTNBaAMSyY raise_error:aAMS rand:dmsbDTNBaAMSyY randn:dmsbDTNBaAMSyY
    random:dmsbDTNBaAMSyY randstr:bDTNBaAMSyY reverse:MS rint:bDTNBaAMSyY round:bDTNBaAMSyY
    rtrim:aAMS schema_of_avro/TYPE_CHECK_FAILURE_WITH_HINT:ildmbDTNBaAMSyY
    schema_of_variant:ildmsbDTNBaAMSyY schema_of_variant_agg:ildmsbDTNBaAMSyY
    sec:bDTNBaAMSyY second:ildmbBaAMSyY sentences:aAMS sha:ildmbDTNaAMSyY
    sha1:ildmbDTNaAMSyY shuffle:ildmsbDTNBMSyY sign:bDTNBaAMS signum:bDTNBaAMS
    sin:bDTNBaAMSyY sinh:bDTNBaAMSyY size:ildmsbDTNBSyY skewness:bDTNBaAMSyY
    sort_array:ildmsbDTNBMSyY soundex:ildmbDTNBaAMSyY space:bDTNBaAMSyY sqrt:bDTNBaAMSyY
    st_asbinary:ildmsbDTNBaAMSyY st_geogfromwkb:ildmbDTNaAMSyY st_geomfromwkb:ildmbDTNaAMSyY
    st_srid:ildmsbDTNBaAMSyY std:bDTNBaAMSyY stddev:bDTNBaAMSyY stddev_pop:bDTNBaAMSyY
    stddev_samp:bDTNBaAMSyY str_to_map:ildmbDTNBaAMSyY string_agg:aAMS sum:bDNBaAMS
    tan:bDTNBaAMSyY tanh:bDTNBaAMSyY theta_intersection_agg:ildmsbDTNaAMSyY
    theta_sketch_agg:mbDTNAMSyY theta_sketch_estimate:ildmsbDTNaAMSyY
    theta_union_agg:ildmsbDTNaAMSyY timestamp_micros:dmsbDTNBaAMSyY
    timestamp_millis:dmsbDTNBaAMSyY timestamp_nanos:dsbDTNBaAMSyY
    timestamp_seconds:sbDTNBaAMSyY to_base32:ildmbDTNaAMSyY to_binary:aAMS
    to_csv/UNSUPPORTED_INPUT_TYPE:ildmsbDTNBaAMyY to_date:aAMS to_timestamp:aAMS
    to_timestamp_ltz:aAMS to_timestamp_ntz:aAMS to_unix_timestamp:ildmbBaAMSyY
    to_xml:ildmsbDTNBaAMyY trim:aAMS try_avg:bDNBaAMS try_make_interval:bDTNBaAMSyY
    try_make_timestamp:ildmsbTNBaAMSyY try_parse_json:ildmbDTNBaAMSyY try_sum:bDNBaAMS
    try_to_binary:aAMS try_to_date:aAMS try_to_timestamp:aAMS try_url_decode:aAMS
    try_validate_utf8:aAMS tuple_intersection_agg_double:ildmbDTNaAMSyY
    tuple_intersection_agg_integer:ildmbDTNaAMSyY
    tuple_sketch_estimate_double:ildmsbDTNaAMSyY
    tuple_sketch_estimate_integer:ildmsbDTNaAMSyY
    tuple_sketch_summary_double:ildmsbDTNaAMSyY tuple_sketch_summary_integer:ildmsbDTNaAMSyY
    tuple_sketch_theta_double:ildmsbDTNaAMSyY tuple_sketch_theta_integer:ildmsbDTNaAMSyY
    tuple_union_agg_double:ildmbDTNaAMSyY tuple_union_agg_integer:ildmbDTNaAMSyY ucase:aAMS
    unbase64:aAMS unhex:aAMS unix_date:ildmsbTNBaAMSyY unix_micros:ildmsbDBaAMSyY
    unix_millis:ildmsbDBaAMSyY unix_nanos:ildmsbDTNBaAMSyY unix_seconds:ildmsbDBaAMSyY
    unix_timestamp:ildmbBaAMSyY upper:aAMS url_decode:aAMS url_encode:aAMS
    validate_utf8:aAMS var_pop:bDTNBaAMSyY var_samp:bDTNBaAMSyY variance:bDTNBaAMSyY
    variant_strip_nulls:ildmsbDTNBaAMSyY vector_avg:ildmsbDTNBaAMSyY
    vector_norm:ildmsbDTNBaAMSyY vector_normalize:ildmsbDTNBaAMSyY
    vector_sum:ildmsbDTNBaAMSyY weekday:ildmbBaAMSyY weekofyear:ildmbBaAMSyY
    window_time:ildmsbDTNBaAMyY year:ildmbBaAMSyY zeroifnull/DATA_DIFF_TYPES:bDTNBaAMSyY
"""

_DEFAULT = "UNEXPECTED_INPUT_TYPE"


def _read(table: str) -> dict[str, dict[str, str]]:
    """function name -> Spark's name of a type it refuses -> Spark's condition."""
    refusals: dict[str, dict[str, str]] = {}
    for entry in table.split():
        head, codes = entry.split(":")
        name, _, condition = head.partition("/")
        refused = refusals.setdefault(name, {})
        for code in codes:
            refused[CODES[code]] = condition or _DEFAULT
    return refusals


#: function name -> refused type name -> Spark's DATATYPE_MISMATCH condition
UNARY_REFUSALS: dict[str, dict[str, str]] = _read(_TABLE)


def unary_refusal(name: str, type_name: str) -> str | None:
    """Spark's DATATYPE_MISMATCH condition for ``name`` called with one argument of type
    ``type_name``, or None where it takes it (or the type is not one checked here)."""
    refused = UNARY_REFUSALS.get(name.lower())
    if refused is None:
        return None
    key = "decimal(10,2)" if type_name.lower().startswith("decimal(") else type_name.lower()
    return refused.get(key)
