"""The sandbox: pass, fail, timeout, memory limit, and blocked writes, sockets and processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ghostbook.eval.sandbox import run_program


def test_passing_and_failing_programs() -> None:
    assert run_program("assert sorted([3, 1, 2]) == [1, 2, 3]").status == "passed"
    result = run_program("assert 1 + 1 == 3")
    assert not result.passed and result.status == "failed" and "AssertionError" in result.detail


def test_hanging_program_times_out() -> None:
    result = run_program("while True:\n    pass\n", timeout=1.0)
    assert result.status == "timeout" and not result.passed


def test_memory_limit() -> None:
    assert not run_program("x = bytearray(3 * 1024 ** 3)", memory_mb=512).passed


def test_writes_inside_temp_dir_are_allowed() -> None:
    assert run_program("open('out.txt', 'w').write('x')\nassert open('out.txt').read() == 'x'").passed


def test_write_outside_temp_dir_is_blocked(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    for code in (f"open({str(target)!r}, 'w').write('x')",
                 f"import os\nos.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)",
                 f"import pathlib\npathlib.Path({str(target)!r}).write_text('x')"):
        result = run_program(code)
        assert not result.passed and "PermissionError" in result.detail
    assert not target.exists()


def test_delete_outside_temp_dir_is_blocked(tmp_path: Path) -> None:
    victim = tmp_path / "keep.txt"
    victim.write_text("keep")
    assert not run_program(f"import os\nos.remove({str(victim)!r})").passed
    assert victim.read_text() == "keep"


@pytest.mark.parametrize("code", [
    "import socket\nsocket.socket()",
    "import socket\nsocket.create_connection(('127.0.0.1', 9))",
    "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9')",
])
def test_network_is_blocked(code: str) -> None:
    result = run_program(code)
    assert not result.passed and "PermissionError" in result.detail


@pytest.mark.parametrize("code", ["import os\nos.system('true')",
                                  "import subprocess\nsubprocess.run(['true'])",
                                  "import os\nos.fork()"])
def test_processes_are_blocked(code: str) -> None:
    result = run_program(code)
    assert not result.passed and "PermissionError" in result.detail


def test_environment_is_clean() -> None:
    os.environ["GHOSTBOOK_SECRET_FOR_TEST"] = "x"
    try:
        assert run_program("import os\nassert 'GHOSTBOOK_SECRET_FOR_TEST' not in os.environ").passed
    finally:
        del os.environ["GHOSTBOOK_SECRET_FOR_TEST"]
