"""What the check reads from the kernel after the notebook ran: its variables (type, shape or length, dtype
kind: a state that random data and run times do not change) and its open figures."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ghostbook.eval.kernel import TaskKernel
from ghostbook.eval.notebook_ai.tasks import Fingerprint

PROBE = '''
def _ghostbook_probe():
    import json, sys, types
    names = {}
    for key, value in list(globals().items()):
        if key.startswith("_") or key in ("In", "Out", "exit", "quit", "get_ipython"):
            continue
        if isinstance(value, types.ModuleType) or (callable(value) and not hasattr(value, "shape")):
            continue
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            size = list(shape)
        else:
            try:
                size = len(value)
            except Exception:
                size = None
        names[key] = [type(value).__name__, size, getattr(getattr(value, "dtype", None), "kind", None)]
    figures = []
    plt = sys.modules.get("matplotlib.pyplot")
    for number in plt.get_fignums() if plt is not None else []:
        axes = plt.figure(number).axes
        figures.append([[bool(ax.get_title()), len(ax.lines) + len(ax.collections) + len(ax.patches)
                         + len(ax.images)] for ax in axes])
    print("\\n" + json.dumps({"names": names, "figures": figures}))
_ghostbook_probe()
del _ghostbook_probe
'''


@dataclass(frozen=True)
class Probe:
    names: Fingerprint
    figures: list[list[list[object]]]  # per open figure, oldest first: per axes [has a title, artists]

    def titled_plot_in(self, figure: int) -> bool:
        """Does figure `figure` (0-based, in opening order) have an axes with a title and something drawn?"""
        axes = self.figures[figure] if 0 <= figure < len(self.figures) else []
        return any(bool(title) and int(str(artists)) > 0 for title, artists in axes)


async def probe(kernel: TaskKernel, timeout: float = 30.0) -> Probe | None:
    """The kernel's state now (None when the probe itself failed)."""
    run = await kernel.run(PROBE, timeout)
    if not run.ok or not run.stdout.strip():
        return None
    data = json.loads(run.stdout.strip().rsplit("\n", 1)[-1])
    return Probe(data["names"], data["figures"])
