"""CoMet's Undercover metrics over finished games' results (``record["result"]``).

Game-level figures (team win rates, game length, ties, eliminations) and CoMet's six
per-player metrics of appendix E, by role: WR, PPC, IISC, FER, SIAA and OIAA (their counts
and the judging they need are in :mod:`~cluegym.envs.undercover.speech_metrics` and
:mod:`~cluegym.envs.undercover.judge`). A metric whose fields the agents never reported
(FER without ``features``, OIAA without ``others``, SIAA without ``self``: the embedding
baselines report none) is None ("n/a"), never 0.

CoMet's Balanced Metric is per method (section 4.1): the method's metric as civilian and as
undercover, averaged, minus their variance, ``M' = avg(M_civ, M_und) - Var(M_civ, M_und)``.
:func:`method_metrics` computes it for every method over games where the method played both
roles (Table 1 plays each method pair twice, roles swapped:
:mod:`cluegym.benchmarks.comet_table1`).

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> from cluegym.harness.play import play_game
    >>> from cluegym.harness.seats import build_agents, resolve_seats
    >>> env = cluegym.make("undercover")
    >>> seats = resolve_seats("undercover", {"*": "random"}, env.possible_agents)
    >>> agents = build_agents("undercover", env, seats, make_agent=make_agent)
    >>> agent_seeds = {seat: i for i, seat in enumerate(agents)}
    >>> records = [play_game(env, agents, seed=seed, agent_seeds=agent_seeds) for seed in range(4)]
    >>> metrics([record["result"] for record in records])["civilian_win_rate"]
    0.25
    >>> method_metrics([(record["result"], seats) for record in records])["random"]["balanced"]["WR"]
    0.4375
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from cluegym.envs.core.results import game_metrics
from cluegym.envs.undercover.config import CIVILIAN, ROLES, UNDERCOVER
from cluegym.envs.undercover.judge import SpeechJudge, WordNetJudge
from cluegym.envs.undercover.speech_metrics import SeatCounts, seat_counts

__all__ = ["METRIC_NAMES", "balanced", "method_metrics", "metrics", "rates"]

#: CoMet's six metrics, in Table 1's column order.
METRIC_NAMES: tuple[str, ...] = ("WR", "PPC", "IISC", "FER", "SIAA", "OIAA")


def balanced(civilian: float | None, undercover: float | None) -> float | None:
    """CoMet's balanced metric of one method's two per-role values: their mean minus their
    (population) variance; None when either is n/a.

    Example:
        >>> round(balanced(0.8, 0.2), 2)  # 0.5 - 0.09
        0.41
    """
    if civilian is None or undercover is None:
        return None
    return float(np.mean([civilian, undercover]) - np.var([civilian, undercover]))


def _rate(hits: float, total: float) -> float | None:
    """``hits / total``, None when there is nothing to count."""
    return float(hits / total) if total else None


def rates(counts: Sequence[SeatCounts]) -> dict[str, float | None]:
    """The six metrics (and ``players``: the seat-games counted) of pooled seat counts.

    Counts are summed before dividing (every speech entry weighs the same). FER, OIAA and SIAA
    are None when no counted seat reported the field they need; every metric is None without
    counts.
    """
    if not counts:
        return {name: None for name in METRIC_NAMES} | {"players": 0}
    total = {field: sum(getattr(c, field) for c in counts) for field in (
        "speeches", "leaked", "inconsistent", "received", "features_valid", "judged_correct", "self_attempts",
        "self_correct")}
    ppc = _rate(total["leaked"], total["speeches"])
    return {
        "WR": float(np.mean([c.won for c in counts])),
        "PPC": None if ppc is None else 1.0 - ppc,
        "IISC": _rate(total["inconsistent"], total["speeches"]),
        "FER": _rate(total["features_valid"], total["received"]) if any(c.reports_features for c in counts) else None,
        "SIAA": _rate(total["self_correct"], total["self_attempts"]) if any(c.reports_self for c in counts) else None,
        "OIAA": _rate(total["judged_correct"], total["received"]) if any(c.reports_others for c in counts) else None,
        "players": len(counts),
    }


def method_metrics(
    games: Iterable[tuple[dict[str, Any], Mapping[str, str]]], judge: SpeechJudge | None = None
) -> dict[str, dict[str, dict[str, float | None]]]:
    """CoMet's six metrics per method and role, and each method's balanced metrics.

    Args:
        games: ``(result, seats)`` pairs: a finished game's ``record["result"]`` and which
            method (any label: an agent spec, "CoT") played each seat in it. Games of
            different matches (e.g. the role-swapped pair of Table 1) may be mixed.
        judge: decides valid features, leaks and inconsistent statements (default
            :class:`~cluegym.envs.undercover.judge.WordNetJudge`).

    Returns:
        ``{method: {"civilian": {metric: value}, "undercover": {...}, "balanced": {...}}}``;
        a role the method never played has every metric None, and so has its balanced row.
    """
    judge = judge if judge is not None else WordNetJudge()
    pooled: dict[str, dict[str, list[SeatCounts]]] = {}
    for result, seats in games:
        for seat in result["roles"]:
            counts = seat_counts(result, seat, judge)
            pooled.setdefault(seats[seat], {CIVILIAN: [], UNDERCOVER: []})[counts.role].append(counts)
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for method, by_role in pooled.items():
        civ, und = rates(by_role[CIVILIAN]), rates(by_role[UNDERCOVER])
        both = {name: balanced(civ[name], und[name]) for name in METRIC_NAMES}
        out[method] = {CIVILIAN: civ, UNDERCOVER: und, "balanced": both}
    return out


@game_metrics("undercover")
def metrics(results: Sequence[dict], agents: Mapping[str, str] | None = None,
            judge: SpeechJudge | None = None) -> dict[str, Any]:
    """CoMet's Undercover metrics over finished games' results (``record["result"]``).

    Args:
        results: finished games' results.
        agents: seat -> agent spec of the match (the match harness passes it when the seats
            hold different agents): adds ``by_agent``, the six metrics per agent and role with
            its balanced row (see :func:`method_metrics`).
        judge: the :class:`~cluegym.envs.undercover.judge.SpeechJudge` for FER, PPC and IISC
            (default the WordNet judge).

    Returns:
        games; ``civilian_win_rate``, ``undercover_win_rate``, ``draw_rate`` (team level);
        ``avg_rounds`` (game length) and its SEM; ``tie_rate`` (rounds without elimination);
        ``undercover_hit_rate`` (eliminations that removed an undercover player); ``end_*``
        shares; per seat ``seat_win_rate_civilian``, ``seat_win_rate_undercover`` and
        ``seat_balanced_win_rate`` (the seat's agent as either role); CoMet's six metrics over
        every player, per role (``civilian``, ``undercover``: ``{"WR", "PPC", "IISC", "FER",
        "SIAA", "OIAA", "players"}``, None where n/a) and, with the same method in both roles,
        ``balanced``; ``belief_reports`` and ``other_word_accuracy`` where agents reported
        beliefs; invalid actions, fallbacks and forfeits per game.
    """
    n = len(results)
    if n == 0:
        return {"games": 0}
    judge = judge if judge is not None else WordNetJudge()
    winners = [r["winner"] for r in results]
    rounds = np.array([r["rounds"] for r in results], dtype=float)
    out: dict[str, Any] = {
        "games": n,
        "civilian_win_rate": float(np.mean([w == "civilians" for w in winners])),
        "undercover_win_rate": float(np.mean([w == "undercover" for w in winners])),
        "draw_rate": float(np.mean([w is None for w in winners])),
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
            per_role[role][seat] = _rate(sum(r["winner"] == ("civilians" if role == CIVILIAN else "undercover")
                                             for r in games), len(games))
        per_role["balanced"][seat] = balanced(per_role[CIVILIAN][seat], per_role[UNDERCOVER][seat])
    out["seat_win_rate_civilian"] = per_role[CIVILIAN]
    out["seat_win_rate_undercover"] = per_role[UNDERCOVER]
    out["seat_balanced_win_rate"] = per_role["balanced"]

    # Every player pooled as one "method": per role, and balanced only when one agent fills every seat.
    everyone = method_metrics(((r, {s: "all" for s in r["roles"]}) for r in results), judge)["all"]
    out[CIVILIAN], out[UNDERCOVER] = everyone[CIVILIAN], everyone[UNDERCOVER]
    if agents is None or len(set(agents.values())) <= 1:
        out["balanced"] = everyone["balanced"]
    else:
        out["by_agent"] = method_metrics(((r, agents) for r in results), judge)

    reports = [b for r in results for b in r.get("beliefs", [])]
    if reports:
        out["belief_reports"] = len(reports)
        words = [b for b in reports if "other_word_correct" in b]
        out["other_word_accuracy"] = _rate(sum(b["other_word_correct"] for b in words), len(words))
    out["invalid_actions"] = float(np.mean([r.get("invalid_actions", 0) for r in results]))
    out["fallbacks"] = float(np.mean([r.get("fallbacks", 0) for r in results]))
    out["forfeits"] = float(np.mean([r.get("forfeits", 0) for r in results]))
    return out
