"""DixitWorld's round-robin (section 3.1, appendix E): Table 1, Figure 2 and Figure 3.

Every pair of agents plays one 24-round match, self-play included: 6 agents -> 21 matches,
504 rounds, as in the paper. A mixed match seats agent A on ``player_0``/``player_1`` and B on
``player_2``/``player_3`` (:func:`~cluegym.envs.dixit.seating.pair_seating`), so the hand swap
between the phases (P1<->P3, P2<->P4) trades hands between the two agents; a self-play match
seats the agent everywhere. Match ``k`` is played with seed ``seed + k``.

Printed and saved:

* **Table 1**, per agent: Storyteller Score (% of its storyteller rounds partial-correct,
  pooled), Listener Accuracy (% of its votes on the target, pooled), Overall as the paper's
  text defines it (their mean), and eq. 1 under both readings of ``score_max``
  (``normalized`` = over the match's best score, ``norm_attain`` = over the points
  attainable; see :mod:`cluegym.envs.dixit.metrics`), averaged over its matches.
* **Figure 2** (head-to-head): row agent's eq. 1 score (table-best reading) in its match
  against the column agent; the diagonal is self-play. Saved as a heatmap PNG.
* **Figure 3**: each agent's storyteller rounds split into partial / all correct / all
  wrong (stacked bars, same PNG).

Default agents are the packaged baselines (a few minutes on 2 CPU cores); give LLMs with
``--agent`` (repeatable) and ``--preset paper`` for the paper's temperature and card size.

Usage:
    python -m cluegym.benchmarks.dixit_roundrobin --out docs/figures/dixit_roundrobin.png
    python -m cluegym.benchmarks.dixit_roundrobin --preset paper \\
        --agent 'llm-cot:backend=openai,model=gpt-4o' --agent 'llm-cot:backend=openai,model=gemma-3-27b-it'
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from tqdm.auto import tqdm

from cluegym.agents import AgentSpecError, run_match
from cluegym.benchmarks.dixit_paper import PRESETS, preset_options
from cluegym.envs.dixit.config import PAPER_SEED
from cluegym.envs.dixit.metrics import agent_table
from cluegym.envs.dixit.scoring import OUTCOMES
from cluegym.envs.dixit.seating import pair_seating
from cluegym.benchmarks.plotting import pyplot, save_figure
from cluegym.benchmarks.usage import check_outputs, check_seat_specs, positive_int

#: Packaged baselines spanning the Dixit balance knob (see docs/dixit.md).
DEFAULT_AGENTS: tuple[str, ...] = (
    "random", "caption:rank=1", "caption:rank=3", "caption:rank=10", "vision:rank=1", "vision:rank=5",
)
#: Table 1's columns: (header, key in :func:`~cluegym.envs.dixit.metrics.agent_table`).
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("storyteller", "storyteller_score"), ("listener", "listener_accuracy"), ("overall", "overall"),
    ("normalized", "normalized_score"), ("norm_attain", "normalized_attainable"), ("points", "mean_score"),
)


def pairings(agents: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair of agents, self-play included: ``n (n + 1) / 2`` matches.

    Example:
        >>> pairings(["a", "b"])
        [('a', 'a'), ('a', 'b'), ('b', 'b')]
    """
    return list(itertools.combinations_with_replacement(list(agents), 2))


def play(agents: Sequence[str], *, seed: int = PAPER_SEED, preset: str = "quick", env: dict[str, Any] | None = None,
         games: int = 1, progress: bool = True) -> dict[str, Any]:
    """Play the round-robin; return its matches (seats, results, timings) and tables.

    Args:
        agents: agent specs, at least one, all different.
        seed: match ``k`` plays with seed ``seed + k``.
        preset: ``"quick"`` or ``"paper"`` (see :mod:`cluegym.benchmarks.dixit_paper`).
        env: extra env options (e.g. ``{"deck": ..., "captions": ...}``).
        games: games per match (the paper: 1 of 24 rounds).
        progress: show a progress bar over matches.

    Returns:
        ``{"agents", "matches": [{"a", "b", "seats", "results", "wall_s"}], "table", "head_to_head",
        "outcomes", "preset", "seed", "env"}``.

    Raises:
        ValueError: no agents, duplicates, or a bad option (before any match is played).
    """
    agents = list(agents)
    if not agents or len(set(agents)) != len(agents):
        raise ValueError(f"the round-robin needs one or more different agents, got {agents}")
    # Caption agents need the captions; the rest ignore them (and the pixels stay the same).
    env_options = {"reveal_captions": True, **(env or {})}
    _, env_options = preset_options(preset, {}, env_options)
    matches: list[dict[str, Any]] = []
    bar = tqdm(total=len(pairings(agents)), desc="dixit round-robin", unit="match", disable=not progress)
    try:
        for k, (a, b) in enumerate(pairings(agents)):
            seats = pair_seating(a, b)
            specs, _ = preset_options(preset, seats)
            results: list[dict[str, Any]] = []
            start = time.perf_counter()
            summary = run_match("dixit", specs, games=games, seed=seed + k, env_kwargs=env_options, progress=False,
                                on_game=lambda _i, record: results.append(record["result"]))
            if not summary["ok"]:
                raise RuntimeError(f"match {a} vs {b} failed: {'; '.join(summary['problems'])}")
            matches.append({"a": a, "b": b, "seats": seats, "results": results,
                            "wall_s": time.perf_counter() - start})
            bar.set_postfix_str(f"{a} vs {b}")
            bar.update(1)
    finally:
        bar.close()
    return {"agents": agents, "matches": matches, "preset": preset, "seed": seed, "env": env_options,
            **tables(agents, matches)}


def tables(agents: Sequence[str], matches: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Table 1, the head-to-head matrix and the outcome split of played matches.

    Returns:
        ``{"table": agent -> Table 1 row, "head_to_head": [[row agent's eq. 1 score against
        the column agent]], "outcomes": agent -> {outcome: % of its storyteller rounds}}``.
    """
    table = agent_table([(m["results"], m["seats"]) for m in matches])
    index = {name: i for i, name in enumerate(agents)}
    head = np.full((len(agents), len(agents)), np.nan)
    for m in matches:
        per_match = agent_table([(m["results"], m["seats"])])
        head[index[m["a"]], index[m["b"]]] = per_match[m["a"]]["normalized_score"]
        head[index[m["b"]], index[m["a"]]] = per_match[m["b"]]["normalized_score"]
    counts = {name: dict.fromkeys(OUTCOMES, 0) for name in agents}
    for m in matches:
        for result in m["results"]:
            for record in result["rounds"]:
                counts[m["seats"][f"player_{record['storyteller']}"]][record["outcome"]] += 1
    outcomes = {name: {o: 100.0 * c / max(1, sum(row.values())) for o, c in row.items()} for name, row in counts.items()}
    return {"table": table, "head_to_head": head.tolist(), "outcomes": outcomes}


def format_tables(run: dict[str, Any]) -> str:
    """Table 1, Figure 2's matrix and Figure 3's split as text."""
    agents = run["agents"]
    width = max(12, *(len(a) for a in agents))
    lines = ["Table 1 (%; points = mean points per game)",
             f"{'agent':<{width}}" + "".join(f"{h:>13}" for h, _ in TABLE_COLUMNS)]
    ranked = sorted(agents, key=lambda a: run["table"][a]["normalized_score"])
    for name in ranked:
        row = run["table"][name]
        lines.append(f"{name:<{width}}" + "".join(f"{row[key]:>13.2f}" for _, key in TABLE_COLUMNS))
    lines += ["", "Figure 2: row agent's eq. 1 score (%) against the column agent (diagonal: self-play)",
              f"{'':<{width}}" + "".join(f"{i + 1:>8}" for i in range(len(agents)))]
    for i, name in enumerate(agents):
        lines.append(f"{i + 1}. {name:<{width - 3}}" + "".join(f"{v:>8.1f}" for v in run["head_to_head"][i]))
    lines += ["", "Figure 3: storyteller rounds (%)", f"{'agent':<{width}}" + "".join(f"{o:>13}" for o in OUTCOMES)]
    for name in agents:
        lines.append(f"{name:<{width}}" + "".join(f"{run['outcomes'][name][o]:>13.2f}" for o in OUTCOMES))
    return "\n".join(lines)


def plot(run: dict[str, Any], path: str | Path) -> Path:
    """Figure 2 (head-to-head heatmap) and Figure 3 (outcome split) side by side, as a PNG."""
    agents = run["agents"]
    head = np.array(run["head_to_head"], dtype=float)
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6 + 1.3 * len(agents), 1.2 + 0.75 * len(agents)))
    image = ax1.imshow(head, cmap="viridis", vmin=np.nanmin(head), vmax=np.nanmax(head))
    ax1.set_xticks(range(len(agents)), agents, rotation=40, ha="right", fontsize=8)
    ax1.set_yticks(range(len(agents)), agents, fontsize=8)
    for i, j in itertools.product(range(len(agents)), repeat=2):
        ax1.text(j, i, f"{head[i, j]:.0f}", ha="center", va="center", color="w", fontsize=8)
    ax1.set_title("Figure 2: row's eq. 1 score vs column (%)", fontsize=9)
    fig.colorbar(image, ax=ax1, fraction=0.046)
    left = np.zeros(len(agents))
    for outcome, color in zip(OUTCOMES, ("tab:green", "tab:orange", "tab:gray")):
        values = np.array([run["outcomes"][a][outcome] for a in agents])
        ax2.barh(range(len(agents)), values, left=left, color=color, label=outcome.replace("_", " "))
        left += values
    ax2.set_yticks(range(len(agents)), agents, fontsize=8)
    ax2.invert_yaxis()
    ax2.set_xlabel("% of storyteller rounds")
    ax2.set_title("Figure 3: storyteller round outcomes", fontsize=9)
    ax2.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cluegym.benchmarks.dixit_roundrobin", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="append", default=[], metavar="SPEC",
                        help=f"an agent of the round-robin, repeatable (default: {', '.join(DEFAULT_AGENTS)})")
    parser.add_argument("--preset", choices=PRESETS, default="quick",
                        help="quick (default: thumbnails, greedy) or paper (full cards, temperature 0.7)")
    parser.add_argument("--seed", type=int, default=PAPER_SEED, help=f"first match seed (default {PAPER_SEED})")
    parser.add_argument("--games", type=positive_int, default=1, help="games per match (default 1, as the paper)")
    parser.add_argument("--deck", help="folder of card images (default: the shipped deck)")
    parser.add_argument("--captions", help="captions JSON for --deck")
    parser.add_argument("--out", default="dixit_roundrobin.png", help="PNG of Figures 2 and 3")
    parser.add_argument("--json", help="write matches and tables as JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    # usage errors before the matches (argparse's exit 2): an unwritable --json failed after the run
    agents = args.agent or list(DEFAULT_AGENTS)
    twice = sorted({a for a in agents if agents.count(a) > 1})
    if twice:
        parser.error(f"--agent {', '.join(twice)} is given more than once")
    try:
        check_seat_specs("dixit", (("--agent", "player_0", spec) for spec in agents))
    except AgentSpecError as exc:
        parser.error(str(exc))
    check_outputs(parser, {"--out": args.out, "--json": args.json})
    env = {k: v for k, v in (("deck", args.deck), ("captions", args.captions)) if v is not None}
    start = time.perf_counter()
    try:
        run = play(agents, seed=args.seed, preset=args.preset, env=env, games=args.games,
                   progress=not args.no_progress)
    except (AgentSpecError, ValueError, TypeError) as exc:  # bad input (a seed, a deck) found by the match
        parser.error(str(exc))
    except RuntimeError as exc:  # a match that played and failed
        raise SystemExit(f"dixit_roundrobin: error: {exc}")
    print(f"\n{len(run['matches'])} matches, {sum(len(r['rounds']) for m in run['matches'] for r in m['results'])} "
          f"rounds, preset {args.preset}, seed {args.seed}, {time.perf_counter() - start:.0f} s")
    print(format_tables(run))
    print(f"figure written to {plot(run, args.out)}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(run, indent=1))
        print(f"matches written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
