"""Errors raised by the kernel adapter."""

from __future__ import annotations


class KernelStartError(RuntimeError):
    """The kernel could not be started (unknown kernelspec, crash at start-up, timeout)."""


class KernelNotRunning(RuntimeError):
    """The kernel is not running (not started yet, dead, restarting or shut down)."""
