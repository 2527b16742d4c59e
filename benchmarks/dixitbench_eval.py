"""DixitBench, evaluation: any listener agent under the paper's two strategies (appendix C).

**Direct selection**: the agent sees the 6 candidates and picks one, as a Dixit vote.
**Entailment scoring**: the agent rates each candidate alone, 0-100; the best rating wins
(ties broken with a seeded generator). An entailment observation carries
``"task": "entailment"`` and one candidate; the rating is read from the agent's
``rate(observation, info)`` method (plain or async) when it has one, else from its action:
the ``"rating"`` entry (the ``llm`` and ``llm-cot`` agents answer so), else the first number
in its ``"clue"``. An agent whose vote already scores candidates one by one
(``llm-cot:listener=entailment``) runs entailment scoring under the direct strategy too.
Accuracy is reported per subset (Easy, Hard) and in total, in percent (Tables 2 and 4); an
answer that is missing, out of range, or a forfeit (an LLM that gave no readable answer)
counts as wrong and as ``invalid``.

Observations are those of a Dixit vote: ``prompt`` (the strategy's prompt), ``phase`` (2),
``clue``, ``candidates`` (images), ``candidate_ids``, ``own_candidate`` (-1), ``card_mask``,
and with ``reveal_captions`` the ``candidate_captions``.

Example:
    >>> from cluegym.benchmarks.dixitbench_build import build_bench, load_bench, save_bench
    >>> from cluegym.envs.dixit.env import get_deck
    >>> save_bench(build_bench(get_deck()), "dixitbench.json")
    PosixPath('dixitbench.json')
    >>> results = evaluate(load_bench("dixitbench.json"), "vision", strategies=("direct",))  # doctest: +SKIP
    >>> print(format_table(results))  # doctest: +SKIP
    strategy        Easy    Hard   Total  invalid
    direct         30.21   27.08   28.65        0

    A caption-reading agent, on the first 24 items (it matches the caption clues word for word):

    >>> results = evaluate(load_bench("dixitbench.json"), "caption", reveal_captions=True, limit=24)
    >>> print(format_table(results))
    strategy        Easy    Hard   Total  invalid
    direct        100.00  100.00  100.00        0
    entailment    100.00  100.00  100.00        0
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from typing import Any, Sequence

import gymnasium
import numpy as np
from tqdm.auto import tqdm

from cluegym.agents import make_agent
from cluegym.agents.base import Forfeit
from cluegym.agents.llm.adapters.dixit import ENTAILMENT_TASK
from cluegym.benchmarks.dixitbench_build import DIFFICULTIES
from cluegym.envs.core import text_space
from cluegym.envs.core.text import to_charset
from cluegym.envs.dixit.env import CAPTION_MAX_CHARS, IMAGE_SIZE, get_deck
from cluegym.envs.dixit.prompts import direct_prompt, entailment_prompt
from cluegym.harness.seeding import check_match_seed, own_seed_of, with_own_seed

STRATEGIES: tuple[str, ...] = ("direct", "entailment")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def action_space(num_candidates: int = 6) -> Any:
    """The action space of a DixitBench listener: ``Dict(card=Discrete(n), clue=Text)``.

    Example:
        >>> int(action_space(6)["card"].n)
        6
    """
    return gymnasium.spaces.Dict({"card": gymnasium.spaces.Discrete(num_candidates),
                                  "clue": text_space(200, min_length=1)})


def check_limit(limit: int | None, what: str = "limit") -> None:
    """Refuse an item count that is no whole number >= 1 (None means every item).

    A slice would take 0 as "every item" and a negative count as "all but the last few".

    Raises:
        ValueError: one line naming ``what`` (e.g. ``--limit``) and the value given.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"{what} must be a whole number >= 1 (leave it out for every item), got {limit!r}")


def item_observation(
    item: dict[str, Any], deck: Any, *, strategy: str = "direct", candidate: int | None = None,
    image_size: tuple[int, int] = IMAGE_SIZE, reveal_captions: bool = False,
) -> dict[str, Any]:
    """A Dixit vote observation for one benchmark item (or one candidate, for entailment:
    then ``"task"`` is ``"entailment"``).

    Example:
        >>> from cluegym.benchmarks.dixitbench_build import build_bench
        >>> from cluegym.envs.dixit.env import get_deck
        >>> bench = build_bench(get_deck())
        >>> obs = item_observation(bench["items"][0], get_deck(), strategy="entailment", candidate=2)
        >>> obs["task"], obs["candidates"].shape[0]
        ('entailment', 1)
    """
    ids = item["candidates"] if candidate is None else [item["candidates"][candidate]]
    captions = [to_charset(deck.caption(c) or "", CAPTION_MAX_CHARS) for c in ids] if reveal_captions else None
    if strategy == "direct":
        prompt = direct_prompt(item["clue"], len(ids), captions)
    else:
        prompt = entailment_prompt(item["clue"], captions[0] if captions else None)
    obs: dict[str, Any] = {
        "prompt": prompt, "phase": 2, "round": 0, "seat": 1, "storyteller": 0, "clue": to_charset(item["clue"]),
        "candidates": deck.images(ids, image_size),
        "candidate_ids": np.array([deck.index(c) for c in ids], dtype=np.int64),
        "own_candidate": -1, "card_mask": np.ones(len(ids), dtype=np.int8),
        "hand": np.zeros((0, *image_size, 3), dtype=np.uint8), "hand_ids": np.zeros(0, dtype=np.int64),
    }
    if strategy != "direct":
        obs["task"] = ENTAILMENT_TASK
    if captions is not None:
        obs["candidate_captions"] = tuple(captions)
    return obs


def _card_of(action: Any) -> int | None:
    value = action.get("card") if isinstance(action, dict) else action
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _rating_of(action: Any) -> float | None:
    if isinstance(action, dict) and action.get("rating") is not None:
        try:
            rating = float(action["rating"])
        except (TypeError, ValueError):
            return None
        return min(100.0, max(0.0, rating)) if np.isfinite(rating) else None
    text = action.get("clue") if isinstance(action, dict) else action
    match = _NUMBER.search(str(text)) if text is not None else None
    return min(100.0, max(0.0, float(match.group()))) if match else None


async def _answer(agent: Any, obs: dict[str, Any], info: dict[str, Any]) -> Any:
    """The agent's action, or None when it forfeits the decision (counted as invalid)."""
    try:
        return await agent.act_async(obs, info)
    except Forfeit:
        return None


async def _rating(agent: Any, obs: dict[str, Any], info: dict[str, Any]) -> float | None:
    if callable(getattr(agent, "rate", None)):
        try:
            rating = agent.rate(obs, info)
            rating = await rating if inspect.isawaitable(rating) else rating
        except Forfeit:
            return None
        return None if rating is None else float(rating)
    return _rating_of(await _answer(agent, obs, info))


async def _evaluate_async(bench: dict[str, Any], agent: Any, deck: Any, strategies: tuple[str, ...],
                          image_size: tuple[int, int], reveal_captions: bool, seed: int,
                          bar: Any) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    rows = []
    own_seed = own_seed_of(agent)
    for index, item in enumerate(bench["items"]):
        # An agent's own seed (its spec's seed=S) is mixed in as a match mixes it.
        agent.reset(with_own_seed(int(np.random.SeedSequence([seed, index]).generate_state(1)[0]), own_seed))
        row: dict[str, Any] = {"id": item["id"], "difficulty": item["difficulty"], "answer": item["answer"]}
        if "direct" in strategies:
            obs = item_observation(item, deck, image_size=image_size, reveal_captions=reveal_captions)
            pick = _card_of(await _answer(agent, obs, {"action_mask": {"card": obs["card_mask"], "clue": None}}))
            valid = pick is not None and 0 <= pick < len(item["candidates"])
            row["direct"] = pick if valid else None
        if "entailment" in strategies:
            ratings = []
            for k in range(len(item["candidates"])):
                obs = item_observation(item, deck, strategy="entailment", candidate=k, image_size=image_size,
                                       reveal_captions=reveal_captions)
                info = {"action_mask": {"card": obs["card_mask"], "clue": None}}
                ratings.append(await _rating(agent, obs, info))
            scored = np.array([-1.0 if r is None else float(r) for r in ratings])
            best = np.flatnonzero(scored >= scored.max())
            row["ratings"] = ratings
            row["entailment"] = int(best[int(rng.integers(len(best)))]) if scored.max() >= 0 else None
        rows.append(row)
        if bar is not None:
            bar.update(1)
    return rows


def accuracy_table(rows: Sequence[dict[str, Any]], strategies: Sequence[str] = STRATEGIES) -> dict[str, dict[str, float]]:
    """Per strategy: Easy, Hard and Total accuracy (%) and the count of invalid answers.

    Example:
        >>> accuracy_table([{"difficulty": "easy", "answer": 1, "direct": 1},
        ...                 {"difficulty": "hard", "answer": 0, "direct": None}], ("direct",))
        {'direct': {'easy': 100.0, 'hard': 0.0, 'total': 50.0, 'invalid': 1.0}}
    """
    table: dict[str, dict[str, float]] = {}
    for strategy in strategies:
        if not rows or strategy not in rows[0]:
            continue
        entry: dict[str, float] = {}
        for difficulty in DIFFICULTIES:
            subset = [r for r in rows if r["difficulty"] == difficulty]
            entry[difficulty] = 100.0 * float(np.mean([r[strategy] == r["answer"] for r in subset])) if subset else 0.0
        entry["total"] = 100.0 * float(np.mean([r[strategy] == r["answer"] for r in rows]))
        entry["invalid"] = float(sum(r[strategy] is None for r in rows))
        table[strategy] = entry
    return table


def evaluate(
    bench: dict[str, Any],
    agent_spec: Any,
    *,
    deck: Any = None,
    strategies: Sequence[str] = STRATEGIES,
    image_size: tuple[int, int] = IMAGE_SIZE,
    reveal_captions: bool = False,
    seed: int = 0,
    limit: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Evaluate a listener agent on a benchmark.

    Args:
        bench: from :func:`build_bench` or :func:`load_bench`.
        agent_spec: a registered agent spec, e.g. ``"vision:top_k=3"``, or an agent instance.
        deck: the benchmark's deck; None -> the folder and captions recorded in the benchmark
            (or the shipped deck).
        strategies: ``"direct"`` and/or ``"entailment"``.
        image_size: (height, width) of the candidate images shown.
        reveal_captions: show the candidates' captions (caption agents need them).
        seed: agent and tie-break seed.
        limit: evaluate only the first ``limit`` items (a quick check; >= 1, None: every item).
        progress: show a progress bar.

    Returns:
        ``{"agent", "metadata", "strategies": {strategy: {"easy", "hard", "total",
        "invalid"}}, "items": per-item answers, "wall_s"}``.

    Raises:
        ValueError: an unknown strategy, a ``limit`` below 1, cards the deck lacks, a negative
            seed. TypeError: a seed that is no integer.
    """
    check_match_seed(seed)
    check_limit(limit)
    unknown = sorted(set(strategies) - set(STRATEGIES))
    if unknown or not strategies:
        raise ValueError(f"strategies must be among {', '.join(STRATEGIES)}, got {list(strategies)}")
    meta = bench["metadata"]
    if deck is None:
        deck = get_deck(meta.get("deck_folder"), meta.get("captions_file"))
    items = bench["items"][:limit]
    missing = sorted({c for item in items for c in item["candidates"] if c not in deck})
    if missing:
        raise ValueError(f"the benchmark names cards that deck {deck.name!r} lacks: {missing[:5]}")
    if isinstance(agent_spec, str):
        space = action_space(max(len(item["candidates"]) for item in items))
        agent = make_agent(agent_spec, game="dixit", seat="player_1", action_space=space, seed=seed)
    else:
        agent, agent_spec = agent_spec, type(agent_spec).__name__
    bar = None
    if progress:
        bar = tqdm(total=len(items), desc="DixitBench", unit="item", dynamic_ncols=True)
    start = time.perf_counter()
    try:
        rows = asyncio.run(_evaluate_async({"items": items}, agent, deck, tuple(strategies), tuple(image_size),
                                           reveal_captions, seed, bar))
    finally:
        if bar is not None:
            bar.close()
    return {
        "agent": agent_spec, "metadata": meta, "reveal_captions": reveal_captions, "image_size": list(image_size),
        "strategies": accuracy_table(rows, strategies), "items": rows, "wall_s": time.perf_counter() - start,
    }


def format_table(results: dict[str, Any]) -> str:
    """The accuracy table as text (Tables 2 and 4 of the paper).

    Example:
        >>> print(format_table({"strategies": {"direct": {"easy": 50, "hard": 25, "total": 37.5, "invalid": 0}}}))
        strategy        Easy    Hard   Total  invalid
        direct         50.00   25.00   37.50        0
    """
    lines = [f"{'strategy':<12}{'Easy':>8}{'Hard':>8}{'Total':>8}{'invalid':>9}"]
    for strategy, row in results["strategies"].items():
        lines.append(f"{strategy:<12}{row['easy']:>8.2f}{row['hard']:>8.2f}{row['total']:>8.2f}{int(row['invalid']):>9}")
    return "\n".join(lines)


__all__ = ["STRATEGIES", "accuracy_table", "action_space", "check_limit", "evaluate", "format_table",
           "item_observation"]
