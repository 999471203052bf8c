"""Another git revision of Ghostbook, checked out and built beside this one, for side-by-side benchmarks.

`checkout(ref)` adds a detached `git worktree` in a temp folder, builds its frontend there with this
checkout's `frontend/node_modules` linked in, and removes the worktree afterwards. A `Tree` says which
Python path serves a server from it (`start_server(root, env={"PYTHONPATH": tree.pythonpath})`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]  # notebook/ghostbook/bench/revision.py -> the checkout


@dataclass(frozen=True)
class Tree:
    """A source tree of Ghostbook: its root, a label for tables and the Python path its server runs from."""

    root: Path
    label: str

    @property
    def pythonpath(self) -> str:
        return os.pathsep.join([str(self.root / "notebook"), str(self.root / "kernels")])

    @property
    def build(self) -> Path:
        return self.root / "notebook" / "ghostbook" / "web" / "static" / "build" / "main.js"

    def imports_from(self) -> Path:
        """Where `import ghostbook` resolves with this tree's Python path (checked before measuring)."""
        env = {**os.environ, "PYTHONPATH": self.pythonpath}
        out = subprocess.run([sys.executable, "-c", "import ghostbook; print(ghostbook.__file__)"], env=env,
                             check=True, capture_output=True, text=True).stdout
        return Path(out.strip()).resolve()


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def working_tree() -> Tree:
    return Tree(REPO, "this tree")


def default_ref() -> str:
    """The merge-base of HEAD with `main` (HEAD itself where there is no `main`)."""
    try:
        return git("merge-base", "HEAD", "main")
    except subprocess.CalledProcessError:
        return git("rev-parse", "HEAD")


def stale_build(tree: Tree) -> bool:
    """True when a file under the tree's frontend/src is newer than its built bundle (or none is built)."""
    if not tree.build.is_file():
        return True
    built = tree.build.stat().st_mtime
    return any(p.stat().st_mtime > built for p in (tree.root / "frontend" / "src").rglob("*") if p.is_file())


@contextmanager
def checkout(ref: str) -> Iterator[Tree]:
    """`ref` checked out in a temp worktree with its frontend built; removed on exit."""
    sha = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    modules = REPO / "frontend" / "node_modules"
    if not modules.is_dir():
        raise RuntimeError(f"{modules} is missing: run `npm ci` in frontend/ first")
    base = Path(tempfile.mkdtemp(prefix="ghostbook-baseline-"))
    root = base / "tree"
    git("worktree", "add", "--detach", str(root), sha)
    try:
        link = root / "frontend" / "node_modules"
        link.symlink_to(modules, target_is_directory=True)
        built = subprocess.run(["npm", "run", "build"], cwd=root / "frontend", capture_output=True, text=True)
        if built.returncode:
            raise RuntimeError(f"the frontend of {ref} did not build:\n{built.stdout[-2000:]}{built.stderr[-2000:]}")
        yield Tree(root, f"baseline {sha[:10]}")
    finally:
        (root / "frontend" / "node_modules").unlink(missing_ok=True)  # never followed by the removal below
        git("worktree", "remove", "--force", str(root))
        shutil.rmtree(base, ignore_errors=True)
