"""DixitBench, building (DixitWorld, appendix F): a deck's captions -> multiple-choice items.

Every card's caption is embedded with all-MiniLM-L6-v2 and compared with every other (cosine
similarity matrix). Each card gives two items, a target and 5 distractors: **Hard** = the 5
cards with the most similar captions (ranks 1-5), **Easy** = 5 cards drawn from similarity
ranks 30-80; the 6 candidates are shuffled. All draws come from one seeded generator (seed
42, the paper's), so a deck always gives the same benchmark (84 cards -> 168 items; the
shipped deck's 96 -> 192). The clue is the target's caption, as in the paper
(``clue="caption"``); ``clue="word"`` instead gives a one-word clue from the caption agent's
storyteller (``clue_rank``). The shipped deck's captions are literal templates ("a tiger
casts the reflection of a tree frog on a pale green ocean"), so with ``clue="caption"`` an
agent that reads captions matches the clue word for word; the one-word items keep the
benchmark meaningful for such agents. Any captioned deck (the paper's 84 cards, if you have
them) is one ``deck=`` / ``captions=`` away.

Example:
    >>> bench = build_bench(get_deck())  # the shipped deck; get_deck("cards/", "captions.json") for yours
    >>> bench["metadata"]["cards"], len(bench["items"]), bench["metadata"]["similarity_model"]
    (96, 192, 'all-MiniLM-L6-v2')
    >>> save_bench(bench, "dixitbench.json")
    PosixPath('dixitbench.json')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from cluegym.agents.embedding.dixit import CaptionAgent
from cluegym.agents.encoders.sentences import SentenceEncoder
from cluegym.envs.dixit.deck import default_deck_folder
from cluegym.envs.dixit.env import get_deck
from cluegym.harness.results import write_json_atomic
from cluegym.harness.seeding import check_match_seed

#: Format version of the benchmark JSON.
BENCH_VERSION = 1
#: The paper's seed (appendix E).
DEFAULT_SEED = 42
DIFFICULTIES: tuple[str, ...] = ("easy", "hard")
#: Where the clue of an item comes from (see the module docstring).
CLUE_SOURCES: tuple[str, ...] = ("caption", "word")


def caption_similarity(captions: Sequence[str]) -> np.ndarray:
    """Cosine similarity matrix of the captions' all-MiniLM-L6-v2 embeddings.

    Example:
        >>> caption_similarity(["a red boat", "a crimson ship", "a tax form"]).shape
        (3, 3)
    """
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
    captions_file: str | Path | None = None,
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
        captions_file: the captions JSON the deck was loaded with, recorded so that
            evaluation reloads the same captions (None: the deck folder's ``captions.json``).

    Returns:
        The benchmark: ``{"metadata": {...}, "items": [{"id", "card", "difficulty", "clue",
        "candidates", "answer"}, ...]}``.

    Raises:
        ValueError: the deck lacks captions, or is too small for the rank ranges; a negative
            seed. TypeError: a seed that is no integer.
    """
    check_match_seed(seed)
    deck = get_deck() if deck is None else deck
    folder = Path(next(iter(deck.paths.values()))).parent.resolve()
    cards = [c for c in deck.card_ids if deck.captions and deck.captions.get(c)]
    if len(cards) < 2:
        raise ValueError(f"deck {deck.name!r} needs captions to build DixitBench (a captions JSON: id -> caption)")
    if clue not in CLUE_SOURCES:
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
        "captions_file": None if captions_file is None else str(Path(captions_file).resolve()),
    }
    if clue == "word":
        metadata.update(clue_rank=clue_rank, embedding=embedding)
    return {"metadata": metadata, "items": items}


def save_bench(bench: dict[str, Any], path: str | Path) -> Path:
    """Write a benchmark as JSON (creating folders), atomically: a failed write leaves the old file.

    Example:
        >>> save_bench(build_bench(clue="word"), "out/dixitbench_word.json")
        PosixPath('out/dixitbench_word.json')
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, bench)
    return path


def _is_card_list(value: Any) -> bool:
    """Whether ``value`` is an item's candidates: 2 or more distinct card ids."""
    return (isinstance(value, list) and len(value) >= 2 and all(isinstance(c, str) for c in value)
            and len(set(value)) == len(value))


def _is_string_or_none(value: Any) -> bool:
    """Whether ``value`` is a recorded path, or None for the default."""
    return value is None or isinstance(value, str)


#: What :func:`load_bench` checks of the metadata (what evaluation and the CLI read): key ->
#: (required, test, what the value must be).
_METADATA_FIELDS: dict[str, tuple[bool, Callable[[Any], bool], str]] = {
    "deck": (True, lambda v: isinstance(v, str), "a string"),
    "clue": (True, lambda v: isinstance(v, str), "a string"),
    "deck_folder": (False, _is_string_or_none, "a folder path or null"),
    "captions_file": (False, _is_string_or_none, "a file path or null"),
}
#: The same for each item; ``answer`` is checked apart, against the item's candidates.
_ITEM_FIELDS: dict[str, tuple[bool, Callable[[Any], bool], str]] = {
    "id": (True, lambda v: isinstance(v, str), "a string"),
    "difficulty": (True, lambda v: v in DIFFICULTIES, f"one of {', '.join(map(repr, DIFFICULTIES))}"),
    "clue": (True, lambda v: isinstance(v, str), "a string"),
    "candidates": (True, _is_card_list, "a list of 2 or more distinct card ids (strings)"),
}


def _short(value: Any) -> str:
    """A value for an error message, cut so that a long list keeps the message on one line."""
    text = json.dumps(value, default=repr) if isinstance(value, (list, dict)) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields_problem(where: str, record: dict[str, Any],
                    fields: dict[str, tuple[bool, Callable[[Any], bool], str]]) -> str | None:
    """The first of ``fields`` that ``record`` lacks (when required) or holds a bad value for, or None."""
    for key, (required, test, what) in fields.items():
        if key not in record:
            if required:
                return f"{where} has no {key}"
        elif not test(record[key]):
            return f"{where}: {key} must be {what}, got {_short(record[key])}"
    return None


def bench_problem(bench: Any) -> str | None:
    """The first thing that keeps ``bench`` from being a benchmark :func:`evaluate` can run, or None.

    Checks what evaluation reads: the metadata's deck, clue, deck folder and captions file,
    and per item (counted from 0) its id, difficulty, clue, candidates and answer.

    Example:
        >>> bench_problem({"metadata": {"benchmark": "DixitBench", "deck": "d", "clue": "caption"}, "items": 5})
        'items must be a list, got 5'
    """
    if not isinstance(bench, dict) or "metadata" not in bench:
        return "not a DixitBench file"
    meta = bench["metadata"]
    if not isinstance(meta, dict):
        return f"metadata must be an object, got {_short(meta)}"
    if meta.get("benchmark") != "DixitBench":
        return "not a DixitBench file"
    if "agent" in bench and "strategies" in bench:  # its metadata is the benchmark's, its items are answers
        return "DixitBench results (written by dixitbench eval --out), not a benchmark"
    problem = _fields_problem("metadata", meta, _METADATA_FIELDS)
    if problem:
        return problem
    items = bench.get("items")
    if not isinstance(items, list):
        return "no items" if items is None else f"items must be a list, got {_short(items)}"
    if not items:
        return "no items"
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            return f"item {index} must be an object, got {_short(item)}"
        problem = _fields_problem(f"item {index}", item, _ITEM_FIELDS)
        if problem:
            return problem
        if "answer" not in item:
            return f"item {index} has no answer"
        answer = item["answer"]
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(item["candidates"]):
            return (f"item {index}: answer must be the index of the target among its "
                    f"{len(item['candidates'])} candidates, got {_short(answer)}")
    return None


def load_bench(path: str | Path) -> dict[str, Any]:
    """Read a benchmark JSON written by :func:`save_bench`, checked with :func:`bench_problem`.

    Raises:
        FileNotFoundError: no such file. ValueError: not a DixitBench file, or a malformed one:
            one line naming the file and its first problem (e.g. ``b.json: item 3 has no candidates``).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"DixitBench file {str(path)!r} does not exist (build one: cluegym dixitbench build)")
    try:
        bench = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path} cannot be read ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    problem = bench_problem(bench)
    if problem:
        raise ValueError(f"{path}: {problem}")
    return bench


__all__ = ["BENCH_VERSION", "CLUE_SOURCES", "DEFAULT_SEED", "DIFFICULTIES", "bench_problem", "build_bench",
           "caption_similarity", "load_bench", "save_bench"]
