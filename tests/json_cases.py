"""Generated inputs of Spark's JSON functions for ``tests/test_json_functions.py``.

Hand-picked edge cases and random ``(json text, path)`` pairs: valid, mutated and truncated
JSON, every form of number, unicode and escapes, deep nesting, paths built from the
document's shape and malformed ones. Deterministic for a seed.
"""

from __future__ import annotations

import json as pyjson
import random

WS = ["", "", "", " ", "\n", "\t", "\r\n  "]


def rand_number(r: random.Random) -> str:
    kind = r.randrange(12)
    if kind == 0:
        return r.choice(
            [
                "0",
                "-0",
                "0.0",
                "-0.0",
                "1e400",
                "-1e400",
                "1e-400",
                "4.9e-324",
                "1.7976931348623157e308",
                "2.2250738585072014E-308",
                "1E7",
                "9999999.0",
                "0.001",
                "0.00099",
                "1.0e2",
                "1E+2",
                "1e-2",
                "100e-2",
                "123.456e10",
                "9007199254740993",
                "9223372036854775807",
                "9223372036854775808",
                "-9223372036854775809",
                "2147483648",
                "-2147483649",
                "1e22",
                "1e23",
                "2.82879384806159E17",
                "1.0E23",
                "5e-324",
                "0.1",
                "0.30000000000000004",
            ]
        )
    if kind == 1:
        return str(r.randrange(-(10**30), 10**30))
    if kind == 2:
        return repr(r.uniform(-1e6, 1e6))
    if kind == 3:
        x = r.random() * 10.0 ** r.randrange(-323, 308)
        return repr(x).replace("e+", r.choice(["e+", "E", "e"]))
    if kind == 4:  # integer-valued doubles around 2^53..2^63 (Java 17's long path)
        v = r.randrange(2**53, 2**64)
        return repr(float(v))
    if kind == 5:
        return str(r.randrange(-1000, 1000))
    if kind == 6:  # malformed numbers
        return r.choice(
            [
                "01",
                "-01",
                "00",
                ".5",
                "1.",
                "+1",
                "NaN",
                "-Infinity",
                "Infinity",
                "1e",
                "1e+",
                "-",
                "0x10",
                "1_000",
                "1.5.5",
                "--1",
                "1ee5",
                "0.e1",
            ]
        )
    if kind == 7:
        digits = r.choice([999, 1000, 1001])
        return r.choice(["", "-"]) + "1" * digits
    if kind == 8:
        sign = r.choice(["", "-", "+"])
        return f"{r.randrange(10)}.{r.randrange(10 ** r.randrange(1, 20))}e{sign}{r.randrange(400)}"
    if kind == 9:
        return f"{r.randrange(1, 10)}{'0' * r.randrange(0, 25)}"
    if kind == 10:
        return f"{r.randrange(1, 10**17)}e{r.randrange(-30, 30)}"
    return repr(r.random())


CHARS = [
    "a",
    "b",
    "c",
    "A",
    " ",
    "é",
    "ß",
    "中",
    "😀",
    "\u2028",
    "\x7f",
    "\x01",
    "\t",
    "\n",
    '\\"',
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\u0041",
    "\\u00e9",
    "\\u0000",
    "\\u001f",
    "\\ud83d\\ude00",
    "\\uD834\\uDD1E",
    "'",
    "\\'",
    "$",
    ".",
    "[",
    "]",
    "*",
    "?",
    "0",
    "1",
]
BAD_CHARS = ["\\x", "\\ud800", "\\udc00x", "\\u12", "\\U0041", "\\a"]


def rand_string_body(r: random.Random, quote: str, bad: float = 0.01) -> str:
    out = []
    for _ in range(r.choice([0, 1, 1, 2, 3, 5, 8])):
        c = r.choice(BAD_CHARS) if r.random() < bad else r.choice(CHARS)
        if c == quote:
            c = "\\" + c
        if c == '"' and quote == "'":
            c = '"'
        out.append(c)
    s = "".join(out)
    if quote == '"':
        s = s.replace("\\'", "\\'")
    return s


def rand_string(r: random.Random) -> str:
    quote = "'" if r.random() < 0.1 else '"'
    body = rand_string_body(r, quote)
    if quote == "'":
        body = body.replace("'", "\\'") if "\\'" not in body else body
    return quote + body + quote


KEYS = [
    "a",
    "b",
    "c",
    "a b",
    "a?",
    "",
    " a",
    "a ",
    "é",
    "😀",
    "a.b",
    "a[0]",
    "*",
    "0",
    "x'y",
    "$",
    "\\u0061",
    "\\n",
]


def rand_value(r: random.Random, depth: int = 0) -> str:
    k = r.randrange(10) if depth < 5 else r.randrange(6)
    w = lambda: r.choice(WS)  # noqa: E731
    if k == 0:
        return rand_number(r)
    if k == 1:
        return rand_string(r)
    if k == 2:
        return r.choice(["true", "false", "null", "null"])
    if k in (3, 4):
        return rand_number(r) if r.random() < 0.5 else rand_string(r)
    if k == 5:
        return r.choice(["[]", "{}", "[ ]", "{ }"])
    if k in (6, 7):
        items = [w() + rand_value(r, depth + 1) + w() for _ in range(r.randrange(0, 5))]
        return "[" + ",".join(items) + "]"
    fields = []
    for _ in range(r.randrange(0, 5)):
        key = r.choice(KEYS)
        q = "'" if r.random() < 0.1 else '"'
        if q == "'":
            key = key.replace("'", "\\'")
        fields.append(w() + q + key + q + w() + ":" + w() + rand_value(r, depth + 1) + w())
    return "{" + ",".join(fields) + "}"


def mutate(r: random.Random, text: str) -> str:
    k = r.randrange(9)
    if not text:
        return text
    i = r.randrange(len(text) + 1)
    if k == 0:
        return text[:i] + text[i + 1 :]
    if k == 1:
        return text[:i] + r.choice(list(",:[]{}\"' x1-.e\\/#\x00\x0c\u00a0")) + text[i:]
    if k == 2:
        return text[:i]
    if k == 3:
        return text + r.choice([" x", "x", "}", "]", ",", " [1]", "//c", " 1", "\x00", "1", "e5"])
    if k == 4:
        return r.choice(["/*c*/", "#c\n", "\ufeff", " ", "\x0c", "\x0b", ",", "x"]) + text
    if k == 5:
        return text.replace(":", " : ", 1).replace(",", ",,", r.randrange(2))
    if k == 6:
        return text.replace('"', "'")
    if k == 7:
        return text[:i] + "]" + text[i:]
    return text.replace("[", "[,", 1)


def paths_for(r: random.Random, text: str) -> str:
    """A path: mostly following the document's shape, sometimes malformed."""

    steps: list[str] = []
    try:
        doc = pyjson.loads(text)
    except Exception:
        doc = None
    node = doc
    for _ in range(r.randrange(0, 5)):
        choice = r.random()
        if isinstance(node, dict) and node and choice < 0.7:
            key = r.choice(list(node))
            if "." not in key and "[" not in key and key and r.random() < 0.7:
                steps.append("." + key)
            elif "'" not in key and key.strip():
                steps.append("['" + key + "']")
            else:
                steps.append(".x")
            node = node[key]
        elif isinstance(node, list) and choice < 0.8:
            if node and r.random() < 0.6:
                i = r.randrange(len(node) + 1)
                steps.append(f"[{i}]")
                node = node[i] if i < len(node) else None
            else:
                steps.append("[*]")
                node = node[0] if node else None
        else:
            steps.append(
                r.choice(
                    [
                        ".a",
                        ".b",
                        "[0]",
                        "[1]",
                        "[*]",
                        ".*",
                        "['*']",
                        "['a']",
                        "[ 0]",
                        "[0 ]",
                        ". a",
                        " .a",
                        "..a",
                        ".a ",
                        "[-1]",
                        "['a' ]",
                        "[' a']",
                        "[*][*]",
                        "[00]",
                        ".",
                        "[]",
                        "['']",
                        "[ *]",
                        "[99999999999999999999]",
                        ".é",
                        ".😀",
                        "[x]",
                        "$",
                    ]
                )
            )
            node = None
    path = "$" + "".join(steps)
    if r.random() < 0.05:
        path = r.choice([" ", "", "a", "$$", "@"]) + path[1:]
    if r.random() < 0.05:
        path += r.choice([" ", "\t", "\n", "]", "'", "\x0b"])
    return path


def edge_cases() -> list[tuple[str, str]]:
    base = [
        ('{"a":1e400}', "$.a"),
        ('{"a":-1e400}', "$.a"),
        ("[1e400]", "$[*]"),
        ("[1e400,2]", "$[*]"),
        ('["😀"]', "$[*]"),
        ('["😀","x"]', "$[*]"),
        ('["😀"]', "$[0]"),
        ('[["😀"]]', "$[0]"),
        ('[["😀"]]', "$[*]"),
        ('["\\ud800"]', "$[*]"),
        ('["\\ud800"]', "$[0]"),
        ('["\\ud800"]', "$"),
        ('{"\\ud800":1}', "$"),
        ('{"😀":1}', "$"),
        ('{"😀":1}', "$.😀"),
        ('["\\ud83d\\ude00"]', "$[0]"),
        ('["\\udc00"]', "$[0]"),
        ('["\\ud800x"]', "$[0]"),
        ('["\\ud800\\ud800"]', "$[0]"),
        ('["x\\ud83dy"]', "$[*]"),
        ("true\x7f", "$"),
        ("true_", "$"),
        ("true$", "$"),
        ("trueé", "$"),
        ("true\u0300", "$"),
        ("true😀", "$"),
        ("true\u00ad", "$"),
        ("true-", "$"),
        ("true.", "$"),
        ("true,", "$"),
        ("null}", "$"),
        ("false{", "$"),
        ("1\x0b", "$"),
        ("1\x0c", "$"),
        ("1\r", "$"),
        ("1\t2", "$"),
        ("1,", "$"),
        ("1]", "$"),
        ("-", "$"),
        ("-1 x", "$"),
        ('"a" x', "$"),
        ("[" + "1" * 1000 + "]", "$[0]"),
        ("[-" + "1" * 1000 + "]", "$[0]"),
        ("[-" + "1" * 1001 + "]", "$[0]"),
        ("[1e+" + "0" * 998 + "1]", "$[0]"),
        ("[1e-" + "0" * 999 + "1]", "$[0]"),
        ("[1.5e+" + "0" * 998 + "1]", "$[0]"),
        ("[" + "1" * 1001 + ", 2]", "$[1]"),
        ('{"' + "k" * 50001 + '":1}', "$"),
        ('{"' + "k" * 50000 + '":1}', "$"),
        ('["' + "s" * 100000 + '"]', "$[0]"),
        # (deep documents with paths of hundreds of steps, or [*][*] over hundreds of nested
        # arrays, overflow the JVM stack in Spark: the query fails; see DEEP_CASES)
        ("[" * 1000 + "]" * 1000, "$" + "[0]" * 20),
        ("[" * 30 + "1" + "]" * 30, "$" + "[0]" * 30),
        ("[" * 30 + "1" + "]" * 30, "$" + "[*]" * 30),
        ("[" * 30 + "1" + "]" * 30, "$[*][*]"),
        ("[" * 1001 + "]" * 1001, "$[1]"),
        ("[" * 1000 + "]" * 999, "$"),
        ('{"a":' * 1000 + "1" + "}" * 1000, "$" + ".a" * 30),
        ('{"a":' * 1001 + "1" + "}" * 1001, "$.b"),
        ("[1,[2,[3,[4]]],5]", "$[*][*]"),
        ("[1,[2,[3,[4]]],5]", "$[*][*][*]"),
        ("[[1,[2,[3,[4]]]],[5]]", "$[*][*][*]"),
        ("[[[1,2],[3]],[[4]]]", "$[*][*][*]"),
        ("[[[1,2],[3]],[[4]]]", "$[*][0][*]"),
        ("[[[1,2],[3]],[[4]]]", "$[0][*][*]"),
        ("[[[1,2],[3]],[[4]]]", "$[1][*]"),
        ("[[[1,2],[3]],[[4]]]", "$[*][*][0]"),
        ('[{"a":"x"},{"a":"y"}]', "$[*].a"),
        ('[{"a":"x"},{"b":"y"}]', "$[*].a"),
        ('[{"a":"x"},{"a":null}]', "$[*].a"),
        ('[{"a":[1,2]},{"a":[3]}]', "$[*].a[*]"),
        ('[{"a":[1,2]},{"a":[3]}]', "$[*].a[0]"),
        ('{"a":[{"b":1},{"b":2}]}', "$.a[*].b"),
        ('{"a":[{"b":[1]},{"b":[2,3]}]}', "$.a[*].b[*]"),
        ('{"a":[{"b":[]},{"b":[]}]}', "$.a[*].b[*]"),
        ("[[],[]]", "$[*][*]"),
        ("[[],[1]]", "$[*][*]"),
        ("[]", "$[*]"),
        ("[[]]", "$[*]"),
        ("[null]", "$[*]"),
        ("[null,null]", "$[*]"),
        ("[null]", "$[0]"),
        ('{"a":null}', "$.a"),
        ('{"a":null,"a":null}', "$.a"),
        ('{"a":null,"a":"z"}', "$.a"),
        ('{"a":{"b":1},"a":{"c":2}}', "$.a.c"),
        ('{"a":"x\\ty\\u0000z"}', "$.a"),
        ('{"a":"x\\ty\\u0000z"}', "$"),
        ("{'a':'\"'}", "$.a"),
        ("{'a':'\"'}", "$"),
        ('{"a":"\\u2028\\u00ff"}', "$"),
        ('["a\\"b"]', "$[*]"),
        ("", "$"),
        (" ", "$"),
        ("\n", "$"),
        ("{}", "$"),
        ("[]", "$"),
        ("{}", "$.a"),
        ("{} x", "$"),
        ("[] x", "$"),
        ('{"a":1 x}', "$"),
        ('{"a" 1}', "$"),
        ("{,}", "$"),
        ('{"a":1,,"b":2}', "$"),
        ("[1,,2]", "$"),
        ('{"a":[1,2,3]}', "$.a[3]"),
        ('{"a":[1,2,3]}', "$.a[2]"),
        ("[1,2,3]", "$[9223372036854775807]"),
        ('{"a":{"b":{"c":"d"}}}', "$.a.b.c"),
        ('{"a":{"b":{"c":"d"}}}', "$['a']['b']['c']"),
        ('{"a":{"b":{"c":"d"}}}', "$.a['b'].c"),
        ('{"a b":1}', "$.a b"),
        ('{"a b":1}', "$['a b']"),
        ('{"a":1}', "$.a.b"),
        ('{"a":1}', "$['a'"),
        ('{"a":1}', "$[a]"),
        ('{"a":1}', "$.a[0]"),
        ("[1.0,2.50,-0.0,1E2,1e-3,1e-4,1e7,1e6,12345678.9,0.1e1]", "$"),
        ("[1.0,2.50,-0.0,1E2,1e-3,1e-4,1e7,1e6,12345678.9,0.1e1]", "$[*]"),
        ('{"a":[1,2]}', "$.a[*]"),
        ('{"a":[1]}', "$.a[*]"),
        ('{"a":["x"]}', "$.a[*]"),
        ('{"a":["x","y"]}', "$.a[*]"),
        ('{"a":["x"]}', "$.a[0]"),
        ('{"a":[["x"]]}', "$.a[0][*]"),
        ('{"a":[["x","y"]]}', "$.a[0][*]"),
    ]
    return base


def random_cases(n: int, seed: int) -> list[tuple[str, str]]:
    r = random.Random(seed)
    out = []
    for _ in range(n):
        text = rand_value(r)
        if r.random() < 0.3:
            text = r.choice(WS) + text + r.choice(WS)
        path = paths_for(r, text)
        if r.random() < 0.3:
            text = mutate(r, text)
        if r.random() < 0.02:
            d = r.randrange(990, 1010)
            text = r.choice(["[", '{"a":']) * d + rand_value(r, 5) + "]" * d
            # (no [*][*] here: flattening ~1000 nested arrays overflows Spark's JVM stack)
            path = r.choice(["$", "$[0]", "$.a", "$[0][0]", "$.a.a", "$[1]", "$[*]"])
        # Spark strings are UTF-8: keep lone surrogates out of the raw text
        text = text.encode("utf-8", "replace").decode("utf-8")
        out.append((text, path))
    return out
