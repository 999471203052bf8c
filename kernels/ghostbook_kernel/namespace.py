"""Kernel-side namespace inspection: the summary for completion context, the Variables panel's list and
the data viewer's pages. Runs in ANY IPython kernel, uninstalled.

The server sends this file's source with `run_silent`; `install_code()` (server side) wraps it so it
executes inside a private module (`sys.modules["__ghostbook_kernel__"]`), leaving the user's namespace
untouched, and a user expression calls `summary(ip.user_ns, ip.user_ns_hidden)`, which returns a JSON list of
short lines such as `df: DataFrame shape=(100, 3) columns=[a: int64, b: object]`. Stdlib only, bounded
in size and time: no value is printed in full and nothing is iterated beyond a few items.
`variables(...)` and `data_page(...)` (below) serve the Variables panel the same way; they use pandas and
numpy only when the kernel has already imported them.
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


# ---- the Variables panel: every user name with its type, shape, size and a short value ---------------
# The names shown are those of JupyterLab's Variable Inspector (jupyterlab-contrib/jupyterlab-variableInspector,
# src/inspectorscripts.ts: `who_ls()` less modules, functions and classes); sizes as it reports them
# (`nbytes`, `memory_usage()`, else the shallow `sys.getsizeof`).

MAX_VARIABLES = 5000
VALUE_CHARS = 120
REPR_SECONDS = 0.05  # one value's __repr__ is cut off after this (where SIGALRM can do it)
VALUES_SECONDS = 0.5  # values after this much time spent on them are left empty
MAX_PAGE_ROWS = 500
MAX_PAGE_COLUMNS = 200
CELL_CHARS = 200
ORDERS_KEPT = 4
PARTIAL_ROWS = 1_000_000  # a numeric column of a table this long: the first pages are found, not sorted
PARTIAL_STOP = 5_000

# Kept when this source is executed again in the same private module (the completion re-installs it):
_slow_types: set = globals().setdefault("_slow_types", set())  # types whose __repr__ ran out of time once
_orders: dict = globals().setdefault("_orders", {})  # (name, sort, ascending) -> (weakref to the table, length, order)


class _TooSlow(BaseException):  # not an Exception: reprlib's own `except Exception` must let it through
    pass


def _raise_too_slow(signum, frame):
    raise _TooSlow()


def _can_alarm():
    import signal
    import threading

    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL)


def _bounded(call, value):
    """call(value), cut off after REPR_SECONDS where the kernel lets a timer interrupt it."""
    if not _can_alarm():
        return call(value)
    import signal

    previous = signal.signal(signal.SIGALRM, _raise_too_slow)
    try:
        signal.setitimer(signal.ITIMER_REAL, REPR_SECONDS)
        try:
            return call(value)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def _flat(text):
    return _clip(" ".join(str(text).split()), VALUE_CHARS)


def _module_type(name, attr):
    import sys

    module = sys.modules.get(name)
    return getattr(module, attr, None) if module is not None else None


def _kind(value):
    """'frame', 'series' or 'array' (a pandas DataFrame or Series, a numpy array), else None."""
    for kind, module, attr in (("frame", "pandas", "DataFrame"), ("series", "pandas", "Series"),
                               ("array", "numpy", "ndarray")):
        cls = _module_type(module, attr)
        if cls is not None and isinstance(value, cls):
            return kind
    return None


def _size(value, kind):
    import sys

    try:
        if kind == "frame":
            return int(value.memory_usage(index=True, deep=False).sum())
        if kind == "series":
            return int(value.memory_usage(index=True, deep=False))
        if kind == "array":
            return int(value.nbytes)
        return int(sys.getsizeof(value))
    except Exception:
        return None


def _short_value(value, kind):
    """A short, one-line value; never the whole repr of something big, never an unbounded __repr__."""
    import reprlib

    if value is None or isinstance(value, (bool, float, complex)):
        return repr(value)
    if isinstance(value, int):
        bits = value.bit_length()
        return _clip(repr(value), VALUE_CHARS) if bits <= 1000 else f"<int of {bits} bits>"
    if isinstance(value, (str, bytes, bytearray)):
        return _clip(repr(value[:VALUE_CHARS]), VALUE_CHARS)
    if kind == "frame":
        names = [str(c) for c in value.columns[:30]]
        return _flat("columns: " + ", ".join(names) + (", ..." if len(value.columns) > 30 else ""))
    if kind == "series":
        return _flat(f"dtype {value.dtype}: " + _bounded(reprlib.repr, value.iloc[:8].tolist()))
    if kind == "array" and value.ndim == 1 and value.dtype.kind in "biufc":  # cheaper than array2string
        return _flat(reprlib.repr(value[:6].tolist())[:-1] + (", ...]" if len(value) > 6 else "]"))
    if kind == "array":
        np = _module_type("numpy", "array2string")
        return _flat(np(value, threshold=20, edgeitems=3, max_line_width=10_000) if np else "")
    cls = type(value)
    if cls in _slow_types:
        return "<repr too slow>"
    if cls.__repr__ is object.__repr__:
        return f"<{cls.__name__} object>"
    short = reprlib.Repr()
    short.maxstring = short.maxother = 60
    short.maxlevel = 2
    try:
        return _flat(_bounded(short.repr, value))
    except _TooSlow:
        _slow_types.add(cls)
        return "<repr too slow>"


def _listed(name, value, hidden):
    return not (name.startswith("_") or name in SKIP_NAMES or name in hidden or isinstance(value, types.ModuleType)
                or inspect.isclass(value) or inspect.isroutine(value))


def variables(user_ns, hidden=()):
    """JSON {"variables": [{name, type, shape, length, size, value, viewer}], "total", "ms"}: the user's
    names sorted, at most MAX_VARIABLES; shape: list of ints or null; length: len() of a sized builtin;
    size: bytes or null; viewer: the data viewer can page it (a DataFrame, a Series, a 1-D or 2-D array)."""
    import time

    started = time.perf_counter()
    names = sorted(name for name, value in list(user_ns.items()) if _listed(name, value, hidden))
    rows = []
    for name in names[:MAX_VARIABLES]:
        value = user_ns.get(name)
        kind = _kind(value)
        row = {"name": name, "type": type(value).__name__, "shape": None, "length": None,
               "size": _size(value, kind), "value": "",
               "viewer": kind in ("frame", "series") or (kind == "array" and value.ndim in (1, 2))}
        try:
            if kind is not None:
                row["shape"] = list(_shape(value) or ())
            elif isinstance(value, SIZED):
                row["length"] = len(value)
            if time.perf_counter() - started < VALUES_SECONDS:
                row["value"] = _short_value(value, kind)
        except _TooSlow:
            row["value"] = "<repr too slow>"
        except Exception as exc:
            row["value"] = f"<{type(exc).__name__} in repr>"
        rows.append(row)
    return json.dumps({"variables": rows, "total": len(names),
                       "ms": round((time.perf_counter() - started) * 1000, 2)})


# ---- the data viewer: one page of a table, sorted in the kernel ------------------------------------------

class _Table:
    """A DataFrame, Series or 1-D/2-D array seen as rows and columns."""

    def __init__(self, value, kind):
        self.value = value
        self.kind = kind
        self.rows = len(value)
        if kind == "frame":
            self.names = [str(c) for c in value.columns]
            self.dtypes = [str(t) for t in value.dtypes]
            self.index_name = value.index.name
        elif kind == "series":
            self.names = [str(value.name) if value.name is not None else "value"]
            self.dtypes = [str(value.dtype)]
            self.index_name = value.index.name
        else:
            self.names = [str(i) for i in range(value.shape[1])] if value.ndim == 2 else ["value"]
            self.dtypes = [str(value.dtype)] * len(self.names)
            self.index_name = None

    def keys(self, sort):
        """Column `sort` (-1: the index) as a pandas Series with positions for labels, or a numpy array."""
        if self.kind in ("frame", "series"):
            if sort == -1:
                return __import__("pandas").Series(self.value.index)
            keys = self.value.iloc[:, sort] if self.kind == "frame" else self.value
            return keys.reset_index(drop=True)
        if sort == -1:
            return __import__("numpy").arange(self.rows)
        return self.value[:, sort] if self.value.ndim == 2 else self.value

    def order(self, sort, ascending, stop):
        """(row positions sorted by column `sort`, complete): stable, missing values last, as pandas'
        `sort_values(kind="stable")`. A numeric column of a big table gets only its first `stop` positions
        (found without sorting the rest: complete is then False)."""
        import numpy

        keys = self.keys(sort)
        ranks = _ranks(keys, ascending)
        if ranks is not None:
            if self.rows >= PARTIAL_ROWS and 1 <= stop <= PARTIAL_STOP:
                first = _first(ranks, stop)
                if first is not None:
                    return first, False
            return numpy.argsort(ranks, kind="stable"), True
        if hasattr(keys, "sort_values"):
            try:
                ordered = keys.sort_values(ascending=ascending, kind="stable", na_position="last")
            except TypeError:  # mixed types in one column: compare them as text
                ordered = keys.astype(str).sort_values(ascending=ascending, kind="stable")
            return ordered.index.to_numpy(), True
        try:
            numpy.argsort(keys[:2])
        except TypeError:
            keys = keys.astype(str)
        if ascending:
            return numpy.argsort(keys, kind="stable"), True
        return (self.rows - 1 - numpy.argsort(keys[::-1], kind="stable"))[::-1], True  # ties keep their order

    def page(self, positions, columns):
        """[[index, cell, ...], ...] of the rows at `positions`, as text."""
        if self.kind in ("frame", "series"):
            part = self.value.iloc[positions]
            if self.kind == "frame":
                part = part.iloc[:, :columns]
                rows = part.itertuples(index=False, name=None)
                return [[_cell(label), *map(_cell, row)] for label, row in zip(part.index.tolist(), rows)]  # noqa: B905
            return [[_cell(label), _cell(item)] for label, item in zip(part.index.tolist(), part.tolist())]  # noqa: B905
        part = self.value[positions]
        numbers = positions if not isinstance(positions, slice) else range(*positions.indices(self.rows))
        if self.value.ndim == 2:
            return [[str(int(n)), *map(_cell, row[:columns].tolist())] for n, row in zip(numbers, part)]  # noqa: B905
        return [[str(int(n)), _cell(item)] for n, item in zip(numbers, part.tolist())]  # noqa: B905


def _cell(value):
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception as exc:
        text = f"<{type(exc).__name__}>"
    return _clip(text, CELL_CHARS)


def _ranks(keys, ascending):
    """Numbers whose stable ascending order is the order wanted (NaN last both ways), for a column of
    numbers or booleans; None for any other column."""
    import numpy

    values = keys.to_numpy() if hasattr(keys, "to_numpy") and isinstance(keys.dtype, numpy.dtype) else keys
    if not isinstance(values, numpy.ndarray) or values.dtype.kind not in "fiub":
        return None
    if values.dtype.kind == "b":
        values = values.view(numpy.uint8)
    if ascending:
        return values
    return -values if values.dtype.kind == "f" else ~values  # ~: decreasing, and no overflow


def _first(ranks, stop):
    """Positions of the `stop` first rows in the stable order of `ranks`, without sorting all of them
    (argpartition, then the ties at the edge taken in row order); None when NaN would be among them."""
    import numpy

    edge = ranks[numpy.argpartition(ranks, stop - 1)[:stop]].max()
    if edge != edge:
        return None
    less = numpy.flatnonzero(ranks < edge)
    chosen = numpy.concatenate([less, numpy.flatnonzero(ranks == edge)[: stop - len(less)]])
    return chosen[numpy.lexsort((chosen, ranks[chosen]))]


def _cached_order(name, table, sort, ascending, stop):
    import weakref

    key = (name, sort, ascending)
    held = _orders.pop(key, None)
    if held is not None and held[0]() is table.value and held[1] == table.rows:
        _orders[key] = held
        return held[2]
    order, complete = table.order(sort, ascending, stop)
    if complete:
        _orders[key] = (weakref.ref(table.value), table.rows, order)
        while len(_orders) > ORDERS_KEPT:
            _orders.pop(next(iter(_orders)))
    return order


def data_page(user_ns, name, start, count, sort=None, ascending=True):
    """JSON of rows [start, start+count) of the table `name` sorted by column `sort` (a column number, -1 the
    index, None as it is): {name, type, total, start, columns: [{name, dtype}], column_count, index_name, rows,
    sort, ascending, ms}. Only that page is read and formatted; a sort order is cached per table and column."""
    import time

    started = time.perf_counter()
    if name not in user_ns:
        raise NameError(f"{name!r} is no longer defined in the kernel")
    value = user_ns[name]
    kind = _kind(value)
    if kind is None or (kind == "array" and value.ndim not in (1, 2)):
        raise TypeError(f"{name!r} is a {type(value).__name__}, not a table (a DataFrame, Series or 1-D/2-D array)")
    table = _Table(value, kind)
    if sort is not None and not -1 <= sort < len(table.names):
        raise IndexError(f"{name!r} has no column {sort}")
    start = max(0, min(int(start), table.rows))
    stop = min(table.rows, start + max(0, min(int(count), MAX_PAGE_ROWS)))
    positions = slice(start, stop) if sort is None else _cached_order(name, table, sort, ascending, stop)[start:stop]
    columns = min(len(table.names), MAX_PAGE_COLUMNS)
    shown = [{"name": table.names[i], "dtype": table.dtypes[i]} for i in range(columns)]
    return json.dumps({
        "name": name, "type": type(value).__name__, "total": table.rows, "start": start,
        "columns": shown,
        "column_count": len(table.names), "index_name": None if table.index_name is None else str(table.index_name),
        "rows": table.page(positions, columns), "sort": sort, "ascending": bool(ascending),
        "ms": round((time.perf_counter() - started) * 1000, 2),
    })
