"""`ghostbook bench collab` in a tiny configuration, for real: servers of this tree and of HEAD (checked out
and built in a temp worktree), two tabs typing, notebooks opened. Keeps the benchmark from rotting."""

from __future__ import annotations

import subprocess

import pytest
from ghostbook.bench.collab import Config, run, table
from ghostbook.bench.revision import REPO
from playwright.sync_api import Browser


@pytest.mark.timeout(300)
def test_collab_bench_runs_against_a_baseline(browser: Browser) -> None:
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=REPO, capture_output=True, text=True).stdout
    config = Config(runs=1, keys=8, warmup=2, race_keys=6, big_bytes=20_000, cells=12)
    ours, base = run(config, baseline="HEAD", browser=browser)
    assert ours.label == "this tree" and base.label.startswith("baseline ")
    for side in (ours, base):
        for text in ("words", "symbols"):
            assert side.typed[text] == 6 and len(side.latencies[text]) == 6  # every key reached the other tab
            assert all(0 < ms < 5000 for ms in side.latencies[text])
        assert len(side.offsets) == 2 and all(abs(offset) < 50 for offset in side.offsets)
        (race,) = side.races
        assert race.typed == 6 and 0 < race.kept_disk <= 6 and race.kept_a <= 6 and race.kept_b <= 6
        assert len(side.open_big) == len(side.open_many) == 1
        assert all(0 < ms < 60_000 for ms in side.open_big + side.open_many)
    lines = table([ours, base], config).splitlines()
    assert len(lines) == 16 and lines[0].endswith("| ratio |")
    # the temp worktree is gone again
    assert subprocess.run(["git", "worktree", "list"], cwd=REPO, capture_output=True, text=True).stdout == worktrees
