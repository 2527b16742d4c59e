"""DixitArena's metrics over finished games' results, and leave-one-listener-out stability.

Each result is a finished game's ``record["result"]`` (see
:meth:`~cluegym.envs.dixit.rules.DixitRules.result`): seats are numbered in it and named
(``player_i``) here.

The paper's definitions (DixitWorld, section 2) and where they leave a choice:

* Storyteller Score: "the percentage of rounds achieving partial correctness", pooled over
  the storyteller's rounds. Table 1 matches this exactly: every Storyteller entry is k/84
  (84 storyteller rounds per model in the 21-match round-robin; 14.29 = 12/84).
* Listener Accuracy: "the percentage of correct target identifications", pooled over votes.
* Overall: the text says "the average of the Storyteller and Listener scores"
  (:data:`overall`); Table 1's Overall column is not that average (Qwen2.5-VL-7B: 14.29 and
  30.87 average 22.58, the table says 17.39; lower in all six rows), so Table 1 reports
  something else, most likely eq. 1 on game points. Both are reported: ``overall`` (the
  text) and ``normalized_score`` (eq. 1).
* Normalized score, eq. 1: ``mean over matches of score_attained / score_max x 100%``;
  the paper never says what ``score_max`` of a match is. :data:`NORMALIZATIONS` gives both
  readings: ``"table_best"`` (``normalized_score``, the default: the most points any player
  attained in that match, so the match winner scores 100%) and ``"attainable"``
  (``normalized_attainable``, cluegym's earlier choice: the most points the seat could have
  made in the roles it played, 3 per storyteller round and ``3 + N - 2`` per listener
  round). Dixit's points are nearly constant-sum (a round hands out 8-10 points in all with
  4 players), so under ``"attainable"`` every seat of a self-play table sits near 49%
  whatever the agents; ``"table_best"`` measures the distance to the winner instead.

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> from cluegym.harness.play import play_game
    >>> from cluegym.harness.seats import build_agents, resolve_seats
    >>> env = cluegym.make("dixit")
    >>> seats = resolve_seats("dixit", {"*": "random"}, env.possible_agents)
    >>> agents = build_agents("dixit", env, seats, make_agent=make_agent)
    >>> agent_seeds = {seat: i for i, seat in enumerate(agents)}
    >>> records = [play_game(env, agents, seed=seed, agent_seeds=agent_seeds) for seed in range(2)]
    >>> m = metrics([record["result"] for record in records], agents=seats)
    >>> round(m["storyteller_score"], 2), round(m["seat:player_0"]["listener_accuracy"], 2), round(m["lolo_stability"], 3)
    (77.08, 33.33, 0.563)
    >>> m["games"], m["rounds"], round(m["agent:random"]["overall"], 2)
    (2, 48, 56.94)
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from cluegym.envs.core.results import game_metrics
from cluegym.envs.core.seats import seat_name
from cluegym.envs.dixit.scoring import OUTCOMES, PARTIAL_POINTS

#: The per-seat tallies a game's result adds to (see :func:`seat_tallies`).
TALLY_KEYS: tuple[str, ...] = ("story", "listen", "normalized", "normalized_attainable", "score")
#: Readings of eq. 1's ``score_max`` (see the module docstring): metric key -> meaning.
NORMALIZATIONS: dict[str, str] = {
    "table_best": "normalized_score: points / the most points any player attained in the match",
    "attainable": "normalized_attainable: points / the most points attainable in the roles played",
}


def eq1(attained: Sequence[float], maximum: Sequence[float]) -> float:
    """DixitWorld's eq. 1: ``mean_i(attained_i / maximum_i) x 100`` over matches ``i``
    (a match whose maximum is 0 counts 0).

    Example:
        >>> eq1([30, 45], [60, 50])   # (0.5 + 0.9) / 2
        70.0
    """
    if len(attained) != len(maximum):
        raise ValueError(f"eq1 needs one maximum per match, got {len(attained)} scores and {len(maximum)} maxima")
    if not attained:
        return 0.0
    return 100.0 * float(np.mean([a / m if m else 0.0 for a, m in zip(attained, maximum)]))


def seat_tallies(results: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Per seat name: storyteller outcomes (1 partial) under ``"story"``, listener hits under
    ``"listen"``, and per game the score and eq. 1's ratio (%) under both readings
    (``"normalized"``: over the table's best score; ``"normalized_attainable"``: over the
    seat's attainable points)."""
    tallies: dict[str, dict[str, list[float]]] = {}
    for result in results:
        n = int(result["num_players"])
        for p in range(n):
            t = tallies.setdefault(seat_name(p), {key: [] for key in TALLY_KEYS})
            top = max(result["scores"])
            t["normalized"].append(eq1([result["scores"][p]], [top]))
            t["normalized_attainable"].append(eq1([result["scores"][p]], [result["max_points"][p]]))
            t["score"].append(float(result["scores"][p]))
        for record in result["rounds"]:
            storyteller = record["storyteller"]
            tallies[seat_name(storyteller)]["story"].append(float(record["outcome"] == "partial"))
            for p in range(n):
                if p != storyteller:
                    tallies[seat_name(p)]["listen"].append(float(record["votes"][p] == record["target"]))
    return tallies


def role_scores(story: Sequence[float], listen: Sequence[float], normalized: Sequence[float],
                score: Sequence[float], normalized_attainable: Sequence[float] = ()) -> dict[str, float]:
    """The role metrics (%, see :func:`metrics`) of pooled tallies.

    Example:
        >>> role_scores([1, 0], [1, 1, 0, 0], [100.0, 50.0], [9, 6])["overall"]   # (50 + 50) / 2
        50.0
    """
    s = 100.0 * float(np.mean(story)) if story else 0.0
    lis = 100.0 * float(np.mean(listen)) if listen else 0.0
    return {
        "storyteller_score": s, "listener_accuracy": lis, "overall": (s + lis) / 2,
        "normalized_score": float(np.mean(normalized)) if normalized else 0.0,
        "normalized_attainable": float(np.mean(normalized_attainable)) if normalized_attainable else 0.0,
        "mean_score": float(np.mean(score)) if score else 0.0,
    }


def _role_scores(tally: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return role_scores(tally["story"], tally["listen"], tally["normalized"], tally["score"],
                       tally["normalized_attainable"])


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


@game_metrics("dixit")
def metrics(results: Sequence[Mapping[str, Any]], agents: Mapping[str, str] | None = None) -> dict[str, Any]:
    """DixitArena's metrics over finished games' results (``record["result"]``), in percent.

    Args:
        results: finished games' results.
        agents: optional seat -> agent name (e.g. a match summary's ``"seats"``); adds one
            ``agent:<name>`` entry per agent, pooling its seats.

    Returns:
        ``games``, ``rounds``; ``storyteller_score`` (% of rounds partial-correct),
        ``listener_accuracy`` (% of votes on the target), ``overall`` (their mean, the
        paper's text), ``normalized_score`` (eq. 1 with ``score_max`` = the table's best
        score of each game) and ``normalized_attainable`` (eq. 1 with ``score_max`` = the
        points attainable in the roles played), each averaged over seats and games (%); the outcome split ``partial``/``all_correct``/
        ``all_wrong`` (% of rounds); ``lolo_*`` (appendix H.2); ``target_position_chi2`` (chi-
        squared statistic of the target's candidate position against uniform, as in section
        3.4); ``invalid_actions``, ``fallbacks`` and ``forfeits`` per game; and per seat
        ``seat:player_i`` (and per agent ``agent:<name>``) a dict of ``storyteller_score``,
        ``listener_accuracy``, ``overall``, ``normalized_score``, ``normalized_attainable``,
        ``mean_score``.
    """
    n_games = len(results)
    if n_games == 0:
        return {"games": 0}
    rounds = [r for result in results for r in result["rounds"]]
    tallies = seat_tallies(results)
    pooled = {key: [v for t in tallies.values() for v in t[key]] for key in TALLY_KEYS}
    out: dict[str, Any] = {"games": n_games, "rounds": len(rounds)}
    role = _role_scores(pooled)
    out.update({k: role[k] for k in ("storyteller_score", "listener_accuracy", "overall", "normalized_score",
                                     "normalized_attainable")})
    for outcome in OUTCOMES:
        out[outcome] = 100.0 * float(np.mean([r["outcome"] == outcome for r in rounds])) if rounds else 0.0
    out.update(lolo(results))
    out["target_position_chi2"] = target_position_chi2(rounds)
    out["invalid_actions"] = float(np.mean([r.get("invalid_actions", 0) for r in results]))
    out["fallbacks"] = float(np.mean([r.get("fallbacks", 0) for r in results]))
    out["forfeits"] = float(np.mean([r.get("forfeits", 0) for r in results]))
    for seat, t in sorted(tallies.items()):
        out[f"seat:{seat}"] = _role_scores(t)
    if agents:
        by_agent: dict[str, dict[str, list[float]]] = {}
        for seat, name in agents.items():
            if seat not in tallies:
                continue
            pool = by_agent.setdefault(str(name), {key: [] for key in TALLY_KEYS})
            for key in pool:
                pool[key].extend(tallies[seat][key])
        for name, pool in sorted(by_agent.items()):
            out[f"agent:{name}"] = _role_scores(pool)
    return out


def agent_table(matches: Sequence[tuple[Sequence[Mapping[str, Any]], Mapping[str, str]]]) -> dict[str, dict[str, float]]:
    """Per agent, Table 1 of DixitWorld over several matches (a round-robin).

    Storyteller Score and Listener Accuracy pool the agent's rounds and votes over every
    match (Table 1's Storyteller column is k/84 for all six models: pooled); the eq. 1 scores
    average, over the matches the agent played, the mean ratio of its seats in that match,
    so a self-play match (4 seats) weighs as much as a mixed one (2 seats).

    Args:
        matches: per match, its games' results and its seating (seat -> agent name).

    Returns:
        agent -> ``storyteller_score``, ``listener_accuracy``, ``overall`` (their mean),
        ``normalized_score`` (eq. 1, table-best), ``normalized_attainable`` (eq. 1,
        attainable), ``mean_score`` (points per game), ``matches``, ``story_rounds``, ``votes``.

    Example:
        >>> import cluegym
        >>> from cluegym.agents import make_agent
        >>> from cluegym.harness.play import play_game
        >>> from cluegym.harness.seats import build_agents, resolve_seats
        >>> env = cluegym.make("dixit")
        >>> seats = resolve_seats("dixit", {"*": "random"}, env.possible_agents)
        >>> agents = build_agents("dixit", env, seats, make_agent=make_agent)
        >>> agent_seeds = {seat: i for i, seat in enumerate(agents)}
        >>> results_ab = [play_game(env, agents, seed=seed, agent_seeds=agent_seeds)["result"] for seed in range(2)]
        >>> table = agent_table([(results_ab, {"player_0": "a", "player_1": "a",
        ...                                    "player_2": "b", "player_3": "b"})])
        >>> round(table["a"]["normalized_score"], 2), table["a"]["story_rounds"], table["a"]["votes"]
        (82.47, 24.0, 72.0)
    """
    pooled: dict[str, dict[str, list[float]]] = {}
    for results, seats in matches:
        tallies = seat_tallies(results)
        per_match: dict[str, dict[str, list[float]]] = {}
        for seat, name in seats.items():
            if seat not in tallies:
                raise ValueError(f"seat {seat!r} is not in the match's results (seats: {', '.join(sorted(tallies))})")
            mine = per_match.setdefault(str(name), {key: [] for key in TALLY_KEYS})
            for key in TALLY_KEYS:
                mine[key].extend(tallies[seat][key])
        for name, mine in per_match.items():
            pool = pooled.setdefault(name, {key: [] for key in TALLY_KEYS})
            pool["story"].extend(mine["story"])
            pool["listen"].extend(mine["listen"])
            for key in ("normalized", "normalized_attainable", "score"):
                pool[key].append(float(np.mean(mine[key])))  # one value per match (eq. 1's mean over matches)
    table: dict[str, dict[str, float]] = {}
    for name, pool in sorted(pooled.items()):
        row = _role_scores(pool)
        row.update(matches=float(len(pool["score"])), story_rounds=float(len(pool["story"])),
                   votes=float(len(pool["listen"])))
        table[name] = row
    return table
