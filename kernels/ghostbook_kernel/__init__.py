"""Code that runs inside the notebook's kernel. Its modules are sent as source (they run in any
IPython kernel without being installed there); installing them with Ghostbook only lets the server
find that source."""
