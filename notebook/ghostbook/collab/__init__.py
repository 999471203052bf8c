"""Real-time collaboration: the cells' texts as one CRDT document (pycrdt, which Jupyter's own
collaboration runs on) that every tab edits through Yjs, and presence relayed between tabs. The
session stays the authority for structure; this package keeps text and presence."""
