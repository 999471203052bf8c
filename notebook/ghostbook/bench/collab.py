"""`ghostbook bench collab`: typing between two tabs, and opening big notebooks, in a real Chromium.

    ghostbook bench collab [--baseline [REF] | --no-baseline] [--runs 5] [--keys 60] [--pace 30:100]
                           [--race-keys 60] [--big-mb 1] [--cells 500] [--only big,many,...] [--json FILE]

Everything goes through the browser's UI, never the wire protocol, so it judges any way of syncing text:
- keystrokes: one notebook in two tabs of one Chromium; `--keys` characters typed into tab A's cell with
  real key events, gaps drawn from `--pace` ms; each one timed from its keydown in A to the moment it
  stands in tab B's editor (a MutationObserver in B); p50 / p95 / max and how many arrived. The first
  `--warmup` keys of each run are typed but not counted. Twice: words (the editor's kernel completion
  popup asks the kernel after a pause, as for a user) and symbols (it never does: the text sync alone).
- race: tabs A and B type `--race-keys` characters into the same place of one cell at once (alternating,
  no pause); how many survive in each tab and in the saved file, and whether all three agree.
- open: a notebook with one code cell of `--big-mb` MB, and one of `--cells` short cells (every fifth
  markdown, a third of the code cells with a line of output), each copied fresh so the server reads it
  from disk; from navigation start (`performance.timeOrigin`) to the first frame painted after the
  notebook is loaded, all its cells are on the page and the last cell's editor shows its first lines;
  median of `--runs`. The browser has the bundle cached (its context opened the file browser first).
Clock: `performance.timeOrigin + performance.now()` in each page, the offset between two tabs measured
and taken off (`collab_pages`). Completion is off on both servers (no ghost text).

With `--baseline REF` (no REF: the merge-base with `main`) the same runs are made, interleaved run by run,
against a server of REF checked out in a temp git worktree and built there (`revision.checkout`), and one
table shows both with the ratio this / baseline. Results: docs/benchmarks.md, "Collaboration".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, sync_playwright

from ghostbook.bench import collab_notebooks as notebooks
from ghostbook.bench.collab_pages import HELPERS_JS, RaceRun, keystrokes, open_ms, race
from ghostbook.bench.revision import Tree, checkout, default_ref, stale_build, working_tree
from ghostbook.bench.server import RunningServer, start_server, stop_server
from ghostbook.export.pdf import CHROMIUM

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
# What a keystroke run types: words (a pause over 80 ms sends the kernel completion popup's request, as for a
# user), and symbols (never a completion request: the text sync alone).
TEXTS = {"words": "the quick brown fox jumps over the lazy dog ", "symbols": "-=+* "}
MEASURES = (*TEXTS, "race", "big", "many")


@dataclass(frozen=True)
class Config:
    runs: int = 5
    keys: int = 60  # a keystroke run's keys, the warm-up's included
    warmup: int = 5
    pace_ms: tuple[float, float] = (30.0, 100.0)
    race_keys: int = 60
    big_bytes: int = 1_000_000
    cells: int = 500
    seed: int = 0
    measures: tuple[str, ...] = MEASURES  # which of MEASURES to run


@dataclass
class SideResult:
    label: str
    latencies: dict[str, list[float]] = field(default_factory=dict)  # ms by TEXTS key, arrived keys of all runs
    typed: dict[str, int] = field(default_factory=dict)  # keys counted, by TEXTS key
    offsets: list[float] = field(default_factory=list)  # tab B's clock minus tab A's, ms, a run each
    races: list[RaceRun] = field(default_factory=list)
    open_big: list[float] = field(default_factory=list)  # ms, a run each
    open_many: list[float] = field(default_factory=list)


@dataclass
class Side:
    """One source tree served and measured: its server, its browser context, what it measured."""

    tree: Tree
    server: RunningServer
    context: BrowserContext
    result: SideResult

    def url(self, name: str) -> str:
        return f"{self.server.base}/notebooks/{name}"

    def discard(self, name: str) -> None:
        """Delete a measured notebook through the contents API (its session and kernel close)."""
        request = urllib.request.Request(f"{self.server.base}/api/contents?path={name}", method="DELETE",
                                         headers={"Authorization": f"token {self.server.token}"})
        try:
            urllib.request.urlopen(request, timeout=30).close()
        except OSError:
            pass  # an older revision without it: the kernel stays until the server stops


@contextmanager
def served(tree: Tree, browser: Browser) -> Iterator[Side]:
    """A server of `tree` on a temp root (completion off) and a browser context that has opened it."""
    imported = tree.imports_from()
    if tree.root not in imported.parents:
        raise RuntimeError(f"{tree.label}: ghostbook imports from {imported}, not from {tree.root}")
    with tempfile.TemporaryDirectory(prefix="ghostbook-collab-") as tmp:
        base = Path(tmp)
        (base / "config" / "ghostbook").mkdir(parents=True)
        (base / "config" / "ghostbook" / "settings.json").write_text(json.dumps({"completion": {"enabled": False}}))
        (base / "root").mkdir()
        pythonpath = os.pathsep.join(filter(None, [tree.pythonpath, os.environ.get("PYTHONPATH")]))
        server = start_server(base / "root", env={"PYTHONPATH": pythonpath, "XDG_CONFIG_HOME": str(base / "config"),
                                                  "GHOSTBOOK_TELEMETRY": "off"})
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(script=HELPERS_JS)
        try:
            page = context.new_page()
            page.goto(f"{server.base}/?token={server.token}")  # the cookie, and the bundle in the cache
            page.close()
            yield Side(tree, server, context, SideResult(tree.label))
        finally:
            context.close()
            stop_server(server)


def measure(kind: str, side: Side, run: int, config: Config, opened: dict[str, list[dict[str, object]]]) -> None:
    """One run of one measurement on one side, on a fresh copy of its notebook."""
    name = f"{kind}-{run}.ipynb"
    file = side.server.root / name
    notebooks.write(file, opened.get(kind) or notebooks.typing_cell())
    got = side.result
    if kind in TEXTS:
        typed = (TEXTS[kind] * (config.keys // len(TEXTS[kind]) + 1))[: config.keys]
        keys = keystrokes(side.context, side.url(name), notebooks.TYPING_LINE, typed, config.pace_ms, config.warmup,
                          random.Random(config.seed * 1000 + run))
        got.latencies[kind] = got.latencies.get(kind, []) + keys.latencies
        got.typed[kind] = got.typed.get(kind, 0) + keys.typed
        got.offsets.append(keys.offset)
    elif kind == "race":
        got.races.append(race(side.context, side.url(name), file, config.race_keys))
    else:
        times = got.open_big if kind == "big" else got.open_many
        times.append(open_ms(side.context, side.url(name), len(opened[kind]), notebooks.head(opened[kind])))
    side.discard(name)


def run(config: Config, baseline: str | None = None, browser: Browser | None = None) -> list[SideResult]:
    """Measure the working tree (and `baseline`, a git ref; "" for the default), runs interleaved."""
    opened = {"big": notebooks.big_cell(config.big_bytes), "many": notebooks.many_cells(config.cells)}
    with ExitStack() as stack:
        trees = [working_tree()]
        if baseline is not None:
            trees.append(stack.enter_context(checkout(baseline or default_ref())))
        if browser is None:
            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            stack.callback(browser.close)
            print(f"Chromium {browser.version}", flush=True)
        sides = [stack.enter_context(served(tree, browser)) for tree in trees]
        for side in sides:  # warm-up, not counted: the first open of a server is slower than the rest
            for kind in ("big", "many"):
                if kind in config.measures:
                    measure(kind, side, -1, config, opened)
            side.result = SideResult(side.tree.label)
        for r in range(config.runs):
            for kind in config.measures:
                for side in sides[r % len(sides):] + sides[: r % len(sides)]:
                    measure(kind, side, r, config, opened)
        return [side.result for side in sides]


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank `q` percentile (nan for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(q / 100 * len(ordered)))) - 1]


def rows(result: SideResult) -> list[tuple[str, float, str]]:
    """(measure, value for the ratio, what to print) for one side."""
    races = result.races
    typed = sum(r.typed for r in races)
    out: list[tuple[str, float, str]] = []
    for kind in TEXTS:
        latencies = result.latencies.get(kind, [])
        out += [(f"keystroke to the other tab, {kind}, {q} (ms)", percentile(latencies, p), "")
                for q, p in (("p50", 50), ("p95", 95), ("max", 100))]
        arrived = len(latencies) if kind in result.typed else math.nan  # nan: not measured (--only)
        out.append((f"{kind}: keys arrived", arrived, f"{len(latencies)} / {result.typed.get(kind, 0)}"))
    for where, attr in (("tab A", "kept_a"), ("tab B", "kept_b"), ("the file", "kept_disk")):
        count = sum(getattr(r, attr) for r in races)
        out.append((f"race: typed characters kept in {where}", count if races else math.nan,
                    f"{count} / {typed} ({count / max(1, typed):.0%})"))
    converged = sum(r.converged for r in races)
    out.append(("race: runs where both tabs and the file agree", converged if races else math.nan,
                f"{converged} / {len(races)}"))
    for label, times in (("open one big code cell, median (ms)", result.open_big),
                         ("open many cells, median (ms)", result.open_many)):
        out.append((label, statistics.median(times) if times else float("nan"), ""))
    return [(m, v, text or f"{v:.1f}") for m, v, text in out]


def table(results: list[SideResult], config: Config) -> str:
    """One row a measure, one column a side, and the ratio this / baseline where there is one."""
    columns = [rows(result) for result in results]
    head = "| measure | " + " | ".join(r.label for r in results) + (" | ratio |" if len(results) > 1 else " |")
    lines = [head, "|---" * (len(results) + 1 + (len(results) > 1)) + "|"]
    for i, (label, value, text) in enumerate(columns[0]):
        if all(math.isnan(col[i][1]) for col in columns):
            continue  # a measure not run (--only)
        label = label.replace("one big", f"one {config.big_bytes / 1e6:g} MB").replace("many", str(config.cells))
        cells = [text] + [col[i][2] for col in columns[1:]]
        if len(results) > 1:
            base = columns[1][i][1]
            cells.append(f"{value / base:.2f}" if base else "-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse(argv: list[str]) -> tuple[Config, str | None, Path | None]:
    parser = argparse.ArgumentParser(prog="ghostbook bench collab", description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--baseline", nargs="?", const="", default=None, metavar="REF",
                       help="also measure git REF side by side (no REF: the merge-base with main, else HEAD)")
    which.add_argument("--no-baseline", dest="baseline", action="store_const", const=None,
                       help="measure the working tree alone (the default)")
    parser.add_argument("--runs", type=int, default=Config.runs, help="runs of each measure, a side")
    parser.add_argument("--keys", type=int, default=Config.keys, help="keys typed in a keystroke run")
    parser.add_argument("--warmup", type=int, default=Config.warmup, help="first keys of a run not counted")
    parser.add_argument("--pace", default="30:100", help="MIN:MAX ms between keys (uniform)")
    parser.add_argument("--race-keys", type=int, default=Config.race_keys, help="keys of both tabs in a race")
    parser.add_argument("--big-mb", type=float, default=Config.big_bytes / 1e6, help="size of the big cell")
    parser.add_argument("--cells", type=int, default=Config.cells, help="cells of the many-cell notebook")
    parser.add_argument("--seed", type=int, default=Config.seed)
    parser.add_argument("--only", default=",".join(MEASURES),
                        help=f"comma-separated measures to run, of {','.join(MEASURES)}")
    parser.add_argument("--json", type=Path, default=None, help="also write every sample here")
    args = parser.parse_args(argv)
    measures = tuple(m for m in MEASURES if m in args.only.split(","))
    if not measures or set(args.only.split(",")) - set(MEASURES):
        parser.error(f"--only takes some of {','.join(MEASURES)}")
    low, high = (float(x) for x in args.pace.split(":"))
    config = Config(args.runs, args.keys, args.warmup, (low, high), args.race_keys, int(args.big_mb * 1e6),
                    args.cells, args.seed, measures)
    return config, args.baseline, args.json


def main(argv: list[str]) -> int:
    config, baseline, out = parse(argv)
    if stale_build(working_tree()):
        print("warning: the frontend build is missing or older than frontend/src: run `npm run build`")
    print(f"{date.today()}: {os.cpu_count()} CPUs; {config}; clock: "
          "performance.timeOrigin + performance.now() in each tab, their offset taken off", flush=True)
    results = run(config, baseline)
    print(table(results, config))
    if out is not None:
        out.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0
