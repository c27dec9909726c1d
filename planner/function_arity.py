"""How many arguments each Spark built-in function takes, checked when a query is built.

``substr(s)`` or ``upper(s, 1)`` is Spark's WRONG_NUM_ARGS. The batch doors asked Spark
and placed its message at the condition; the table function, whose row-local DEFINE
conditions Spark analyses only after ``analyze`` returned, showed Spark's raw error with
no caret. A built-in's name comes first on Spark's search path (a session function cannot
take it), so the count is checked here for every door, at the call as written.

:data:`_TABLE` lists, per count, the functions Spark 4.3 does not refuse with
WRONG_NUM_ARGS when called with that many arguments, read from Spark itself by calling
each function of ``SHOW FUNCTIONS`` with 0 to 10 and 16 NULLs (``tests/test_function_arity.py``
compares it with Spark's answers): ``1-3,6`` are counts, ``+`` more than 10 too. A count
Spark refuses for another reason first counts as taken: the table never refuses what
Spark takes. FIRST and LAST (row pattern navigation here) and CAST are not in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from matchrec.errors import SemanticError

_TABLE = """
1: abs acos acosh any array_agg array_compact array_distinct array_max array_min
    array_size ascii asin asinh atan atanh avg base64 bigint bin binary bit_and
    bit_count bit_length bit_or bit_xor bitmap_and_agg bitmap_bit_position
    bitmap_bucket_number bitmap_construct_agg bitmap_count bitmap_or_agg bool_and
    bool_or boolean cardinality cbrt char char_length character_length chr collation
    collect_list collect_set collect_union cos cosh cot count_if crc32 csc date
    date_from_unix_date day dayname dayofmonth dayofweek dayofyear decimal degrees
    double every exp expm1 factorial flatten float from_base32 grouping hex
    hll_sketch_estimate initcap int is_valid_utf8 is_valid_variant is_variant_null isnan
    isnotnull isnull json_array_length json_object_keys kll_sketch_get_n_bigint
    kll_sketch_get_n_double kll_sketch_get_n_float kll_sketch_to_string_bigint
    kll_sketch_to_string_double kll_sketch_to_string_float kurtosis last_day lcase len
    length ln log10 log1p log2 lower luhn_check make_valid_utf8 map_entries
    map_from_entries map_keys map_values max md5 mean measure median min month monthname
    negative nullifzero octet_length parse_json percentile_cont percentile_disc positive
    quarter quote radians raise_error reverse rint schema_of_variant
    schema_of_variant_agg sec sha sha1 sign signum sin sinh size skewness smallint some
    soundex space sqrt st_geogfromwkb st_srid std stddev stddev_pop stddev_samp string
    sum tan tanh theta_intersection_agg theta_sketch_estimate time time_from_micros
    time_from_millis time_from_seconds time_to_micros time_to_millis time_to_seconds
    timestamp timestamp_micros timestamp_millis timestamp_nanos timestamp_seconds
    tinyint to_base32 to_variant_object try_avg try_parse_json try_sum try_url_decode
    try_validate_utf8 tuple_sketch_estimate_double tuple_sketch_estimate_integer
    tuple_sketch_theta_double tuple_sketch_theta_integer typeof ucase unbase64 unhex
    unix_date unix_micros unix_millis unix_nanos unix_seconds upper url_decode
    url_encode validate_utf8 var_pop var_samp variance vector_avg vector_sum weekday
    weekofyear window_time year zeroifnull
2: add_months and array_append array_contains array_except array_intersect
    array_position array_prepend array_remove array_repeat array_union arrays_overlap
    atan2 bit_get collate contains corr covar_pop covar_samp date_add date_diff
    date_format date_part date_sub date_trunc dateadd datediff datepart div element_at
    encode endswith equal_null exists extract filter find_in_set forall format_number
    from_utc_timestamp get get_json_object getbit histogram_numeric hypot ifnull
    jaro_winkler_similarity kll_sketch_get_quantile_bigint
    kll_sketch_get_quantile_double kll_sketch_get_quantile_float
    kll_sketch_get_rank_bigint kll_sketch_get_rank_double kll_sketch_get_rank_float
    kll_sketch_merge_bigint kll_sketch_merge_double kll_sketch_merge_float left
    map_contains_key map_filter map_from_arrays mod nanvl next_day nullif nvl or pmod
    pow power regexp regexp_count regexp_like regexp_substr regr_avgx regr_avgy
    regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy repeat right
    rlike session_window sha2 shiftleft shiftright shiftrightunsigned st_setsrid
    startswith theta_difference theta_intersection time_trunc to_char to_number
    to_utc_timestamp to_varchar transform transform_keys transform_values trunc try_add
    try_divide try_element_at try_mod try_multiply try_subtract try_to_number
    tuple_difference_double tuple_difference_integer tuple_difference_theta_double
    tuple_difference_theta_integer vector_cosine_similarity vector_inner_product
    vector_l2_distance xpath xpath_boolean xpath_double xpath_float xpath_int xpath_long
    xpath_number xpath_short xpath_string
1-2: any_value approx_count_distinct approx_top_k_accumulate approx_top_k_combine
    approx_top_k_estimate array_sort assert_true bround btrim ceil ceiling first_value
    floor from_unixtime hll_sketch_agg hll_union_agg kll_merge_agg_bigint
    kll_merge_agg_double kll_merge_agg_float kll_sketch_agg_bigint kll_sketch_agg_double
    kll_sketch_agg_float last_value listagg log ltrim randstr round rtrim schema_of_avro
    schema_of_csv schema_of_json schema_of_xml shuffle sort_array st_asbinary
    st_geomfromwkb string_agg theta_sketch_agg theta_union_agg to_avro to_binary to_csv
    to_date to_json to_time to_timestamp to_timestamp_ltz to_timestamp_ntz
    to_unix_timestamp to_xml trim try_to_binary try_to_date try_to_time try_to_timestamp
    tuple_intersection_agg_double tuple_intersection_agg_integer
    tuple_sketch_summary_double tuple_sketch_summary_integer vector_norm
    vector_normalize
2-3: approx_percentile array_join convert_timezone from_avro from_csv from_json from_xml
    hll_union hmac ilike levenshtein like locate lpad max_by min_by months_between
    nth_value parse_url percentile percentile_approx position regexp_extract
    regexp_extract_all regexp_instr replace rpad sequence split substr substring
    theta_union time_bucket try_parse_url try_variant_get tuple_intersection_double
    tuple_intersection_integer tuple_intersection_theta_double
    tuple_intersection_theta_integer uniform variant_get
3: array_insert between conv if make_date make_time map_zip_with nvl2 slice split_part
    substring_index time_diff translate try_variant_array_append try_variant_insert
    variant_array_append variant_insert zip_with
0: cume_dist curdate current_catalog current_database current_schema current_timezone e
    input_file_block_length input_file_block_start input_file_name
    monotonically_increasing_id pi row_number spark_partition_id version
0-1: explode explode_outer inline inline_outer localtimestamp now ntile posexplode
    posexplode_outer rand randn random uuid
0-4: count_min_sketch lag lead make_dt_interval try_variant_set tuple_sketch_agg_double
    tuple_sketch_agg_integer tuple_union_double tuple_union_integer
    tuple_union_theta_double tuple_union_theta_integer variant_set
1-10+: coalesce concat_ws count format_string hash hour minute not printf second xxhash64
2-10+: decode elt greatest java_method json_tuple least reflect stack try_reflect
    variant_delete
0-2: counter_diff make_ym_interval mode unix_timestamp variant_strip_nulls
2-4: from_protobuf instr to_protobuf window
3-4: aggregate overlay reduce regexp_replace
1-3: approx_top_k sentences str_to_map
0,2,4,6,8,10+: map named_struct
0-3: tuple_union_agg_double tuple_union_agg_integer
1-3,6-7: make_timestamp try_make_timestamp
2,6: make_timestamp_ntz try_make_timestamp_ntz
2-3,6-7: make_timestamp_ltz try_make_timestamp_ltz
2-5: aes_decrypt try_aes_decrypt
0-5: mask
0-7: make_interval
1-7: try_make_interval
2-6: aes_encrypt
4: width_bucket
"""


@dataclass(frozen=True)
class Arity:
    counts: frozenset[int]  # the counts up to 10 that Spark takes
    more: bool  # whether it takes more than 10

    def takes(self, count: int) -> bool:
        return count in self.counts if count <= 10 else self.more

    def written(self) -> str:
        """The counts as a message says them: ``2 or 3``, ``1 to 4``, ``at least 2``."""
        counts = sorted(self.counts)
        if self.more and counts == list(range(counts[0], 11)):
            return f"at least {counts[0]}"
        if self.more:
            return f"{', '.join(map(str, counts))}, ..."
        if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
            return f"{counts[0]} to {counts[-1]}"
        return " or ".join(", ".join(map(str, counts)).rsplit(", ", 1))


def _read(table: str) -> dict[str, Arity]:
    arities: dict[str, Arity] = {}
    for spec, names in re.findall(r"^(\S+): ((?:.*\n?)(?:    .*\n?)*)", table, re.MULTILINE):
        more = spec.endswith("+")
        counts: set[int] = set()
        for part in spec.rstrip("+").split(","):
            low, _, high = part.partition("-")
            counts.update(range(int(low), int(high or low) + 1))
        for name in names.split():
            arities[name] = Arity(frozenset(counts), more)
    return arities


#: counts taken beyond the registry's: the calls Spark's parser reads with a unit first
#: (``datediff(DAY, a, b)`` is timestampdiff), and ``count()``, the match's rows in
#: MATCH_RECOGNIZE (Trino's reading; README)
_OTHER_COUNTS = {"datediff": 3, "date_diff": 3, "dateadd": 3, "date_add": 3, "count": 0}

#: Spark's functions whose names are also infix keywords: ``x AND (a OR b)``,
#: ``10 DIV (n - 7)``, ``s LIKE ANY ('a%', p)`` are no calls
_OPERATOR_WORDS = frozenset(
    {"and", "or", "not", "between", "div", "like", "ilike", "rlike", "regexp", "any", "some"}
)

SPARK_ARITIES: dict[str, Arity] = {
    name: arity for name, arity in _read(_TABLE).items() if name not in _OPERATOR_WORDS
}

#: words that give a call a syntax of its own (``trim(BOTH 'x' FROM s)``,
#: ``position('a' IN s)``, ``f(x => 1)``), whose arguments are not counted here
_SPECIAL_WORDS = frozenset({"FROM", "IN", "FOR", "PLACING", "BOTH", "LEADING", "TRAILING", "AS"})


def written_arguments(sql: str, opening: int) -> list[int] | None:
    """Where each argument starts of the call whose ``(`` is at ``opening``; None where
    the call is not plain (a keyword of a call's own syntax, a named argument, an
    unclosed parenthesis)."""
    depth, starts, current, i = 0, [], None, opening + 1
    while i < len(sql):
        ch = sql[i]
        if sql.startswith("--", i) or sql.startswith("/*", i):
            end = sql.find("\n" if ch == "-" else "*/", i + 2)
            if end < 0:
                return None
            i = end + (1 if ch == "-" else 2)
            continue
        if current is None and not ch.isspace() and not (depth == 0 and ch in ",)"):
            current = i  # the first character of an argument
        if ch in "'\"`":
            end = _quoted_end(sql, i)
            if end is None:
                return None
            i = end
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return starts + ([current] if current is not None else []) if ch == ")" else None
            depth -= 1
        elif depth == 0 and ch == ",":
            starts.append(i if current is None else current)
            current = None
        elif depth == 0 and sql.startswith("=>", i):
            return None
        elif depth == 0 and (ch.isalpha() or ch == "_"):
            word = re.match(r"\w+", sql[i:]).group(0)
            if word.upper() in _SPECIAL_WORDS:
                return None
            i += len(word)
            continue
        i += 1
    return None


def _quoted_end(sql: str, start: int) -> int | None:
    """The offset after the string or quoted name that opens at ``start`` (a doubled
    quote, or a backslash in a string, escapes the next character)."""
    quote, i = sql[start], start + 1
    while i < len(sql):
        if sql[i] == "\\" and quote != "`":
            i += 2
        elif sql[i] == quote:
            if sql.startswith(quote * 2, i):
                i += 2
            else:
                return i + 1
        else:
            i += 1
    return None


#: a call as written: its name, then its parenthesis
CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
#: what before a name makes it a qualified one's (``default.upper(x)``) or a type's
#: (``x :: decimal(9, 2)``, ``ARRAY<decimal(9, 2)>``)
_TYPE_OR_QUALIFIED = re.compile(r"(?:\.|::|<)\s*\Z")


#: a count of arguments read as one ("1", "at least 1"): "argument", not "arguments"
_ONE = re.compile(r"(?:at (?:least|most) )?1")


def arity_error(sql: str, pos: int) -> SemanticError | None:
    """Spark's WRONG_NUM_ARGS for the built-in call written at ``pos`` of ``sql``, or None
    (not such a call, or one Spark takes)."""
    found = CALL.match(sql, pos)
    if found is None or _TYPE_OR_QUALIFIED.search(sql, 0, pos):
        return None  # default.upper(...) is no built-in's; decimal(10, 2) may be a type
    name = found.group(1)
    arity = SPARK_ARITIES.get(name.lower())
    if arity is None:
        return None
    starts = written_arguments(sql, found.end() - 1)
    count = None if starts is None else len(starts)
    if count is None or arity.takes(count) or count == _OTHER_COUNTS.get(name.lower()):
        return None
    most = max(arity.counts) if arity.counts and not arity.more else None
    if most is not None and count > most:
        pos = starts[most]  # the first argument too many
    taken = arity.written()
    return SemanticError(
        f"[WRONG_NUM_ARGS] {name}() takes {taken} argument{'' if _ONE.fullmatch(taken) else 's'}, "
        f"not {count}",
        sql=sql,
        pos=pos,
        hint=f"DESCRIBE FUNCTION {name.lower()} shows how Spark calls it",
    )
