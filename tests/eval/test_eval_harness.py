"""HumanEval infilling tasks and the scoring harness: a correct completion passes, a wrong one
fails, a hanging one times out; generation with and without token healing on a tiny real model."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.eval.runner import exact_match
from ghostbook.eval.sandbox import run_program
from ghostbook.eval.tasks import heldout_lines, humaneval_multi_line, humaneval_single_line


def test_task_sets() -> None:
    single = humaneval_single_line()
    multi = humaneval_multi_line()
    assert 900 < len(single) < 1200 and 150 < len(multi) < 330
    t = single[0]
    assert t.prefix.endswith("\n") and "\n" not in t.middle and t.middle.strip()
    assert all(m.middle.count("\n") >= 1 for m in multi)
    assert len({t.task_id for t in single}) == len(single)


def test_cursor_cuts_keep_the_program_and_move_into_the_line() -> None:
    by_cut = {cut: humaneval_single_line(cut=cut) for cut in ("line", "indent", "mid")}
    assert len({len(v) for v in by_cut.values()}) == 1
    for line, indent, mid in zip(*by_cut.values(), strict=True):
        program = line.prefix + line.middle + line.suffix
        assert indent.prefix + indent.middle + indent.suffix == program == mid.prefix + mid.middle + mid.suffix
        code = line.middle.lstrip()
        assert indent.middle == code and not indent.prefix.endswith("\n")
        if len(code) >= 3:  # the cursor sits inside the code: neither at its start nor after its end
            assert mid.middle and len(mid.middle) < len(code) and code.endswith(mid.middle)
    assert sum(a.middle != b.middle for a, b in zip(by_cut["mid"], humaneval_single_line(cut="mid"),
                                                    strict=True)) == 0  # seeded
    with pytest.raises(ValueError, match="unknown cut"):
        humaneval_single_line(cut="nowhere")


# First lines of solutions always run (a later line may sit in a branch the tests never reach).
FIRST_LINES = [t for t in humaneval_single_line() if t.task_id.endswith("/L0")]


@pytest.mark.parametrize("task", FIRST_LINES[::20] + humaneval_multi_line()[::41],
                         ids=lambda t: t.task_id)
def test_canonical_completion_passes_and_wrong_one_fails(task) -> None:
    assert run_program(task.program(task.middle)).passed
    indent = task.middle[: len(task.middle) - len(task.middle.lstrip())]
    assert not run_program(task.program(indent + "raise ValueError('wrong')")).passed


def test_hanging_completion_times_out() -> None:
    task = next(t for t in FIRST_LINES if not t.middle.rstrip().endswith(":"))
    indent = task.middle[: len(task.middle) - len(task.middle.lstrip())]
    result = run_program(task.program(indent + "while True: pass"), timeout=1.0)
    assert result.status == "timeout"


def test_exact_match_rules() -> None:
    assert exact_match("  return x  ", "    return x", single_line=True)
    assert not exact_match("return y", "return x", single_line=True)
    assert exact_match("a = 1   \nb = 2\n", "a = 1\nb = 2", single_line=False)
    assert not exact_match("a = 1\n b = 2", "a = 1\nb = 2", single_line=False)


def test_heldout_lines_are_lines_of_the_documents() -> None:
    doc = "\n".join(f"value_{i} = compute({i})" for i in range(40))
    tasks = heldout_lines([doc], n=10)
    assert len(tasks) == 10
    assert all((t.prefix + t.middle + t.suffix) in doc for t in tasks)


@pytest.mark.parametrize("kind", ["gguf", "hf"])
def test_evaluate_runs_on_tiny_model(tiny_work: Path, kind: str) -> None:
    from ghostbook.eval.generate import complete, load_backend
    from ghostbook.eval.runner import evaluate

    path = tiny_work / "export" / ("ghostbook-fim-q8_0.gguf" if kind == "gguf" else "hf")
    backend = load_backend(path, n_ctx=256)
    # Healing: the prompt loses its last token and the first generated token re-creates it.
    removed = backend.piece(backend.tokenize("def f(x):\n    ret")[-1])
    healed = complete(backend, "def f(x):\n    ret", "\n", max_new=5)
    assert healed.tokens and backend.piece(healed.tokens[0]).startswith(removed)
    plain = complete(backend, "def f(x):\n    ret", "\n", max_new=5, healing=False)
    assert plain.prompt_tokens == healed.prompt_tokens + 1
    # At the start of a line the prefix is a boundary the model was trained on: no healing.
    line_start = complete(backend, "def f(x):\n", "\n", max_new=5)
    assert line_start.prompt_tokens == complete(backend, "def f(x):\n", "\n", max_new=5,
                                                healing=False).prompt_tokens
    summary = evaluate(backend, humaneval_single_line(limit=3), "single", progress=False)
    assert summary.n == 3 and summary.pass_at_1 is not None and 0 <= summary.exact_match <= 1
    backend.unload()


@pytest.mark.parametrize("beam", [1, 3])
def test_gguf_and_hf_backends_agree(tiny_work: Path, beam: int) -> None:
    from ghostbook.eval.generate import complete, load_backend

    outs = []
    for path in (tiny_work / "export" / "ghostbook-fim-f32.gguf", tiny_work / "export" / "hf"):
        backend = load_backend(path, n_ctx=256)
        outs.append([complete(backend, t.prefix[-300:], t.suffix[:100], max_new=8, beam=beam).tokens
                     for t in humaneval_single_line(limit=4)])
        backend.unload()
    assert outs[0] == outs[1]


def loops(prefix: str, text: str) -> bool:
    """Whether a suggestion writes a line `looping_lines` forbids where it stands."""
    from ghostbook.decoding.repetition import looping_lines

    lines = [line for line in text.split("\n") if line.strip()]
    written = [prefix.rsplit("\n", 1)[-1] + lines[0], *lines[1:]] if lines else []
    return any(written[i].rstrip().encode() in looping_lines(written[:i]) for i in range(2, len(written)))


def test_multi_line_tasks_are_decoded_line_by_line_without_loops() -> None:
    """With the shipped model, multi-line tasks get suggestions of several lines, found line by line,
    and none loops, where greedy decoding of the same model does."""
    from ghostbook.eval.generate import complete, load_backend
    from ghostbook.models.catalog import resolve

    backend = load_backend(resolve("default")[1], n_ctx=512)
    tasks = humaneval_multi_line()[::8]
    beam = [complete(backend, t.prefix, t.suffix, 128, single_line=False, beam=8).text for t in tasks]
    greedy = [complete(backend, t.prefix, t.suffix, 128, single_line=False).text for t in tasks]
    assert sum(text.strip().count("\n") > 0 for text in beam) >= len(tasks) // 8
    assert not any(loops(t.prefix, text) for t, text in zip(tasks, beam, strict=True))
    assert any(loops(t.prefix, text) for t, text in zip(tasks, greedy, strict=True))
    backend.unload()
