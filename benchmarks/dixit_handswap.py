"""DixitWorld's hand-swap bias check (section 3.4): does the deal decide who wins?

The paper swaps hands between the phases (P1<->P3, P2<->P4) "to eliminate hand-quality bias"
and reports score differences under 0.3 points. The check here: every deal (a game seed) is
played by agents A and B twice, once A on ``player_0``/``player_1`` and B on the rest, once
mirrored, so each agent gets each half of the deal once; both with the hand swap on and off.
Per deal, A's advantage (A's points minus B's, per game) is measured in both seatings; their
gap, ``|adv(A first) - adv(B first)|``, is what the deal (the hands) adds to the result. With
the swap every hand is played by both agents within each game and the gap shrinks; without
it the deal's luck stays with whoever got it.

Printed: per condition (swap on/off), the mean of A's advantage, the mean and maximum gap
between seatings (points per game and per round), and each agent's points per round in
phase 1 and phase 2. Saved: a PNG of the gap per deal.

Usage:
    python -m cluegym.benchmarks.dixit_handswap --deals 8
    python -m cluegym.benchmarks.dixit_handswap --a 'caption:rank=1' --b random --deals 4
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from tqdm.auto import tqdm

from cluegym.agents import AgentSpecError, run_match
from cluegym.envs.dixit.config import PAPER_SEED
from cluegym.envs.dixit.seating import pair_seating
from cluegym.benchmarks.plotting import pyplot, save_figure
from cluegym.benchmarks.usage import check_outputs, check_seat_specs, positive_int

#: The two conditions compared: the hand swap on (the paper) and off.
CONDITIONS: tuple[tuple[str, bool], ...] = (("swap", True), ("no swap", False))


def agent_points(result: dict[str, Any], seats: dict[str, str], agent: str) -> tuple[float, float, float]:
    """An agent's mean points per seat in a game: in all, in phase 1, in phase 2 (before and
    after the hand swap's round; without a swap the same halves).

    Example:
        >>> seats = pair_seating("random:seed=1", "random:seed=2"); seats
        {'player_0': 'random:seed=1', 'player_1': 'random:seed=1', 'player_2': 'random:seed=2', 'player_3': 'random:seed=2'}
        >>> results = []
        >>> _ = run_match("dixit", seats, games=1, seed=0, progress=False,
        ...               on_game=lambda index, record: results.append(record["result"]))
        >>> result = results[0]; len(result["rounds"])
        24
        >>> agent_points(result, seats, "random:seed=1")
        (45.0, 21.5, 23.5)
    """
    mine = [int(s.split("_")[1]) for s, name in seats.items() if name == agent]
    if not mine:
        raise ValueError(f"agent {agent!r} holds no seat in {seats}")
    rounds = result["rounds"]
    half = (len(rounds) + 1) // 2
    phase = [sum(r["points"][p] for r in part for p in mine) / len(mine) for part in (rounds[:half], rounds[half:])]
    return sum(phase), phase[0], phase[1]


def check(agent_a: str, agent_b: str, *, deals: int = 8, seed: int = PAPER_SEED, env: dict[str, Any] | None = None,
          progress: bool = True) -> dict[str, Any]:
    """Play every deal in both seatings, with and without the hand swap.

    Args:
        agent_a: agent spec of A.
        agent_b: agent spec of B (different from A).
        deals: games per seating and condition (game ``i`` is dealt from seed ``(seed, i)``).
        seed: match seed: the same deals in every seating and condition.
        env: extra env options.
        progress: show a progress bar over the four matches.

    Returns:
        ``{"a", "b", "deals", "seed", "conditions": {name: {"advantage", "gap", "mean_gap",
        "max_gap", "mean_advantage", "phases"}}}``; ``advantage`` and ``gap`` are per deal
        (points per game), ``phases`` maps ``"a"``/``"b"`` to points per round in phase 1, 2.

    Raises:
        ValueError: the same agent twice, or deals < 1.
    """
    if agent_a == agent_b:
        raise ValueError("the hand-swap check needs two different agents")
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    env_options = {"reveal_captions": True, **(env or {})}
    out: dict[str, Any] = {"a": agent_a, "b": agent_b, "deals": deals, "seed": seed, "conditions": {}}
    bar = tqdm(total=2 * len(CONDITIONS), desc="hand-swap check", unit="match", disable=not progress)
    try:
        for name, swap in CONDITIONS:
            advantage: dict[str, list[float]] = {}
            phases = {"a": np.zeros(2), "b": np.zeros(2)}
            rounds_per_phase = 0
            for first, second in ((agent_a, agent_b), (agent_b, agent_a)):
                seats = pair_seating(first, second)
                results: list[dict[str, Any]] = []
                summary = run_match("dixit", seats, games=deals, seed=seed, progress=False,
                                    env_kwargs={**env_options, "hand_swap": swap},
                                    on_game=lambda _i, record: results.append(record["result"]))
                if not summary["ok"]:
                    raise RuntimeError(f"{first} vs {second} failed: {'; '.join(summary['problems'])}")
                key = "a_first" if first == agent_a else "b_first"
                advantage[key] = []
                for result in results:
                    a_all, a1, a2 = agent_points(result, seats, agent_a)
                    b_all, b1, b2 = agent_points(result, seats, agent_b)
                    advantage[key].append(a_all - b_all)
                    phases["a"] += (a1, a2)
                    phases["b"] += (b1, b2)
                    rounds_per_phase += len(result["rounds"]) // 2
                bar.update(1)
            gap = np.abs(np.array(advantage["a_first"]) - np.array(advantage["b_first"]))
            rounds = max(1, rounds_per_phase)  # phase rounds over both seatings' games: points per round
            out["conditions"][name] = {
                "advantage": advantage, "gap": gap.tolist(), "mean_gap": float(gap.mean()),
                "max_gap": float(gap.max()),
                "mean_advantage": float(np.mean(advantage["a_first"] + advantage["b_first"])),
                "rounds_per_game": len(results[0]["rounds"]) if results else 0,
                "phases": {k: (v / rounds).tolist() for k, v in phases.items()},
            }
    finally:
        bar.close()
    return out


def format_check(run: dict[str, Any]) -> str:
    """The check's table as text."""
    lines = [f"A = {run['a']}, B = {run['b']}, {run['deals']} deals x 2 seatings, seed {run['seed']}",
             f"{'condition':<10}{'A adv/game':>12}{'gap/game':>10}{'gap/round':>11}{'max gap':>9}"
             f"{'A ph1/rd':>10}{'A ph2/rd':>10}{'B ph1/rd':>10}{'B ph2/rd':>10}"]
    for name, c in run["conditions"].items():
        per_round = c["mean_gap"] / max(1, c["rounds_per_game"])
        lines.append(f"{name:<10}{c['mean_advantage']:>12.2f}{c['mean_gap']:>10.2f}{per_round:>11.3f}"
                     f"{c['max_gap']:>9.1f}" + "".join(f"{v:>10.3f}" for v in (*c["phases"]["a"], *c["phases"]["b"])))
    lines.append("gap = |A's advantage with A seated first - with B seated first|, per deal: what the hands add")
    return "\n".join(lines)


def plot(run: dict[str, Any], path: str | Path) -> Path:
    """Per deal, the gap between the two seatings with and without the swap, as a PNG."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    width = 0.4
    for k, (name, c) in enumerate(run["conditions"].items()):
        ax.bar(np.arange(run["deals"]) + (k - 0.5) * width, c["gap"], width, label=f"{name} (mean {c['mean_gap']:.1f})")
    ax.set_xlabel("deal")
    ax.set_ylabel("|A adv. seated first - seated second| (points)")
    ax.set_title(f"Hand-swap bias check: {run['a']} vs {run['b']}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cluegym.benchmarks.dixit_handswap", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", default="vision:rank=1", help="agent A (default vision:rank=1)")
    parser.add_argument("--b", default="vision:rank=5", help="agent B (default vision:rank=5)")
    parser.add_argument("--deals", type=positive_int, default=8,
                        help="deals (games) per seating and condition (default 8)")
    parser.add_argument("--seed", type=int, default=PAPER_SEED, help=f"match seed (default {PAPER_SEED})")
    parser.add_argument("--deck", help="folder of card images (default: the shipped deck)")
    parser.add_argument("--captions", help="captions JSON for --deck")
    parser.add_argument("--out", default="dixit_handswap.png", help="PNG of the gap per deal")
    parser.add_argument("--json", help="write the check as JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    # usage errors before the matches (argparse's exit 2): an unwritable --json failed after the run
    if args.a == args.b:
        parser.error(f"--a and --b are both {args.a!r}: the hand-swap check needs two different agents")
    try:
        check_seat_specs("dixit", [("--a", "player_0", args.a), ("--b", "player_0", args.b)])
    except AgentSpecError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out, "--json": args.json})
    env = {k: v for k, v in (("deck", args.deck), ("captions", args.captions)) if v is not None}
    start = time.perf_counter()
    try:
        run = check(args.a, args.b, deals=args.deals, seed=args.seed, env=env, progress=not args.no_progress)
    except (AgentSpecError, ValueError, TypeError) as exc:  # bad input (a seed, a deck) found by the match
        parser.error(str(exc))
    except RuntimeError as exc:  # a match that played and failed
        raise SystemExit(f"dixit_handswap: error: {exc}")
    print(f"\n({time.perf_counter() - start:.0f} s)")
    print(format_check(run))
    print(f"figure written to {plot(run, args.out)}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(run, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
