"""DixitWorld's human-evaluation scores (section 3.3, appendix D): Clarity, Creativity and
human Listener Accuracy, from raters' ratings of storyteller clues.

The ratings themselves need people: :mod:`cluegym.benchmarks.dixit_human_eval` exports the
clues of recorded games to a sheet for raters and scores the filled sheet with these
functions.

* **Clarity** (appendix D), per clue, from raw ratings ``s`` in 1..5 (3 = balanced, 1 = too
  vague, 5 = too literal): (1) ``S* = 1 - |s - 3| / 2`` (eq. 2); (2) the median of the raters'
  ``S*`` (eq. 3); (3) times ``1 - #{s in (1, 5)} / n``, the share of non-extreme votes
  (eq. 4). A model's Clarity is the mean over its clues.
* **Creativity**: "the normalized mean of the ratings", normalized to [0, 1]; the paper
  gives no formula, so a 1..5 rating maps to ``(s - 1) / 4`` (1 -> 0, 5 -> 1), averaged over
  the clue's raters, then over the model's clues.
* **Listener Accuracy** (human): the share of human guesses on the target, in percent.

Example:
    >>> clue_clarity([3, 3, 3]), clue_clarity([1, 3, 3, 5])
    (1.0, 0.25)
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

#: The rating scale of Clarity and Creativity (appendix D: 1 to 5).
RATING_SCALE: tuple[int, int] = (1, 5)


def _check_ratings(ratings: Sequence[int], what: str) -> list[int]:
    values = [int(r) for r in ratings]
    if not values:
        raise ValueError(f"{what} needs at least one rating")
    low, high = RATING_SCALE
    bad = [r for r in values if not low <= r <= high]
    if bad or any(float(r) != int(r) for r in ratings):
        raise ValueError(f"{what} ratings must be integers in {low}..{high}, got {list(ratings)}")
    return values


def centered_clarity(rating: int) -> float:
    """Appendix D, eq. 2: ``S* = 1 - |s - 3| / 2``: 1.0 for 3, 0.5 for 2 and 4, 0.0 for 1 and 5.

    Example:
        >>> [centered_clarity(s) for s in (1, 2, 3, 4, 5)]
        [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    (value,) = _check_ratings([rating], "centered_clarity")
    return 1.0 - abs(value - 3) / 2.0


def clue_clarity(ratings: Sequence[int]) -> float:
    """Appendix D's Clarity of one clue: the median of the raters' ``S*`` (eq. 3) times the
    share of non-extreme ratings (eq. 4).

    Raises:
        ValueError: no rating, or a rating outside 1..5.

    Example:
        >>> clue_clarity([2, 4, 3])    # S* = 0.5, 0.5, 1.0 -> median 0.5; no extreme vote
        0.5
        >>> clue_clarity([1, 5])       # the "false middle": median 0.0, all votes extreme
        0.0
    """
    values = _check_ratings(ratings, "clue_clarity")
    median = float(np.median([1.0 - abs(s - 3) / 2.0 for s in values]))
    extreme = sum(s in RATING_SCALE for s in values)
    return median * (1.0 - extreme / len(values))


def clue_creativity(ratings: Sequence[int]) -> float:
    """Creativity of one clue: the mean rating normalized to [0, 1], ``(mean - 1) / 4``.

    Example:
        >>> clue_creativity([3, 5])
        0.75
    """
    values = _check_ratings(ratings, "clue_creativity")
    low, high = RATING_SCALE
    return (float(np.mean(values)) - low) / (high - low)


def model_scores(
    clarity: Mapping[str, Sequence[Sequence[int]]] | None = None,
    creativity: Mapping[str, Sequence[Sequence[int]]] | None = None,
    guesses: Mapping[str, Sequence[bool]] | None = None,
) -> dict[str, dict[str, float]]:
    """Table 3 of DixitWorld: per model, Clarity, Creativity (means over its clues) and the
    human listeners' accuracy (%) with its clues.

    Args:
        clarity: model -> per clue, the raters' Clarity ratings (1..5).
        creativity: model -> per clue, the raters' Creativity ratings (1..5).
        guesses: model -> per human guess on one of its clues, whether it found the target.

    Returns:
        model -> ``{"clarity", "creativity", "accuracy", "clues", "guesses"}``, with only the
        measures that were given.

    Example:
        >>> model_scores(clarity={"m": [[3, 3], [1, 3]]}, guesses={"m": [True, False]})
        {'m': {'clarity': 0.625, 'clues': 2.0, 'accuracy': 50.0, 'guesses': 2.0}}
    """
    table: dict[str, dict[str, float]] = {}
    for name, clues in (clarity or {}).items():
        row = table.setdefault(name, {})
        row["clarity"] = float(np.mean([clue_clarity(c) for c in clues])) if clues else 0.0
        row["clues"] = float(len(clues))
    for name, clues in (creativity or {}).items():
        row = table.setdefault(name, {})
        row["creativity"] = float(np.mean([clue_creativity(c) for c in clues])) if clues else 0.0
        row.setdefault("clues", float(len(clues)))
    for name, hits in (guesses or {}).items():
        row = table.setdefault(name, {})
        row["accuracy"] = 100.0 * float(np.mean([bool(h) for h in hits])) if hits else 0.0
        row["guesses"] = float(len(hits))
    return table
