"""The ``paper`` preset: DixitWorld's own run (agent + env options), and one match with it.

DixitWorld's run (section 3, appendices B and E): the arena rules (4 players, hands of 4, 24
rounds in two phases of 12 with the P1<->P3 / P2<->P4 hand swap, ``dixitworld`` scoring),
cards sent at their raw size (305 x 460), seed 42, every model at temperature 0.7, the
paper's per-step prompts (``llm-cot``, listener ``direct``). The preset sets:

* env: :data:`~cluegym.envs.dixit.config.PAPER_ENV_OPTIONS` (``rules=dixitworld``,
  ``image_size=full``: the deck's card size, 460x305 for the shipped deck);
* agents: :data:`~cluegym.agents.llm.adapters.dixit.PAPER_AGENT_OPTIONS`
  (``temperature=0.7``) added to every ``llm``/``llm-cot`` spec that does not set it
  (other agents have no temperature of that meaning and are left alone);
* seed: :data:`~cluegym.envs.dixit.config.PAPER_SEED` (42).

What still differs from the paper's run: the cards (the shipped deck is 96 clip-art cards, not
the paper's 84 illustrations: pass ``--env deck=FOLDER --env captions=FILE`` if you have
them); images are sent as RGB PNGs of the decoded card (the paper sends the RGBA file); our
seeded generator is numpy's, not Python's ``random``, so the same seed gives other deals;
the models (any OpenAI-compatible endpoint; the paper used OpenRouter); the generalist ``llm``
puts the rules, scores and history in one prompt per decision, whereas the paper's steps
(``llm-cot``) see only the current step.

Usage:
    python -m cluegym.benchmarks.dixit_paper --agent '*=llm-cot:backend=openai,model=gpt-4o'
    python -m cluegym.benchmarks.dixit_paper --agent '*=vision' --show-preset
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Mapping

from cluegym.agents import AgentSpecError, parse_agent_spec, run_match
from cluegym.agents.llm.adapters.dixit import PAPER_AGENT_OPTIONS
from cluegym.benchmarks.usage import check_seat_specs, parse_assignments, parse_options, positive_int
from cluegym.envs.dixit.config import PAPER_ENV_OPTIONS, PAPER_SEED
from cluegym.harness import format_metrics

#: The agents whose specs get :data:`PAPER_AGENT_OPTIONS`.
LLM_AGENTS: tuple[str, ...] = ("llm", "llm-cot")
#: Preset names: ``paper`` (the paper's run) and ``quick`` (cluegym's defaults: 144x96
#: thumbnails, greedy decoding; faster, and reproducible without a sampling seed).
PRESETS: tuple[str, ...] = ("paper", "quick")


def paper_agent_spec(spec: str) -> str:
    """``spec`` with the paper's agent options added where it names an LLM agent and does not
    set them already.

    Raises:
        AgentSpecError: a malformed spec.

    Example:
        >>> paper_agent_spec("llm-cot:backend=openai,model=gpt-4o")
        'llm-cot:backend=openai,model=gpt-4o,temperature=0.7'
        >>> paper_agent_spec("vision:rank=3")
        'vision:rank=3'
    """
    name, params = parse_agent_spec(spec)
    if name not in LLM_AGENTS:
        return spec
    missing = {k: v for k, v in PAPER_AGENT_OPTIONS.items() if k not in params}
    if not missing:
        return spec
    extra = ",".join(f"{k}={v}" for k, v in missing.items())
    return f"{spec}{',' if ':' in spec else ':'}{extra}"


def preset_options(preset: str, agents: Mapping[str, str], env: Mapping[str, Any] | None = None
                   ) -> tuple[dict[str, str], dict[str, Any]]:
    """The seats' specs and env options of a preset; explicit env options win.

    Raises:
        ValueError: an unknown preset.

    Example:
        >>> preset_options("paper", {"*": "llm"})
        ({'*': 'llm:temperature=0.7'}, {'rules': 'dixitworld', 'image_size': 'full'})
    """
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    if preset == "quick":
        return dict(agents), dict(env or {})
    return ({seat: paper_agent_spec(spec) for seat, spec in agents.items()},
            {**PAPER_ENV_OPTIONS, **dict(env or {})})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cluegym.benchmarks.dixit_paper", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="append", default=[], metavar="SEAT=SPEC",
                        help="agent for a seat ('*' fills all); default *=vision")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="extra env option")
    parser.add_argument("--preset", choices=PRESETS, default="paper", help="paper (default) or quick")
    parser.add_argument("--games", type=positive_int, default=1,
                        help="games (default 1: one 24-round match, as the paper)")
    parser.add_argument("--seed", type=int, default=PAPER_SEED, help=f"match seed (default {PAPER_SEED})")
    parser.add_argument("--show-preset", action="store_true", help="print the resolved seats and env options")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    # a malformed item or a name given twice (the later one silently won) is a usage error
    agents = parse_assignments(args.agent, "--agent", "SEAT=SPEC", parser) or {"*": "vision"}
    options = parse_options(args.env, "--env", parser=parser)
    try:
        # Dixit's seats are alike: checked as player_0, without building the agent
        check_seat_specs("dixit", ((None, "player_0", spec) for spec in agents.values()))
        seats, env = preset_options(args.preset, agents, options)
    except (AgentSpecError, ValueError) as exc:
        parser.error(str(exc))
    if args.show_preset:
        print(json.dumps({"preset": args.preset, "seats": seats, "env": env, "seed": args.seed}, indent=1))
    try:
        summary = run_match("dixit", seats, games=args.games, seed=args.seed, env_kwargs=env,
                            progress=not args.no_progress)
    except (AgentSpecError, ValueError, TypeError) as exc:  # bad input the match found (a seat, an env option)
        parser.error(str(exc))
    print(f"dixit, preset {args.preset}, seed {args.seed}, {summary['games']} game(s)")
    for seat, spec in summary["seats"].items():
        print(f"  {seat:<10} {spec}")
    print(format_metrics(summary["metrics"]))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
