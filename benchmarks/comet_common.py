"""What the CoMet drivers share: method specs on an OpenAI-compatible endpoint, role-assigned
Undercover matches, and the printed tables.

The drivers (:mod:`.comet_table1`, :mod:`.comet_table2`, :mod:`.comet_figure4`,
:mod:`.comet_figure5`, :mod:`.comet_figure6`) name methods by agent specs: ``llm`` (the
paper's Naive baseline), ``llm-cot`` (CoT), ``comet``, ``comet:ablate=met`` (CoMet w/o Met.),
or the embedding baselines ``glove`` and ``random`` (no endpoint). LLM specs get
``backend=openai,base_url=...,model=...`` appended from the command line.

Example:
    >>> with_endpoint("comet:ablate=met", "http://127.0.0.1:8000/v1", "qwen")
    'comet:ablate=met,backend=openai,base_url=http://127.0.0.1:8000/v1,model=qwen'
"""

from __future__ import annotations

import argparse
from typing import Any

from tqdm.auto import tqdm

from cluegym.agents import run_match
from cluegym.envs.undercover.word_pairs import load_word_pairs

__all__ = [
    "LLM_AGENTS", "add_endpoint_args", "cell", "parse_methods", "play_undercover", "schedule_kwargs", "with_endpoint",
]

#: Agent names that need an endpoint (everything else, e.g. glove or random, runs offline).
LLM_AGENTS = ("llm", "llm-cot", "comet")
#: Undercover seats of Table 1: the civilian team's method fills player_0..2, the undercover
#: team's player_3 and player_4 (the players are never told their roles).
UNDERCOVER_SEATS = [3, 4]


def add_endpoint_args(parser: argparse.ArgumentParser) -> None:
    """``--base-url``, ``--model``, ``--concurrency`` and ``--seed``."""
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default=None, help="model name at the endpoint")
    parser.add_argument("--concurrency", type=int, default=4, help="games played at once (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")


def with_endpoint(spec: str, base_url: str | None, model: str | None) -> str:
    """``spec`` with the endpoint appended when it names an LLM agent (see the module docstring).

    Raises:
        ValueError: an LLM agent without ``--base-url``/``--model``.
    """
    name = spec.split(":", 1)[0]
    if name not in LLM_AGENTS or "backend=" in spec:
        return spec
    if not base_url or not model:
        raise ValueError(f"method {spec!r} is an LLM agent: give --base-url and --model")
    sep = "," if ":" in spec else ":"
    return f"{spec}{sep}backend=openai,base_url={base_url},model={model}"


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
