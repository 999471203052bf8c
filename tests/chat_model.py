"""The tests' real chat model: SmolLM2-135M-Instruct (`ghostbook.models.smollm2`: where its GGUF is found)."""

from __future__ import annotations

from ghostbook.models.smollm2 import FILE, MISSING, PACKAGE, smollm2_path

__all__ = ["FILE", "MISSING", "PACKAGE", "smollm2_path"]
