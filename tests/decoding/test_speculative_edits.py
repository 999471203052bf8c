"""Speculative edits (`decoding.edits`, `decoding.speculative.OriginalDraft`): the original as the draft,
re-anchored after each changed stretch; greedy's own tokens on real notebook cells, on llama.cpp (the
shipped model) and transformers (the shipped model's weights exported, and a tiny random model), with
far fewer model calls where the answer copies the cell."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from ghostbook.bench.edits import Measured, Reference, bound_calls, copy_cases, edits_of, fenced, notebook_cells
from ghostbook.decoding.beam import log_softmax
from ghostbook.decoding.copy_model import CopyModel, Mixed
from ghostbook.decoding.edits import EditSearch
from ghostbook.decoding.speculative import COMPLETION, OriginalDraft, Sizes
from ghostbook.models.backend import Backend, Evaluation, TokenOut, Vocab
from ghostbook.models.chat_template import chat_prompt_ids
from ghostbook.models.llamacpp_backend import LlamaCppBackend
from ghostbook.models.transformers_backend import TransformersBackend

from tests.decoding.conftest import KERNEL_NOISE, probe

DEVICE = os.environ.get("GHOSTBOOK_TEST_DEVICE", "cpu")  # bench/gpu_check.sh: cuda
KINDS = ("unchanged", "one line", "line added", "line removed", "renamed")
ORIGINAL = list(range(10, 40))  # synthetic token ids, all different


def drafted(drafter: OriginalDraft, done: list[int], k: int = 64) -> list[int]:
    return drafter.propose(done, k)


def test_follows_the_original() -> None:
    d = OriginalDraft(ORIGINAL)
    assert drafted(d, [], 4) == ORIGINAL[:4]
    assert drafted(d, ORIGINAL[:5], 4) == ORIGINAL[5:9]
    assert drafted(d, ORIGINAL[:20], 64) == ORIGINAL[20:]  # to the end of the original
    assert drafted(d, ORIGINAL, 8) == []  # nothing left to draft


def test_reanchors_after_a_changed_token() -> None:
    d = OriginalDraft(ORIGINAL)
    drafted(d, [])
    assert drafted(d, [*ORIGINAL[:5], 99]) == []  # 99 is new: nothing to draft from
    assert drafted(d, [*ORIGINAL[:5], 99, ORIGINAL[6]]) == []  # one token is no anchor (`ANCHOR_MIN`)
    # the output goes on as the original did after the changed token: drafted from there
    assert drafted(d, [*ORIGINAL[:5], 99, *ORIGINAL[6:8]])[:2] == ORIGINAL[8:10]
    one = OriginalDraft(ORIGINAL, shortest=1)
    drafted(one, [])
    assert drafted(one, [*ORIGINAL[:5], 99, ORIGINAL[6]])[:2] == ORIGINAL[7:9]


def test_reanchors_after_added_and_removed_tokens() -> None:
    added = OriginalDraft(ORIGINAL)
    drafted(added, [])
    assert drafted(added, [*ORIGINAL[:5], 97, 98, *ORIGINAL[5:7]])[:2] == ORIGINAL[7:9]
    removed = OriginalDraft(ORIGINAL)
    drafted(removed, [])
    assert drafted(removed, [*ORIGINAL[:5], *ORIGINAL[9:11]])[:2] == ORIGINAL[11:13]


def test_prefers_the_occurrence_nearest_where_the_output_was() -> None:
    """A line that occurs three times (`1, 2, 3`): after a changed token the tail is found at each; the
    one just after where the output stood in the original wins, not the first or the last."""
    line = [1, 2, 3]
    original = [*line, 20, 21, *line, 30, 31, *line, 40, 41]
    d = OriginalDraft(original)
    drafted(d, [])
    out = [*line, 20, 21, 77, 2, 3]  # the second line's first token changed
    assert drafted(d, out)[:2] == [30, 31]
    d2 = OriginalDraft(original)
    drafted(d2, [])
    out2 = [*line, 20, 21, *line, 30, 31, 77, 2, 3]
    assert drafted(d2, out2)[:2] == [40, 41]


def test_longest_tail_wins_over_nearest() -> None:
    original = [5, 6, 1, 2, 8, 9, 7, 1, 2, 3, 4]
    d = OriginalDraft(original)
    drafted(d, [])
    assert drafted(d, [5, 6, 99, 7, 1, 2])[:2] == [3, 4]  # (7, 1, 2) is found only once


def test_draft_length_ramps_up_after_a_change() -> None:
    """Right after re-anchoring on a short tail a draft is short; it grows as the output keeps to the
    original."""
    original = list(range(10, 300))
    d = OriginalDraft(original)
    first = drafted(d, [], 64)
    out = [*first, 999, *original[len(first) + 1 : len(first) + 3]]  # one token changed, then two as before
    short = drafted(d, out, 64)
    assert short == original[len(first) + 3 : len(first) + 3 + len(short)] and 1 <= len(short) <= 4
    out += [*short, original[len(out) + len(short)]]
    longer = drafted(d, out, 64)
    assert longer[0] == original[len(out)] and len(longer) > len(short)


def test_a_new_output_starts_again() -> None:
    d = OriginalDraft(ORIGINAL)
    drafted(d, ORIGINAL[:10])
    assert drafted(d, [], 3) == ORIGINAL[:3]


def test_sizes_schedule() -> None:
    assert COMPLETION.after(4, True) == 6 and COMPLETION.after(16, True) == 16
    assert COMPLETION.after(4, False) == 3 and COMPLETION.after(1, False) == 1
    assert Sizes(64, 64, 0, 0).after(64, False) == 64


VOCAB = Vocab([bytes([65 + i % 26]) for i in range(100)], frozenset([0]))


def search_on(target: list[int], draft: list[int], speculative: bool = True) -> tuple[list[int], EditSearch]:
    """An edit search against the stand-in model whose greedy choice is `target` (then the end, 0)."""
    out: list[TokenOut] = []
    search = EditSearch(draft, len(target) + 5, speculative)
    search.run(Reference(target, 0, len(VOCAB.pieces)), VOCAB, lambda: False, out.append)
    return [t.id for t in out], search


def test_edit_search_emits_the_target_with_few_calls() -> None:
    original = list(range(1, 91))
    for target in (original, [*original[:40], 95, *original[41:]], [*original[:30], 96, 97, *original[30:]],
                   [*original[:50], *original[52:]]):
        plain, slow = search_on(target, original, False)
        fast, quick = search_on(target, original)
        assert plain == fast == target
        assert slow.calls == len(target) + 1 and slow.tokens == len(target)  # one call per token, and the end
        assert quick.calls * 4 <= slow.calls, (quick.calls, slow.calls)
        assert quick.calls == bound_calls(original, target, VOCAB, 0)


def test_edit_search_stops_at_max_and_when_cancelled() -> None:
    target = list(range(1, 60))
    out: list[TokenOut] = []
    search = EditSearch(target, 10)
    search.run(Reference(target, 0, 100), VOCAB, lambda: False, out.append)
    assert [t.id for t in out] == target[:10] and search.tokens == 10
    cancelled = EditSearch(target, 50)
    cancelled.run(Reference(target, 0, 100), VOCAB, lambda: True, out.append)
    assert cancelled.tokens == 0 and cancelled.calls == 0


def test_edit_search_ends_where_its_stop_rule_says() -> None:
    """The answer's end (`stop`, fed each token's bytes: the editor's closing fence) ends the search after
    that token, inside a draft kept whole too; `calls` are counted while it runs."""
    target = list(range(1, 60))
    for speculative in (False, True):
        out, calls = ended_search(target, speculative, at=30)
        assert out == target[:30]
        assert calls == [30 if not speculative else 1] * 2  # when the last token came, and after the run


def ended_search(target: list[int], speculative: bool, at: int) -> tuple[list[int], list[int]]:
    """The tokens of an edit search whose stop rule ends it at the `at`-th token, and its `calls` when
    that token was emitted and after the run."""
    out: list[TokenOut] = []
    emitted = itertools.count(1)
    search = EditSearch(target, 100, speculative, stop=lambda piece: next(emitted) == at)
    seen: list[int] = []

    def emit(token: TokenOut) -> None:
        out.append(token)
        seen.append(search.calls)

    search.run(Reference(target, 0, 100), VOCAB, lambda: False, emit)
    assert search.tokens == len(out)
    return [t.id for t in out], [seen[-1], search.calls]


def test_unrelated_output_costs_no_extra_calls() -> None:
    """Greedy writes something else entirely: one call per token all the same (a draft that is cut at once
    still yields greedy's token)."""
    original = list(range(1, 60))
    target = [int(t) for t in np.random.default_rng(0).integers(60, 99, size=50)]
    plain, slow = search_on(target, original, False)
    fast, quick = search_on(target, original)
    assert plain == fast == target and quick.calls <= slow.calls


# ---- real models, real cells ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def transformers_shipped(shipped_hf: Path) -> Iterator[TransformersBackend]:
    b = TransformersBackend(shipped_hf, threads=1, device=DEVICE)
    b.load()
    yield b
    b.unload()


@pytest.fixture(scope="module")
def transformers_tiny(tiny_gguf: Path) -> Iterator[TransformersBackend]:
    b = TransformersBackend(tiny_gguf.parent / "hf", threads=1, device=DEVICE)
    b.load()
    yield b
    b.unload()


def cells_for(b: Backend, count: int = 3) -> list[tuple[list[str], int]]:
    """Real cells of the notebook benchmark's test split that fit the shipped model's context thrice."""
    return notebook_cells(b, count, 130)


def run(b: Backend, prompt: list[int], search: EditSearch, copy: bool) -> list[int]:
    out: list[TokenOut] = []
    b.generate(prompt, Measured(search, prompt, copy), lambda: False, out.append)
    return [t.id for t in out]


def editor_prompt(b: Backend, cell: str, instruction: str) -> list[int]:
    """What the editor sends: a system message, the cell and the instruction, in the model's chat layout
    (the shipped model has no template: the fallback layout)."""
    messages = [{"role": "system", "content": "Rewrite the cell as asked; answer with one python code block."},
                {"role": "user", "content": f"{fenced(cell)}\n\n{instruction}"}]
    return chat_prompt_ids(b, messages)


def same_or_near_tie(b: Backend, prompt: list[int], plain: list[int], fast: list[int], copy: bool) -> bool:
    """Whether speculative edits emitted plain greedy's tokens, or (llama.cpp) parted from them only at a
    near tie (its batched and one-token kernels round differently: `KERNEL_NOISE`)."""
    if plain == fast:
        return True
    if not isinstance(b, LlamaCppBackend):
        return False
    at = next((i for i, (x, y) in enumerate(zip(plain, fast, strict=False)) if x != y), min(len(plain), len(fast)))
    if at >= min(len(plain), len(fast)):
        return False

    def look(model: Evaluation) -> np.ndarray:
        mixed = Mixed(model, CopyModel(prompt, []), frozenset()) if copy else model
        return mixed.logits([plain[:at]])[0]

    lp = log_softmax(probe(b, prompt, look))
    return bool(abs(lp[plain[at]] - lp[fast[at]]) < KERNEL_NOISE)


def identical_on_real_cells(b: Backend) -> tuple[int, int, int]:
    """Speculative edits against plain greedy on real cells, each with five kinds of edit, two prompts:
    the editor's (the model writes what it writes) and the copy prompt (`bench.edits`: the reference
    edit shown and copied, so long drafts are kept). Returns (decodings, plain calls, speculative calls)
    of the copy prompts; asserts the tokens are greedy's."""
    runs = plain_calls = fast_calls = 0
    for cells, i in cells_for(b):
        cell = cells[i]
        for edit in edits_of(cell):
            if edit.kind not in KINDS:
                continue
            prompt = editor_prompt(b, cell, edit.instruction)
            draft = b.tokenize(fenced(cell))
            plain = run(b, prompt, EditSearch(draft, 48, False), False)
            fast = run(b, prompt, EditSearch(draft, 48), False)
            assert same_or_near_tie(b, prompt, plain, fast, False), (edit.kind, plain, fast)
        for case in copy_cases(b, cells, i):
            if case.kind not in KINDS:
                continue
            slow, quick = EditSearch(case.draft, case.max_new, False), EditSearch(case.draft, case.max_new)
            plain, fast = run(b, case.prompt, slow, True), run(b, case.prompt, quick, True)
            assert same_or_near_tie(b, case.prompt, plain, fast, True), (case.kind, plain, fast)
            runs += 1
            plain_calls += slow.calls
            fast_calls += quick.calls
    return runs, plain_calls, fast_calls


def test_llamacpp_same_tokens_as_greedy_on_real_cells(shipped: LlamaCppBackend) -> None:
    runs, plain, fast = identical_on_real_cells(shipped)
    assert runs >= 12
    assert fast * 4 <= plain, (plain, fast)


def test_transformers_same_tokens_as_greedy_on_real_cells(transformers_shipped: TransformersBackend) -> None:
    runs, plain, fast = identical_on_real_cells(transformers_shipped)
    assert runs >= 12
    assert fast * 4 <= plain, (plain, fast)


def test_transformers_tiny_random_model_same_tokens(transformers_tiny: TransformersBackend) -> None:
    """A random model's greedy leaves the draft at once, everywhere: greedy's tokens all the same."""
    cell = 'import pandas as pd\ndf = pd.read_csv("sales.csv")\ndf["total"] = df["price"] * df["qty"]\ndf.head()'
    b = transformers_tiny
    draft = b.tokenize(fenced(cell))
    for edit in edits_of(cell)[:3]:
        prompt = editor_prompt(b, cell, edit.instruction)[-400:]
        assert run(b, prompt, EditSearch(draft, 40), False) == run(b, prompt, EditSearch(draft, 40, False), False)


def test_calls_drop_on_a_copy_heavy_cell(shipped: LlamaCppBackend) -> None:
    """An unchanged and a one-line edit of a real cell, copied: at least 4x fewer model calls (near the
    bound for the reference edit)."""
    cells, i = cells_for(shipped, 1)[0]
    for case in copy_cases(shipped, cells, i)[:2]:
        slow, quick = EditSearch(case.draft, case.max_new, False), EditSearch(case.draft, case.max_new)
        assert run(shipped, case.prompt, slow, True) == run(shipped, case.prompt, quick, True)
        assert quick.calls * 4 <= slow.calls, (case.kind, quick.calls, slow.calls)
        assert quick.tokens == slow.tokens
