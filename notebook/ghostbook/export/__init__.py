"""Export a notebook to other formats through nbconvert (ipynb, py percent script, HTML, PDF)."""

from ghostbook.export.exporters import FORMATS, Exported, ExportError, export_notebook

__all__ = ["FORMATS", "Exported", "ExportError", "export_notebook"]
