"""Run untrusted generated code in a subprocess: temp dir, time and memory limits, no network,
no writes outside the temp dir, no child processes (enforced by a `sys.addaudithook` guard)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

_GUARD = r'''
import os, sys
_ROOT = os.path.realpath(os.getcwd())
_BLOCKED = ("socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
            "os.forkpty", "os.kill", "pty.", "ctypes.", "urllib.", "http.", "ftplib.", "smtplib.",
            "webbrowser.", "os.chdir", "os.chroot", "mmap.", "resource.setrlimit", "sys.addaudithook")
_PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.symlink", "os.link",
                "os.chmod", "os.chown", "shutil.rmtree", "shutil.move", "shutil.copyfile", "os.utime"}

def _inside(path):
    try:
        p = os.path.realpath(os.fsdecode(path) if not isinstance(path, int) else "/proc/self/fd/%d" % path)
    except Exception:
        return False
    return p == _ROOT or p.startswith(_ROOT + os.sep)

def _guard(event, args):
    if event.startswith(_BLOCKED):
        raise PermissionError("sandbox: %s blocked" % event)
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
        if writing and path is not None and not isinstance(path, int) and not _inside(path):
            raise PermissionError("sandbox: write outside temp dir blocked: %r" % (path,))
    elif event in _PATH_EVENTS:
        for a in args:
            if isinstance(a, (str, bytes, os.PathLike)) and not _inside(a):
                raise PermissionError("sandbox: %s outside temp dir blocked" % event)

sys.addaudithook(_guard)
del _guard
'''


@dataclass(frozen=True)
class Result:
    """Outcome of one sandboxed run."""

    passed: bool
    status: str  # "passed", "failed", "timeout"
    detail: str = ""


def _limits(memory_mb: int, cpu_s: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 20, 16 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()


def run_program(code: str, timeout: float = 5.0, memory_mb: int = 1024) -> Result:
    """Run `code` with the guard in a fresh interpreter inside a temp dir; pass = exit status 0."""
    with tempfile.TemporaryDirectory(prefix="ghostbook-sandbox-") as tmp:
        script = Path(tmp) / "program.py"
        script.write_text(_GUARD + "\n" + code)
        env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
               "HOME": tmp, "TMPDIR": tmp, "no_proxy": "*", "http_proxy": "http://0.0.0.0:9",
               "https_proxy": "http://0.0.0.0:9"}
        try:
            proc = subprocess.run(
                [sys.executable, "-I", "-B", str(script)], cwd=tmp, env=env, capture_output=True,
                timeout=timeout, preexec_fn=lambda: _limits(memory_mb, int(timeout) + 1),  # noqa: PLW1509
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return Result(False, "timeout", f"exceeded {timeout}s")
        if proc.returncode == 0:
            return Result(True, "passed")
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return Result(False, "failed", tail[0][:300])
