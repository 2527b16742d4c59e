"""A learner's view of one seat: :class:`SeatTask` (features in, a discrete choice out).

A game names its task builder in ``GameSpec.learner_task`` (``wrappers/<game>.py``);
:func:`make_task` finds it there, and a game that names none gets :func:`generic_task`: the
seat's own ``Discrete`` choice from its numeric observation fields. The single-seat
:class:`~cluegym.wrappers.selfplay.SelfPlayEnv`, the multi-seat envs and the ``ppo`` agent
all build their task here, so a policy sees the same features wherever it plays.

Example:
    >>> task = make_task("decrypto", "eve", embedding="glove")
    >>> task.n_actions, task.metric_name
    (24, 'interception_rate')
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

import gymnasium
import numpy as np

from cluegym.envs.core.options import Option, check_options
from cluegym.envs.core.registry import env_module, game_spec, load_reference
from cluegym.envs.core.text import is_integer
from cluegym.wrappers.candidates import CandidateGenerator
from cluegym.wrappers.featurizers import Featurizer
from cluegym.wrappers.numeric import NumericFeatures

__all__ = ["SeatTask", "make_task", "generic_task", "learner_env_options", "learner_defaults_named", "INDEX_TYPES", "choice_index", "last_verdict", "penalty"]

#: The learner-action types the views take as they are, before any isinstance check: Python
#: ints and the numpy integers RL libraries hand over (bool is not one: it is rejected).
INDEX_TYPES = frozenset({int, np.int64, np.int32, np.intp, np.uint8, np.int8, np.int16, np.uint16, np.uint32,
                         np.uint64})
#: An env without ``last_error`` (not the cluegym adapter): its infos are read.
_UNSAID = object()


def choice_index(action: Any, n_actions: int, who: str = "") -> int:
    """A learner's ``action`` as a choice index: an int, a numpy integer, or a one-element
    array of one (what the views' ``step`` takes; the range is the task's to judge, see
    :meth:`SeatTask.choice_error`).

    Raises:
        TypeError: anything else (a bool, a float, None, text), the message starting with
            ``who`` (the seat) when given.

    Example:
        >>> choice_index(np.array([3]), 8)
        3
    """
    if type(action) not in INDEX_TYPES:  # exact types first: isinstance is the slow path
        if isinstance(action, np.ndarray):
            action = action.reshape(-1)[0] if action.size == 1 else action
        if not is_integer(action):
            prefix = f"{who}: " if who else ""
            raise TypeError(f"{prefix}action must be an integer in 0..{n_actions - 1}, got {action!r}")
    return int(action)


def last_verdict(env: Any, seat: str) -> tuple[str | None, bool]:
    """The game's verdict on ``seat``'s last action: ``(error, fell_back)``, why it was
    rejected (None: applied) and whether the game's fallback applied. The adapter says so
    (``last_error``, ``last_fallback``) without building the seat's info, which the views
    would otherwise build after every learner move; another env's ``infos[seat]`` is read.

    Example:
        >>> import cluegym
        >>> env = cluegym.make("decrypto").unwrapped
        >>> env.reset(seed=0)
        >>> env.step(("sea", "", "x"))   # an empty hint: rejected, alice acts again
        >>> last_verdict(env, "alice")[0] == env.infos["alice"]["error"]
        True
    """
    error = getattr(env, "last_error", _UNSAID)
    if error is not _UNSAID:
        return error, bool(env.last_fallback)
    after = env.infos.get(seat, {})
    return after.get("error"), bool(after.get("fallback"))


def penalty(value: Any) -> float:
    """A view's ``invalid_action_penalty`` as a float: a real number (a bool, text or NaN is
    refused here, when the view is built, not as float()'s message).

    Raises:
        TypeError: ``value`` is no real number.
        ValueError: ``value`` is NaN or infinite.

    Example:
        >>> penalty(-1)
        -1.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"invalid_action_penalty must be a number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"invalid_action_penalty must be finite, got {value!r}")
    return float(value)


def _always(observation: dict[str, Any], info: dict[str, Any]) -> bool:
    return True


@dataclass
class SeatTask:
    """How a learner plays one seat of one game: features in, a discrete choice out.

    Attributes:
        game: registered game name.
        seat: the seat the learner plays.
        featurizer: observation (+ candidates) -> ``Box`` vector.
        n_actions: size of the learner's ``Discrete`` action space.
        candidates: for Text actions, the per-step candidate generator (index -> env action).
        to_env_action: maps ``(index, observation, info, candidates)`` to the env action;
            None: the candidate at ``index`` when there are candidates, else ``index``.
        learner_acts: ``(observation, info) -> bool``: whether this decision is the learner's
            (the rest go to ``delegate``).
        learner_acts_from_info: ``learner_acts`` reads ``info`` only (the views then call it
            with ``observation=None`` and build the seat's observation only for whoever reads
            it: the learner, or a delegate whose ``reads_observation`` is True).
        delegate: agent spec playing the seat's other decisions.
        combine: ``(learner_action, delegate_action) -> env action`` when the learner fills
            only part of an action whose other parts the delegate gives (e.g. the Taboo
            defender's guess, with the delegate's utterance); see :meth:`env_action`.
        metric: ``(name, function(metrics, results))``: the number training reports and
            evaluation curves plot (e.g. Eve's interception rate), from the game's metrics
            dict and the games' results (``record["result"]``, for per-seat numbers). A
            module-level function or a :func:`functools.partial` of one (see
            :func:`metrics_entry`), not a lambda, so that the views that hold the task pickle.
            None: training reports the seat's mean episode return (``"mean_return"``).
        role: seats with the same role can take the learner's snapshots in self-play.
        options: the keyword options that rebuild this task with :func:`make_task`.
        lean_observation: the featurizer, candidates and ``to_env_action`` read none of the
            game's ``full_only_keys`` (the prompt; Dixit's card images), so the views hand
            the learner the game's ``lean_observe`` (built without them: 20-63% of an
            observation's cost) when no delegate that reads observations shares it. False
            (the default for a task of one's own): the full observation.
    """

    game: str
    seat: str
    featurizer: Featurizer
    n_actions: int
    candidates: CandidateGenerator | None = None
    to_env_action: Callable[[int, dict[str, Any], dict[str, Any], Sequence[Any] | None], Any] | None = None
    learner_acts: Callable[[dict[str, Any], dict[str, Any]], bool] = _always
    learner_acts_from_info: bool = False
    delegate: str | None = None
    combine: Callable[[Any, Any], Any] | None = None
    metric: tuple[str, Callable[[dict[str, Any], list[dict[str, Any]]], float]] | None = None
    role: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    lean_observation: bool = False

    @property
    def learns_every_decision(self) -> bool:
        """Every decision of the seat is the learner's (``learner_acts`` is the default)."""
        return self.learner_acts is _always

    def route(self, info: dict[str, Any], observe: Callable[[], dict[str, Any]],
              delegate: Any = None) -> tuple[bool, dict[str, Any] | None]:
        """Whose is the seat's decision: ``(True, observation)`` when the learner's, else
        ``(False, observation or None)`` for ``delegate`` (None when it reads none).

        ``observe()`` builds the seat's observation; it is called only when someone reads it
        (see :attr:`learner_acts_from_info` and ``Agent.reads_observation``)."""
        observation = None if self.learner_acts_from_info else observe()
        if self.learner_acts(observation, info):  # type: ignore[arg-type] - None: reads info only
            return True, observe() if observation is None else observation
        if observation is None and getattr(delegate, "reads_observation", True):
            observation = observe()
        return False, observation

    def observer(self, env: Any, delegate: Any = None) -> Callable[[str], dict[str, Any]]:
        """How the views build this seat's observation from the raw game ``env``: its
        ``lean_observe`` when the task reads no full-only key (:attr:`lean_observation`) and
        ``delegate`` (the agent playing :attr:`delegate`, or None) reads no observation,
        else its ``observe``.

        Example:
            >>> import cluegym
            >>> task = make_task("taboo", "defender", speaker="random")
            >>> raw = cluegym.make("taboo").unwrapped
            >>> task.observer(raw) == raw.lean_observe
            True
        """
        lean = (self.lean_observation and getattr(env, "lean_observe", None) is not None
                and (delegate is None or getattr(delegate, "reads_observation", True) is False))
        return env.lean_observe if lean else env.observe

    def legal(self, observation: dict[str, Any], info: dict[str, Any], candidates: Sequence[Any] | None) -> np.ndarray:
        """Boolean mask of the legal choices for this decision; never empty.

        When nothing is legal (no candidate, e.g. a game's last observation, or an env mask
        of zeros) every choice is offered: a masked policy cannot sample from an empty mask
        (its probabilities would be 0/0), and the env turns the move down and says why.
        Every reader (the SB3 and multi-seat views, the policy agents) gets this one rule.
        """
        mask = self._legal(observation, info, candidates)
        # count_nonzero: one C call (ndarray.any() goes through numpy's Python wrapper)
        return mask if np.count_nonzero(mask) else np.ones(mask.size, dtype=bool)

    def _legal(self, observation: dict[str, Any], info: dict[str, Any], candidates: Sequence[Any] | None) -> np.ndarray:
        if candidates is not None:
            mask = np.zeros(self.n_actions, dtype=bool)
            mask[: min(len(candidates), self.n_actions)] = True
            return mask
        raw = observation.get("action_mask") if isinstance(observation, dict) else None
        if raw is None:
            raw = info.get("action_mask")
        if isinstance(raw, dict):  # Dict action spaces: the mask of the learner's (discrete) entry;
            # Text entries are Gymnasium's (length, charset mask) tuples or None, never arrays
            entries, raw = raw, None
            for value in entries.values():  # a loop, not next(<generator>): once a decision
                if isinstance(value, np.ndarray):
                    raw = value
                    break
        if raw is None:
            return np.ones(self.n_actions, dtype=bool)
        if type(raw) is np.ndarray and raw.ndim == 1 and raw.shape[0] == self.n_actions:
            return raw.astype(bool)  # the games' masks: one call, a new array
        return np.asarray(raw, dtype=bool).reshape(-1)[: self.n_actions]

    def choice_error(self, index: int, candidates: Sequence[Any] | None) -> str | None:
        """Why ``index`` is no choice of this decision (None: it is one): outside the task's
        ``0..n_actions - 1``, or past the decision's candidates (a task with candidates
        offers as many choices as it has candidates, up to ``n_actions``).

        Such a choice has no env action (:meth:`env_action` gives None, which every game
        rejects, counting it as its rejected moves); the views report this reason instead of
        the game's (which is about the None it was given).

        Example:
            >>> task = make_task("taboo", "defender", speaker="random")
            >>> task.choice_error(3, ["", "sea", "ship"])
            'choice 3 names no candidate: this decision offers choices 0..2'
        """
        if not 0 <= index < self.n_actions:
            return f"choice {index} is out of range 0..{self.n_actions - 1}"
        if candidates is not None and index >= len(candidates):
            offered = f"choices 0..{len(candidates) - 1}" if candidates else "no choice"
            return f"choice {index} names no candidate: this decision offers {offered}"
        return None

    def env_action(self, index: int, observation: dict[str, Any], info: dict[str, Any],
                   candidates: Sequence[Any] | None, delegate: Any = None) -> Any:
        """The env action for the learner's choice ``index``; with ``combine``, joined with
        what ``delegate`` (the agent playing :attr:`delegate`) answers to the same view.

        None for an index that is no choice of this decision (:meth:`choice_error`): never
        combined, so that a combining task does not turn it into a move (Taboo's would have
        made it the defender's "no guess")."""
        if self.choice_error(index, candidates) is not None:
            return None  # the game rejects it; choice_error says why
        if self.to_env_action is not None:
            action = self.to_env_action(index, observation, info, candidates)
        elif candidates is not None:
            action = candidates[index]
        else:
            action = int(index)
        if self.combine is None:
            return action
        if delegate is None:
            raise ValueError(f"the {self.game}/{self.seat} task combines its choice with the delegate's "
                             "action: pass delegate=")
        return self.combine(action, delegate.act(observation, info))

    def features(self, observation: dict[str, Any], info: dict[str, Any],
                 candidates: Sequence[Any] | None) -> np.ndarray:
        """The learner's feature vector for this decision (the featurizer's ``Box``)."""
        return self.featurizer(observation, info, candidates)

    def score(self, metrics: dict[str, Any], results: Sequence[dict[str, Any]] = ()) -> float | None:
        """The task's metric from the game metrics and results (None when the task has none)."""
        return None if self.metric is None else float(self.metric[1](metrics, list(results)))

    @property
    def metric_name(self) -> str | None:
        """The name of the task's metric (None when it has none)."""
        return None if self.metric is None else self.metric[0]


def learner_env_options(game: str, env_kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The game options a learning view of ``game`` plays with: the game's ``learner_env``
    defaults (:class:`~cluegym.envs.core.registry.GameSpec`) under ``env_kwargs`` (an option
    given there wins).

    Raises:
        ValueError: an unknown game (the message names the registered ones).

    Example:
        >>> learner_env_options("dixit")
        {'reveal_captions': True}
        >>> learner_env_options("dixit", {"num_rounds": 2})
        {'reveal_captions': True, 'num_rounds': 2}
    """
    return {**game_spec(game).learner_env, **dict(env_kwargs or {})}


@contextlib.contextmanager
def learner_defaults_named(game: str, env_kwargs: Mapping[str, Any] | None) -> Iterator[None]:
    """Build a learning view's game env inside this: a ValueError the env raises about an
    option the view set by default (:func:`learner_env_options`), which its caller never wrote
    (e.g. Dixit's ``reveal_captions=True but deck 'x' has no captions``), says so."""
    try:
        yield
    except ValueError as exc:
        given = env_kwargs or {}
        defaulted = [f"{key}={value!r}" for key, value in game_spec(game).learner_env.items()
                     if key not in given and key in str(exc)]
        if not defaulted:
            raise
        raise ValueError(f"{exc} ({game}'s learning views default to {', '.join(defaulted)}: "
                         f"its learner task needs it)") from exc


def make_task(game: str, seat: str, env: Any = None, **options: Any) -> SeatTask:
    """Build the :class:`SeatTask` of ``game``/``seat``: the builder the game names in its
    ``GameSpec.learner_task``, or :func:`generic_task` when it names none.

    Args:
        game: registered game name (or versioned id).
        seat: the learner's seat.
        env: the raw game env the task will play (for its sizes); None: default options.
        **options: the task's own options (e.g. ``embedding="glove"``).

    Raises:
        ValueError: an unknown game, a task missing from this installation, an option the
            task does not take (the message lists those it does), or (generic task) a seat
            whose action is not ``Discrete``.
    """
    reference = game_spec(game).learner_task
    if reference is None:
        options = _check_task_options(game, generic_task, options)
        task = generic_task(game, seat, env, **options)
    else:
        try:
            builder = load_reference(reference)
        except ModuleNotFoundError as exc:
            raise ValueError(f"no learner task for game {game!r} in this installation") from exc
        options = _check_task_options(game, builder, options)
        task = builder(seat, env, **options)
    task.options = dict(options)
    return task


def _check_task_options(game: str, builder: Callable[..., SeatTask], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with each value coerced to the type ``builder`` (a game's task builder)
    declares for it, as game options and agent parameters are (``--task history=False`` was
    the string ``"False"``, so true); ValueError for an option it does not take, naming those
    it does (the call's own TypeError named the builder's function instead), or a value of
    the wrong type."""
    parameters = inspect.signature(builder).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return dict(options)
    known = [name for name, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = [name for name in options if name not in known]
    if unknown:
        raise ValueError(f"{game}'s learner task has no option {', '.join(map(repr, unknown))}; "
                         f"its options: {', '.join(known) or 'none'}")
    try:
        hints = typing.get_type_hints(builder)
    except Exception:  # noqa: BLE001 - an unresolvable annotation: the values go unchecked
        hints = {}
    declared = {name: Option(name, hints.get(name, Any), parameters[name].default) for name in known}
    return check_options(options, declared, owner=f"{game}'s learner task", error=ValueError)


def generic_task(game: str, seat: str, env: Any = None, *, metric: str | None = None) -> SeatTask:
    """The learner task of a game that declares none: the seat's own ``Discrete`` choice
    from its numeric observation fields (:class:`~cluegym.wrappers.numeric.NumericFeatures`),
    masked by ``obs["action_mask"]`` when the game gives one. No role (no snapshot sharing).

    Args:
        game: registered game name.
        seat: the learner's seat.
        env: the raw game env (for its spaces); None: default options.
        metric: the entry of the game's ``metrics()`` that training reports and evaluates
            (``cluegym train GAME --task metric=success_rate``); None: no metric of its own
            (training then reports the seat's mean episode return, ``"mean_return"``).

    Raises:
        ValueError: the seat's action is not ``Discrete`` (such a game needs its own task)
            or its observation has no numeric field.
    """
    raw = env if env is not None else env_module(game).raw_env()
    space = raw.action_space(seat)
    if not isinstance(space, gymnasium.spaces.Discrete):
        raise ValueError(f"no learner task for {game!r} seat {seat!r}: its GameSpec names no learner_task and the "
                         f"seat acts with {type(space).__name__}, not Discrete (the generic task needs Discrete)")
    start = int(space.start)
    return SeatTask(
        game=game, seat=seat, featurizer=NumericFeatures(raw.observation_space(seat)), n_actions=int(space.n),
        to_env_action=functools.partial(_offset_action, start) if start else None,
        metric=None if metric is None else (metric, metrics_entry(game, metric)),
    )


def metrics_entry(game: str, entry: str) -> Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], float]:
    """A task's metric function that reads one entry of ``game``'s ``metrics()`` (a partial
    of a module function: it pickles, as a lambda does not).

    Example:
        >>> metrics_entry("decrypto", "interception_rate")({"interception_rate": 0.25}, [])
        0.25
    """
    return functools.partial(_game_metric, game, entry)


def _offset_action(start: int, index: Any, *_: Any) -> int:
    return start + int(index)


def _game_metric(game: str, name: str, metrics: Mapping[str, Any], results: Sequence[Mapping[str, Any]]) -> float:
    if name not in metrics:
        raise ValueError(f"{game} reports no metric {name!r}; its metrics: {', '.join(sorted(metrics))}")
    return float(metrics[name])
