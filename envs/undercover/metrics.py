"""CoMet's Undercover metrics over finished games' results (``record["result"]``).

Team and per-seat win rates with CoMet's balanced metric (mean minus variance across the two
roles), game length, ties and eliminations, and, where agents reported beliefs (see
:mod:`cluegym.envs.undercover.beliefs`), the identity accuracies SIAA and OIAA.

Example:
    >>> metrics([record["result"] for record in records])["balanced_win_rate"]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from cluegym.envs.undercover.config import CIVILIAN, ROLES, TEAMS, UNDERCOVER


def _balanced(a: float | None, b: float | None) -> float | None:
    """CoMet's balanced metric of two per-role values: their mean minus their variance."""
    if a is None or b is None:
        return None
    return float(np.mean([a, b]) - np.var([a, b]))


def _rate(hits: float, total: float) -> float | None:
    """``hits / total``, None when there is nothing to count."""
    return float(hits / total) if total else None


def metrics(results: Sequence[dict]) -> dict[str, Any]:
    """CoMet's Undercover metrics over finished games' results (``record["result"]``).

    Returns:
        games; ``civilian_win_rate``, ``undercover_win_rate``, ``draw_rate`` (team level);
        ``balanced_win_rate`` = mean minus variance of the two teams' win rates (CoMet's
        balanced metric); per seat ``seat_win_rate_civilian``, ``seat_win_rate_undercover``
        and ``seat_balanced_win_rate`` (the seat's agent as either role; roles are dealt at
        random, so mixed matches compare agents); ``avg_rounds`` (game length) and its SEM;
        ``tie_rate`` (rounds without elimination); ``undercover_hit_rate`` (eliminations that
        removed an undercover player); ``end_*`` shares; where agents reported beliefs:
        ``self_identity_accuracy`` (SIAA), ``others_identity_accuracy`` (OIAA),
        ``other_word_accuracy``, each also per role and balanced; invalid actions,
        fallbacks and forfeits per game.
    """
    n = len(results)
    if n == 0:
        return {"games": 0}
    winners = [r["winner"] for r in results]
    civ = float(np.mean([w == "civilians" for w in winners]))
    und = float(np.mean([w == "undercover" for w in winners]))
    rounds = np.array([r["rounds"] for r in results], dtype=float)
    out: dict[str, Any] = {
        "games": n,
        "civilian_win_rate": civ,
        "undercover_win_rate": und,
        "draw_rate": float(np.mean([w is None for w in winners])),
        "balanced_win_rate": _balanced(civ, und),
        "avg_rounds": float(rounds.mean()),
        "avg_rounds_sem": float(rounds.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
    }
    for reason in ("undercover_eliminated", "one_civilian_left", "timeout"):
        out[f"end_{reason}"] = float(np.mean([r["end_reason"] == reason for r in results]))
    total_rounds = float(rounds.sum())
    out["tie_rate"] = float(sum(r.get("ties", 0) for r in results) / total_rounds) if total_rounds else 0.0
    eliminations = [e for r in results for e in r.get("eliminated", [])]
    out["undercover_hit_rate"] = _rate(sum(e["role"] == UNDERCOVER for e in eliminations), len(eliminations))

    seats = sorted({s for r in results for s in r["roles"]}, key=lambda s: int(s.rsplit("_", 1)[1]))
    per_role: dict[str, dict[str, float | None]] = {CIVILIAN: {}, UNDERCOVER: {}, "balanced": {}}
    for seat in seats:
        for role in ROLES:
            games = [r for r in results if r["roles"].get(seat) == role]
            wins = sum(r["winner"] == TEAMS[role] for r in games)
            per_role[role][seat] = _rate(wins, len(games))
        per_role["balanced"][seat] = _balanced(per_role[CIVILIAN][seat], per_role[UNDERCOVER][seat])
    out["seat_win_rate_civilian"] = per_role[CIVILIAN]
    out["seat_win_rate_undercover"] = per_role[UNDERCOVER]
    out["seat_balanced_win_rate"] = per_role["balanced"]

    reports = [b for r in results for b in r.get("beliefs", [])]
    if reports:
        out["belief_reports"] = len(reports)
        for name, hit_key, total_key in (
            ("self_identity_accuracy", "self_correct", None),
            ("others_identity_accuracy", "others_correct", "others_judged"),
            ("other_word_accuracy", "other_word_correct", None),
        ):
            by_role: dict[str, float | None] = {}
            for role in (None, *ROLES):
                rows = [b for b in reports if hit_key in b and (role is None or b["role"] == role)]
                hits = sum(float(b[hit_key]) for b in rows)
                total = sum(float(b[total_key]) for b in rows) if total_key else len(rows)
                by_role[role or "all"] = _rate(hits, total)
            out[name] = by_role["all"]
            out[f"{name}_civilian"] = by_role[CIVILIAN]
            out[f"{name}_undercover"] = by_role[UNDERCOVER]
            out[f"{name}_balanced"] = _balanced(by_role[CIVILIAN], by_role[UNDERCOVER])
    out["invalid_actions"] = float(np.mean([r.get("invalid_actions", 0) for r in results]))
    out["fallbacks"] = float(np.mean([r.get("fallbacks", 0) for r in results]))
    out["forfeits"] = float(np.mean([r.get("forfeits", 0) for r in results]))
    return out
