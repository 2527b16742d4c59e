"""What the CoMet drivers share: method specs on an OpenAI-compatible endpoint, role-swapped
Undercover matches, Taboo matches, the metaphor success rate, and table/plot helpers.

The drivers (:mod:`.comet_table1`, :mod:`.comet_table2`, :mod:`.comet_figure4`,
:mod:`.comet_figure5`, :mod:`.comet_figure6`) name methods by agent specs: ``llm`` (the
paper's Naive baseline), ``llm-cot`` (CoT), ``comet``, ``comet:ablate=met`` (CoMet w/o Met.),
or the embedding baselines ``glove`` and ``random`` (no endpoint). LLM specs get
``backend=openai,base_url=...,model=...`` appended from the command line (or ``backend=local``
with ``--local``: the packaged SmolLM2-135M in-process). Every CoMet method gets its own
run-level experience pool (``experience=run:<label>``), so two methods under test never read
each other's metaphors.

Example:
    >>> with_endpoint("comet:ablate=met", "http://127.0.0.1:8000/v1", "qwen")
    'comet:ablate=met,backend=openai,base_url=http://127.0.0.1:8000/v1,model=qwen'
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from tqdm.auto import tqdm

from cluegym.agents import run_match
from cluegym.agents.llm.comet.feedback import metaphor_feedback
from cluegym.agents.llm.comet.pool import clear_run_pools
from cluegym.envs.undercover.word_pairs import load_word_pairs

__all__ = [
    "LLM_AGENTS", "add_endpoint_args", "add_schedule_args", "cell", "endpoint_specs", "metaphor_success",
    "own_pool", "parse_labels", "parse_methods", "play_both_roles", "play_taboo", "play_undercover", "run_cli",
    "schedule_kwargs", "with_endpoint",
]

#: Agent names that need an endpoint (everything else, e.g. glove or random, runs offline).
LLM_AGENTS = ("llm", "llm-cot", "comet")
#: Undercover seats of Table 1: the civilian team's method fills player_0..2, the undercover
#: team's player_3 and player_4 (the players are never told their roles).
UNDERCOVER_SEATS = [3, 4]
#: Seat -> team of a Table 1 game: civilians first, the undercover pair last.
CIVILIAN_SEATS = ("player_0", "player_1", "player_2")


def add_endpoint_args(parser: argparse.ArgumentParser) -> None:
    """``--base-url``, ``--model``, ``--local``, ``--concurrency`` and ``--seed``."""
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default=None, help="model name at the endpoint")
    parser.add_argument("--local", action="store_true",
                        help="run the LLM methods in-process on the packaged SmolLM2-135M (no endpoint; slow)")
    parser.add_argument("--concurrency", type=int, default=4, help="games played at once (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")


def add_schedule_args(parser: argparse.ArgumentParser, pairs: int = 2, episodes: int = 1) -> None:
    """``--pairs`` and ``--episodes``: CoMet's Undercover protocol (paper: 200 x 10)."""
    parser.add_argument("--pairs", type=int, default=pairs,
                        help=f"word pairs, in the shipped order (paper: 200; default {pairs})")
    parser.add_argument("--episodes", type=int, default=episodes,
                        help=f"games per pair and role assignment (paper: 10; default {episodes})")


def with_endpoint(spec: str, base_url: str | None, model: str | None, local: bool = False) -> str:
    """``spec`` with the endpoint appended when it names an LLM agent (see the module docstring).

    Raises:
        ValueError: an LLM agent without ``--base-url``/``--model`` (and not ``--local``).
    """
    name = spec.split(":", 1)[0]
    if name not in LLM_AGENTS or "backend=" in spec:
        return spec
    sep = "," if ":" in spec else ":"
    if local:
        return f"{spec}{sep}backend=local" + (f",model={model}" if model else "")
    if not base_url or not model:
        raise ValueError(f"method {spec!r} is an LLM agent: give --base-url and --model (or --local)")
    return f"{spec}{sep}backend=openai,base_url={base_url},model={model}"


def own_pool(spec: str, label: str) -> str:
    """A CoMet ``spec`` without an ``experience=`` option gets the run pool named after ``label``.

    Example:
        >>> own_pool("comet:ablate=met", "CoMet w/o Met.")
        'comet:ablate=met,experience=run:CoMet_w_o_Met.'
    """
    if spec.split(":", 1)[0] != "comet" or "experience=" in spec:
        return spec
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", label)
    return f"{spec}{',' if ':' in spec else ':'}experience=run:{name}"


def endpoint_specs(methods: Mapping[str, str], args: argparse.Namespace) -> dict[str, str]:
    """label -> spec ready to play: endpoint appended, CoMet pools separated by label. Also
    empties this process's run-level pools, so a run starts without experience.

    Raises:
        ValueError: an LLM method without an endpoint.
    """
    clear_run_pools()
    return {label: own_pool(with_endpoint(spec, args.base_url, args.model, args.local), label)
            for label, spec in methods.items()}


def parse_methods(text: str) -> dict[str, str]:
    """``"CoT=llm-cot;CoMet=comet"`` -> ``{"CoT": "llm-cot", "CoMet": "comet"}`` (``;``-separated,
    since specs contain commas).

    Raises:
        ValueError: an entry without ``label=spec``, or a repeated label.
    """
    out: dict[str, str] = {}
    for item in (p.strip() for p in text.split(";") if p.strip()):
        label, sep, spec = item.partition("=")
        if not sep or not label.strip() or not spec.strip():
            raise ValueError(f"a method is LABEL=SPEC, got {item!r}")
        if label.strip() in out:
            raise ValueError(f"method label {label.strip()!r} given twice")
        out[label.strip()] = spec.strip()
    if not out:
        raise ValueError("give at least one method")
    return out


def parse_labels(text: str, known: Iterable[str], what: str = "baseline") -> list[str]:
    """``"CoT;CoMet w/o Met."`` -> the labels, each checked against ``known``.

    Raises:
        ValueError: no label, or one that is not known.
    """
    known = list(known)
    labels = [b.strip() for b in text.split(";") if b.strip()]
    if not labels:
        raise ValueError(f"give at least one {what}")
    for label in labels:
        if label not in known:
            raise ValueError(f"{what} {label!r} is not one of the methods: {', '.join(known)}")
    return labels


def play_undercover(civilians: str, undercover: str, *, games: int, seed: int, env_kwargs: dict[str, Any],
                    concurrency: int, bar: tqdm | None = None) -> list[dict[str, Any]]:
    """Play ``games`` Undercover games, ``civilians`` in player_0..2 and ``undercover`` in
    player_3..4 (specs with endpoints), and return the finished games' results.

    Raises:
        RuntimeError: a game errored or a seat's every LLM call failed (a dead endpoint).
    """
    results: list[dict[str, Any]] = []

    def keep(index: int, record: dict[str, Any]) -> None:
        results.append(record["result"])
        if bar is not None:
            bar.update(1)

    seats = {"*": civilians, "player_3": undercover, "player_4": undercover}
    summary = run_match("undercover", seats, games=games, seed=seed, concurrency=concurrency, progress=False,
                        env_kwargs={**env_kwargs, "undercover_seats": UNDERCOVER_SEATS}, on_game=keep)
    if not summary["ok"]:
        raise RuntimeError(f"match {civilians!r} vs {undercover!r}: {'; '.join(summary['problems'])}")
    return results


def play_both_roles(method: str, baseline: str, specs: Mapping[str, str], *, games: int, seed: int,
                    env_kwargs: dict[str, Any], concurrency: int,
                    bar: tqdm | None = None) -> list[tuple[dict[str, Any], dict[str, str]]]:
    """Table 1's pairing: ``method``'s team as civilians against ``baseline``'s as undercover
    (match seed ``seed``), then the roles swapped (``seed + 1``); one match when they are the
    same label. Returns ``(result, seat -> label)`` pairs for
    :func:`~cluegym.envs.undercover.metrics.method_metrics`.

    Raises:
        RuntimeError: a game errored (see :func:`play_undercover`).
    """
    played: list[tuple[dict[str, Any], dict[str, str]]] = []
    pairings = [(method, baseline)] + ([(baseline, method)] if method != baseline else [])
    for offset, (civ, und) in enumerate(pairings):
        seats = {f"player_{i}": civ if f"player_{i}" in CIVILIAN_SEATS else und for i in range(5)}
        for result in play_undercover(specs[civ], specs[und], games=games, seed=seed + offset,
                                      env_kwargs=env_kwargs, concurrency=concurrency, bar=bar):
            played.append((result, seats))
    return played


def play_taboo(attacker: str, defender: str, *, games: int, seed: int, env_kwargs: dict[str, Any],
               concurrency: int, bar: tqdm | None = None) -> list[dict[str, Any]]:
    """Play ``games`` Adversarial Taboo games (specs with endpoints) and return their results.

    Raises:
        RuntimeError: a game errored or a seat's every LLM call failed.
    """
    results: list[dict[str, Any]] = []

    def keep(index: int, record: dict[str, Any]) -> None:
        results.append(record["result"])
        if bar is not None:
            bar.update(1)

    summary = run_match("taboo", {"attacker": attacker, "defender": defender}, games=games, seed=seed,
                        concurrency=concurrency, progress=False, env_kwargs=env_kwargs, on_game=keep)
    if not summary["ok"]:
        raise RuntimeError(f"taboo match {attacker!r} vs {defender!r}: {'; '.join(summary['problems'])}")
    return results


def metaphor_success(played: Iterable[tuple[dict[str, Any], Mapping[str, str]]], method: str) -> dict[str, Any]:
    """Figure 6(b)'s success rate of ``method``'s descriptions: the share that misled the
    opponents while being recognized by the teammates, judged from the others' belief reports
    and votes by :func:`~cluegym.agents.llm.comet.feedback.metaphor_feedback` (its docstring
    states the rule). Every description of the method's seats counts (CoMet's are all
    metaphors: its generator writes each one).

    Returns:
        ``{"metaphors": N, "successes": S, "rate": S / N or None, "recognized": share,
        "misled": share}``.
    """
    outcomes = []
    for result, seats in played:
        for record in result.get("history", []):
            for seat in record["descriptions"]:
                if seats.get(seat) == method:
                    outcomes.append(metaphor_feedback(result, seat, int(record["round"])))
    n = len(outcomes)

    def share(key: str) -> float | None:
        return sum(bool(o[key]) for o in outcomes) / n if n else None

    return {"metaphors": n, "successes": sum(o["success"] for o in outcomes), "rate": share("success"),
            "recognized": share("recognized"), "misled": share("misled")}


def cell(value: float | None, width: int = 6) -> str:
    """A table cell: two decimals, or ``n/a``."""
    return f"{'n/a':>{width}}" if value is None else f"{value:>{width}.2f}"


def schedule_kwargs(pairs: int | None, episodes: int) -> tuple[dict[str, Any], int]:
    """Env options for CoMet's protocol over the first ``pairs`` shipped word pairs (None: all
    200), ``episodes`` games each, and the games that makes: ``(env_kwargs, games)``.

    Raises:
        ValueError: ``pairs`` or ``episodes`` below 1.
    """
    if episodes < 1:
        raise ValueError(f"--episodes must be >= 1, got {episodes}")
    chosen = load_word_pairs()
    if pairs is not None:
        if pairs < 1:
            raise ValueError(f"--pairs must be >= 1, got {pairs}")
        chosen = chosen[:pairs]
    kwargs = {"word_pairs": [list(p) for p in chosen], "pair_schedule": "every_pair", "episodes_per_pair": episodes}
    return kwargs, len(chosen) * episodes


def run_cli(body: Callable[[], int]) -> int:
    """Run a driver's ``main`` body; a bad option or a failed match prints one ``error:`` line
    on stderr and returns 2 instead of a traceback."""
    try:
        return body()
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def report(text: str, note: str, started: float, data: dict[str, Any], *, json_path: str | None,
           plot: Callable[[dict[str, Any], Path], None] | None = None, out: str | None = None) -> int:
    """The end of a driver's run: its table, ``note`` with the seconds since ``started``, the
    figure (``plot(data, out)``) when it draws one, and ``data`` as JSON when ``json_path``
    is set. Returns 0 (the driver's exit status)."""
    print(text)
    print(f"\n{note}; {time.perf_counter() - started:.0f} s")
    if plot is not None and out is not None:
        plot(data, Path(out))
        print(f"figure written to {out}")
    if json_path:
        Path(json_path).write_text(json.dumps(data, indent=2))
        if plot is None:
            print(f"table written to {json_path}")
    return 0
