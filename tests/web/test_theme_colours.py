"""Every colour in the frontend's CSS follows the Light/Dark theme.

A bare hex colour (outside `light-dark()` or a `var()` fallback) stays the same in the Dark theme: a light
background under the dark theme's light text makes that text unreadable (seen on a real notebook: the
outline's current heading, multi-selected cells and the find bar's input were white-on-lavender/white).
A rule that sets its text colour and its background together (white on the accent, black on the orange
search highlight) is fine: it is readable in both themes.
"""

from __future__ import annotations

import re
from pathlib import Path

CSS_ROOT = Path(__file__).resolve().parents[2] / "frontend" / "src"
HEX = re.compile(r"#[0-9a-fA-F]{3,8}\b")
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")


def _strip_themed(value: str) -> str:
    """`value` without `light-dark(...)` and `var(...)` parts (their colours follow the theme)."""
    previous = None
    while previous != value:
        previous = value
        value = re.sub(r"(light-dark|var)\([^()]*\)", "", value)
    return value


def fixed_colours(css: str) -> list[str]:
    """`selector { property: value }` for each colour that ignores the theme in `css`."""
    found = []
    for selector, body in RULE.findall(re.sub(r"/\*.*?\*/", "", css, flags=re.S)):
        declarations = [d.partition(":") for d in body.split(";")]
        has_background = any(name.strip().startswith("background") for name, _, _ in declarations)
        has_colour = any(name.strip() == "color" for name, _, _ in declarations)
        for name, _, value in declarations:
            name = name.strip()
            paired = (name == "color" and has_background) or (name.startswith("background") and has_colour)
            if HEX.search(_strip_themed(value)) and not paired:
                found.append(f"{selector.strip()} {{ {name}: {value.strip()} }}")
    return found


def test_the_checker_flags_a_fixed_background_but_not_themed_or_paired_ones() -> None:
    css = (".a { background: #efe9fb; }\n.b { background: light-dark(#fff, #000); border: 1px solid var(--x, #ccc); }\n"
           ".c { background: var(--accent); color: #fff; }\n.e { background: #ff9632; color: #000; }\n"
           ".d { color: #fff; }")
    assert fixed_colours(css) == [".a { background: #efe9fb }", ".d { color: #fff }"]


def test_no_css_colour_ignores_the_theme() -> None:
    problems = [f"{path.relative_to(CSS_ROOT)}: {rule}" for path in sorted(CSS_ROOT.rglob("*.css"))
                for rule in fixed_colours(path.read_text())]
    assert problems == []
