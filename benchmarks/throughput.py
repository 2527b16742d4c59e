"""Env throughput: AEC steps and games per second for every registered game, beside peers.

Actions come from a cheap scripted policy (first legal choice, fixed words), so the figures
measure the environment (rules, observations with prompts, validation, records), not agents.
Each game is timed twice: with per-step observation digests in the record (the default, what
replay needs) and without (``record_observations=False``, for RL rollouts). Every figure is
the median of ``--rounds`` rounds of ``--seconds`` each; the rounds are interleaved (every
row once per round) so that a busy spell of the machine does not land on one row, and each
round starts after a full garbage collection (:func:`collect_garbage`), so that no row pays
for the objects another row or a warm-up left.

``--peers`` adds the peer environments of :mod:`cluegym.benchmarks.peers` (TextArena
Taboo-v0 and SecretMafia-v0, PettingZoo connect_four_v3 and texas_holdem_v4; the optional
extra ``cluegym[peers]``) to the same run, and every row gets its ratio to TextArena
Taboo-v0 and the floor issue 15 sets: every game >= 1.0x with digests and >= 1.5x
without; Dixit, whose observations carry card images, >= 10,000 steps/s with digests
(and 1.5x that, 15,000, without). Those two are steps/s of the machine issue 15 was filed
on, so a line below the table also gives them scaled by the peer's speed in this run over
its speed there (:func:`dixit_floors_scaled`); the verdicts keep the issue's figures.

A ``host:`` line above the table names the machine (:mod:`cluegym.benchmarks.host`): the
ratios to the peer move with the host's microarchitecture, not only its speed.

Usage:
    python -m cluegym.benchmarks.throughput --seconds 3 --rounds 3 --peers
    python -m cluegym.benchmarks.throughput --games dixit --cpu-time   # on a shared machine
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import gymnasium
import numpy as np
from tqdm import tqdm

import cluegym
from cluegym.benchmarks.host import describe_host
from cluegym.benchmarks.usage import check_outputs, positive_float, positive_int

_WORDS = ("river", "stone", "lantern", "meadow", "violin", "harbor", "comet", "orchard")


def scripted_action(space: gymnasium.Space, observation: Any, info: dict, step: int) -> Any:
    """A legal discrete choice that rotates with ``step``; rotating plain words for text.

    As cheap as it can be (the peers' scripted policies are one line), so the figures are
    the env's: what to do with each part of a space is worked out once per space."""
    mask = observation.get("action_mask") if type(observation) is dict else None
    if mask is None:
        mask = info.get("action_mask")
    entry = _CHOOSERS.get(id(space))
    if entry is None or entry[0] is not space:
        if len(_CHOOSERS) >= 256:
            _CHOOSERS.clear()
        entry = _CHOOSERS[id(space)] = (space, _chooser(space))
    return entry[1](mask, step)


#: Per action space (by id, holding the space so that the id stays its own): its chooser.
_CHOOSERS: dict[int, tuple[gymnasium.Space, Callable[[Any, int], Any]]] = {}
#: Per read-only action mask (by id, holding the array): its legal choices. The envs hand
#: out the same read-only masks again, and a policy's own work is not the env's.
_LEGAL: dict[int, tuple[np.ndarray, tuple[int, ...]]] = {}


def _chooser(space: gymnasium.Space) -> Callable[[Any, int], Any]:
    """``choose(mask, step)`` for ``space``: the first legal choice rotated by ``step`` for a
    Discrete part, a rotating word for a Text part, each entry for a Dict (with its mask) or a
    Tuple (rotated by its position), a sample for anything else."""
    kind = type(space)
    if kind is gymnasium.spaces.Discrete:
        n = int(space.n)

        def discrete(mask: Any, step: int) -> int:
            if mask is None:
                return step % n
            kept = _LEGAL.get(id(mask))
            if kept is None or kept[0] is not mask:
                array = mask if type(mask) is np.ndarray else np.asarray(mask)
                legal = tuple(array.nonzero()[0].tolist())
                if array is not mask or mask.flags.writeable:  # it may change: not kept
                    return legal[step % len(legal)]
                if len(_LEGAL) >= 256:
                    _LEGAL.clear()
                kept = _LEGAL[id(mask)] = (mask, legal)
            legal = kept[1]
            return legal[step % len(legal)]

        return discrete
    if kind is gymnasium.spaces.Text:
        return lambda mask, step: _WORDS[step % len(_WORDS)]
    if kind is gymnasium.spaces.Dict:
        # The Text entries' words depend on the step alone: one template per word, with the
        # entries in the space's order, copied and completed by the other entries' choices.
        texts = {key for key, entry in space.spaces.items() if type(entry) is gymnasium.spaces.Text}
        others = [(key, _chooser(entry)) for key, entry in space.spaces.items() if key not in texts]
        templates = [{key: word if key in texts else None for key in space.spaces} for word in _WORDS]

        def mapping(mask: Any, step: int) -> dict[str, Any]:
            action = templates[step % len(_WORDS)].copy()
            masks = mask if type(mask) is dict else {}
            for key, choose in others:
                action[key] = choose(masks.get(key), step)
            return action

        return mapping
    if kind is gymnasium.spaces.Tuple:
        parts = list(enumerate(_chooser(entry) for entry in space.spaces))
        return lambda mask, step: tuple([choose(None, step + i) for i, choose in parts])
    return lambda mask, step: space.sample()


def play_game(env: Any, seed: int, step0: int) -> int:
    """Play one game of ``env`` with :func:`scripted_action` and take its record (what a
    match keeps of every game); return its number of steps."""
    env.reset(seed=seed)
    steps = 0
    for seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else scripted_action(env.action_space(seat), obs, info, step0 + steps))
        steps += 1
    env.unwrapped.game_record()
    return steps


def collect_garbage() -> None:
    """A full garbage collection, run before each timed window of the benchmarks.

    What a warm-up (or the row before) leaves to Python's collector is not the timed row's
    work: the caches a warm-up fills are promoted towards the oldest generation, and the one
    full collection they trigger (~0.15 s over the ~350,000 objects of Decrypto's warmed
    caches) landed in whichever window came next, a tenth of a 2 s row. After it, no full
    collection came in 16,000 games of a learning view: the steady state a training run has.
    The young generations' collections, which a run does pay, stay in every window.
    """
    gc.collect()


def _timed(play: Callable[[int, int], int], seconds: float, clock: Callable[[], float]) -> tuple[float, float]:
    """(steps/s, games/s) of ``play(seed, step0)`` called for about ``seconds`` of ``clock``,
    after :func:`collect_garbage`."""
    collect_garbage()
    steps = games = 0
    start = clock()
    while clock() - start < seconds:
        steps += play(games, steps)
        games += 1
    elapsed = clock() - start
    return steps / elapsed, games / elapsed


def measure(game: str, seconds: float, clock: Callable[[], float] = time.perf_counter,
            **env_kwargs: Any) -> tuple[float, float]:
    """(steps per second, games per second) over about ``seconds`` of play of ``game``.

    Args:
        game: a registered game.
        seconds: how long to play (by ``clock``).
        clock: ``time.perf_counter`` (wall clock, default) or ``time.process_time`` (this
            process's CPU time: figures that hold on a machine busy with other work).
        **env_kwargs: options for ``cluegym.make``, e.g. ``record_observations=False``.
    """
    return _timed(_warm_player(game, **env_kwargs), seconds, clock)


def _warm_player(game: str, **env_kwargs: Any) -> Callable[[int, int], int]:
    """``play(seed, step0)`` of one env of ``game``, after its ``preload()`` and a warm-up
    game (lazy imports and caches are not throughput: Dixit's deck is read once per process,
    and the cards one game deals are a sixth of it)."""
    env = cluegym.make(game, **env_kwargs)
    env.unwrapped.preload()
    play_game(env, seed=-1 % 2**31, step0=0)
    return lambda seed, step0: play_game(env, seed, step0)


@dataclass
class Row:
    """One line of the table: a cluegym game in one mode, or a peer."""

    name: str
    digests: bool | None  # None for a peer
    play: Callable[[int, int], int]
    steps_s: list[float] = field(default_factory=list)
    games_s: list[float] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.name if self.digests is None else f"{self.name} ({'digests' if self.digests else 'no digests'})"

    def floor(self, reference: float | None) -> float | None:
        """Issue 15's floor for this row, in steps/s (None for a peer or without the reference)."""
        if self.digests is None:
            return None
        if self.name == "dixit":  # its own floor ("Dixit 10x"), not TextArena's
            return dixit_floor(self.digests)
        if reference is None:
            return None
        return reference * (FLOOR_RATIO_DIGESTS if self.digests else FLOOR_RATIO_NO_DIGESTS)


#: Issue 15's floors: ratio to TextArena Taboo-v0 with and without record digests; Dixit
#: (images in every observation) has its own floor in steps/s instead, "Dixit 10x" of the
#: issue's 842 steps/s, and 1.5x that without digests.
FLOOR_RATIO_DIGESTS = 1.0
FLOOR_RATIO_NO_DIGESTS = 1.5
DIXIT_FLOOR_STEPS_S = 10_000.0
#: TextArena Taboo-v0's steps/s on the machine where issue 15 set Dixit's floor (its text).
ISSUE_REFERENCE_STEPS_S = 34_987.0


def dixit_floor(digests: bool) -> float:
    """Dixit's floor in steps/s: :data:`DIXIT_FLOOR_STEPS_S` with digests, and the same 1.5x
    (:data:`FLOOR_RATIO_NO_DIGESTS` over :data:`FLOOR_RATIO_DIGESTS`) without."""
    return DIXIT_FLOOR_STEPS_S * (FLOOR_RATIO_DIGESTS if digests else FLOOR_RATIO_NO_DIGESTS) / FLOOR_RATIO_DIGESTS


def dixit_floors_scaled(records: list[dict[str, Any]]) -> tuple[str, dict[str, float]] | None:
    """Dixit's floors (steps/s on issue 15's machine) scaled to this run's host by the
    reference peer's speed here over its speed there: a line that reads beside the verdicts
    (which stay the issue's own figures), and its numbers. None without the peer or Dixit.

    Example:
        >>> rows = [{"env": "textarena/Taboo-v0", "digests": None, "steps_s": 17_493.5},
        ...         {"env": "dixit", "digests": True, "steps_s": 6_000.0}]
        >>> dixit_floors_scaled(rows)[1]
        {'scale': 0.5, 'digests': 5000.0, 'no_digests': 7500.0}
    """
    from cluegym.benchmarks.peers import REFERENCE_PEER  # noqa: PLC0415 - same layer, keeps peers optional

    reference = next((r["steps_s"] for r in records if r["env"] == REFERENCE_PEER), None)
    dixit = {r["digests"]: r["steps_s"] for r in records if r["env"] == "dixit"}
    if reference is None or not dixit:
        return None
    scale = reference / ISSUE_REFERENCE_STEPS_S
    floors = {"scale": scale, "digests": dixit_floor(True) * scale, "no_digests": dixit_floor(False) * scale}
    measured = " / ".join(f"{dixit[d]:.0f}" for d in (True, False) if d in dixit)
    line = (f"dixit's floors are steps/s of issue 15's machine (TextArena Taboo-v0 at {ISSUE_REFERENCE_STEPS_S:,.0f} "
            f"there); scaled by this run's {reference:,.0f} ({scale:.2f}x) they read {floors['digests']:,.0f} / "
            f"{floors['no_digests']:,.0f} with / without digests (dixit here: {measured}; the verdicts above "
            "keep the issue's figures)")
    return line, floors


def run(games: list[str], seconds: float, rounds: int, peers: list[Any], clock: Callable[[], float],
        progress: bool = True) -> list[Row]:
    """Measure every row ``rounds`` times, interleaved; return the rows with their samples."""
    rows = [Row(peer.name, None, lambda seed, step0, peer=peer: peer.play_game(seed)) for peer in peers]
    rows += [Row(game, digests, _warm_player(game, record_observations=digests))
             for game in games for digests in (True, False)]
    bar = tqdm(total=rounds * len(rows), desc="throughput", unit="row", disable=not progress, leave=False)
    for _ in range(rounds):
        for row in rows:
            steps_s, games_s = _timed(row.play, seconds, clock)
            row.steps_s.append(steps_s)
            row.games_s.append(games_s)
            bar.update()
    bar.close()
    return rows


def table(rows: list[Row]) -> tuple[str, list[dict[str, Any]]]:
    """The printed table and its JSON rows (median steps/s, games/s, ratio, floor, verdict)."""
    from cluegym.benchmarks.peers import REFERENCE_PEER  # noqa: PLC0415 - same layer, keeps peers optional

    reference = next((statistics.median(r.steps_s) for r in rows if r.name == REFERENCE_PEER), None)
    lines = [f"{'env':<36} {'steps/s':>9} {'games/s':>9} {'x Taboo-v0':>10} {'floor':>8}  verdict"]
    records = []
    for row in rows:
        steps_s, games_s = statistics.median(row.steps_s), statistics.median(row.games_s)
        ratio = steps_s / reference if reference else None
        floor = row.floor(reference)
        verdict = "" if floor is None else ("ok" if steps_s >= floor else "BELOW")
        lines.append(f"{row.label:<36} {steps_s:>9.0f} {games_s:>9.1f} "
                     f"{'' if ratio is None else f'{ratio:.2f}':>10} {'' if floor is None else f'{floor:.0f}':>8}  {verdict}")
        records.append({"env": row.name, "digests": row.digests, "steps_s": steps_s, "games_s": games_s,
                        "steps_s_rounds": row.steps_s, "ratio_to_textarena_taboo": ratio, "floor_steps_s": floor,
                        "meets_floor": None if floor is None else steps_s >= floor})
    return "\n".join(lines), records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds; each figure is their median (default 3)")
    parser.add_argument("--games", default=",".join(cluegym.registered_games()),
                        help="comma-separated games, each once (default: every registered game)")
    parser.add_argument("--peers", action="store_true",
                        help="also run the installed peers (TextArena, PettingZoo classic: the cluegym[peers] extra)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this process's CPU time, not the wall clock (for a busy machine)")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    if not games:  # "," measured nothing and printed an empty table
        parser.error(f"--games names no game (got {args.games!r}); registered: {cluegym.registered_games()}")
    unknown = sorted(set(games) - set(cluegym.registered_games()))
    if unknown:
        parser.error(f"unknown game(s) {unknown}; registered: {cluegym.registered_games()}")
    twice = sorted({g for g in games if games.count(g) > 1})
    if twice:  # each would be measured, and printed, twice
        parser.error(f"--games names {', '.join(twice)} more than once")
    check_outputs(parser, {"--json": args.json})  # a bad path fails now, not after the run
    peers: list[Any] = []
    if args.peers:
        from cluegym.benchmarks.peers import PEERS, available_peers  # noqa: PLC0415 - optional extra

        peers = available_peers()
        missing = sorted(set(PEERS) - {p.name for p in peers})
        if missing:
            print(f"peers not installed (pip install -e '.[peers]'): {', '.join(missing)}", file=sys.stderr)
    clock = time.process_time if args.cpu_time else time.perf_counter
    host = describe_host()
    rows = run(games, args.seconds, args.rounds, peers, clock, progress=not args.no_progress)
    text, records = table(rows)
    print(host.lines())
    print(f"median of {args.rounds} rounds of {args.seconds:g} s ({'CPU' if args.cpu_time else 'wall'} time)")
    print(text)
    scaled = dixit_floors_scaled(records)
    if scaled is not None:
        print(scaled[0])
    if args.json:
        args.json.write_text(json.dumps({"clock": "cpu" if args.cpu_time else "wall", "seconds": args.seconds,
                                         "rounds": args.rounds, "host": host.as_dict(), "rows": records,
                                         "dixit_floors_scaled": None if scaled is None else scaled[1]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
