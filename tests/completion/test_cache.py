from __future__ import annotations

from ghostbook.completion.cache import SuggestionCache


def test_exact_hit_and_miss() -> None:
    cache = SuggestionCache()
    cache.put("x = ", "", "compute()")
    hit = cache.get("x = ", "")
    assert hit is not None and (hit.text, hit.source) == ("compute()", "cache")
    assert cache.get("x = ", "\ny") is None  # a different suffix is a different request
    assert cache.get("y = ", "") is None


def test_typed_through_returns_the_rest() -> None:
    cache = SuggestionCache()
    cache.put("df.", ")", "groupby('a')")
    hit = cache.get("df.gro", ")")
    assert hit is not None and (hit.text, hit.source) == ("upby('a')", "typed_through")
    again = cache.get("df.groupby(", ")")  # typing on through the remembered rest
    assert again is not None and again.text == "'a')"


def test_typed_through_needs_matching_text_and_suffix() -> None:
    cache = SuggestionCache()
    cache.put("df.", ")", "groupby('a')")
    assert cache.get("df.x", ")") is None          # typed something else
    assert cache.get("df.gro", "") is None         # the suffix changed
    assert cache.get("df.groupby('a')", ")") is None  # typed all of it: nothing left to suggest


def test_lru_evicts_oldest() -> None:
    cache = SuggestionCache(size=2)
    cache.put("a", "", "1")
    cache.put("b", "", "2")
    assert cache.get("a", "") is not None  # a is now the newest
    cache.put("c", "", "3")
    assert cache.get("b", "") is None
    assert len(cache) == 2
