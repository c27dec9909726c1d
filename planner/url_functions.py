"""Pure-Python emulation of Spark 4.3's ``parse_url`` and ``try_parse_url``.

What and why
------------
matchrec evaluates some Spark SQL expressions itself (outside the JVM) and
must answer exactly as Spark does.  Spark's ``parse_url(url, part[, key])``
(``ParseUrlEvaluator`` in sql/catalyst, ``expressions/url``) does::

    uri = new java.net.URI(url)        // URISyntaxException -> NULL, or
                                       // INVALID_URL error when ANSI is on
    HOST      -> uri.getHost
    PATH      -> uri.getRawPath
    QUERY     -> uri.getRawQuery
    REF       -> uri.getRawFragment
    PROTOCOL  -> uri.getScheme
    FILE      -> getRawPath + "?" + getRawQuery   (just getRawPath if no query)
    AUTHORITY -> uri.getRawAuthority
    USERINFO  -> uri.getRawUserInfo
    other     -> NULL          (part names are case-sensitive, byte equality)

With a key, the part must be exactly ``QUERY`` (otherwise NULL, *before*
the URL is even parsed, so a malformed URL does not raise then); the value is
``m.group(2)`` of the first ``find()`` of the Java regex
``"(&|^)" + key + "=([^&]*)"`` over the raw query.  The key is NOT quoted:
it is a Java regular expression (``a.b`` matches ``aXb=``).  An invalid key
regex raises a PatternSyntaxException in Spark in every mode (also in
``try_parse_url``), but only when a query string is present.
``try_parse_url`` is ``parse_url`` with failOnError=false.  Any NULL argument
gives NULL.

What it copies from Java
------------------------
``java.net.URI(String)`` parsing (OpenJDK 17 ``URI.Parser``: RFC 2396 plus
Java's deviations - RFC 2732 IPv6 literals with scope ids, empty authority
before a path, empty relative paths, unescaped non-ASCII "other" characters,
server-vs-registry authority fallback, int-overflowing port rejection) is
re-implemented here from the grammar; the character classes are those of
URI's L_*/H_* masks.  One Java quirk is kept: an over-long decimal byte inside
an IPv6 literal's embedded IPv4 part (``[::1.2.3.99999999999]``) makes
``Integer.parseInt`` throw a NumberFormatException that URI does not catch, so
Spark fails in every mode; we raise ValueError in every mode for it.

The Java regex of the key is translated by :mod:`matchrec.planner.java_regex`, which
refuses (with the glue's positioned error) what it cannot translate exactly.

Malformed URL under ANSI: Spark raises error class INVALID_URL; here that is a
``ValueError`` whose message starts with ``[INVALID_URL]``.
"""

from __future__ import annotations

import unicodedata

from .java_regex import search, translate

__all__ = ["parse_url", "try_parse_url", "java_uri_components", "UriSyntaxError"]

# ---------------------------------------------------------------------------
# Character classes (java.net.URI L_*/H_* masks, ASCII only; NUL never matches)
# ---------------------------------------------------------------------------
_DIGIT = frozenset("0123456789")
_ALPHA = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ALPHANUM = _DIGIT | _ALPHA
_HEX = _DIGIT | frozenset("ABCDEFabcdef")
_MARK = frozenset("-_.!~*'()")
_UNRESERVED = _ALPHANUM | _MARK
_RESERVED = frozenset(";/?:@&=+$,[]")
_URIC = _RESERVED | _UNRESERVED  # + escapes
_PCHAR = _UNRESERVED | frozenset(":@&=+$,")  # + escapes
_PATH = _PCHAR | frozenset(";/")  # + escapes
_USERINFO = _UNRESERVED | frozenset(";:&=+$,")  # + escapes
_REG_NAME = _UNRESERVED | frozenset("$,;:@&=+")  # + escapes
_SERVER = _USERINFO | _ALPHANUM | frozenset("-.:@[]")  # + escapes
_SERVER_PERCENT = _SERVER | frozenset("%")  # + escapes
_SCHEME = _ALPHA | _DIGIT | frozenset("+-.")
_SCOPE_ID = _ALPHANUM | frozenset("_.")
_DIGIT_DOT = _DIGIT | frozenset(".")
_ALPHANUM_DASH = _ALPHANUM | frozenset("-")

_INT_MAX = 2**31 - 1


class UriSyntaxError(Exception):
    """Equivalent of java.net.URISyntaxException (reason, index)."""

    def __init__(self, reason: str, index: int = -1) -> None:
        super().__init__(reason if index < 0 else f"{reason} at index {index}")
        self.reason = reason
        self.index = index


class _JavaNumberFormatError(Exception):
    """Integer.parseInt overflow that java.net.URI lets escape."""


def _is_other(c: str) -> bool:
    """Unescaped non-US-ASCII char allowed by URI: > U+0080, not a space
    char (Zs/Zl/Zp) and not an ISO control (U+0080..U+009F)."""
    o = ord(c)
    if o <= 128:
        return False
    if 0x7F <= o <= 0x9F:
        return False
    return unicodedata.category(c) not in ("Zs", "Zl", "Zp")


class _Parser:
    """A re-implementation of java.net.URI's string parser (non-strict mode)."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.scheme: str | None = None
        self.authority: str | None = None
        self.user_info: str | None = None
        self.host: str | None = None
        self.port = -1
        self.path: str | None = None
        self.query: str | None = None
        self.fragment: str | None = None
        self._v6bytes = 0

    # -- primitives -------------------------------------------------------
    def _at(self, p: int, n: int, c: str) -> bool:
        return p < n and self.s[p] == c

    def _at_str(self, p: int, n: int, t: str) -> bool:
        return len(t) <= n - p and self.s.startswith(t, p)

    def _scan_char(self, p: int, n: int, c: str) -> int:
        return p + 1 if (p < n and self.s[p] == c) else p

    def _scan_err_stop(self, p: int, n: int, err: str, stop: str) -> int:
        s = self.s
        while p < n:
            c = s[p]
            if c in err:
                return -1
            if c in stop:
                break
            p += 1
        return p

    def _scan_stop(self, p: int, n: int, stop: str) -> int:
        s = self.s
        while p < n and s[p] not in stop:
            p += 1
        return p

    def _scan(self, p: int, n: int, allowed: frozenset, escapes: bool = False) -> int:
        s = self.s
        while p < n:
            c = s[p]
            if c in allowed:
                p += 1
                continue
            if escapes:
                if c == "%":
                    if p + 3 <= n and s[p + 1] in _HEX and s[p + 2] in _HEX:
                        p += 3
                        continue
                    raise UriSyntaxError("Malformed escape pair", p)
                if _is_other(c):
                    p += 1
                    continue
            break
        return p

    def _check(self, p: int, n: int, allowed: frozenset, escapes: bool, what: str) -> None:
        q = self._scan(p, n, allowed, escapes)
        if q < n:
            raise UriSyntaxError("Illegal character in " + what, q)

    # -- grammar ----------------------------------------------------------
    def parse(self) -> None:
        s = self.s
        n = len(s)
        p = self._scan_err_stop(0, n, "/?#", ":")
        if p >= 0 and self._at(p, n, ":"):
            if p == 0:
                raise UriSyntaxError("Expected scheme name", 0)
            self._check(0, 1, _ALPHA, False, "scheme name")
            self._check(1, p, _SCHEME, False, "scheme name")
            self.scheme = s[:p]
            p += 1
            if self._at(p, n, "/"):
                p = self._hierarchical(p, n)
            else:  # opaque
                q = self._scan_stop(p, n, "#")
                if q <= p:
                    raise UriSyntaxError("Expected scheme-specific part", p)
                self._check(p, q, _URIC, True, "opaque part")
                p = q
        else:
            p = self._hierarchical(0, n)
        if self._at(p, n, "#"):
            self._check(p + 1, n, _URIC, True, "fragment")
            self.fragment = s[p + 1 :]
            p = n
        if p < n:
            raise UriSyntaxError("end of URI", p)

    def _hierarchical(self, p: int, n: int) -> int:
        s = self.s
        if self._at(p, n, "/") and self._at(p + 1, n, "/"):
            p += 2
            q = self._scan_stop(p, n, "/?#")
            if q > p:
                p = self._authority(p, q)
            elif q >= n:
                raise UriSyntaxError("Expected authority", p)
            # else: empty authority before a path/query/fragment (allowed)
        q = self._scan_stop(p, n, "?#")
        self._check(p, q, _PATH, True, "path")
        self.path = s[p:q]
        p = q
        if self._at(p, n, "?"):
            p += 1
            q = self._scan_stop(p, n, "#")
            self._check(p, q, _URIC, True, "query")
            self.query = s[p:q]
            p = q
        return p

    def _authority(self, p: int, n: int) -> int:
        s = self.s
        if self._scan_stop(p, n, "]") > p:
            server_chars = self._scan(p, n, _SERVER_PERCENT, True) == n
        else:
            server_chars = self._scan(p, n, _SERVER, True) == n
        reg_chars = self._scan(p, n, _REG_NAME, True) == n
        if reg_chars and not server_chars:
            self.authority = s[p:n]
            return n
        skip = reg_chars  # server authority not required
        q = p
        ex: UriSyntaxError | None = None
        if server_chars:
            try:
                q = self._server(p, n, skip)
                if q < n:
                    if skip:
                        self.user_info = self.host = None
                        self.port = -1
                        q = p
                    else:
                        raise UriSyntaxError("Expected end of authority", q)
                else:
                    self.authority = s[p:n]
            except UriSyntaxError as x:
                self.user_info = self.host = None
                self.port = -1
                ex = x
                q = p
        if q < n:
            if reg_chars:
                self.authority = s[p:n]
            elif ex is not None:
                raise ex
            else:
                raise UriSyntaxError("Illegal character in authority", q)
        return n

    def _server(self, p: int, n: int, skip: bool) -> int:
        s = self.s
        q = self._scan_err_stop(p, n, "/?#", "@")
        if q >= p and self._at(q, n, "@"):
            self._check(p, q, _USERINFO, True, "user info")
            self.user_info = s[p:q]
            p = q + 1
        if self._at(p, n, "["):
            p += 1
            q = self._scan_err_stop(p, n, "/?#", "]")
            if q > p and self._at(q, n, "]"):
                r = self._scan_stop(p, q, "%")
                if r > p:
                    self._ipv6(p, r)
                    if r + 1 == q:
                        raise UriSyntaxError("scope id expected")
                    self._check(r + 1, q, _SCOPE_ID, False, "scope id")
                else:
                    self._ipv6(p, q)
                self.host = s[p - 1 : q + 1]
                p = q + 1
            else:
                raise UriSyntaxError("Expected closing bracket for IPv6 address", q)
        else:
            q = self._ipv4_opt(p, n)
            if q <= p:
                q = self._hostname(p, n, skip)
            p = q
        if self._at(p, n, ":"):
            p += 1
            q = self._scan_stop(p, n, "/")
            if q > p:
                self._check(p, q, _DIGIT, False, "port number")
                v = int(s[p:q])
                if v > _INT_MAX:
                    raise UriSyntaxError("Malformed port number", p)
                self.port = v
                p = q
        elif p < n and skip:
            return p
        if p < n:
            raise UriSyntaxError("Expected port number", p)
        return p

    def _scan_byte(self, p: int, n: int) -> int:
        q = self._scan(p, n, _DIGIT)
        if q <= p:
            return q
        v = int(self.s[p:q])
        if v > _INT_MAX:
            raise _JavaNumberFormatError(self.s[p:q])
        return p if v > 255 else q

    def _scan_ipv4(self, p: int, n: int, strict: bool) -> int:
        m = self._scan(p, n, _DIGIT_DOT)
        if m <= p or (strict and m != n):
            return -1
        steps = ("b", ".", "b", ".", "b", ".", "b")
        q = p
        ok = True
        for st in steps:
            q = self._scan_byte(p, m) if st == "b" else self._scan_char(p, m, ".")
            if q <= p:
                ok = False
                break
            p = q
        if ok and q >= m:
            return q
        raise UriSyntaxError("Malformed IPv4 address", q)

    def _take_ipv4(self, p: int, n: int, expected: str) -> int:
        q = self._scan_ipv4(p, n, True)
        if q <= p:
            raise UriSyntaxError("Expected " + expected, p)
        return q

    def _ipv4_opt(self, start: int, n: int) -> int:
        try:
            p = self._scan_ipv4(start, n, False)
        except (UriSyntaxError, _JavaNumberFormatError):
            return -1
        if start < p < n and self.s[p] != ":":
            p = -1
        if p > start:
            self.host = self.s[start:p]
        return p

    def _hostname(self, start: int, n: int, skip: bool) -> int:
        s = self.s
        p = start
        last = -1
        while True:
            q = self._scan(p, n, _ALPHANUM)
            if q <= p:
                break
            last = p
            p = q
            q = self._scan(p, n, _ALPHANUM_DASH)
            if q > p:
                if s[q - 1] == "-":
                    raise UriSyntaxError("Illegal character in hostname", q - 1)
                p = q
            q = self._scan_char(p, n, ".")
            if q <= p:
                break
            p = q
            if p >= n:
                break
        if p < n and not self._at(p, n, ":"):
            if skip:
                return p
            raise UriSyntaxError("Illegal character in hostname", p)
        if last < 0:
            raise UriSyntaxError("Expected hostname", start)
        if last > start and s[last] not in _ALPHA:
            raise UriSyntaxError("Illegal character in hostname", last)
        self.host = s[start:p]
        return p

    def _ipv6(self, start: int, n: int) -> int:
        p = start
        compressed = False
        q = self._hexseq(p, n)
        if q > p:
            p = q
            if self._at_str(p, n, "::"):
                compressed = True
                p = self._hexpost(p + 2, n)
            elif self._at(p, n, ":"):
                p = self._take_ipv4(p + 1, n, "IPv4 address")
                self._v6bytes += 4
        elif self._at_str(p, n, "::"):
            compressed = True
            p = self._hexpost(p + 2, n)
        if p < n:
            raise UriSyntaxError("Malformed IPv6 address", start)
        if self._v6bytes > 16:
            raise UriSyntaxError("IPv6 address too long", start)
        if not compressed and self._v6bytes < 16:
            raise UriSyntaxError("IPv6 address too short", start)
        if compressed and self._v6bytes == 16:
            raise UriSyntaxError("Malformed IPv6 address", start)
        return p

    def _hexpost(self, p: int, n: int) -> int:
        if p == n:
            return p
        q = self._hexseq(p, n)
        if q > p:
            p = q
            if self._at(p, n, ":"):
                p = self._take_ipv4(p + 1, n, "hex digits or IPv4 address")
                self._v6bytes += 4
        else:
            p = self._take_ipv4(p, n, "hex digits or IPv4 address")
            self._v6bytes += 4
        return p

    def _hexseq(self, p: int, n: int) -> int:
        q = self._scan(p, n, _HEX)
        if q <= p or self._at(q, n, "."):
            return -1
        if q > p + 4:
            raise UriSyntaxError("IPv6 hexadecimal digit sequence too long", p)
        self._v6bytes += 2
        p = q
        while p < n:
            if not self._at(p, n, ":") or self._at(p + 1, n, ":"):
                break
            p += 1
            q = self._scan(p, n, _HEX)
            if q <= p:
                raise UriSyntaxError("Expected digits for an IPv6 address", p)
            if self._at(q, n, "."):
                p -= 1
                break
            if q > p + 4:
                raise UriSyntaxError("IPv6 hexadecimal digit sequence too long", p)
            self._v6bytes += 2
            p = q
        return p


def java_uri_components(url: str) -> dict:
    """Parse like ``new java.net.URI(url)``; return the raw components.

    Raises UriSyntaxError when Java would throw URISyntaxException and
    ValueError for the NumberFormatException Java lets escape."""
    parser = _Parser(url)
    try:
        parser.parse()
    except _JavaNumberFormatError as e:
        raise ValueError(
            f'java.lang.NumberFormatException: For input string: "{e}" '
            f"(uncaught by java.net.URI; Spark fails in every mode)"
        ) from None
    return {
        "scheme": parser.scheme,
        "authority": parser.authority,
        "userinfo": parser.user_info,
        "host": parser.host,
        "port": parser.port,
        "path": parser.path,
        "query": parser.query,
        "fragment": parser.fragment,
    }


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------
_PARTS = {
    "HOST": lambda c: c["host"],
    "PATH": lambda c: c["path"],
    "QUERY": lambda c: c["query"],
    "REF": lambda c: c["fragment"],
    "PROTOCOL": lambda c: c["scheme"],
    "FILE": lambda c: c["path"] if c["query"] is None else f"{c['path']}?{c['query']}",
    "AUTHORITY": lambda c: c["authority"],
    "USERINFO": lambda c: c["userinfo"],
}

_NO_KEY = object()


def _parse(url: str | None, part: str | None, key, fail_on_error: bool) -> str | None:
    if url is None or part is None or key is None:
        return None
    if key is not _NO_KEY and part != "QUERY":
        return None
    try:
        comps = java_uri_components(url)
    except UriSyntaxError as e:
        if fail_on_error:
            raise ValueError(
                f"[INVALID_URL] The url is invalid: {url}. Use `try_parse_url` to "
                f"tolerate invalid URL and return NULL instead. ({e}: {url})"
            ) from None
        return None
    extract = _PARTS.get(part)
    value = extract(comps) if extract is not None else None
    if key is _NO_KEY or value is None:
        return value
    m = search(translate("(&|^)" + key + "=([^&]*)"), value)
    return m.group(2) if m else None


def parse_url(
    url: str | None,
    part: str | None,
    key: str | None = _NO_KEY,  # type: ignore[assignment]
    *,
    ansi: bool,
) -> str | None:
    """Spark ``parse_url(url, part)`` / ``parse_url(url, part, key)``.

    ``ansi`` is spark.sql.ansi.enabled: when true a malformed URL raises
    ValueError ("[INVALID_URL] ..."), otherwise it yields None.  Passing
    ``key=None`` means a NULL key (result None), omitting it means the
    two-argument form."""
    return _parse(url, part, key, ansi)


def try_parse_url(url: str | None, part: str | None, key: str | None = _NO_KEY) -> str | None:  # type: ignore[assignment]
    """Spark ``try_parse_url``: like parse_url with ANSI off (malformed -> None)."""
    return _parse(url, part, key, False)
