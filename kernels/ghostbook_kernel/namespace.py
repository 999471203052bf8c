"""Kernel-side namespace summary for completion context. Runs in ANY IPython kernel, uninstalled.

The server sends this file's source with `run_silent`; `install_code()` (server side) wraps it so it
executes inside a private module (`sys.modules["__ghostbook_kernel__"]`), leaving the user's namespace
untouched, and a user expression calls `summary(ip.user_ns, ip.user_ns_hidden)`, which returns a JSON list of
short lines such as `df: DataFrame shape=(100, 3) columns=[a: int64, b: object]`. Stdlib only, bounded
in size and time: no value is printed in full and nothing is iterated beyond a few items.
"""

import inspect
import json
import types

MAX_ENTRIES = 60
MAX_LINE = 160
MAX_TOTAL = 4000
MAX_COLUMNS = 20
SKIP_NAMES = {"In", "Out", "exit", "quit", "get_ipython", "open", "display"}
SIZED = (list, tuple, dict, set, frozenset, str, bytes, bytearray, range)
SCALARS = (bool, int, float, complex)


def _clip(text, limit):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _signature(obj):
    try:
        return _clip(str(inspect.signature(obj)), 100)
    except (TypeError, ValueError):
        return "(...)"


def _shape(value):
    try:
        shape = getattr(value, "shape", None)
    except Exception:
        return None
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        return shape
    try:
        if shape is not None and all(isinstance(int(n), int) for n in shape):
            return tuple(int(n) for n in shape)
    except Exception:
        return None
    return None


def _columns(value):
    try:
        columns = list(value.columns[: MAX_COLUMNS + 1])
        dtypes = getattr(value, "dtypes", None)
        parts = []
        for name in columns[:MAX_COLUMNS]:
            try:
                parts.append(f"{name}: {dtypes[name]}" if dtypes is not None else str(name))
            except Exception:
                parts.append(str(name))
        more = ", ..." if len(columns) > MAX_COLUMNS else ""
        return "[" + ", ".join(parts) + more + "]"
    except Exception:
        return None


def describe(name, value):
    """One line for one variable, or None to leave it out."""
    if isinstance(value, types.ModuleType):
        return None
    if inspect.isclass(value):
        return _clip(f"class {name}{_signature(value)}", MAX_LINE)
    if inspect.isroutine(value):
        return _clip(f"def {name}{_signature(value)}", MAX_LINE)
    kind = type(value).__name__
    parts = [f"{name}: {kind}"]
    if isinstance(value, SCALARS):
        parts.append("= " + _clip(repr(value), 40))
    elif isinstance(value, str):
        parts.append(f"len={len(value)} = " + _clip(repr(value), 40))
    elif isinstance(value, SIZED):
        parts.append(f"len={len(value)}")
        if isinstance(value, dict) and value:
            keys = [repr(k) for k in list(value)[:8]]
            parts.append("keys=[" + _clip(", ".join(keys), 80) + ("" if len(value) <= 8 else ", ...") + "]")
    else:
        shape = _shape(value)
        if shape is not None:
            parts.append(f"shape={shape}")
            dtype = getattr(value, "dtype", None)
            if dtype is not None and not hasattr(value, "columns"):
                parts.append(f"dtype={dtype}")
        if hasattr(type(value), "columns") or kind == "DataFrame":
            columns = _columns(value)
            if columns:
                parts.append("columns=" + columns)
    return _clip(" ".join(parts), MAX_LINE)


def summary(user_ns, hidden=()):
    """JSON list of lines describing the user's variables (sorted by name, bounded); `hidden` are
    names IPython put there itself (`get_ipython().user_ns_hidden`)."""
    lines: list = []
    total = 0
    for name in sorted(user_ns):
        if name.startswith("_") or name in SKIP_NAMES or name in hidden:
            continue
        try:
            line = describe(name, user_ns[name])
        except Exception:
            line = f"{name}: {type(user_ns[name]).__name__}"
        if line is None:
            continue
        if len(lines) >= MAX_ENTRIES or total + len(line) > MAX_TOTAL:
            lines.append("...")
            break
        lines.append(line)
        total += len(line)
    return json.dumps(lines)
