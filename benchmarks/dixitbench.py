"""DixitBench (DixitWorld, appendix F): the listener's task as multiple-choice questions.

Build: every card's caption is embedded with all-MiniLM-L6-v2 and compared with every other
(cosine similarity matrix). Each card gives two items, a target and 5 distractors:
**Hard** = the 5 cards with the most similar captions (ranks 1-5), **Easy** = 5 cards drawn
from similarity ranks 30-80; the 6 candidates are shuffled. All draws come from one seeded
generator (seed 42, the paper's), so a deck always gives the same benchmark (84 cards -> 168
items; the shipped deck's 96 -> 192). The clue is the target's caption, as in the paper
(``clue="caption"``); ``clue="word"`` instead gives a one-word clue from the caption agent's
storyteller (``clue_rank``), which makes the benchmark meaningful for agents that read
captions (with the caption itself as the clue they match it exactly).

Evaluate any listener agent with the paper's two strategies (appendix C prompts):
**direct selection** (the agent sees the 6 candidates and picks one, as a Dixit vote) and
**entailment scoring** (the agent rates each candidate alone 0-100: its ``rate(observation,
info)`` method, plain or async, when it has one, else the first number in the ``clue`` of its
action; the best rating wins, ties broken at random with a seeded generator). An agent whose
vote already scores candidates one by one (``llm-cot:listener=entailment``) measures
entailment scoring under ``--strategy direct``. Accuracy is
reported per subset (Easy, Hard) and in total, in percent (Tables 2 and 4).

Observations are those of a Dixit vote: ``prompt`` (the strategy's prompt), ``phase`` (2),
``clue``, ``candidates`` (images), ``candidate_ids``, ``own_candidate`` (-1), ``card_mask``,
and with ``reveal_captions`` the ``candidate_captions``.

Example:
    cluegym dixitbench build --out dixitbench.json
    cluegym dixitbench eval --agent vision --bench dixitbench.json
    cluegym dixitbench eval --agent caption --reveal-captions --bench dixitbench_word.json
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import re
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cluegym.agents.encoders.sentences import SentenceEncoder

#: Format version of the benchmark JSON.
BENCH_VERSION = 1
DEFAULT_SEED = 42
DIFFICULTIES: tuple[str, ...] = ("easy", "hard")
STRATEGIES: tuple[str, ...] = ("direct", "entailment")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


# ----------------------------------------------------------------------------- build

def caption_similarity(captions: Sequence[str]) -> np.ndarray:
    """Cosine similarity matrix of the captions' all-MiniLM-L6-v2 embeddings."""
    vectors = SentenceEncoder().matrix(list(captions))
    return vectors @ vectors.T


def build_bench(
    deck: Any = None,
    *,
    seed: int = DEFAULT_SEED,
    num_distractors: int = 5,
    hard_ranks: tuple[int, int] = (1, 5),
    easy_ranks: tuple[int, int] = (30, 80),
    clue: str = "caption",
    clue_rank: int = 1,
    embedding: str = "glove",
) -> dict[str, Any]:
    """Build DixitBench from a deck with captions.

    Args:
        deck: a :class:`~cluegym.envs.dixit.deck.Deck`; None for the shipped default deck.
        seed: seed of the Easy draws and the candidate shuffles.
        num_distractors: distractors per item (5: six candidates).
        hard_ranks: similarity ranks (1-based, inclusive) of the Hard distractors.
        easy_ranks: similarity ranks the Easy distractors are drawn from.
        clue: ``"caption"`` (the paper: the target's caption) or ``"word"`` (the caption
            agent's one-word clue at ``clue_rank``, with the ``embedding`` word vectors).
        clue_rank: see ``clue``.
        embedding: see ``clue``.

    Returns:
        The benchmark: ``{"metadata": {...}, "items": [{"id", "card", "difficulty", "clue",
        "candidates", "answer"}, ...]}``.

    Raises:
        ValueError: the deck lacks captions, or is too small for the rank ranges.
    """
    from cluegym.envs.dixit.deck import default_deck_folder
    from cluegym.envs.dixit.env import get_deck

    deck = get_deck() if deck is None else deck
    folder = Path(next(iter(deck.paths.values()))).parent.resolve()
    cards = [c for c in deck.card_ids if deck.captions and deck.captions.get(c)]
    if len(cards) < 2:
        raise ValueError(f"deck {deck.name!r} needs captions to build DixitBench (a captions JSON: id -> caption)")
    if clue not in ("caption", "word"):
        raise ValueError(f"clue must be 'caption' or 'word', got {clue!r}")
    for name, (lo, hi) in (("hard_ranks", hard_ranks), ("easy_ranks", easy_ranks)):
        if not 1 <= lo <= hi:
            raise ValueError(f"{name} must be 1 <= low <= high, got {(lo, hi)}")
        available = min(hi, len(cards) - 1) - lo + 1
        if available < num_distractors:
            raise ValueError(
                f"deck {deck.name!r} has {len(cards)} captioned cards: {name} {lo}-{hi} leave {max(available, 0)} "
                f"distractor candidates, {num_distractors} needed (use a bigger deck or other ranks)"
            )
    captions = [deck.captions[c] for c in cards]
    similarity = caption_similarity(captions)
    clues = captions
    if clue == "word":
        from cluegym.agents.embedding.dixit import CaptionAgent

        teller = CaptionAgent("dixit", "player_0", None, rank=clue_rank, embedding=embedding, seed=seed)
        clues = [teller.clue_for(c) for c in captions]
    rng = np.random.default_rng(seed)
    items: list[dict[str, Any]] = []
    for i, card in enumerate(cards):
        order = [int(j) for j in np.argsort(-similarity[i], kind="stable") if j != i]
        hard = order[hard_ranks[0] - 1: hard_ranks[1]][:num_distractors]
        pool = order[easy_ranks[0] - 1: easy_ranks[1]]
        easy = [pool[int(k)] for k in rng.choice(len(pool), size=num_distractors, replace=False)]
        for difficulty, distractors in (("easy", easy), ("hard", hard)):
            shown = [i] + distractors
            candidates = [shown[int(k)] for k in rng.permutation(len(shown))]
            items.append({
                "id": f"{card}:{difficulty}", "card": card, "difficulty": difficulty, "clue": clues[i],
                "candidates": [cards[k] for k in candidates], "answer": candidates.index(i),
            })
    metadata = {
        "benchmark": "DixitBench", "version": BENCH_VERSION, "deck": deck.name,
        "deck_folder": None if folder == default_deck_folder().resolve() else str(folder),
        "cards": len(cards), "items": len(items), "seed": seed, "num_distractors": num_distractors,
        "hard_ranks": list(hard_ranks), "easy_ranks": list(easy_ranks), "clue": clue,
        "similarity_model": "all-MiniLM-L6-v2",
    }
    if clue == "word":
        metadata.update(clue_rank=clue_rank, embedding=embedding)
    return {"metadata": metadata, "items": items}


def save_bench(bench: dict[str, Any], path: str | Path) -> Path:
    """Write a benchmark as JSON (creating folders)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(bench, indent=1), encoding="utf-8")
    return path


def load_bench(path: str | Path) -> dict[str, Any]:
    """Read a benchmark JSON written by :func:`save_bench`.

    Raises:
        FileNotFoundError: no such file. ValueError: not a DixitBench file.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"DixitBench file {str(path)!r} does not exist (build one: cluegym dixitbench build)")
    try:
        bench = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(bench, dict) or bench.get("metadata", {}).get("benchmark") != "DixitBench" or "items" not in bench:
        raise ValueError(f"{path} is not a DixitBench file")
    return bench


# -------------------------------------------------------------------------- evaluate

def action_space(num_candidates: int = 6) -> Any:
    """The action space of a DixitBench listener: ``Dict(card=Discrete(n), clue=Text)``."""
    import gymnasium

    from cluegym.envs.core import text_space

    return gymnasium.spaces.Dict({"card": gymnasium.spaces.Discrete(num_candidates),
                                  "clue": text_space(200, min_length=1)})


def item_observation(
    item: dict[str, Any], deck: Any, *, strategy: str = "direct", candidate: int | None = None,
    image_size: tuple[int, int] = (144, 96), reveal_captions: bool = False,
) -> dict[str, Any]:
    """A Dixit vote observation for one benchmark item (or one candidate, for entailment)."""
    from cluegym.envs.core.text import to_charset
    from cluegym.envs.dixit.env import CAPTION_MAX_CHARS
    from cluegym.envs.dixit.prompts import direct_prompt, entailment_prompt

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
    text = action.get("clue") if isinstance(action, dict) else action
    match = _NUMBER.search(str(text)) if text is not None else None
    return min(100.0, max(0.0, float(match.group()))) if match else None


async def _evaluate_async(bench, agent, deck, strategies, image_size, reveal_captions, seed, bar):
    rng = np.random.default_rng(seed)
    rows = []
    for index, item in enumerate(bench["items"]):
        agent.reset(int(np.random.SeedSequence([seed, index]).generate_state(1)[0]))
        row: dict[str, Any] = {"id": item["id"], "difficulty": item["difficulty"], "answer": item["answer"]}
        if "direct" in strategies:
            obs = item_observation(item, deck, image_size=image_size, reveal_captions=reveal_captions)
            pick = _card_of(await agent.act_async(obs, {"action_mask": {"card": obs["card_mask"], "clue": None}}))
            valid = pick is not None and 0 <= pick < len(item["candidates"])
            row["direct"] = pick if valid else None
        if "entailment" in strategies:
            ratings = []
            for k in range(len(item["candidates"])):
                obs = item_observation(item, deck, strategy="entailment", candidate=k, image_size=image_size,
                                       reveal_captions=reveal_captions)
                info = {"action_mask": {"card": obs["card_mask"], "clue": None}}
                if callable(getattr(agent, "rate", None)):
                    rating = agent.rate(obs, info)
                    rating = await rating if inspect.isawaitable(rating) else rating
                else:
                    rating = _rating_of(await agent.act_async(obs, info))
                ratings.append(rating)
            scored = np.array([-1.0 if r is None else float(r) for r in ratings])
            best = np.flatnonzero(scored >= scored.max())
            row["ratings"] = ratings
            row["entailment"] = int(best[int(rng.integers(len(best)))]) if scored.max() >= 0 else None
        rows.append(row)
        if bar is not None:
            bar.update(1)
    return rows


def accuracy_table(rows: Sequence[dict[str, Any]], strategies: Sequence[str] = STRATEGIES) -> dict[str, dict[str, float]]:
    """Per strategy: Easy, Hard and Total accuracy (%) and the count of invalid answers."""
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
    image_size: tuple[int, int] = (144, 96),
    reveal_captions: bool = False,
    seed: int = 0,
    limit: int | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Evaluate a listener agent on a benchmark.

    Args:
        bench: from :func:`build_bench` or :func:`load_bench`.
        agent_spec: a registered agent spec, e.g. ``"vision:top_k=3"``, or an agent instance.
        deck: the benchmark's deck; None -> the folder recorded in the benchmark (or default).
        strategies: ``"direct"`` and/or ``"entailment"``.
        image_size: (height, width) of the candidate images shown.
        reveal_captions: show the candidates' captions (caption agents need them).
        seed: agent and tie-break seed.
        limit: evaluate only the first ``limit`` items (a quick check).
        progress: show a progress bar.

    Returns:
        ``{"agent", "metadata", "strategies": {strategy: {"easy", "hard", "total",
        "invalid"}}, "items": per-item answers, "wall_s"}``.
    """
    from cluegym.agents import make_agent
    from cluegym.envs.dixit.env import get_deck

    unknown = sorted(set(strategies) - set(STRATEGIES))
    if unknown or not strategies:
        raise ValueError(f"strategies must be among {', '.join(STRATEGIES)}, got {list(strategies)}")
    meta = bench["metadata"]
    if deck is None:
        deck = get_deck(meta.get("deck_folder"))
    items = bench["items"][:limit] if limit else bench["items"]
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
        from tqdm.auto import tqdm

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
    """The accuracy table as text (Tables 2 and 4 of the paper)."""
    lines = [f"{'strategy':<12}{'Easy':>8}{'Hard':>8}{'Total':>8}{'invalid':>9}"]
    for strategy, row in results["strategies"].items():
        lines.append(f"{strategy:<12}{row['easy']:>8.2f}{row['hard']:>8.2f}{row['total']:>8.2f}{int(row['invalid']):>9}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------- CLI

def _deck_from_args(args: argparse.Namespace) -> Any:
    from cluegym.envs.dixit.env import get_deck

    if args.deck is None and args.captions is None:
        return None
    return get_deck(args.deck, args.captions)


def cmd_build(args: argparse.Namespace) -> int:
    from cluegym.envs.dixit.deck import DeckError

    try:
        bench = build_bench(_deck_from_args(args), seed=args.seed, clue=args.clue, clue_rank=args.clue_rank,
                            easy_ranks=tuple(args.easy_ranks), hard_ranks=tuple(args.hard_ranks))
    except (DeckError, ValueError, FileNotFoundError) as exc:
        raise SystemExit(f"cluegym dixitbench: error: {exc}")
    path = save_bench(bench, args.out)
    meta = bench["metadata"]
    print(f"DixitBench: {meta['items']} items from {meta['cards']} cards of deck {meta['deck']!r} "
          f"(seed {meta['seed']}, clue {meta['clue']}) written to {path}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from cluegym.agents import AgentSpecError
    from cluegym.envs.dixit.deck import DeckError
    from cluegym.envs.dixit.env import parse_image_size

    strategies = STRATEGIES if args.strategy == "both" else (args.strategy,)
    try:
        deck = _deck_from_args(args)
        if args.bench:
            bench = load_bench(args.bench)
        else:
            bench = build_bench(deck, seed=args.seed, clue=args.clue, clue_rank=args.clue_rank)
        results = evaluate(bench, args.agent, deck=deck, strategies=strategies, image_size=parse_image_size(args.image_size),
                           reveal_captions=args.reveal_captions, seed=args.agent_seed, limit=args.limit,
                           progress=not args.no_progress)
    except (AgentSpecError, DeckError, ValueError, FileNotFoundError) as exc:
        raise SystemExit(f"cluegym dixitbench: error: {exc}")
    meta = results["metadata"]
    print(f"\nDixitBench ({len(results['items'])} items, deck {meta['deck']!r}, clue {meta['clue']}): agent {args.agent}")
    print(format_table(results))
    print(f"({results['wall_s']:.1f} s)")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(results, indent=1))
        print(f"results written to {args.out}")
    return 0


def _add_deck_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deck", help="folder of card images (default: the shipped deck)")
    parser.add_argument("--captions", help="captions JSON, card id -> caption (default: captions.json in the deck)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"benchmark seed (default {DEFAULT_SEED})")
    parser.add_argument("--clue", choices=("caption", "word"), default="caption",
                        help="clue: the target's caption (paper, default) or a one-word clue from it")
    parser.add_argument("--clue-rank", type=int, default=1, help="rank of the one-word clue (--clue word)")


def register_cli(subparsers: Any) -> None:
    """Add ``cluegym dixitbench build`` and ``cluegym dixitbench eval``."""
    parser = subparsers.add_parser("dixitbench", help="DixitBench: build it from a deck, evaluate a listener agent")
    sub = parser.add_subparsers(dest="dixitbench_command", required=True)

    build = sub.add_parser("build", help="build the benchmark JSON from a deck with captions")
    _add_deck_args(build)
    build.add_argument("--easy-ranks", type=int, nargs=2, default=(30, 80), metavar=("LOW", "HIGH"))
    build.add_argument("--hard-ranks", type=int, nargs=2, default=(1, 5), metavar=("LOW", "HIGH"))
    build.add_argument("--out", default="dixitbench.json", help="output JSON (default dixitbench.json)")
    build.set_defaults(func=cmd_build)

    ev = sub.add_parser("eval", help="evaluate a listener agent (direct selection and entailment scoring)")
    ev.add_argument("--agent", required=True, help="agent spec, e.g. vision or caption:embedding=glove")
    ev.add_argument("--bench", help="benchmark JSON (default: build it now from the deck)")
    _add_deck_args(ev)
    ev.add_argument("--strategy", choices=("direct", "entailment", "both"), default="both")
    ev.add_argument("--reveal-captions", action="store_true", help="show the candidates' captions to the agent")
    ev.add_argument("--image-size", default="144x96", help="candidate image size HxW (default 144x96, as the env)")
    ev.add_argument("--agent-seed", type=int, default=0, help="agent and tie-break seed (default 0)")
    ev.add_argument("--limit", type=int, help="evaluate only the first N items")
    ev.add_argument("--out", help="write the results (with per-item answers) as JSON")
    ev.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ev.set_defaults(func=cmd_eval)


__all__ = ["action_space", "build_bench", "save_bench", "load_bench", "evaluate", "accuracy_table", "item_observation",
           "caption_similarity", "format_table", "register_cli", "STRATEGIES", "DIFFICULTIES"]
