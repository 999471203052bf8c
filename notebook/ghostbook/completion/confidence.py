"""How likely the user types exactly this suggestion: the confidence of automatic ghost text (#30).

Ghost text nobody asked for must be right more often than not, or it trains the user to ignore it.
The estimate uses what the engine already knows, no model call: where the first line came from
(`decoding.plan.Trace`: a copy of the notebook's or the line memory's lines, the beam, or a line the
beam ran out of time on), for a copy how far the model preferred it to its own line, whether the
beam wrote it too and among how many candidates it won, whether the notebook or other notebooks
hold that line, the cursor's kind (a new line, after `.`, `(`, `=`, `,`, `import `, a new cell),
and the line's length and shape. A
logistic model over these features, fitted by `ghostbook train confidence` on notebooks from
repositories that neither the model nor the line memory saw (`training.source_split`), with
thresholds chosen on other such repositories; `data/confidence.json` holds it. An automatic request
shows its suggestion only where the estimate reaches the threshold of the "Suggest" setting; a forced
one (Ctrl+Space) is never held back, nor is the suggestion of a model it was not fitted on (the
built-in model's lines come from copies and its beam; a server's or a larger model's do not).
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ghostbook.completion.line_memory import line_memory

MODEL = "confidence.json"
KINDS = ("line", "after .", "after (", "after =", "after ,", "after import", "cell", "mid")
ORIGINS = ("copy", "beam", "cut", "greedy", "remote")
# the kinds the benchmark's tasks have, and so the fit saw; elsewhere ("mid": inside a word, after `as `)
# a suggestion is not judged
FITTED_KINDS = KINDS[:-1]
_NAME = re.compile(r"[A-Za-z_]\w*")


def cursor_kind(cell_prefix: str) -> str:
    """Where the cursor stands, as the notebook benchmark names its tasks (`KINDS`)."""
    if not cell_prefix.strip():
        return "cell"
    head = cell_prefix.rsplit("\n", 1)[-1]
    if not head.strip():
        return "line"
    typed = head.rstrip()
    if head.endswith("import "):
        return "after import"
    for mark in (".", "(", "=", ","):
        if typed.endswith(mark) and (mark != "=" or not typed.endswith(("==", "!=", "<=", ">="))):
            return f"after {mark}"
    return "mid"


@dataclass(frozen=True)
class Evidence:
    """What the engine knows of one suggestion: its first `line`, where it came from (`origin`,
    `copy_rank`), the cursor's cell around it and the notebook's other text (`notebook`)."""

    line: str
    origin: str
    cell_prefix: str
    cell_suffix: str
    notebook: str = ""
    copy_rank: int = -1
    agreed: bool = False  # a copy the beam wrote itself
    margin: float = 0.0  # nats a winning copy beat the beam's line by (`decoding.copies.Choice`)
    offered: int = 0  # candidates that kept the line rules where a copy won
    per_token: float = 0.0  # the winning copy's log-probability per token
    runner_up: float = 0.0  # nats the winning copy beat the next candidate by (inf: none)

    def features(self) -> dict[str, float]:
        """The model's inputs, by name."""
        head = self.cell_prefix.rsplit("\n", 1)[-1]
        typed = head.strip()
        whole = (typed + self.line).strip() if typed else self.line.strip()
        kind = cursor_kind(self.cell_prefix)
        out = {f"kind={k}": float(kind == k) for k in KINDS}
        out.update({f"origin={o}": float(self.origin == o) for o in ORIGINS})
        out["copy_rank"] = min(max(self.copy_rank, 0), 5) / 5 if self.origin == "copy" else 0.0
        copy = self.origin == "copy"
        out["agreed"] = float(copy and self.agreed)
        out["margin"] = min(40.0, max(-20.0, self.margin)) / 10 if copy else 0.0
        out["offered"] = math.log1p(self.offered) if copy else 0.0
        out["per_token"] = max(-10.0, self.per_token) / 5 if copy and not self.agreed else 0.0
        out["runner_up"] = min(20.0, self.runner_up) / 10 if copy and not self.agreed else 0.0
        out["in_notebook"] = math.log1p(self.notebook.count(whole)) if whole else 0.0
        out["bare_name"] = float(bool(_NAME.fullmatch(self.line.strip())))
        # an import the notebook already has is rarely typed again, nor a module imported by its alias
        out["repeats_import"] = float(whole.startswith(("import ", "from ")) and out["in_notebook"] > 0)
        out["alias_import"] = float(kind == "after import" and out["bare_name"] == 1.0 and "." not in self.line)
        # a line that echoes one just above with other values (`y[:, 0]` after `y[:, 1]`) is a guess
        above = [ln.strip() for ln in self.cell_prefix.split("\n")[-4:-1] if ln.strip()]
        out["like_above"] = max((difflib.SequenceMatcher(None, whole, ln, autojunk=False).ratio() for ln in above),
                                default=0.0) if whole else 0.0
        out["in_memory"] = math.log1p(line_memory().count(whole)) if whole else 0.0
        out["chars"] = math.log1p(len(self.line.strip()))
        out["typed"] = math.log1p(len(typed))
        out["indented"] = float(head[:1].isspace() or (not typed and bool(head)))
        out["closes"] = float(_balanced(typed + self.line))
        out["bias"] = 1.0
        return out


def _balanced(line: str) -> bool:
    depth = 0
    for ch in line:
        depth += ch in "([{"
        depth -= ch in ")]}"
    return depth == 0


@dataclass(frozen=True)
class ConfidenceModel:
    """A logistic model: `weights` by feature name; `thresholds` by "Suggest" setting."""

    weights: Mapping[str, float] = field(default_factory=dict)
    thresholds: Mapping[str, float] = field(default_factory=dict)
    fitted_on: str = "default"  # the model setting whose suggestions it learned ("default": the built-in)

    def judges(self, model: str) -> bool:
        """Whether it estimates the suggestions of `model` (a model setting): the one it was fitted on.
        Another model's lines come from elsewhere; its suggestions are all shown."""
        return model == self.fitted_on

    def probability(self, evidence: Evidence) -> float:
        if not evidence.line.strip():
            return 0.0
        if not self.weights or cursor_kind(evidence.cell_prefix) not in FITTED_KINDS:
            return 1.0  # no model, or a place it never saw (inside a word): nothing is held back
        z = sum(self.weights.get(name, 0.0) * value for name, value in evidence.features().items())
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    def threshold(self, suggest: str) -> float:
        return self.thresholds.get(suggest, 0.0)

    def to_json(self) -> dict[str, object]:
        return {"fitted_on": self.fitted_on, "weights": dict(self.weights), "thresholds": dict(self.thresholds)}

    @classmethod
    def from_json(cls, data: object) -> ConfidenceModel:
        """The model as `ghostbook train confidence` writes it; an empty model (nothing held back) for
        any other shape."""
        if not isinstance(data, dict):
            return cls()
        try:
            weights = {str(k): float(v) for k, v in data.get("weights", {}).items()}
            thresholds = {str(k): float(v) for k, v in data.get("thresholds", {}).items()}
        except (TypeError, ValueError, AttributeError):
            return cls()
        return cls(weights, thresholds, str(data.get("fitted_on", "default")))

    @classmethod
    def load(cls, path: Path) -> ConfidenceModel:
        try:
            return cls.from_json(json.loads(path.read_text()))
        except (OSError, ValueError):
            return cls()


def packaged_path() -> Path:
    return Path(str(resources.files("ghostbook.completion") / "data" / MODEL))


@functools.cache
def confidence_model() -> ConfidenceModel:
    """The shipped model (an empty one, which holds nothing back, if it is missing)."""
    return ConfidenceModel.load(packaged_path())
