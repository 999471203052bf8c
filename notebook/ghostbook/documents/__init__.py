"""Notebook files: paths confined to the root, .ipynb load/save, the root's contents."""
