"""The runtime's bounded record (``runtime.recent.Recent``): what it keeps and drops."""

from matchrec.runtime.recent import Recent


def test_a_value_is_read_back_until_newer_ones_push_it_out():
    """A pattern's answer (``pattern_probes``) or an expression's origin is read by its key
    while it is among the latest ``capacity`` put or read; after that it is gone, not kept
    for the process (a notebook running many queries would grow without bound)."""
    kept = Recent[str, str](2)
    kept.put("a", "")
    assert kept.get("a") == ""
    assert kept.get("b") is None
    kept.put("b", "refused")
    kept.put("a", "again")  # putting a key again makes it the latest
    kept.put("c", "x")
    assert kept.get("b") is None
    assert [key for key, _ in kept.latest_first()] == ["c", "a"]
    assert kept.get("a") == "again"  # and so does reading it
    kept.put("d", "y")
    assert [key for key, _ in kept.latest_first()] == ["d", "a"]
