"""What every benchmark driver does to draw a PNG: pyplot on the Agg backend, loaded when a
figure is drawn (not at import: pyplot is heavy, and choosing a backend at import time would
change it for any program importing the driver), and one way to save and close a figure.

Example:
    >>> plt = pyplot()
    >>> fig, ax = plt.subplots()
    >>> save_figure(fig, "out/figure.png")
    PosixPath('out/figure.png')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["figure_path", "pyplot", "save_figure"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (files only, no display)."""
    # Deferred on purpose: pyplot is heavy and only the PNG step needs it; Agg must be chosen
    # before it loads.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure_path(path: str | Path, what: str = "--out") -> str:
    """The file that saving a figure to ``path`` writes: matplotlib adds ``.png`` (its
    ``savefig.format``) to a name without an extension, so ``--out adir`` wrote ``adir.png``
    while the driver reported ``adir``. A driver checks this before its games.

    Raises:
        ValueError: an extension matplotlib cannot write (found only when saving, after the games).

    Example:
        >>> figure_path("out/figure"), figure_path("figure.svg")
        ('out/figure.png', 'figure.svg')
    """
    import matplotlib  # not pyplot: the rc settings and the format table only
    from matplotlib.backend_bases import FigureCanvasBase

    text = os.fspath(path)
    suffix = os.path.splitext(text)[1][1:]
    if not suffix:  # as matplotlib's print_figure names it
        return text.rstrip(".") + "." + matplotlib.rcParams["savefig.format"]
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix.lower() not in formats:
        raise ValueError(f"{what} {text}: matplotlib cannot write .{suffix} files "
                         f"(use one of {', '.join('.' + f for f in sorted(formats))})")
    return text


def save_figure(fig: Any, path: str | Path, dpi: int = 110) -> Path:
    """Write ``fig`` to :func:`figure_path` of ``path`` (its folder created), close it, and
    return the path written."""
    path = Path(figure_path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path
