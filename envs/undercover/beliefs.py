"""Belief reports in Undercover: reading them from an action, and scoring them against the truth.

A player may attach beliefs to any action (who it thinks it is, who the others are, what the
other team's word is, which feature it read in each other player's latest description). They are recorded for CoMet's identity metrics (SIAA, OIAA; see
:mod:`cluegym.envs.undercover.metrics`) and never change the game: the env reads a report
with :func:`parse_beliefs` when it checks the action, and the rules store it with
:func:`score_beliefs` when they apply it.

Example:
    >>> parse_beliefs('{"self": "civilian", "others": {"player_3": "teammate"}}', 5)
    ({'self': 'civilian', 'others': {'3': 'teammate'}}, None)
"""

from __future__ import annotations

import functools
import json
from typing import Any

from cluegym.envs.core.matching import is_same_word_guess
from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import describe, to_charset, type_name
from cluegym.envs.undercover.config import CIVILIAN, ROLES
from cluegym.envs.undercover.state import UndercoverState

#: Relative labels a player may use for another player: True means "on my team".
RELATIVE_LABELS: dict[str, bool] = {
    "teammate": True, "same": True, "ally": True, "opponent": False, "different": False, "enemy": False,
}
#: Labels read as "undecided" (a judgment that is not correct, as in CoMet's OIAA).
UNDECIDED_LABELS: frozenset[str] = frozenset({"undecided", "unknown", "unsure", ""})
#: Longest feature kept per player in a report's ``features``.
FEATURE_MAX_CHARS = 120


def judgment_correct(label: str, judge_role: str, judged_role: str) -> bool:
    """Whether a label given by a player of ``judge_role`` about a player of ``judged_role`` is
    right: a role must be the judged player's role, a relative label (``"teammate"``,
    ``"opponent"``) must say whether both are on the same team; "undecided" is never right.

    Example:
        >>> judgment_correct("opponent", "civilian", "undercover"), judgment_correct("undecided", "civilian", "civilian")
        (True, False)
    """
    if label in RELATIVE_LABELS:
        return (judge_role == judged_role) == RELATIVE_LABELS[label]
    return label == judged_role


def parse_beliefs(text: object, num_players: int) -> tuple[dict[str, Any] | None, str | None]:
    """Read an optional belief report: JSON like
    ``{"self": "civilian", "others": {"player_1": "undercover", "3": "teammate"}, "other_word": "tiger"}``.

    ``self`` is ``"civilian"`` or ``"undercover"``; each of ``others`` is a role, a relative
    label (``"teammate"``/``"opponent"``) or ``"undecided"`` (which counts as a judgment that
    is not correct, as in CoMet's OIAA); ``other_word`` is the player's guess of the other
    team's word; ``features`` maps players to the feature read from their latest description
    (text, or CoMet's ``{"category": ..., "feature": ...}``; for CoMet's FER). Every key is
    optional. A dict is read like its JSON text.

    Never raises: any report that cannot be read (not JSON, nested too deep, a number too
    long to read, a value whose text cannot be taken) gives a reason instead.

    Returns:
        ``(beliefs, None)`` with players as integer-string keys, ``(None, None)`` for an empty
        report, or ``(None, reason)`` when it cannot be read (recorded, never rejected).
    """
    try:
        return _read_beliefs(text, num_players)
    except (ValueError, RecursionError) as exc:
        return None, f"beliefs cannot be read ({type(exc).__name__})"
    except Exception as exc:  # noqa: BLE001 - a belief report never crashes the game
        return None, f"beliefs cannot be read ({type_name(exc)})"


def _label(value: object) -> str:
    """A belief label as lowercase text (only plain JSON scalars are read)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return to_charset(str(value)).strip().lower()
    raise ValueError(f"a label must be text, got {type_name(value)}")


# Bounded. Agents repeat their reports (a policy that fills every Text entry sends the same
# few unreadable ones at every step), and a failed json.loads costs microseconds. What it read
# is only read by _read_beliefs, never handed out or changed, so one value may serve twice.
@functools.lru_cache(maxsize=1024)
def _load_json(text: str) -> tuple[Any, str | None]:
    """``(json.loads(text), None)``, or ``(None, why)`` when ``text`` is not JSON (any other
    error, e.g. a number too long to read, is raised, as by ``json.loads``)."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"beliefs are not JSON ({exc.msg})"


def _read_beliefs(text: object, num_players: int) -> tuple[dict[str, Any] | None, str | None]:
    """:func:`parse_beliefs` without its guard (it may raise on a hostile report)."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None, None
    if isinstance(text, str):
        # A str subclass may hash and compare as it likes: read it uncached.
        raw, error = _load_json(text) if type(text) is str else _load_json.__wrapped__(text)
        if error is not None:
            return None, error
    else:
        raw = text
    if not isinstance(raw, dict):
        return None, "beliefs must be a JSON object"
    out: dict[str, Any] = {}
    claimed = raw.get("self")
    if claimed is not None:
        claimed = _label(claimed)
        if claimed not in ROLES:
            return None, f"beliefs.self must be 'civilian' or 'undercover', got {describe(claimed)}"
        out["self"] = claimed
    others = raw.get("others")
    if others is not None:
        if not isinstance(others, dict):
            return None, "beliefs.others must map players to roles"
        parsed: dict[str, str] = {}
        for key, label in others.items():
            name = _label(key).removeprefix("player_").removeprefix("player ")
            if not (name.isascii() and name.isdigit() and len(name) <= 6) or not 0 <= int(name) < num_players:
                return None, f"beliefs.others names an unknown player {describe(key)}"
            label = _label(label)
            if label not in ROLES and label not in RELATIVE_LABELS and label not in UNDECIDED_LABELS:
                return None, f"beliefs.others[{describe(key)}] must be a role, 'teammate', 'opponent' or 'undecided'"
            parsed[str(int(name))] = "undecided" if label in UNDECIDED_LABELS else label
        out["others"] = parsed
    if raw.get("other_word") is not None:
        out["other_word"] = _label(raw["other_word"])[:60]
    features = raw.get("features")
    if features is not None:
        if not isinstance(features, dict):
            return None, "beliefs.features must map players to the feature read from their last description"
        read: dict[str, str] = {}
        for key, feature in features.items():
            name = _label(key).removeprefix("player_").removeprefix("player ")
            if not (name.isascii() and name.isdigit() and len(name) <= 6) or not 0 <= int(name) < num_players:
                return None, f"beliefs.features names an unknown player {describe(key)}"
            text = feature.get("feature", "") if isinstance(feature, dict) else feature  # CoMet's {"category", "feature"}
            read[str(int(name))] = " ".join(_label(text).split())[:FEATURE_MAX_CHARS]
        out["features"] = read
    return (out or None), None


def score_beliefs(state: UndercoverState, player: int, beliefs: dict[str, Any]) -> dict[str, Any]:
    """Score ``player``'s report (as :func:`parse_beliefs` returns it) against the truth.

    Returns:
        The entry the rules store: ``player``, ``round``, ``phase``, ``role``, ``beliefs``
        and, for what the report judged, ``self_correct``, ``others_judged`` and
        ``others_correct``, ``other_word_correct``.
    """
    entry: dict[str, Any] = {
        "player": seat_name(player), "round": state.round, "phase": state.phase,
        "role": state.roles[player], "beliefs": beliefs,
    }
    claimed = beliefs.get("self")
    if claimed is not None:
        entry["self_correct"] = claimed == state.roles[player]
    judged = correct = 0
    for other, label in (beliefs.get("others") or {}).items():
        index = int(other)
        if index == player or not 0 <= index < len(state.roles):
            continue
        judged += 1
        correct += judgment_correct(label, state.roles[player], state.roles[index])
    if judged:
        entry["others_judged"], entry["others_correct"] = judged, correct
    other_word = beliefs.get("other_word")
    if other_word:
        true_other = state.undercover_word if state.roles[player] == CIVILIAN else state.civilian_word
        entry["other_word_correct"] = is_same_word_guess(str(other_word), true_other)
    return entry
