"""Copied lines ranked with the beam's line (`decoding.copies`, #16.4), on the shipped model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ghostbook.completion.context import Context
from ghostbook.completion.prompt import make_prompt
from ghostbook.decoding import copies
from ghostbook.decoding.fragments import Fragments
from ghostbook.decoding.lines import LineRules
from ghostbook.decoding.syntax_fit import SyntaxFit
from ghostbook.decoding.tokens import index_of
from ghostbook.models.backend import Evaluation
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.transformers_backend import TransformersBackend

from tests.decoding.conftest import probe

ABOVE = "import pandas as pd\n\ndf = pd.DataFrame({'revenue_2024': [1, 2]})\n\n"


def test_line_score_is_the_beams_log_probability(shipped: LlamaCppBackend) -> None:
    """The score of a line read in one evaluation equals the sum a beam adds up step by step."""
    prompt = shipped.tokenize("import numpy as np\nx = np.")
    line = shipped.tokenize("zeros(3)")
    index = index_of(shipped.vocab)

    def look(model: Evaluation) -> tuple[float, float]:
        score = copies.line_score(model, index, set(), line, closed=False)
        steps = sum(float(np.log(np.exp(r - r.max()) / np.exp(r - r.max()).sum())[t])
                    for r, t in zip(model.logits([line[:i] for i in range(len(line))]), line, strict=True))
        return score, steps

    score, steps = probe(shipped, prompt, look)
    assert abs(score - steps) < 1e-3


def test_a_copy_keeps_the_line_rules() -> None:
    rules = LineRules(frozenset({b"total = df.sum()"}), None, SyntaxFit("x = f(", ""))
    assert copies.keeps_rules(b"1, 2)", rules)
    assert not copies.keeps_rules(b"1, 2))", rules)  # breaks the cell's syntax
    assert not copies.keeps_rules(b"total = df.sum()", LineRules(frozenset({b"total = df.sum()"})))


def test_a_copy_the_beams_line_already_says_loses(shipped: LlamaCppBackend) -> None:
    """A word a copy completes (`rn`) where the beam's line says more (`rn result`) is no better."""
    index = index_of(shipped.vocab)
    line = shipped.tokenize("rn result\n")
    prompt = shipped.tokenize("def f(x):\n    result = x\n    retu")
    chosen = probe(shipped, prompt, lambda model: copies.choose(
        model, index, set(), line, [shipped.tokenize("rn")], b"", LineRules(), False))
    assert chosen is None


def test_a_beam_line_kept_only_for_want_of_one_that_fits_loses_to_a_copy_that_fits(shipped: LlamaCppBackend) -> None:
    """`nx` alone (a fragment the beam kept as nothing fitted) is far likelier than the notebook's long
    line; a copy that keeps the rules still wins, and loses to a beam line that keeps them too."""
    index = index_of(shipped.vocab)
    prompt = shipped.tokenize("import networkx as nx\nf, ax = plt.subplots(1, 2)\nstreets.plot(color='k', ax=ax[0])"
                              "\n\nf, ax = plt.subplots(1, 2)\n")
    copy = shipped.tokenize("streets.plot(color='k', ax=ax[0], linewidth=0.5, alpha=0.25, zorder=1, label='streets', "
                            "edgecolor='none', markersize=3)")
    line = shipped.tokenize("nx\n")
    fragments = LineRules(syntax=Fragments("import networkx as nx\nnx.draw(G)\n"))

    def choose(rules: LineRules) -> list[int] | None:
        return probe(shipped, prompt, lambda model: copies.choose(model, index, set(), line, [copy], b"", rules, False))

    assert choose(fragments) == copy
    assert choose(LineRules()) is None


def test_the_plan_carries_the_copies_and_a_winning_copy_replaces_the_beams_line(shipped: LlamaCppBackend) -> None:
    cell = "total = df['rev"
    ctx = Context(ABOVE + cell, "", cell, "", ABOVE, "")
    prompt = make_prompt(shipped, ctx, 32, beam=8, read_check=False)
    texts = [b"".join(shipped.piece(t) for t in c) for c in prompt.plan.copies]
    assert texts[0] == prompt.plan.heal + b"enue_2024']"  # the healed bytes spelled first
    assert make_prompt(shipped, ctx, 32, beam=8, read_check=False, copies=False).plan.copies == ()
    out: list[bytes] = []
    shipped.generate(prompt.ids, prompt.plan, lambda: False, lambda token: out.append(token.piece))
    assert b"".join(out) == prompt.plan.heal + b"enue_2024']"  # no further lines after a copy


def test_both_runtimes_score_a_copy_alike(tiny_gguf: Path) -> None:
    """The transformers backend reads a copy as llama.cpp does (same weights, the tiny model)."""
    cpp = LlamaCppBackend(tiny_gguf, n_ctx=512, threads=1)
    hf = TransformersBackend(tiny_gguf.parent / "hf", threads=1)
    cpp.load()
    hf.load()
    try:
        prompt = cpp.tokenize("import numpy as np\nx = np.")
        line = cpp.tokenize("zeros(3)")
        index = index_of(cpp.vocab)
        scores = [probe(backend, prompt, lambda model: copies.line_score(model, index, set(), line))
                  for backend in (cpp, hf)]
        assert abs(scores[0] - scores[1]) < 1e-2 * max(1.0, abs(scores[0]))
    finally:
        cpp.unload()
        hf.unload()


def test_a_copy_is_scored_as_far_as_a_line_cut_open(shipped: LlamaCppBackend) -> None:
    """Seen on the notebook benchmark: the beam ran out of time on a few tokens (`displot(`), which,
    scored open, beat the notebook's whole long line; a copy is scored on as many tokens then, and
    wins. A beam line that ended is compared whole with the whole copy, as before."""
    index = index_of(shipped.vocab)
    chain = '.dropna().sort_index().loc["2020":"2021"].resample("M").mean()'
    prompt = shipped.tokenize(f'import pandas as pd\n\nsales = pd.read_csv("sales.csv", index_col=0, '
                              f'parse_dates=True){chain}\n\nprices = pd.')
    copy = shipped.tokenize(f'read_csv("prices.csv", index_col=0, parse_dates=True){chain}')
    line = shipped.tokenize("Data")

    def choose(open_line: bool) -> list[int] | None:
        return probe(shipped, prompt, lambda model: copies.choose(
            model, index, set(), line, [copy], b"", LineRules(), open_line))

    assert choose(open_line=True) == copy
    assert choose(open_line=False) is None
