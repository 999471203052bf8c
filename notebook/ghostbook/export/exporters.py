"""Export a notebook through nbconvert: the .ipynb itself, a .py script in the percent format, one
self-contained HTML file, and PDF. CPU-bound and blocking: callers on an event loop run it in a thread."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import nbformat
from nbformat.v4.rwbase import rejoin_lines

from ghostbook.documents.ipynb_file import notebook_to_json
from ghostbook.export.offline import EXPORT, FRAMES, OfflineRenderers, bundle_head, has_math, has_widgets

TEMPLATES = Path(__file__).resolve().parent / "templates"

# format -> (file extension, media type)
FORMATS: dict[str, tuple[str, str]] = {
    "ipynb": (".ipynb", "application/x-ipynb+json"),
    "py": (".py", "text/x-python; charset=utf-8"),
    "html": (".html", "text/html; charset=utf-8"),
    "pdf": (".pdf", "application/pdf"),
}


class ExportError(ValueError):
    """The notebook cannot be exported as asked (the message is shown to the user)."""


@dataclass(frozen=True)
class Exported:
    body: bytes
    filename: str
    media_type: str


def export_notebook(notebook: dict[str, Any], name: str, to: str, frames: Path = FRAMES,
                    bundles: Path = EXPORT) -> Exported:
    """`notebook` (nbformat 4, as a dict) as format `to`; `name` is its file name (the title, and the
    exported file's name with the format's extension)."""
    if to not in FORMATS:
        raise ExportError(f"unknown export format {to!r}: choose one of {', '.join(FORMATS)}")
    extension, media_type = FORMATS[to]
    stem = PurePosixPath(name).stem or "notebook"
    if to == "ipynb":
        body = notebook_to_json(notebook).encode()
    else:
        node = rejoin_lines(nbformat.from_dict(notebook))  # sources as strings (a file has lists)
        resources: dict[str, Any] = {"metadata": {"name": stem}}
        if to == "py":
            body = to_percent_script(node, resources).encode()
        else:
            if has_math(node):
                resources["ghostbook_math"] = bundle_head("math", bundles)
            if has_widgets(node):
                resources["ghostbook_widgets"] = bundle_head("widgets", bundles)
            body = _to_html_or_pdf(node, resources, to, frames)
    return Exported(body, stem + extension, media_type)


def to_percent_script(notebook: Any, resources: dict[str, Any]) -> str:
    from nbconvert.exporters import PythonExporter

    exporter = PythonExporter(template_file=str(TEMPLATES / "percent.py.j2"))
    exporter.register_filter("comment_magics", comment_magics)
    exporter.register_filter("comment_all", comment_all)
    script, _ = exporter.from_notebook_node(notebook, resources=resources)
    return script.rstrip("\n") + "\n"


def _to_html_or_pdf(notebook: Any, resources: dict[str, Any], to: str, frames: Path) -> bytes:
    from nbconvert.exporters import HTMLExporter

    from ghostbook.export.pdf import ChromiumPDFExporter

    kind = ChromiumPDFExporter if to == "pdf" else HTMLExporter
    exporter = kind(template_file=str(TEMPLATES / "offline.html.j2"), embed_images=True)
    exporter.register_preprocessor(OfflineRenderers(frames=frames), enabled=True)
    body, _ = exporter.from_notebook_node(notebook, resources=resources)
    return body if isinstance(body, bytes) else str(body).encode()


MAGIC_STARTS = ("%", "!")


def comment_magics(source: str) -> str:
    """Comment out IPython magics and shell escapes (`%time`, `%%bash`, `!pip`), as Jupytext does in the
    percent format; it uncomments them when it reads the script back."""
    return "\n".join(f"# {line}" if line.lstrip().startswith(MAGIC_STARTS) else line
                     for line in source.splitlines())


def comment_all(source: str) -> str:
    """Every line as a comment ("#" alone for a blank one, as Jupytext writes it)."""
    return "\n".join(f"# {line}" if line.strip() else "#" for line in source.splitlines())
