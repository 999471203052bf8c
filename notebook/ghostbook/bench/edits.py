"""`ghostbook bench edits`: rewriting a cell with plain greedy against speculative edits, side by side.

Real cells of the notebook benchmark's test split, each with edits of several kinds (none, one line
changed, a line added, a line removed, a variable renamed, a comment on every third line, the cell
wrapped in a function). For each, one run decodes the same prompt with plain greedy (one model call per
token) and with speculative edits (`decoding.edits.EditSearch`: the original is the draft), the prompt
already in the KV cache; it prints the model calls, tokens/s and wall time of both, by the share of
lines that changed (under 20%, 20-50%, over 50%), and whether the outputs are the same token for token.

The prompts (`--prompts`):
- `chat` (the default for a model with a chat template, i.e. an instruct model): the editor's own
  (`editing.prompt`: its system message, the notebook's cells around the cell within the editor's
  budget, the instruction), through the model's own template (`models.chat_template`), the answer's
  fence opened and decoding ended at its closing fence as the editor does (`editing.models.AnswerPrompt`);
  the draft is the cell in its answer fence. The share of changed lines is the model's real answer's
  (rendered into the cell as the editor renders it) against the cell.
- `copy` (the default for a model without one, like the shipped FIM model): that model copies too little
  of a shown cell to measure anything (under a fifth of its lines, however the cell is shown), so the
  prompt shows the reference edit (the instruction and the edited cell, in the fallback chat layout,
  the answer's fence opened) and the repo's copy model (`decoding.copy_model`: the prompt's tokens as
  a cache language model, here mixed into every step, not only the first line) makes greedy copy it,
  the network deciding where the copy model is silent or unsure; the draft is the original cell. The
  calls then come near the bound below. The wall time includes the copy model's mixing (numpy, about
  as much per token for both decodings); the "model s" columns are the network's evaluations alone,
  what an edit model's decoding costs.

Beside them, the bound for reference edits: the model calls that emitting each real cell's reference
edit (the edit applied to the cell, in its answer fence) takes with the original as the draft, counted
by running the same search against a stand-in model whose greedy choice is the reference.

    ghostbook bench edits [--model PATH] [--cells N] [--edits N] [--prompts chat|copy] [--device auto|cpu|cuda]
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ghostbook.completion.context import CellText
from ghostbook.decoding.copy_model import CopyModel, Mixed
from ghostbook.decoding.edits import EditSearch
from ghostbook.editing import prompt as edit_prompt
from ghostbook.editing import render
from ghostbook.editing.engine import EditEngine, max_tokens
from ghostbook.editing.models import AnswerPrompt, InProcessModel
from ghostbook.models.backend import Backend, Drafts, Emit, Evaluation, ModelLoadError, Reader, TokenOut, Vocab
from ghostbook.models.catalog import default_model_path
from ghostbook.models.chat_template import chat_prompt_ids, has_chat_template
from ghostbook.models.loader import open_edit_backend

BUCKETS = ("<20%", "20-50%", ">50%")
SYSTEM = ("You edit one cell of a Jupyter notebook as the user asks. Answer with the whole new cell in one "
          "```python code block, and nothing else.")
MIN_LINES, MAX_LINES = 4, 30
KINDS = ("unchanged", "one line", "line added", "line removed", "renamed", "comments", "wrapped")  # `edits_of`


@dataclass(frozen=True)
class Edit:
    """An edit of a cell: its `kind`, the `instruction` that asks for it and the edited `text`."""

    kind: str
    instruction: str
    text: str


def fenced(code: str) -> str:
    """The answer an edit model gives for `code` (the draft answer: `editing.prompt.draft_answer`)."""
    return "```python\n" + code + "\n```"


def changed_share(old: str, new: str) -> float:
    """The share of lines that changed: 1 - the lines kept (in order) / the longer text's lines."""
    a, b = old.splitlines(), new.splitlines()
    kept = sum(block.size for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return 1 - kept / max(len(a), len(b), 1)


def bucket(share: float) -> str:
    return BUCKETS[0] if share < 0.2 else BUCKETS[1] if share <= 0.5 else BUCKETS[2]


def edits_of(cell: str) -> list[Edit]:
    """The edits of `cell` the bench makes (those the cell allows)."""
    lines = cell.split("\n")
    code = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    out = [Edit("unchanged", "Keep the cell as it is.", cell)]
    if not code:
        return out
    mid = code[len(code) // 2]
    line = lines[mid]
    number = re.search(r"(?<![\w.])\d+(?![\w.])", line)
    if number:
        new = line[: number.start()] + str(int(number.group()) + 1) + line[number.end() :]
        instruction = f"In the line `{line.strip()}`, change {number.group()} to {int(number.group()) + 1}."
    else:
        new = line + "  # checked"
        instruction = f"Add the comment `# checked` at the end of the line `{line.strip()}`."
    out.append(Edit("one line", instruction, "\n".join([*lines[:mid], new, *lines[mid + 1 :]])))
    indent = re.match(r"\s*", line).group()  # type: ignore[union-attr]
    names = re.findall(r"^(\w+)\s*=[^=]", cell, re.M)
    shown = names[-1] if names else "None"
    added = f"{indent}print({shown})"
    out.append(Edit("line added", f"Add `{added.strip()}` after the line `{line.strip()}`.",
                    "\n".join([*lines[: mid + 1], added, *lines[mid + 1 :]])))
    if len(code) > 1:
        out.append(Edit("line removed", f"Remove the line `{line.strip()}`.",
                        "\n".join([*lines[:mid], *lines[mid + 1 :]])))
    used = [n for n in dict.fromkeys(names) if len(re.findall(rf"\b{n}\b", cell)) >= 2]
    if used:
        name = max(used, key=lambda n: len(re.findall(rf"\b{n}\b", cell)))
        renamed = re.sub(rf"\b{name}\b", f"{name}_new", cell)
        out.append(Edit("renamed", f"Rename the variable `{name}` to `{name}_new`.", renamed))
    commented = [f"{ln}  # step {i // 3 + 1}" if i in code[::3] else ln for i, ln in enumerate(lines)]
    out.append(Edit("comments", "Add a `# step N` comment at the end of every third line of code.",
                    "\n".join(commented)))
    wrapped = "def run():\n" + "\n".join(f"    {ln}" if ln.strip() else ln for ln in lines) + "\n\n\nrun()"
    out.append(Edit("wrapped", "Wrap the cell in a function `run()` and call it.", wrapped))
    return out


class Reference:
    """A stand-in `Evaluation` whose greedy choice after the prompt is always the next token of `target`
    (then `end`): what an edit search needs to emit `target` (the bound for reference edits)."""

    def __init__(self, target: Sequence[int], end: int, n_vocab: int) -> None:
        self.target, self.end, self.n_vocab = list(target), end, n_vocab

    def _row(self, done: int) -> np.ndarray:
        row = np.zeros(self.n_vocab, dtype=np.float32)
        row[self.target[done] if done < len(self.target) else self.end] = 1.0
        return row

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        return np.stack([self._row(len(b)) for b in branches])

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        return np.stack([self._row(len(branch) - n + i) for i in range(n + 1)])

    def reader(self) -> Reader | None:
        return None

    def drafts(self) -> Drafts | None:
        return None


def bound_calls(draft: Sequence[int], target: Sequence[int], vocab: Vocab, end: int) -> int:
    """The model calls speculative edits take to emit `target` (and its end) with `draft` as the draft."""
    search = EditSearch(draft, len(target) + 1, stop_ids=frozenset([end]))
    search.run(Reference(target, end, len(vocab.pieces)), vocab, lambda: False, lambda token: None)
    return search.calls


@dataclass
class Case:
    """One decoding to compare: the prompt, the draft, how many tokens at most, and its edit's bucket."""

    kind: str
    prompt: list[int]
    draft: list[int]
    max_new: int
    original: str
    copy: bool = False  # greedy with the copy model (`Copying`)
    answer: AnswerPrompt | None = None  # the editor's: its search ends at the answer's closing fence

    def search(self, speculative: bool) -> EditSearch:
        if self.answer is not None:
            return self.answer.search(self.max_new, speculative)
        return EditSearch(self.draft, self.max_new, speculative)


@dataclass
class Result:
    """Plain greedy and speculative edits on one case."""

    kind: str
    share: float
    tokens: int
    calls: tuple[int, int]
    seconds: tuple[float, float]  # wall
    network: tuple[float, float]  # in the model's evaluations
    same: bool


def decode(b: Backend, case: Case, speculative: bool) -> tuple[list[int], int, float, float]:
    """The tokens, model calls, wall seconds and the network's seconds of one decoding."""
    out: list[TokenOut] = []
    search = case.search(speculative)
    measured = Measured(search, case.prompt, case.copy)
    start = time.perf_counter()
    b.generate(case.prompt, measured, lambda: False, out.append)
    return [t.id for t in out], search.calls, time.perf_counter() - start, measured.seconds


def rendered(case: Case, raw: bytes) -> str:
    """The new cell the editor makes of an answer (`editing.render`; "" where it holds no code)."""
    assert case.answer is not None
    return render.render(case.answer.opening + raw.decode("utf-8", errors="replace"), case.original, final=True).text


def compare(b: Backend, case: Case, answer: Callable[[bytes], str]) -> Result:
    decode(b, dataclasses.replace(case, max_new=1), False)  # the prompt into the KV cache
    plain, plain_calls, plain_s, plain_net = decode(b, case, False)
    fast, fast_calls, fast_s, fast_net = decode(b, case, True)
    raw = b"".join(b.piece(t) for t in plain)
    text = rendered(case, raw) if case.answer is not None else answer(raw)
    return Result(case.kind, changed_share(case.original, text), len(plain), (plain_calls, fast_calls),
                  (plain_s, fast_s), (plain_net, fast_net), plain == fast)


def code_of(answer: str) -> str:
    """The code block of a chat answer (the whole answer where it has none)."""
    found = re.search(r"```[\w-]*\n(.*?)(?:\n```|$)", answer, re.S)
    return found.group(1) if found else answer


def notebook_cells(b: Backend, count: int, most_tokens: int) -> list[tuple[list[str], int]]:
    """(a notebook's cells, the index of a cell): code cells of the test split with `MIN_LINES` to
    `MAX_LINES` lines and at most `most_tokens` tokens, at most two per notebook."""
    from ghostbook.eval.notebook_data import load_notebooks, packaged_split

    found: list[tuple[list[str], int]] = []
    for nb in load_notebooks(packaged_split("test")):
        taken = 0
        for i, cell in enumerate(nb.cells):
            lines = cell.split("\n")
            if i == 0 or not MIN_LINES <= len(lines) <= MAX_LINES or cell.lstrip().startswith(("%", "!", "#")):
                continue
            if len(b.tokenize(cell)) <= most_tokens and taken < 2:
                found.append((nb.cells, i))
                taken += 1
        if len(found) >= count:
            break
    return found[:count]


def chat_cases(b: Backend, cells: list[str], i: int) -> list[Case]:
    """The editor's own prompts (`editing.prompt`, `editing.models.AnswerPrompt`): the instruction, the
    cell and the notebook's cells around it through the model's chat template, decoded as the editor
    decodes them."""
    cell = cells[i]
    model = InProcessModel(b)
    budget = EditEngine(model).budget  # the notebook context the editor gives this model
    draft = edit_prompt.draft_answer(cell)
    out = []
    for edit in edits_of(cell):
        context = edit_prompt.EditContext(cells=[CellText("code", c) for c in cells], index=i, selection=None,
                                          instruction=edit.instruction, namespace_lines=[], error=None,
                                          previous=None)
        answer = AnswerPrompt.of(b, edit_prompt.build_messages(context, model.count_tokens, budget), draft)
        room = b.info.n_ctx - len(answer.ids) - 1
        out.append(Case(edit.kind, answer.ids, answer.draft, min(room, max_tokens(model, draft)), cell,
                        answer=answer))
    return out


def copy_cases(b: Backend, cells: list[str], i: int) -> list[Case]:
    """The reference edit shown, the answer's fence opened; greedy (with the copy model) writes the
    edited cell, drafted from the original."""
    cell = cells[i]
    draft = b.tokenize(cell + "\n```")
    out = []
    for edit in edits_of(cell):
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"{edit.instruction}\n\n{fenced(edit.text)}"}]
        prompt = chat_prompt_ids(b, messages) + b.tokenize("```python\n")
        out.append(Case(edit.kind, prompt, draft, len(b.tokenize(edit.text + "\n```")), cell, copy=True))
    return out


class Timed:
    """An `Evaluation` that adds up the seconds its model's evaluations take (`seconds`)."""

    def __init__(self, model: Evaluation) -> None:
        self.model, self.seconds = model, 0.0

    def logits(self, branches: Sequence[Sequence[int]]) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.model.logits(branches)
        finally:
            self.seconds += time.perf_counter() - start

    def logits_along(self, branch: Sequence[int], n: int) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.model.logits_along(branch, n)
        finally:
            self.seconds += time.perf_counter() - start

    def reader(self) -> Reader | None:
        return self.model.reader()

    def drafts(self) -> Drafts | None:
        return self.model.drafts()


class Measured:
    """`search` run on a `Timed` model (the network's seconds: `seconds`); `copy`: with the prompt's
    `decoding.copy_model.CopyModel` mixed into every step (`Mixed` with no line breaks to stop at)."""

    def __init__(self, search: EditSearch, prompt: Sequence[int], copy: bool) -> None:
        self.search, self.prompt, self.copy = search, list(prompt), copy
        self.max_new_tokens = search.max_new_tokens
        self.seconds = 0.0

    def run(self, model: Evaluation, vocab: Vocab, cancelled: Callable[[], bool], emit: Emit) -> None:
        timed = Timed(model)
        inner: Evaluation = Mixed(timed, CopyModel(self.prompt, []), frozenset()) if self.copy else timed
        try:
            self.search.run(inner, vocab, cancelled, emit)
        finally:
            self.seconds = timed.seconds


def report(results: list[Result], copy: bool) -> None:
    """Plain greedy against speculative edits by the share of changed lines: calls, wall time and tokens/s,
    and (`copy`) the network's own seconds (the copy model's mixing left out)."""
    print(f"{'changed lines':<13} {'runs':>4} {'tokens':>6} | {'calls':>5} {'spec':>5} {'fewer':>6} | {'wall s':>6} "
          f"{'spec':>5} {'faster':>6} | {'tok/s':>5} {'spec':>5}" + (f" | {'model s':>7} {'spec':>5} {'faster':>6}"
                                                                     if copy else "") + " | same")
    for name in (*BUCKETS, "all"):
        rows = [r for r in results if name == "all" or bucket(r.share) == name]
        if not rows:
            continue
        tokens = sum(r.tokens for r in rows)
        calls, wall, net = ([sum(getattr(r, f)[i] for r in rows) for i in (0, 1)]
                            for f in ("calls", "seconds", "network"))
        line = (f"{name:<13} {len(rows):>4} {tokens:>6} | {calls[0]:>5} {calls[1]:>5} "
                f"{calls[0] / max(calls[1], 1):>5.1f}x | {wall[0]:>6.2f} {wall[1]:>5.2f} {wall[0] / wall[1]:>5.2f}x | "
                f"{tokens / wall[0]:>5.0f} {tokens / wall[1]:>5.0f}")
        if copy:
            line += f" | {net[0]:>7.2f} {net[1]:>5.2f} {net[0] / net[1]:>5.2f}x"
        print(f"{line} | {sum(r.same for r in rows)}/{len(rows)}")


def report_bound(b: Backend, cells: list[tuple[list[str], int]]) -> None:
    """The bound for reference edits of the real cells, by bucket."""
    end = min(b.vocab.special) if b.vocab.special else 0
    totals: dict[str, list[int]] = {name: [0, 0, 0] for name in BUCKETS}  # edits, tokens, calls
    for nb_cells, i in cells:
        cell = nb_cells[i]
        draft = b.tokenize(fenced(cell))
        for edit in edits_of(cell):
            target = b.tokenize(fenced(edit.text))
            row = totals[bucket(changed_share(cell, edit.text))]
            row[0] += 1
            row[1] += len(target) + 1
            row[2] += bound_calls(draft, target, b.vocab, end)
    print("bound for reference edits (real cells, the original as the draft): calls to emit each edited cell")
    print(f"{'changed lines':<14} {'edits':>5} {'tokens':>6} {'calls':>6} {'fewer':>6}")
    for name, (n, tokens, calls) in totals.items():
        if n:
            print(f"{name:<14} {n:>5} {tokens:>6} {calls:>6} {tokens / calls:>5.1f}x")


def open_model(path: Path, device: str, threads: int | None) -> Backend:
    """The model as the editor loads an edit model (`models.loader.open_edit_backend`): no FIM tokens
    needed (a chat model has none), a GGUF with the editor's context."""
    return open_edit_backend(path, threads, device)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ghostbook bench edits", description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=None, help="GGUF file or transformers folder (default: "
                        "the shipped model)")
    parser.add_argument("--cells", type=int, default=16, help="real cells of the test split (each with its edits)")
    parser.add_argument("--edits", type=int, default=len(KINDS),
                        help=f"the first N kinds of edit of each cell ({', '.join(KINDS)})")
    parser.add_argument("--prompts", choices=("chat", "copy"), default=None,
                        help="chat: the editor's prompt (default with a chat template); copy: the reference edit "
                        "shown and copied")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    path = args.model or default_model_path()
    if path is None:
        parser.error("no shipped model: pass --model")
    try:
        b = open_model(path, args.device, args.threads)
    except ModelLoadError as exc:
        print(f"ghostbook bench edits: {exc}", file=sys.stderr)
        return 1
    prompts = args.prompts or ("chat" if has_chat_template(b) else "copy")
    cells = notebook_cells(b, args.cells, (b.info.n_ctx - 100) // 3)
    print(f"model {path.name} ({b.info.extra.get('device', 'cpu')}), {prompts} prompts, {len(cells)} test-split cells")
    results: list[Result] = []
    def answer(raw: bytes) -> str:  # a copy prompt's answer (a chat prompt's is rendered as the editor does)
        return code_of("```python\n" + raw.decode("utf-8", errors="replace"))

    for nb_cells, i in cells:
        cases = chat_cases(b, nb_cells, i) if prompts == "chat" else copy_cases(b, nb_cells, i)
        results += [compare(b, case, answer) for case in cases if case.kind in KINDS[:args.edits]]
    report(results, prompts == "copy")
    report_bound(b, cells)
    b.unload()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
