"""Load progress of a transformers model: transformers iterates its weights under a progress bar
("Loading weights", `transformers.core_model_loading.tqdm`); while a backend loads, that iteration
reports 0..1. (llama.cpp's own callback is wired in `llamacpp_backend.load_progress`.)"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_LOCK = threading.Lock()


@contextlib.contextmanager
def transformers_weights(report: Callable[[float], None]) -> Iterator[None]:
    try:
        import transformers.core_model_loading as loading
    except ImportError:  # transformers missing, or a version without this module: no progress
        yield
        return
    original = getattr(loading, "tqdm", None)
    if original is None:
        yield
        return

    def tracked(iterable: Iterable[Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        if iterable is None or kwargs.get("desc") != "Loading weights":
            return original(iterable, *args, **kwargs)
        items = list(iterable)

        def each() -> Iterator[Any]:
            for i, item in enumerate(items):
                report(i / max(1, len(items)))
                yield item

        return each()

    with _LOCK:
        loading.tqdm = tracked  # type: ignore[assignment]
        try:
            yield
        finally:
            loading.tqdm = original
