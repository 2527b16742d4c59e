"""Tournament statistics from finished games: outcomes, OpenSkill ratings, head-to-head, per role.

A tournament game (see :mod:`cluegym.benchmarks.tournament`) puts two agents on the two sides
of a game; each side is a set of seats. Its outcome is read from the record's per-seat returns:
a side's score is the mean return of its seats, the higher side wins, equal scores draw. Teams
are rated as teams: every game is one OpenSkill match between the teams of agents that hold the
sides (Plackett-Luce model, ranks from the side scores), so a Decrypto win by Alice and Bob
counts for the agent that plays both. Each team also holds a virtual player for its side, so
the ratings are adjusted for the advantage of a side (see :func:`rate_outcomes`).

Everything here is a pure function of the game outcomes, processed in a fixed order, so the
same games give the same ratings whether a tournament ran in one go, resumed or concurrently.

Example:
    >>> outcome = GameOutcome("m0", 0, ("glove", "random"), ("encoders", "interceptor"), (1.0, -1.0))
    >>> table = rate_outcomes([outcome], ["glove", "random"])
    >>> table["agents"][0]["agent"]
    'glove'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["GameOutcome", "head_to_head", "per_role_table", "rate_outcomes", "side_scores"]

#: Width of the reported interval around mu, in sigmas (95 %).
INTERVAL_SIGMAS = 1.96


@dataclass(frozen=True)
class GameOutcome:
    """One finished tournament game, reduced to what ratings and tables need.

    Attributes:
        match: the id of the match (one pairing and orientation) it belongs to.
        index: the game's index in that match.
        agents: the agent name holding each side (two sides).
        sides: the side names, e.g. ``("encoders", "interceptor")``.
        scores: each side's score (mean return of its seats).
    """

    match: str
    index: int
    agents: tuple[str, str]
    sides: tuple[str, str]
    scores: tuple[float, float]

    def points(self, side: int) -> float:
        """1 for a win of ``side``, 0.5 for a draw, 0 for a loss."""
        mine, theirs = self.scores[side], self.scores[1 - side]
        return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def side_scores(returns: dict[str, float], sides: Sequence[Sequence[str]]) -> tuple[float, ...]:
    """Each side's score: the mean return of its seats.

    Example:
        >>> side_scores({"alice": 1.0, "bob": 1.0, "eve": -1.0}, [["alice", "bob"], ["eve"]])
        (1.0, -1.0)
    """
    return tuple(sum(float(returns[seat]) for seat in seats) / len(seats) for seats in sides)


def rate_outcomes(outcomes: Sequence[GameOutcome], agents: Sequence[str], *,
                  side_adjusted: bool = True) -> dict[str, list[dict[str, Any]]]:
    """OpenSkill (Plackett-Luce) ratings of ``agents`` from the games, best first.

    Games are rated in the order given (the caller fixes it). Each side's team is the agent
    holding it; a side's rank comes from its score (ties share a rank). With ``side_adjusted``
    each team also holds a virtual player for its side (``side:<name>``), rated like the
    agents: it absorbs the advantage of a side (Decrypto's interceptor wins most games between
    equal agents), the way a home advantage is rated, so an agent that can play only one side
    (a policy trained for Eve) is not over- or under-rated by the side it plays. Sequential
    updates learn the side's advantage only as the games go by, so the games are rated twice:
    the second pass starts each side from its first-pass rating and every agent afresh.

    Returns:
        ``{"agents": rows, "sides": rows}``; one row per agent (and per side): ``agent``, ``mu``,
        ``sigma``, ``ordinal`` (mu - 3 sigma, the conservative skill the table is sorted by),
        ``low``/``high`` (mu -/+ 1.96 sigma), ``games``, ``wins``, ``draws``, ``losses``, ``score``
        (wins + draws / 2, per game) and ``rank``.

    Raises:
        ValueError: the openskill package is not installed.
    """
    try:
        # deferred on purpose: openskill is an optional dependency (the `tournament` extra), and
        # the `cluegym` command imports this module's command whether or not it is installed
        from openskill.models import PlackettLuce
    except ModuleNotFoundError as exc:
        raise ValueError("ratings need the openskill package: pip install 'cluegym[tournament]'") from exc
    model = PlackettLuce()
    sides = list(dict.fromkeys(side for outcome in outcomes for side in outcome.sides)) if side_adjusted else []
    players = [*agents, *(f"side:{side}" for side in sides)]

    def rate_all(side_priors: dict[str, Any]) -> dict[str, Any]:
        ratings = {name: side_priors.get(name) or model.rating(name=name) for name in players}
        for outcome in outcomes:
            teams = [[outcome.agents[k], *([f"side:{outcome.sides[k]}"] if side_adjusted else [])] for k in (0, 1)]
            # rank 1 is best: the higher score gets the lower rank, equal scores the same rank
            ranks = [1 + sum(other > own for other in outcome.scores) for own in outcome.scores]
            updated = model.rate([[ratings[name] for name in team] for team in teams], ranks=ranks)
            for side in (0, 1):
                ratings.update(zip(teams[side], updated[side]))
        return ratings

    ratings = rate_all({})
    if side_adjusted:
        # Sequential updates credit the agents of the first games before the sides' advantage is
        # known: a second pass rates the agents afresh, each side starting from its first-pass
        # rating (its advantage estimated from every game), as a prior.
        ratings = rate_all({name: ratings[name] for name in players[len(agents):]})
    tally = {name: {"games": 0, "wins": 0, "draws": 0, "losses": 0} for name in players}
    for outcome in outcomes:
        for side in (0, 1):
            points = outcome.points(side)
            for name in (outcome.agents[side], *([f"side:{outcome.sides[side]}"] if side_adjusted else [])):
                tally[name]["games"] += 1
                tally[name]["wins" if points == 1.0 else "draws" if points == 0.5 else "losses"] += 1

    def table(names: Sequence[str], label: str) -> list[dict[str, Any]]:
        rows = []
        for name in names:
            rating, counts = ratings[name], tally[name]
            games = counts["games"]
            rows.append({
                label: name.removeprefix("side:") if label == "side" else name, "mu": rating.mu,
                "sigma": rating.sigma, "ordinal": rating.ordinal(),
                "low": rating.mu - INTERVAL_SIGMAS * rating.sigma, "high": rating.mu + INTERVAL_SIGMAS * rating.sigma,
                **counts, "score": (counts["wins"] + counts["draws"] / 2) / games if games else math.nan,
            })
        rows.sort(key=lambda row: (-row["ordinal"], row[label]))
        for rank, row in enumerate(rows, 1):
            row["rank"] = rank
        return rows

    return {"agents": table(agents, "agent"), "sides": table(players[len(agents):], "side")}


def head_to_head(outcomes: Sequence[GameOutcome], agents: Sequence[str]) -> dict[str, Any]:
    """The head-to-head matrix: the row agent's score against the column agent.

    Returns:
        ``{"agents": [...], "score": [[...]], "games": [[...]]}``; ``score[i][j]`` is agent i's
        mean points against agent j (win 1, draw 0.5) over every game between them, both
        orientations pooled; NaN where they never met (the diagonal).
    """
    index = {name: i for i, name in enumerate(agents)}
    n = len(agents)
    points = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    for outcome in outcomes:
        for side in (0, 1):
            i, j = index[outcome.agents[side]], index[outcome.agents[1 - side]]
            points[i][j] += outcome.points(side)
            games[i][j] += 1
    score = [[points[i][j] / games[i][j] if games[i][j] else math.nan for j in range(n)] for i in range(n)]
    return {"agents": list(agents), "score": score, "games": games}


def per_role_table(outcomes: Sequence[GameOutcome], agents: Sequence[str]) -> list[dict[str, Any]]:
    """Per agent and side (role): games, wins, draws, losses, score and mean side score.

    Returns:
        Rows ``{"agent", "side", "games", "wins", "draws", "losses", "score", "mean_side_score"}``
        in agent order, then side order of first appearance.
    """
    cells: dict[tuple[str, str], dict[str, float]] = {}
    side_order: list[str] = []
    for outcome in outcomes:
        for side in (0, 1):
            if outcome.sides[side] not in side_order:
                side_order.append(outcome.sides[side])
            cell = cells.setdefault((outcome.agents[side], outcome.sides[side]),
                                    {"games": 0, "wins": 0, "draws": 0, "losses": 0, "total": 0.0})
            points = outcome.points(side)
            cell["games"] += 1
            cell["wins" if points == 1.0 else "draws" if points == 0.5 else "losses"] += 1
            cell["total"] += outcome.scores[side]
    rows = []
    for name in agents:
        for side in side_order:
            cell = cells.get((name, side))
            if cell is None:
                continue
            games = cell["games"]
            rows.append({
                "agent": name, "side": side, "games": games, "wins": cell["wins"], "draws": cell["draws"],
                "losses": cell["losses"], "score": (cell["wins"] + cell["draws"] / 2) / games,
                "mean_side_score": cell["total"] / games,
            })
    return rows
