"""Learning-view throughput: steps/s of the raw game env and of the learner views over it.

For each game with a learner task, four ways of playing the same game (observation digests
off everywhere, the same game options) are timed, each ``--rounds`` times (default 3,
interleaved: every row once, then again) for ``--seconds`` (default 3); a row shows its median
round:

- ``raw``: the AEC env played by :func:`cluegym.benchmarks.throughput.measure` (a scripted
  first-legal policy at every seat; the baseline of issue 15);
- ``raw-rnd``: the AEC env with the ``random`` agent at every seat: the same players as the
  views (random moves make other games than the scripted ones: Decrypto's scripted guessers
  agree and end the game in a few steps), played as the views play them (the ``random``
  agent decides from ``info``, so ``last(observe=False)``: no observation is built for it),
  so ``x raw-rnd`` is the cost of the view itself;
- ``sb3``: :class:`~cluegym.wrappers.selfplay.SelfPlayEnv`, one learning seat (the SB3 view);
- ``multi``: :class:`~cluegym.wrappers.multiseat.MultiSeatEnv`, several learning seats (the
  PettingZoo view of RLlib and Tianshou).

In the views, the learning seats choose uniformly among their legal choices (a seeded
generator) and every other seat and delegated decision is played by the ``random`` agent, so
the figures are the cost of the views (features, candidates, masks, bookkeeping), not of
opponent models. Two kinds of step are counted:

- **env steps**: calls of the game env's ``step`` (every seat's moves, rejected attempts and
  dead steps): the unit of ``raw``, and the column the ratio compares;
- **decisions**: the learner's decisions, i.e. calls of the view's ``step`` (what an RL
  library counts as its env steps; the AEC view's end-of-game dead steps are not counted).

Like a training run (``TrainConfig.torch_threads``, one thread per env process), the benchmark
runs torch and the BLAS under numpy on one thread (``--threads``): on a shared machine a second
thread spins against the other processes and costs more CPU than it saves (a MiniLM encode
takes 10x the CPU on two busy cores). Before timing, each game's warm-up fills the encoders'
caches with the texts the random players can say (``Setup.warm``; Dixit: the clue words and
the deck's captions; Decrypto: the hint vocabulary's vectors and word forms, without which
its views ran ~40% under their steady state in the first second and reached it only after
~10,000 games): a training run meets them all within its first games, and issue 15 asks for
the steady state (each text encoded once); ``--cold`` skips it. Each timed window starts
after a full garbage collection (:func:`~cluegym.benchmarks.throughput.collect_garbage`): the
one the warm-up's caches would trigger is not any row's work.

After each game's rows a line gives each view's own work per env step and what the floor
allows it (:func:`own_work`): the floor in the unit a view's code can change. ``--breakdown``
adds where an SB3 decision's time goes and, per env step, what the game env and its players
take in the view's own games and what the floor's ``2g`` leaves for the view's own work
(:func:`view_budget`), beside what it leaves at the ``raw-rnd`` row's cost: where little or
nothing is left, no work on the view's own code reaches the floor.

``cpu%`` is the process's CPU time over wall time while measuring: below ~95% the machine
was busy with other work and every figure of that row is low. ``--cpu-time`` divides every
rate by that share (steps per CPU-second of this process): comparable figures on a shared
machine.

Usage:
    python -m cluegym.benchmarks.learner_throughput --seconds 5
    python -m cluegym.benchmarks.learner_throughput --rounds 1   # one round a row: quicker, noisier
    python -m cluegym.benchmarks.learner_throughput --games decrypto,undercover --seed 1
    python -m cluegym.benchmarks.learner_throughput --cpu-time   # on a shared machine
    python -m cluegym.benchmarks.learner_throughput --games dixit --cold   # encoders' caches empty
    python -m cluegym.benchmarks.learner_throughput --breakdown   # + where an SB3 decision's time goes, the budget
    python -m cluegym.benchmarks.learner_throughput --ppo 8192    # + the env's share of a PPO run
    python -m cluegym.benchmarks.learner_throughput --default-opponents   # + the SB3 view vs the baselines

``--default-opponents`` adds a row ``sb3-def``: the SB3 view with the game's default opponents
and delegate (``DEFAULT_AGENTS``: the embedding baselines ``cluegym train`` plays against)
instead of random players, so its rate includes what those baselines cost (no floor verdict).
Before it, what the baselines compute once per process is computed (``Setup.warm_defaults``,
unless ``--cold``): Dixit's vision agents' class probabilities of every card, Undercover's
GloVe players' rankings of every word of the shipped pairs.

``--ppo STEPS`` also trains sb3-contrib's ``MaskablePPO`` with the project's defaults
(``DEFAULT_ALGO_KWARGS["maskable_ppo"]``, ``TrainConfig``'s 4 envs in one process) on the SB3
view for ``STEPS`` decisions per game and prints how much of the run's CPU time the envs
took (``VecEnv`` ``reset``/``step_async``/``step_wait``) and how much SB3 (rollout forward
passes, buffer, updates): whether the env is what bounds a self-play training run.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from tqdm import tqdm

import cluegym
from cluegym.agents import make_agent
from cluegym.benchmarks.host import describe_host
from cluegym.benchmarks.throughput import collect_garbage, measure
from cluegym.benchmarks.usage import positive_float
from cluegym.envs.core.rng import integers
from cluegym.wrappers.multiseat import MultiSeatEnv
from cluegym.wrappers.selfplay import SelfPlayEnv
from cluegym.wrappers.vec_env import limit_threads

__all__ = ["Setup", "SETUPS", "ViewRate", "limit_threads", "measure_raw", "measure_raw_random", "measure_selfplay",
           "measure_selfplay_defaults", "measure_multiseat", "median_rate", "main", "VIEW_FLOOR",
           "warmed_maskable_ppo",
           "selfplay_breakdown", "BREAKDOWN_PARTS", "GAME_PARTS", "view_budget", "timer_overhead", "TrainingShare",
           "ppo_env_share", "own_work"]


@dataclass(frozen=True)
class Setup:
    """How one game is benchmarked.

    Attributes:
        seat: the SB3 view's learning seat.
        learners: the multi-seat view's learning seats (comma-separated, or ``"all"``).
        env_kwargs: game options for all three (e.g. Dixit's ``reveal_captions``).
        task_options: the tasks' options (their delegates play ``random`` here).
        warm: fills the encoders' caches with the texts the random players can say (run
            once before the views are timed; None: nothing to warm).
        warm_defaults: what the default opponents encode once per process (run before the
            ``sb3-def`` row; None: nothing more).
    """

    seat: str
    learners: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    task_options: dict[str, Any] = field(default_factory=dict)
    warm: Callable[[], None] | None = None
    warm_defaults: Callable[[], None] | None = None


def _warm_dixit() -> None:
    """Sentence vectors of the random players' clue words and of the deck's captions (what
    the listener features encode), in one batch each; the deck's cards read (``preload``)."""
    from cluegym.agents.encoders.sentences import SentenceEncoder
    from cluegym.envs.dixit.deck_options import get_deck, random_vocabulary

    cluegym.make("dixit", **SETUPS["dixit"].env_kwargs).unwrapped.preload()  # the views' deck and image size

    sentences = SentenceEncoder()
    sentences.matrix(list(random_vocabulary()))
    sentences.matrix(sorted(set((get_deck().captions or {}).values())))


def _warm_dixit_defaults() -> None:
    """The vision agents' class probabilities of every card of the deck, at the
    observations' size (EfficientNet on each card and its tiles once: ~40 CPU-seconds here;
    a training run meets every card within its first games, and the first ones ran ~25x
    slower while it did)."""
    from cluegym.agents.embedding.dixit import VisionAgent
    from cluegym.agents.encoders.images import class_probabilities

    env = cluegym.make("dixit", **SETUPS["dixit"].env_kwargs).unwrapped  # its deck, at its observations' size
    deck = env.deck
    class_probabilities(deck.images(deck.card_ids, tuple(env.image_size)), grid=VisionAgent.DEFAULT_GRID)


def _warm_undercover_defaults() -> None:
    """The default opponents' (GloVe baselines') rankings of every word of the shipped pairs,
    at the depths they ask (their descriptions' neighbours, their inference's unsaid
    candidates): each is the whole vocabulary's product with the word, made when a game first
    deals it (~2.8 CPU-seconds for the 400 words here; a process's first ~500 games ran ~20%
    under the ones after, 135 then 161-177 decisions per CPU-second in 6 s rounds). A training
    run meets every pair within its first games."""
    from cluegym.agents.embedding.speech import SaidFilter
    from cluegym.envs.undercover.word_pairs import load_word_pairs

    spec = cluegym.env_module("undercover").DEFAULT_AGENTS["*"]
    env = cluegym.make("undercover")
    player = make_agent(spec, game="undercover", seat="player_1", action_space=env.action_space("player_1"))
    for word in sorted({word for pair in load_word_pairs() for word in pair}):
        vector = player.encoder.word(word)
        player.vocab.neighbours(vector, player.k)
        player.vocab.unsaid_neighbours(vector, player.num_candidates, word, SaidFilter([word]))


def _warm_decrypto() -> None:
    """Word vectors of the random players' hints (the shipped hint vocabulary, ~5,000 words:
    what Eve's features look up), in one batch and in the featurizers' row matrix, each
    word's forms for the hint rule's check (its stem and lemmas: what the env computes for a
    hint it has not met), and Alice's candidates' table of the shipped keywords (their
    similarities to the vocabulary and rankings' start: what a training run's first ~1,000
    games compute)."""
    from cluegym.agents.encoders.words import WordEncoder
    from cluegym.envs.core.data import shipped_word_list
    from cluegym.envs.core.matching import first_mention
    from cluegym.envs.decrypto.env import random_vocabulary
    from cluegym.wrappers.decrypto import HintCandidates
    from cluegym.wrappers.text_rows import TextRows

    vocabulary = random_vocabulary()
    words = WordEncoder("glove")
    words.matrix(list(vocabulary))
    TextRows.of(words).rows(list(vocabulary) + list(shipped_word_list("cluegym.envs.decrypto", "keywords.txt")))
    for word in vocabulary:
        # Against a word no hint says: the hint's own forms are what is kept.
        first_mention(word, ("qqqq",), substring=False)
    HintCandidates().preload(shipped_word_list("cluegym.envs.decrypto", "keywords.txt"))


#: The games with a learner task. Taboo has one learning seat (the defender's guess).
SETUPS: dict[str, Setup] = {
    "decrypto": Setup("eve", "all", warm=_warm_decrypto),
    "undercover": Setup("player_0", "all", task_options={"speaker": "random"},
                        warm_defaults=_warm_undercover_defaults),
    "taboo": Setup("defender", "defender", task_options={"speaker": "random"}),
    "dixit": Setup("player_0", "all", env_kwargs={"reveal_captions": True}, task_options={"player": "random"},
                   warm=_warm_dixit, warm_defaults=_warm_dixit_defaults),
}


@dataclass
class ViewRate:
    """Throughput of one learner view over about ``seconds`` of play."""

    env_steps_s: float
    decisions_s: float
    games_s: float
    cpu_share: float = float("nan")


class _StepCounter:
    """Counts the calls of an env's ``step`` (installed on that one instance)."""

    def __init__(self, env: Any) -> None:
        self.count = 0
        inner = env.step

        def step(action: Any) -> None:
            self.count += 1
            inner(action)

        env.step = step


#: Issue 15's floor for a learning view: at least this share of the raw env's env steps/s.
VIEW_FLOOR = 0.5


def _legal_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = mask.nonzero()[0] if type(mask) is np.ndarray and mask.ndim == 1 else np.flatnonzero(mask)
    # The same draw as rng.choice(legal), at a tenth of its cost (the learner's choice is the
    # benchmark's, not the view's): numpy's bounded draw, by the games' fast path.
    return int(legal[integers(rng, int(legal.size))]) if legal.size else 0


def _timed(play_game: Callable[[], int], counter: _StepCounter, seconds: float) -> ViewRate:
    """Play one warm-up game (lazy loads and caches are not throughput), then, after a full
    garbage collection (:func:`~cluegym.benchmarks.throughput.collect_garbage`), whole games
    for about ``seconds``."""
    play_game()
    collect_garbage()
    counter.count = decisions = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        decisions += play_game()
        games += 1
    elapsed = time.perf_counter() - start
    cpu_share = (time.process_time() - cpu_start) / elapsed
    return ViewRate(counter.count / elapsed, decisions / elapsed, games / elapsed, cpu_share)


def measure_raw(game: str, setup: Setup, seconds: float) -> ViewRate:
    """The raw env by :func:`cluegym.benchmarks.throughput.measure` (scripted, every seat);
    ``decisions_s`` is nan (every step is a decision of some seat)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    steps_s, games_s = measure(game, seconds, record_observations=False, **setup.env_kwargs)
    cpu_share = (time.process_time() - cpu_start) / (time.perf_counter() - start)
    return ViewRate(steps_s, float("nan"), games_s, cpu_share)


def measure_raw_random(game: str, setup: Setup, seconds: float, seed: int = 0) -> ViewRate:
    """The raw AEC env with the ``random`` agent at every seat (the views' players), each
    given an observation only if it reads one (``Agent.reads_observation``), as in the views."""
    env = cluegym.make(game, record_observations=False, **setup.env_kwargs)
    players = {seat: make_agent("random", game=game, seat=seat, action_space=env.action_space(seat))
               for seat in env.possible_agents}
    counter = _StepCounter(env)
    rng = np.random.default_rng(seed)

    def play_game() -> int:
        env.reset(seed=int(rng.integers(2**63 - 1)))
        for player in players.values():
            player.reset(int(rng.integers(2**63 - 1)))
        for seat in env.agent_iter():
            player = players[seat]
            # As the views play them: an agent that decides from info gets no observation.
            observation, _, terminated, truncated, info = env.last(observe=player.reads_observation)
            env.step(None if terminated or truncated else player.act(observation, info))
        return 0

    rate = _timed(play_game, counter, seconds)
    rate.decisions_s = float("nan")
    return rate


def measure_selfplay(game: str, setup: Setup, seconds: float, seed: int = 0) -> ViewRate:
    """Throughput of the SB3 view (:class:`SelfPlayEnv`) with a random-legal learner."""
    return _time_selfplay(_selfplay_env(game, setup), seconds, seed)


def measure_selfplay_defaults(game: str, setup: Setup, seconds: float, seed: int = 0) -> ViewRate:
    """Throughput of the SB3 view with the game's default opponents and delegate (its
    ``DEFAULT_AGENTS``, e.g. the GloVe baselines: what ``cluegym train`` plays against)
    instead of random players; the learner still chooses at random among its legal choices."""
    return _time_selfplay(SelfPlayEnv(game, setup.seat, env_kwargs=setup.env_kwargs), seconds, seed)


def _time_selfplay(env: SelfPlayEnv, seconds: float, seed: int) -> ViewRate:
    """Whole games of ``env`` with random-legal learner choices for about ``seconds``."""
    counter = _StepCounter(env.aec)
    return _timed(_selfplay_player(env, seed), counter, seconds)


def _selfplay_env(game: str, setup: Setup) -> SelfPlayEnv:
    """The SB3 view of ``setup``'s learning seat, every other seat the ``random`` agent."""
    return SelfPlayEnv(game, setup.seat, opponents={"*": "random"}, task_options=setup.task_options,
                       env_kwargs=setup.env_kwargs)


def _selfplay_player(env: SelfPlayEnv, seed: int) -> Callable[[], int]:
    """``play_game()``: one whole game of ``env`` (seeded by ``seed`` here) with random-legal
    learner choices; returns the learner's decisions."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def play_game() -> int:
        _, info = env.reset()
        decisions, done = 0, False
        while not done:
            _, _, terminated, truncated, info = env.step(_legal_choice(rng, info["action_mask"]))
            decisions += 1
            done = terminated or truncated
        return decisions

    return play_game


def measure_multiseat(game: str, setup: Setup, seconds: float, seed: int = 0) -> ViewRate:
    """Throughput of the multi-seat AEC view (:class:`MultiSeatEnv`) with random-legal learners."""
    env = MultiSeatEnv(game, setup.learners, opponents={"*": "random"}, task_options=setup.task_options,
                       env_kwargs=setup.env_kwargs)
    counter = _StepCounter(env.game_env)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def play_game() -> int:
        env.reset()
        decisions = 0
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(_legal_choice(rng, observation["action_mask"]))
            decisions += 1
        return decisions

    return _timed(play_game, counter, seconds)


def _time_calls(owner: Any, name: str, spent: dict[str, float], part: str, clock: Callable[[], float],
                calls: dict[str, int] | None = None) -> None:
    """Wrap ``owner``'s method ``name`` (on this instance only) so that the time of each call,
    by ``clock``, adds to ``spent[part]`` (and, with ``calls``, each call counts in ``calls[part]``)."""
    inner = getattr(owner, name)

    def call(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[part] += clock() - start
            if calls is not None:
                calls[part] += 1

    setattr(owner, name, call)


class _Nothing:
    def nothing(self) -> None:
        return None


def timer_overhead(clock: Callable[[], float] = time.perf_counter, repeats: int = 20_000) -> tuple[float, float]:
    """What :func:`_time_calls` adds to one call, in seconds (best of 5 batches): to the part
    it times, and to the whole run (the wrapper's own call and its clock reads besides).

    Measured on a method that does nothing: the part's share counts that method's own call
    (~0.05 us), so a part the breakdown corrects by it comes out that much low at most.

    Example:
        >>> in_part, in_run = timer_overhead()
        >>> 0 < in_part < 2e-6 and 0 < in_run < 2e-6   # ~0.1 and ~0.3 us on the 2-core machine
        True
    """
    owner, spent, calls = _Nothing(), {"part": 0.0}, {"part": 0}
    bare = owner.nothing
    _time_calls(owner, "nothing", spent, "part", clock, calls)
    timed = owner.nothing
    in_part = with_timer = without = float("inf")
    for _ in range(5):
        spent["part"] = 0.0
        start = clock()
        for _ in range(repeats):
            timed()
        middle = clock()
        for _ in range(repeats):
            bare()
        end = clock()
        in_part = min(in_part, spent["part"] / repeats)
        with_timer, without = min(with_timer, middle - start), min(without, end - middle)
    return max(in_part, 0.0), max((with_timer - without) / repeats, 0.0)


#: The parts :func:`selfplay_breakdown` times, in the order it prints them.
BREAKDOWN_PARTS: tuple[str, ...] = ("features", "game step", "game observe", "game reset", "agents act",
                                    "agents reset", "view (rest)")


def selfplay_breakdown(game: str, setup: Setup, seconds: float,
                       seed: int = 0) -> tuple[float, dict[str, float], float]:
    """Where the SB3 view's time goes: microseconds per learner decision, in total and per
    part, and the game env's steps per decision.

    The parts: the task's ``features``; the game env's ``step``, ``observe`` (and
    ``lean_observe``) and ``reset``
    (through the view's wrapper); the other seats' and the delegate's agents (``act``,
    ``reset``); and the rest, the view's own bookkeeping (candidates, masks, rewards, infos,
    seeds). Each part is timed with ``time.perf_counter`` (wall time) around its calls; what
    the timer adds (:func:`timer_overhead`, ~0.3 us a call) is taken out of the parts and the
    total.

    Example:
        >>> total, parts, steps = selfplay_breakdown("undercover", SETUPS["undercover"], 2.0)
        >>> 0.0 < parts["features"] / total < 1.0   # the features' share of a decision (~0.2-0.3)
        True
    """
    env = _selfplay_env(game, setup)
    counter = _StepCounter(env.aec)  # under the timer installed below: counts, then times
    spent = dict.fromkeys(BREAKDOWN_PARTS, 0.0)
    calls = dict.fromkeys(BREAKDOWN_PARTS, 0)
    clock = time.perf_counter

    def timed(owner: Any, name: str, part: str) -> None:
        _time_calls(owner, name, spent, part, clock, calls)

    timed(env.task, "features", "features")
    timed(env.aec, "step", "game step")
    timed(env.raw, "observe", "game observe")
    timed(env.raw, "lean_observe", "game observe")  # the learner's, where its task reads no prompt
    timed(env.aec, "reset", "game reset")
    make_agent_for = env._agent
    agents_timed: set[int] = set()

    def agent(spec: str, seat: str) -> Any:
        made = make_agent_for(spec, seat)  # one agent per (spec, seat), kept by the view
        if id(made) not in agents_timed:
            agents_timed.add(id(made))
            timed(made, "act", "agents act")
            timed(made, "reset", "agents reset")
        return made

    env._agent = agent
    play_game = _selfplay_player(env, seed)
    play_game()  # warm-up: lazy loads and caches are not throughput
    for part in spent:
        spent[part], calls[part] = 0.0, 0
    counter.count = 0
    collect_garbage()
    decisions, start = 0, clock()
    while clock() - start < seconds:
        decisions += play_game()
    total = clock() - start
    # The timer's own cost, measured and taken out: from each part, and from the whole run.
    in_part, in_run = timer_overhead(clock)
    for part in spent:
        spent[part] = max(spent[part] - calls[part] * in_part, 0.0)
    total -= sum(calls.values()) * in_run
    spent["view (rest)"] = total - sum(spent.values())
    per_decision = 1e6 / max(decisions, 1)
    return (total * per_decision, {part: value * per_decision for part, value in spent.items()},
            counter.count / max(decisions, 1))


#: The parts of a breakdown that are the game env and its players, not the view: what any
#: view of the game pays (see :func:`view_budget`).
GAME_PARTS: tuple[str, ...] = ("game step", "game observe", "game reset", "agents act", "agents reset")


def view_budget(raw: ViewRate, parts: dict[str, float], env_steps_per_decision: float) -> tuple[float, float]:
    """What is left of issue 15's floor for a view's own work, from a breakdown.

    At the floor a view takes ``g / VIEW_FLOOR`` per env step (``2g``: ``g`` the raw row's
    time per step). The game env and its players (:data:`GAME_PARTS`, timed in the view's own
    games: their lengths, their resets, the learner's observations) take part of it whatever
    the view does; the rest is all its features, candidates and bookkeeping may cost. Timed
    inside the view, the game's parts also pay for what the view's own work evicts from the
    CPU's caches, so a leaner view would find a little more left; the ``raw-rnd`` row's cost
    per env step (:func:`own_work`'s ``g'``, no view at all) bounds it from the other side.

    Returns:
        ``(game, left)``: the game env's and players' microseconds per env step in the view's
        games, and the floor's ``2g`` less that (the view's own work must fit in it).

    Example:
        >>> parts = {"game step": 40.0, "agents act": 20.0, "features": 50.0}
        >>> view_budget(ViewRate(50_000, 0, 0), parts, 2.0)
        (30.0, 10.0)
    """
    game = sum(parts.get(part, 0.0) for part in GAME_PARTS) / env_steps_per_decision
    return game, 1e6 / (VIEW_FLOOR * raw.env_steps_s) - game


@dataclass
class TrainingShare:
    """CPU time of a training run split between the envs and the learning library.

    Attributes:
        decisions: learner decisions trained (the run's timesteps).
        env_us: CPU microseconds per decision inside the ``VecEnv`` (the views, their games
            and opponents, SB3's ``Monitor`` and ``DummyVecEnv``).
        learner_us: CPU microseconds per decision outside it (policy forward passes, the
            rollout buffer, the gradient updates).
    """

    decisions: int
    env_us: float
    learner_us: float

    @property
    def env_share(self) -> float:
        """The envs' share of the run's CPU time."""
        return self.env_us / (self.env_us + self.learner_us)

    @property
    def decisions_per_cpu_s(self) -> float:
        """Decisions trained per CPU-second of the whole run."""
        return 1e6 / (self.env_us + self.learner_us)


def warmed_maskable_ppo(env: Any, seed: int = 0) -> Any:
    """sb3-contrib's ``MaskablePPO`` with the project's defaults (``DEFAULT_ALGO_KWARGS``) on
    ``env`` (a ``VecEnv``), logging nothing, after one warm-up rollout (lazy loads, torch's
    first calls): what the benchmarks time a training run from."""
    # Deferred on purpose: sb3-contrib and torch are heavy.
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from cluegym.training.config import DEFAULT_ALGO_KWARGS

    model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", **DEFAULT_ALGO_KWARGS["maskable_ppo"])
    # A logger that writes nothing: SB3's default one makes a folder in /tmp at every learn().
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(model.n_steps * env.num_envs)
    return model


def ppo_env_share(game: str, setup: Setup, steps: int, seed: int = 0, n_envs: int = 4) -> TrainingShare:
    """Train ``MaskablePPO`` (the project's defaults) on the SB3 view of ``setup`` for ``steps``
    decisions after one warm-up rollout, timing the CPU spent inside the ``VecEnv``.

    Example:
        >>> share = ppo_env_share("taboo", SETUPS["taboo"], 4096)
        >>> 0.0 < share.env_share < 1.0   # the envs' share of the run's CPU time (~0.5-0.6 for Taboo)
        True
    """
    from cluegym.wrappers.vec_env import make_vec_env

    env = make_vec_env(n_envs, seed=seed, game=game, seat=setup.seat, opponents={"*": "random"},
                       task_options=setup.task_options, env_kwargs=setup.env_kwargs)
    spent = {"envs": 0.0}
    clock = time.process_time
    for name in ("reset", "step_async", "step_wait"):
        _time_calls(env, name, spent, "envs", clock)
    model = warmed_maskable_ppo(env, seed)
    spent["envs"] = 0.0
    start = clock()
    model.learn(steps, reset_num_timesteps=False)
    total = clock() - start
    env.close()
    trained = model.num_timesteps - model.n_steps * n_envs  # whole rollouts: steps rounded up
    in_envs = spent["envs"]
    return TrainingShare(trained, 1e6 * in_envs / trained, 1e6 * (total - in_envs) / trained)


def _print_ppo_share(game: str, setup: Setup, steps: int, seed: int) -> None:
    share = ppo_env_share(game, setup, steps, seed)
    print(f"{game:<11} MaskablePPO on the sb3 view, {share.decisions} decisions: "
          f"{share.decisions_per_cpu_s:.0f} decisions per CPU-second; envs {100 * share.env_share:.0f}% of the "
          f"CPU ({share.env_us:.0f} us a decision), SB3 {share.learner_us:.0f} us", flush=True)


def _print_breakdown(game: str, setup: Setup, seconds: float, seed: int, raw: ViewRate, raw_random: ViewRate) -> None:
    total, parts, steps = selfplay_breakdown(game, setup, seconds, seed)
    shares = ", ".join(f"{part} {value:.0f} ({100 * value / total:.0f}%)" for part, value in parts.items())
    print(f"{game:<11} sb3 view, us per decision: {total:.0f} = {shares}", flush=True)
    in_game, left = view_budget(raw, parts, steps)
    own = total / steps - in_game  # everything else of an env step: features, candidates, bookkeeping
    at_raw_random = 1e6 / raw_random.env_steps_s
    print(f"{'':<11} sb3 view, us per env step ({steps:.2f} a decision): the game env and its players {in_game:.1f} "
          f"as timed in the view ({at_raw_random:.1f} in the raw-rnd row), the view's own work {own:.1f}; the "
          f"floor's 2g is {in_game + left:.1f}: it leaves the view {left:.1f} ({in_game + left - at_raw_random:.1f} "
          f"at the raw-rnd row's cost)", flush=True)


def median_rate(rates: list[ViewRate]) -> ViewRate:
    """The round with the median env steps/s (the lower of the two middle ones for an even
    count): its decisions, games and CPU share come with it, from the same round."""
    ranked = sorted(rates, key=lambda rate: rate.env_steps_s)
    return ranked[(len(ranked) - 1) // 2]


def own_work(raw: ViewRate, raw_random: ViewRate, view: ViewRate) -> tuple[float, float]:
    """A view's own work per env step and what issue 15's floor allows it, in microseconds.

    Per env step, a view's time is the game's own in the view's games (``g'``, the
    ``raw-rnd`` row: the same random players, no view) plus the view's own work ``o``
    (features, candidates, masks, bookkeeping). With ``g`` the raw row's time per step, the
    floor (view steps/s >= ``VIEW_FLOOR`` x raw) is ``g' + o <= g / VIEW_FLOOR``, so ``o``
    may be at most ``g / VIEW_FLOOR - g'`` (``2g - g'``: about one raw step). A faster game
    shortens ``g`` and ``g'`` alike and leaves ``o``: it shrinks the allowance.

    Returns:
        ``(o, allowed)``; the view meets the floor when ``o <= allowed``.

    Example:
        >>> own_work(ViewRate(50_000, 0, 0), ViewRate(40_000, 0, 0), ViewRate(20_000, 0, 0))
        (25.0, 15.0)
    """
    game_in_view = 1e6 / raw_random.env_steps_s
    return 1e6 / view.env_steps_s - game_in_view, 1e6 / (VIEW_FLOOR * raw.env_steps_s) - game_in_view


def _per_cpu_second(rate: ViewRate) -> ViewRate:
    """The same rates per CPU-second of this process (wall-clock rates over the CPU share)."""
    share = rate.cpu_share
    return ViewRate(rate.env_steps_s / share, rate.decisions_s / share, rate.games_s / share, share)


def _measure_rows(game: str, setup: Setup, seconds: float, seed: int, rounds: int,
                  cpu_time: bool, progress: bool = True, defaults: bool = False) -> list[tuple[str, str, ViewRate]]:
    """The four rows of ``game`` (raw, raw-rnd, sb3, multi; with ``defaults`` a fifth,
    sb3-def: the SB3 view against the game's default opponents), each the median of
    ``rounds`` measurements; the rounds are interleaved (every row once, then again), so that
    a slow spell of a shared machine does not land on one row alone and skew its ratio."""
    measures: list[tuple[str, str, Callable[[], ViewRate]]] = [
        ("raw", "-", lambda: measure_raw(game, setup, seconds)),
        ("raw-rnd", "-", lambda: measure_raw_random(game, setup, seconds, seed)),
        ("sb3", setup.seat, lambda: measure_selfplay(game, setup, seconds, seed)),
        ("multi", setup.learners, lambda: measure_multiseat(game, setup, seconds, seed)),
    ]
    if defaults:
        measures.append(("sb3-def", setup.seat, lambda: measure_selfplay_defaults(game, setup, seconds, seed)))
    samples: list[list[ViewRate]] = [[] for _ in measures]
    with tqdm(total=rounds * len(measures), desc=game, unit="row", leave=False, disable=not progress) as bar:
        for _ in range(rounds):
            for (_, _, measure_row), kept in zip(measures, samples):
                rate = measure_row()
                kept.append(_per_cpu_second(rate) if cpu_time else rate)
                bar.update()
    return [(view, learners, median_rate(kept)) for (view, learners, _), kept in zip(measures, samples)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of every row, interleaved; each row is its median round (default 3)")
    parser.add_argument("--games", default=",".join(SETUPS),
                        help="comma-separated games, each once (default: all four)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the views' games and learner choices")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--cpu-time", action="store_true",
                        help="rates per CPU-second of this process instead of per wall-clock second")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch and BLAS threads (default 1, as a training run's env processes)")
    parser.add_argument("--cold", action="store_true",
                        help="do not fill the encoders' caches before timing (measure the first games)")
    parser.add_argument("--default-opponents", action="store_true",
                        help="add a row sb3-def: the SB3 view against the game's default opponents and "
                             "delegate (the baselines cluegym train plays against), not random players")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time the parts of the SB3 view's decisions (features, game env, agents, view)")
    parser.add_argument("--ppo", type=int, default=0, metavar="STEPS",
                        help="also train MaskablePPO for STEPS decisions per game and print the envs' share "
                             "of its CPU time")
    args = parser.parse_args(argv)
    if args.ppo < 0:
        parser.error(f"--ppo must be >= 0, got {args.ppo}")
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1, got {args.rounds}")
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in SETUPS]
    if unknown or not games:
        parser.error(f"no learner benchmark for {unknown or args.games!r}; choose from {', '.join(SETUPS)}")
    twice = sorted({g for g in games if games.count(g) > 1})
    if twice:  # each game's rows would be measured, and printed, twice
        parser.error(f"--games names {', '.join(twice)} more than once")

    limit_threads(args.threads)
    print(describe_host().lines())
    unit = "CPU-second" if args.cpu_time else "wall-clock second"
    print(f"median of {args.rounds} interleaved rounds of {args.seconds:g} s per row; "
          f"env steps/s: game env step() calls, every seat; decisions/s: the learners' choices; "
          f"x raw, x raw-rnd: env steps/s over those rows'; per {unit}; floor: issue 15's "
          f"x raw >= {VIEW_FLOOR} for a view")
    print(f"{'game':<11} {'view':<8} {'learners':<9} {'env steps/s':>11} {'x raw':>6} {'x raw-rnd':>9} "
          f"{'decisions/s':>11} {'games/s':>8} {'cpu%':>5}  floor")
    for game in games:
        setup = SETUPS[game]
        if setup.warm is not None and not args.cold:
            setup.warm()
        if args.default_opponents and setup.warm_defaults is not None and not args.cold:
            setup.warm_defaults()
        rows = _measure_rows(game, setup, args.seconds, args.seed, args.rounds, args.cpu_time,
                             progress=not args.no_progress, defaults=args.default_opponents)
        raw, raw_random = rows[0][2], rows[1][2]
        for view, learners, rate in rows:
            decisions = "-" if np.isnan(rate.decisions_s) else f"{rate.decisions_s:.0f}"
            of_raw = rate.env_steps_s / raw.env_steps_s
            # sb3-def times the default opponents too (baselines, not the view): no floor.
            verdict = "" if view in ("raw", "raw-rnd", "sb3-def") else ("ok" if of_raw >= VIEW_FLOOR else "BELOW")
            print(f"{game:<11} {view:<8} {learners:<9} {rate.env_steps_s:>11.0f} "
                  f"{of_raw:>6.2f} {rate.env_steps_s / raw_random.env_steps_s:>9.2f} "
                  f"{decisions:>11} {rate.games_s:>8.1f} {100 * rate.cpu_share:>5.0f}  {verdict}", flush=True)
        views = [(view, own_work(raw, raw_random, rate)) for view, _, rate in rows if view in ("sb3", "multi")]
        print(f"{'':<11} own work per env step (view row less raw-rnd row): "
              + ", ".join(f"{view} {own:.1f} us" for view, (own, _) in views)
              + f"; the floor allows {views[0][1][1]:.1f} us (2g - g')", flush=True)
        if args.breakdown:
            _print_breakdown(game, setup, args.seconds, args.seed, raw, raw_random)
        if args.ppo:
            _print_ppo_share(game, setup, args.ppo, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
