"""`ghostbook bench edits`: the edits it makes of real cells, the share of changed lines, the bound for
reference edits, and one short run on the shipped model (plain greedy against speculative edits)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghostbook.bench import BENCHES
from ghostbook.bench.edits import BUCKETS, KINDS, bucket, changed_share, code_of, edits_of, main

CELL = 'import pandas as pd\ndf = pd.read_csv("sales.csv")\ndf["total"] = df["price"] * 2\nprint(df.head(10))\n' \
       'df.plot(x="day", y="total")'


def test_edit_kinds_and_their_shares() -> None:
    edits = {e.kind: e for e in edits_of(CELL)}
    assert list(edits) == ["unchanged", "one line", "line added", "line removed", "renamed", "comments", "wrapped"]
    assert tuple(edits) == KINDS
    assert edits["unchanged"].text == CELL
    assert 'df["total"] = df["price"] * 3' in edits["one line"].text
    assert "change 2 to 3" in edits["one line"].instruction
    assert "print(df)" in edits["line added"].text.split("\n")
    assert 'df["total"] = df["price"] * 2' not in edits["line removed"].text
    assert "df_new.plot" in edits["renamed"].text and "pd.read_csv" in edits["renamed"].text
    assert edits["wrapped"].text.startswith("def run():\n    import pandas")
    shares = {kind: changed_share(CELL, e.text) for kind, e in edits.items()}
    assert shares["unchanged"] == 0 and bucket(shares["one line"]) == "<20%" == bucket(shares["line added"])
    assert bucket(shares["comments"]) == "20-50%" and bucket(shares["renamed"]) == ">50%"
    assert bucket(shares["wrapped"]) == ">50%"


def test_changed_share_and_buckets() -> None:
    ten = "\n".join(f"x{i} = {i}" for i in range(10))
    assert changed_share(ten, ten.replace("x3 = 3", "x3 = 4")) == pytest.approx(0.1)
    assert changed_share(ten, ten + "\nprint(x9)") == pytest.approx(1 / 11)
    assert [bucket(s) for s in (0.0, 0.19, 0.2, 0.5, 0.51, 1.0)] == ["<20%", "<20%", *BUCKETS[1:2] * 2, ">50%", ">50%"]


def test_code_of_an_answer() -> None:
    assert code_of("Here it is:\n```python\nx = 1\n```\nDone.") == "x = 1"
    assert code_of("```python\nx = 1\ny = 2") == "x = 1\ny = 2"  # still open
    assert code_of("x = 1") == "x = 1"


def test_bench_runs_on_the_shipped_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert BENCHES["edits"] == "ghostbook.bench.edits"
    assert main(["--cells", "1"]) == 0
    out = capsys.readouterr().out
    assert "copy prompts, 1 test-split cells" in out and "bound for reference edits" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("<20%", "all"))]
    first = rows[0]  # the unchanged and one-line edits of one real cell: far fewer calls, the same tokens
    assert float(first[6].rstrip("x")) >= 4  # calls: plain, speculative, fewer
    assert first[-1].split("/")[0] == first[-1].split("/")[1]


@pytest.mark.timeout(600)  # 206 s on the 2-core machine during a CI run
def test_bench_runs_on_a_chat_model(smollm2: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A chat model has no FIM tokens, as the editor allows: the bench loads it and gives it the editor's
    own prompts, plain greedy and speculative edits side by side on its real answers."""
    assert main(["--model", str(smollm2), "--cells", "1", "--edits", "1", "--threads", "2"]) == 0
    out = capsys.readouterr().out
    assert "SmolLM2-135M-Instruct.Q4_1.gguf (cpu), chat prompts, 1 test-split cells" in out
    [total] = [line.split() for line in out.splitlines() if line.startswith("all")]
    runs, tokens, plain_calls, fast_calls = (int(total[i]) for i in (1, 2, 4, 5))
    assert runs == 1 and tokens > 0 and plain_calls >= tokens and 0 < fast_calls <= plain_calls
