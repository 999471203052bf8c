"""Edit tasks: the data file format, its parser and the tasks' own sanity rules.

`tasks.txt` holds the tasks as plain text so that code needs no escaping. A task starts with
`%%% task ID`, then `key: value` header lines (notebook, licence, kind, category, instruction, error),
then sections, each opened by a line `%%% NAME`: `prefix` (one per earlier cell, in order; may repeat),
`cell` (the cell as the user has it: for a fix task, with its error), `reference` (the edited cell, written
by hand) and `check` (Python run in the same kernel after the proposal; it passes when it raises nothing).
Lines starting with `%%%%` are comments. Trailing blank lines of a section are dropped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

Kind = Literal["fix", "edit"]
KINDS: tuple[Kind, ...] = ("fix", "edit")
FIX_INSTRUCTION = "fix this error"
_HEADERS = {"notebook", "licence", "kind", "category", "instruction", "error"}
_SECTIONS = {"prefix", "cell", "reference", "check"}
_MARK = re.compile(r"^%%% (\w+)(?: (.*))?$")


class TaskFormatError(ValueError):
    """The tasks file is malformed (the message names the line)."""


@dataclass(frozen=True)
class EditTask:
    """One edit: run `prefix`, (fix: run `cell` for its error), propose, run the proposal, run `check`."""

    id: str
    notebook: str  # the benchmark notebook it was cut from (`notebooks-test.jsonl.gz` ids)
    licence: str
    kind: Kind
    category: str
    instruction: str
    prefix: tuple[str, ...]
    cell: str
    reference: str
    check: str
    error: str | None = None  # fix tasks: the exception the cell raises (e.g. NameError)

    @property
    def modules(self) -> set[str]:
        """Top-level modules the prefix and the reference import (a task needs them installed)."""
        found: set[str] = set()
        for code in (*self.prefix, self.reference):
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    found.add(node.module.split(".")[0])
        return found


def parse_tasks(text: str) -> list[EditTask]:
    """The tasks of a tasks file (TaskFormatError on a malformed one)."""
    tasks: list[EditTask] = []
    current: dict[str, object] | None = None
    section: list[str] | None = None
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("%%%%"):
            continue
        mark = _MARK.match(line)
        if mark is not None:
            name, arg = mark.group(1), (mark.group(2) or "").strip()
            if name == "task":
                if current is not None:
                    tasks.append(_build(current))
                current, section = {"id": arg, "prefix": [], "line": number}, None
                continue
            if current is None or name not in _SECTIONS:
                raise TaskFormatError(f"line {number}: unexpected {line!r}")
            section = []
            if name == "prefix":
                prefix = current["prefix"]
                assert isinstance(prefix, list)
                prefix.append(section)
            elif name in current:
                raise TaskFormatError(f"line {number}: a second {name} section in task {current['id']}")
            else:
                current[name] = section
            continue
        if section is not None:
            section.append(line)
        elif current is not None and line.strip():
            key, sep, value = line.partition(":")
            if not sep or key.strip() not in _HEADERS:
                raise TaskFormatError(f"line {number}: expected a header (one of {sorted(_HEADERS)}): {line!r}")
            current[key.strip()] = value.strip()
    if current is not None:
        tasks.append(_build(current))
    ids = [t.id for t in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TaskFormatError(f"task ids used twice: {duplicates}")
    return tasks


def _code(lines: object) -> str:
    assert isinstance(lines, list)
    return "\n".join(lines).rstrip("\n").rstrip()


def _build(raw: dict[str, object]) -> EditTask:
    where = f"task {raw['id']!r} (line {raw['line']})"
    missing = [k for k in ("notebook", "licence", "kind", "cell", "reference", "check") if k not in raw]
    if missing:
        raise TaskFormatError(f"{where}: missing {missing}")
    kind = str(raw["kind"])
    if kind not in KINDS:
        raise TaskFormatError(f"{where}: kind must be one of {KINDS}, not {kind!r}")
    if kind == "fix" and "error" not in raw:
        raise TaskFormatError(f"{where}: a fix task names the error its cell raises")
    instruction = str(raw.get("instruction", FIX_INSTRUCTION if kind == "fix" else ""))
    if not instruction:
        raise TaskFormatError(f"{where}: an edit task needs an instruction")
    prefix = raw["prefix"]
    assert isinstance(prefix, list)
    task = EditTask(str(raw["id"]), str(raw["notebook"]), str(raw["licence"]), kind,  # type: ignore[arg-type]
                    str(raw.get("category", kind)), instruction, tuple(_code(c) for c in prefix),
                    _code(raw["cell"]), _code(raw["reference"]), _code(raw["check"]),
                    str(raw["error"]) if "error" in raw else None)
    problems = check_task(task)
    if problems:
        raise TaskFormatError(f"{where}: " + "; ".join(problems))
    return task


def check_task(task: EditTask) -> list[str]:
    """What is wrong with a task on its face (the kernel run finds the rest)."""
    problems = []
    if task.cell == task.reference:
        problems.append("the reference is the cell unchanged")
    for name, code in (("prefix", "\n".join(task.prefix)), ("reference", task.reference), ("check", task.check)):
        try:
            ast.parse(code)
        except SyntaxError as exc:
            problems.append(f"the {name} does not parse: {exc}")
    return problems


def tasks_path() -> Path:
    """The tasks shipped with Ghostbook."""
    return Path(str(resources.files("ghostbook.eval.edits") / "tasks.txt"))


def load_tasks(path: Path | None = None) -> list[EditTask]:
    return parse_tasks((path or tasks_path()).read_text(encoding="utf-8"))


def select(tasks: Iterable[EditTask], kind: str | None = None, ids: Iterable[str] = (),
           limit: int | None = None, stride: int = 1) -> list[EditTask]:
    """A subset: one kind, the named ids (in file order), every `stride`th, the first `limit`."""
    wanted = set(ids)
    picked = [t for t in tasks if (kind is None or t.kind == kind) and (not wanted or t.id in wanted)]
    unknown = wanted - {t.id for t in picked}
    if unknown:
        raise KeyError(f"no such task: {sorted(unknown)}")
    picked = picked[:: max(1, stride)]
    return picked[:limit] if limit else picked
