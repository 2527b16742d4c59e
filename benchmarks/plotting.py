"""What every benchmark driver does to draw a PNG: pyplot on the Agg backend, loaded when a
figure is drawn (not at import: pyplot is heavy, and choosing a backend at import time would
change it for any program importing the driver), and one way to save and close a figure.

Example:
    >>> plt = pyplot()
    >>> fig, ax = plt.subplots()
    >>> save_figure(fig, "out/figure.png")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["pyplot", "save_figure"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display)."""
    # Deferred on purpose: pyplot is heavy and only the PNG step needs it; Agg must be chosen
    # before it loads.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path, dpi: int = 110) -> Path:
    """Write ``fig`` to ``path`` (its folder created), close it, and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path
