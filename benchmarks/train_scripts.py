"""What the ``train_*`` demonstrations share: their common options and the checks made before training.

Every check here ends in argparse's one-line usage error (exit 2) before anything is trained
or written: a folder holding an earlier run is refused unless ``--overwrite`` (as ``cluegym
train`` does; :func:`~cluegym.training.config.claim_run_folder`), and a run's configuration
is checked when it is built, not minutes later.

Example:
    >>> parser = demo_parser("A demo.", steps=1_500, eval_games=10, out="runs/demo")
    >>> args = parse_demo_args(parser, ["--steps", "64"])
    >>> args.steps, args.overwrite
    (64, False)
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

from cluegym.benchmarks.usage import positive_int
from cluegym.training.config import earlier_run_outputs

__all__ = ["add_overwrite", "checked_config", "demo_parser", "parse_demo_args", "refuse_earlier_run"]

Config = TypeVar("Config")


def add_overwrite(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite`` (off by default): without it an earlier run in ``--out`` is kept."""
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an earlier run in --out (without it, a folder holding one is refused)")


def demo_parser(doc: str | None, *, steps: int, eval_games: int, out: str,
                eval_games_help: str | None = None) -> argparse.ArgumentParser:
    """The parser of a one-seat demonstration: ``--steps``, ``--eval-games``, ``--n-envs``,
    ``--seed``, ``--out`` and ``--overwrite`` with the demonstration's defaults."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=positive_int, default=steps)
    parser.add_argument("--eval-games", type=positive_int, default=eval_games, help=eval_games_help)
    parser.add_argument("--n-envs", type=positive_int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=out)
    add_overwrite(parser)
    return parser


def parse_demo_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse ``argv``; refuse (usage error) an ``--out`` holding an earlier run unless ``--overwrite``."""
    args = parser.parse_args(argv)
    refuse_earlier_run(parser, args.out, args.overwrite)
    return args


def refuse_earlier_run(parser: argparse.ArgumentParser, out: str | Path, overwrite: bool, *,
                       runs: Sequence[str] = ("",), files: Sequence[str] = ()) -> None:
    """``parser.error`` unless ``out`` can take the new run.

    Refused: ``out`` (or a run folder in it) that is a file, and, without ``overwrite``, any
    earlier run's outputs there (:func:`~cluegym.training.config.earlier_run_outputs`) or one of
    ``files``. The training itself deletes an earlier run only with ``overwrite``.

    Args:
        parser: the script's parser (its ``error`` reports).
        out: the ``--out`` folder.
        overwrite: ``--overwrite`` was given.
        runs: the run folders the command trains, relative to ``out`` (``""``: ``out`` itself).
        files: other outputs the command writes in ``out`` (e.g. a figure).
    """
    folder = Path(out)
    for run in runs:
        path = folder / run
        if path.exists() and not path.is_dir():
            parser.error(f"--out {folder} is a file, not a folder" if path == folder
                         else f"--out {folder}: {path} is a file, not a folder")
    if overwrite:
        return
    earlier = [str(Path(run, name)) for run in runs for name in earlier_run_outputs(folder / run)]
    earlier += [name for name in files if (folder / name).exists()]
    if earlier:
        parser.error(f"--out {folder} holds an earlier run ({', '.join(earlier)}); choose another --out "
                     "or replace that run with --overwrite")


def checked_config(parser: argparse.ArgumentParser, build: Callable[..., Config], *args: Any, **kwargs: Any) -> Config:
    """``build(*args, **kwargs)`` (a training config): its own checks of the values (a seed out
    of range, a negative shaping scale) become a usage error instead of a traceback."""
    try:
        return build(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
