"""DixitBench (DixitWorld, appendix F): the listener's task as multiple-choice questions.

By concern: :mod:`cluegym.benchmarks.dixitbench_build` builds the benchmark from a deck with
captions (Hard = the 5 most similar captions, Easy = 5 drawn from similarity ranks 30-80,
seed 42); :mod:`cluegym.benchmarks.dixitbench_eval` evaluates a listener agent under direct
selection and entailment scoring; this module is the ``cluegym dixitbench`` command and
re-exports both.

``--deck FOLDER --captions FILE`` swaps in any captioned deck (e.g. the paper's 84 cards);
the benchmark records both, and ``eval`` reloads them. The shipped deck's captions are
literal templates, so ``--clue word`` (a one-word clue per card) is the meaningful variant
for agents that read captions.

Bad input (a missing or malformed benchmark, an ``--out`` that is an input or cannot be
written, ``--limit`` below 1, an unknown agent) is refused before any item is evaluated, with
one line, ``cluegym: error: ...``, and exit status 2, as ``cluegym run``.

Example:
    cluegym dixitbench build --out dixitbench.json
    cluegym dixitbench eval --agent vision --bench dixitbench.json
    cluegym dixitbench eval --agent 'llm-cot:backend=openai,model=gpt-4o,temperature=0.7' --strategy both
    cluegym dixitbench eval --agent caption --reveal-captions --bench dixitbench_word.json
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cluegym.agents import AgentSpecError
from cluegym.benchmarks.dixitbench_build import (
    CLUE_SOURCES, DEFAULT_SEED, DIFFICULTIES, bench_problem, build_bench, caption_similarity, load_bench, save_bench,
)
from cluegym.benchmarks.dixitbench_eval import (
    STRATEGIES, accuracy_table, action_space, check_limit, evaluate, format_table, item_observation,
)
from cluegym.envs.dixit.deck import DeckError
from cluegym.envs.dixit.env import get_deck, parse_image_size
from cluegym.harness.results import check_writable, write_json_atomic
from cluegym.benchmarks.usage import usage_error

#: ``--strategy`` choices: one of :data:`STRATEGIES`, or both (the default).
STRATEGY_CHOICES: tuple[str, ...] = (*STRATEGIES, "both")


def _deck_from_args(args: argparse.Namespace) -> Any:
    if args.deck is None and args.captions is None:
        return None
    return get_deck(args.deck, args.captions)


def _input_files(args: argparse.Namespace) -> dict[str, Path]:
    """The files a command reads, by the name an error gives them."""
    files = {}
    if getattr(args, "bench", None):
        files["the --bench file"] = Path(args.bench)
    if args.captions:
        files["the --captions file"] = Path(args.captions)
    elif args.deck:  # load_deck reads the folder's captions.json when no --captions is given
        files["the deck's captions.json"] = Path(args.deck) / "captions.json"
    return files


def _check_out(out_arg: str, args: argparse.Namespace) -> Path:
    """``--out`` as a path, refused before any work when it is one of the command's inputs (the
    write would destroy it) or cannot be written (a folder, a parent that cannot be made)."""
    out = Path(out_arg)
    for name, path in _input_files(args).items():
        if out.resolve() == path.resolve():
            usage_error(f"--out {out} is {name}: writing there would destroy it; choose another --out")
    try:
        check_writable(out, "--out", create=False)
    except ValueError as exc:
        usage_error(str(exc))
    return out


def cmd_build(args: argparse.Namespace) -> int:
    """``cluegym dixitbench build``: write the benchmark JSON."""
    out = _check_out(args.out, args)
    try:
        bench = build_bench(_deck_from_args(args), seed=args.seed, clue=args.clue, clue_rank=args.clue_rank,
                            easy_ranks=tuple(args.easy_ranks), hard_ranks=tuple(args.hard_ranks),
                            captions_file=args.captions)
    except (DeckError, ValueError, FileNotFoundError) as exc:
        usage_error(str(exc))
    path = save_bench(bench, out)
    meta = bench["metadata"]
    print(f"DixitBench: {meta['items']} items from {meta['cards']} cards of deck {meta['deck']!r} "
          f"(seed {meta['seed']}, clue {meta['clue']}) written to {path}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """``cluegym dixitbench eval``: print (and optionally write) the accuracy table."""
    strategies = STRATEGIES if args.strategy == "both" else (args.strategy,)
    try:
        check_limit(args.limit, "--limit")
    except ValueError as exc:
        usage_error(str(exc))
    out = None if args.out is None else _check_out(args.out, args)
    try:
        deck = _deck_from_args(args)
        if args.bench:
            bench = load_bench(args.bench)
        else:
            bench = build_bench(deck, seed=args.seed, clue=args.clue, clue_rank=args.clue_rank,
                                captions_file=args.captions)
        if deck is None:
            meta = bench["metadata"]
            deck = get_deck(meta.get("deck_folder"), meta.get("captions_file"))
        image_size = parse_image_size(args.image_size, full=deck.image_size)
        results = evaluate(bench, args.agent, deck=deck, strategies=strategies, image_size=image_size,
                           reveal_captions=args.reveal_captions, seed=args.agent_seed, limit=args.limit,
                           progress=not args.no_progress)
    except (AgentSpecError, DeckError, ValueError, FileNotFoundError) as exc:
        usage_error(str(exc))
    meta = results["metadata"]
    print(f"\nDixitBench ({len(results['items'])} items, deck {meta['deck']!r}, clue {meta['clue']}): agent {args.agent}")
    print(format_table(results))
    print(f"({results['wall_s']:.1f} s)")
    if out is not None:
        write_json_atomic(out, results)
        print(f"results written to {out}")
    return 0


def _add_deck_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deck", help="folder of card images (default: the shipped deck)")
    parser.add_argument("--captions", help="captions JSON, card id -> caption (default: captions.json in the deck)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"benchmark seed (default {DEFAULT_SEED})")
    parser.add_argument("--clue", choices=CLUE_SOURCES, default="caption",
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
    ev.add_argument("--agent", required=True, help="agent spec, e.g. vision, caption:embedding=glove, llm-cot:...")
    ev.add_argument("--bench", help="benchmark JSON (default: build it now from the deck)")
    _add_deck_args(ev)
    ev.add_argument("--strategy", choices=STRATEGY_CHOICES, default="both")
    ev.add_argument("--reveal-captions", action="store_true", help="show the candidates' captions to the agent")
    ev.add_argument("--image-size", default="144x96",
                    help="candidate image size HxW, or 'full' for the deck's card size (the paper's raw "
                         "305x460 cards; default 144x96, as the env)")
    ev.add_argument("--agent-seed", type=int, default=0, help="agent and tie-break seed (default 0)")
    ev.add_argument("--limit", type=int, metavar="N", help="evaluate only the first N items (N >= 1; default: all)")
    ev.add_argument("--out", help="write the results (with per-item answers) as JSON; not the --bench file")
    ev.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    ev.set_defaults(func=cmd_eval)


__all__ = ["action_space", "bench_problem", "build_bench", "save_bench", "load_bench", "evaluate", "accuracy_table",
           "item_observation", "caption_similarity", "format_table", "register_cli", "STRATEGIES",
           "DIFFICULTIES"]
