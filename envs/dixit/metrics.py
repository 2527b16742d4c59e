"""DixitArena's metrics over finished games' results, and leave-one-listener-out stability.

Each result is a finished game's ``record["result"]`` (see
:meth:`~cluegym.envs.dixit.rules.DixitRules.result`): seats are numbered in it and named
(``player_i``) here.

Example:
    >>> m = metrics([record["result"] for record in records], agents={"player_0": "vision", ...})
    >>> m["storyteller_score"], m["seat:player_0"]["listener_accuracy"], m["lolo_stability"]
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from cluegym.envs.core.seats import seat_name
from cluegym.envs.dixit.scoring import OUTCOMES, PARTIAL_POINTS

#: The per-seat tallies a game's result adds to (see :func:`seat_tallies`).
TALLY_KEYS: tuple[str, ...] = ("story", "listen", "normalized", "score")


def seat_tallies(results: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Per seat name: storyteller outcomes (1 partial) under ``"story"``, listener hits under
    ``"listen"``, and per game the normalized score (%) and the score."""
    tallies: dict[str, dict[str, list[float]]] = {}
    for result in results:
        n = int(result["num_players"])
        for p in range(n):
            t = tallies.setdefault(seat_name(p), {key: [] for key in TALLY_KEYS})
            best = result["max_points"][p]
            t["normalized"].append(100.0 * result["scores"][p] / best if best else 0.0)
            t["score"].append(float(result["scores"][p]))
        for record in result["rounds"]:
            storyteller = record["storyteller"]
            tallies[seat_name(storyteller)]["story"].append(float(record["outcome"] == "partial"))
            for p in range(n):
                if p != storyteller:
                    tallies[seat_name(p)]["listen"].append(float(record["votes"][p] == record["target"]))
    return tallies


def role_scores(story: Sequence[float], listen: Sequence[float], normalized: Sequence[float],
                score: Sequence[float]) -> dict[str, float]:
    """The role metrics (%, see :func:`metrics`) of pooled tallies."""
    s = 100.0 * float(np.mean(story)) if story else 0.0
    lis = 100.0 * float(np.mean(listen)) if listen else 0.0
    return {
        "storyteller_score": s, "listener_accuracy": lis, "overall": (s + lis) / 2,
        "normalized_score": float(np.mean(normalized)) if normalized else 0.0,
        "mean_score": float(np.mean(score)) if score else 0.0,
    }


def lolo(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Leave-one-listener-out stability (DixitWorld appendix H.2).

    For every round and every listener, the storyteller's points are recomputed without that
    listener's vote; ``delta`` is the change. Stability is ``1 - std(delta) / 3``.
    """
    deltas: list[float] = []
    for result in results:
        n = int(result["num_players"])
        for record in result["rounds"]:
            storyteller = record["storyteller"]
            listeners = [p for p in range(n) if p != storyteller]
            hits = {p: record["votes"][p] == record["target"] for p in listeners}
            original = PARTIAL_POINTS if record["outcome"] == "partial" else 0
            for left_out in listeners:
                rest = [hits[p] for p in listeners if p != left_out]
                partial = 0 < sum(rest) < len(rest)
                deltas.append((PARTIAL_POINTS if partial else 0) - original)
    if not deltas:
        return {"lolo_avg_delta": 0.0, "lolo_std_delta": 0.0, "lolo_stability": 1.0}
    std = float(np.std(deltas))
    return {"lolo_avg_delta": float(np.mean(deltas)), "lolo_std_delta": std,
            "lolo_stability": 1.0 - std / PARTIAL_POINTS}


def target_position_chi2(rounds: Sequence[Mapping[str, Any]]) -> float:
    """Chi-squared statistic of the target's candidate position against uniform (section 3.4),
    summed over the candidate counts seen."""
    positions: dict[int, list[int]] = {}
    for r in rounds:
        positions.setdefault(len(r["candidates"]), []).append(int(r["target_position"]))
    chi2 = 0.0
    for size, pos in positions.items():
        counts = np.bincount(pos, minlength=size).astype(float)
        expected = len(pos) / size
        chi2 += float(((counts - expected) ** 2 / expected).sum())
    return chi2


def metrics(results: Sequence[Mapping[str, Any]], agents: Mapping[str, str] | None = None) -> dict[str, Any]:
    """DixitArena's metrics over finished games' results (``record["result"]``), in percent.

    Args:
        results: finished games' results.
        agents: optional seat -> agent name (e.g. a match summary's ``"seats"``); adds one
            ``agent:<name>`` entry per agent, pooling its seats.

    Returns:
        ``games``, ``rounds``; ``storyteller_score`` (% of rounds partial-correct),
        ``listener_accuracy`` (% of votes on the target), ``overall`` (their mean),
        ``normalized_score`` (eq. 1: points / most points attainable in the roles played,
        averaged over seats and games, %); the outcome split ``partial``/``all_correct``/
        ``all_wrong`` (% of rounds); ``lolo_*`` (appendix H.2); ``target_position_chi2`` (chi-
        squared statistic of the target's candidate position against uniform, as in section
        3.4); ``invalid_actions``, ``fallbacks`` and ``forfeits`` per game; and per seat
        ``seat:player_i`` (and per agent ``agent:<name>``) a dict of ``storyteller_score``,
        ``listener_accuracy``, ``overall``, ``normalized_score``, ``mean_score``.
    """
    n_games = len(results)
    if n_games == 0:
        return {"games": 0}
    rounds = [r for result in results for r in result["rounds"]]
    tallies = seat_tallies(results)
    pooled = {key: [v for t in tallies.values() for v in t[key]] for key in TALLY_KEYS}
    out: dict[str, Any] = {"games": n_games, "rounds": len(rounds)}
    role = role_scores(pooled["story"], pooled["listen"], pooled["normalized"], pooled["score"])
    out.update({k: role[k] for k in ("storyteller_score", "listener_accuracy", "overall", "normalized_score")})
    for outcome in OUTCOMES:
        out[outcome] = 100.0 * float(np.mean([r["outcome"] == outcome for r in rounds])) if rounds else 0.0
    out.update(lolo(results))
    out["target_position_chi2"] = target_position_chi2(rounds)
    out["invalid_actions"] = float(np.mean([r.get("invalid_actions", 0) for r in results]))
    out["fallbacks"] = float(np.mean([r.get("fallbacks", 0) for r in results]))
    out["forfeits"] = float(np.mean([r.get("forfeits", 0) for r in results]))
    for seat, t in sorted(tallies.items()):
        out[f"seat:{seat}"] = role_scores(t["story"], t["listen"], t["normalized"], t["score"])
    if agents:
        by_agent: dict[str, dict[str, list[float]]] = {}
        for seat, name in agents.items():
            if seat not in tallies:
                continue
            pool = by_agent.setdefault(str(name), {key: [] for key in TALLY_KEYS})
            for key in pool:
                pool[key].extend(tallies[seat][key])
        for name, pool in sorted(by_agent.items()):
            out[f"agent:{name}"] = role_scores(pool["story"], pool["listen"], pool["normalized"], pool["score"])
    return out
