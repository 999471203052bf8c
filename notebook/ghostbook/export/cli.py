"""`ghostbook export NOTEBOOK --to html|py|pdf|ipynb [--output PATH]`: the server's export, from a shell."""

from __future__ import annotations

import argparse
from pathlib import Path

from ghostbook.documents.ipynb_file import NotebookFormatError, read_notebook
from ghostbook.export.exporters import FORMATS, ExportError, export_notebook


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ghostbook export", description="Export a notebook through nbconvert.")
    parser.add_argument("notebook", type=Path, help="the .ipynb file")
    parser.add_argument("--to", required=True, choices=list(FORMATS), help="the format")
    parser.add_argument("--output", "-o", type=Path, default=None,
                        help="where to write (default: next to the notebook, with the format's extension)")
    args = parser.parse_args(argv)
    source: Path = args.notebook
    try:
        notebook = read_notebook(source)
        exported = export_notebook(notebook, source.name, args.to)
    except FileNotFoundError:
        print(f"ghostbook export: no such file: {source}")
        return 2
    except (OSError, NotebookFormatError, ExportError) as exc:
        print(f"ghostbook export: {exc}")
        return 2
    except RuntimeError as exc:  # PDF: no Chromium, or it failed
        print(f"ghostbook export: {exc}")
        return 1
    output: Path = args.output or source.with_name(exported.filename)
    if output.resolve() == source.resolve():
        print(f"ghostbook export: the output would overwrite the notebook itself: {output}")
        return 2
    try:
        output.write_bytes(exported.body)
    except OSError as exc:
        print(f"ghostbook export: cannot write {output}: {exc.strerror or exc}")
        return 2
    print(f"wrote {output}")
    return 0
