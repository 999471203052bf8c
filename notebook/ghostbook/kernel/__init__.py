"""Kernel side of the server: a jupyter_client adapter with one event stream per kernel."""
