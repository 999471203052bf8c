"""Appearance settings of this server's user: the colour theme (light, dark, or the system's) and the code
editors' font size. Kept as the `appearance` section of the settings file (completion keeps its own), read
by every page before its first paint (`html_attributes`, written onto `<html>` by pages.index) and changed
with `GET`/`PATCH /api/appearance` ({theme, editor_font_size}; a bad value gets 400 {error})."""

from __future__ import annotations

import asyncio
import html
import logging
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ghostbook.completion.settings import read_section, settings_path, write_section
from ghostbook.documents.contents import ContentsError
from ghostbook.web.contents_routes import _json_body

log = logging.getLogger(__name__)

Theme = Literal["system", "light", "dark"]
THEMES = ("system", "light", "dark")
FONT_SIZES = (10, 24)  # px


@dataclass(frozen=True)
class Appearance:
    theme: Theme = "system"
    editor_font_size: int = 14

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class AppearanceError(ValueError):
    """An update names an unknown key or a value out of range."""


def validate(current: Appearance, changes: dict[str, Any]) -> Appearance:
    """`current` with `changes` applied; raise AppearanceError naming the first bad key."""
    for key, value in changes.items():
        if key == "theme":
            if value not in THEMES:
                raise AppearanceError("theme must be 'system', 'light' or 'dark'")
        elif key == "editor_font_size":
            low, high = FONT_SIZES
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise AppearanceError(f"editor_font_size must be an integer from {low} to {high} (px)")
        else:
            raise AppearanceError(f"unknown appearance setting {key!r}")
    return replace(current, **changes)


class AppearanceStore:
    """The current appearance, read once and written on every change."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
        try:
            self.current = validate(Appearance(), read_section(self.path, "appearance"))
        except FileNotFoundError:
            self.current = Appearance()
        except (OSError, ValueError) as exc:
            log.warning("ignoring the appearance settings in %s: %s", self.path, exc)
            self.current = Appearance()

    def update(self, changes: dict[str, Any]) -> Appearance:
        """Validate and apply `changes` (AppearanceError if bad), then save."""
        self.current = validate(self.current, changes)
        try:
            write_section(self.path, "appearance", self.current.to_json())
        except OSError as exc:
            log.warning("cannot save the appearance settings to %s: %s", self.path, exc)
        return self.current


def html_attributes(appearance: Appearance) -> str:
    """The `<html>` attributes that apply `appearance` before any script runs (no white flash)."""
    return (f'data-theme="{html.escape(appearance.theme)}" '
            f'style="--editor-font-size: {int(appearance.editor_font_size)}px"')


def _store(request: Request) -> AppearanceStore:
    store: AppearanceStore = request.app.state.appearance
    return store


async def get_appearance(request: Request) -> Response:
    return JSONResponse(_store(request).current.to_json())


async def update_appearance(request: Request) -> Response:
    try:
        body = await _json_body(request)
        appearance = await asyncio.to_thread(_store(request).update, body)
    except (AppearanceError, ContentsError) as exc:
        return JSONResponse({"error": str(exc)}, 400)
    return JSONResponse(appearance.to_json())


routes = [
    Route("/api/appearance", get_appearance, methods=["GET"]),
    Route("/api/appearance", update_appearance, methods=["PATCH"]),
]
