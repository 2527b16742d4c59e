"""The one PettingZoo AEC adapter that every cluegym game builds on.

:class:`ClueGameEnv` holds the boilerplate once: agent selection, rewards and their
accumulation, terminations and dead steps, seeding (one ``np.random.Generator`` per game),
text hygiene of every free-text action (see :mod:`cluegym.envs.core.text`), validation of
every action with retries and clear reasons in ``infos[agent]["error"]``, a documented
fallback after ``max_retries`` rejections or a :meth:`~ClueGameEnv.forfeit`, and a strict-JSON
game record that replays (see :mod:`cluegym.envs.core.record`).

``env.step`` never raises for any action value (only PettingZoo's own misuse errors, e.g. a
step before ``reset`` or a non-None action for a finished seat): whatever the game's checks
cannot read is rejected as a malformed action.

The game's rules are a :class:`~cluegym.envs.core.rules.GameRules` (``self.rules``) over a
State (``self.state``); the adapter calls its verbs (``new_game``, ``to_move``, ``legal_mask``,
``apply``, ``step_rewards``, ``rewards``, ``result``) here, once for every game. A game's env
sets ``self.rules`` and its spaces and fills in what is about words and spaces (Pgx style)::

    class MyGameEnv(ClueGameEnv):
        game_id = "mygame_v0"
        def __init__(self, **options):
            super().__init__(config=options)
            self.rules = MyRules(...)                # seats -> possible_agents
            self.observation_spaces, self.action_spaces = ..., ...
        def _observe(self, agent): ...               # observation dict with "prompt"
        def _check_action(self, agent, action): ...  # -> (normalized action, error or None)
                                                     #    (Text entries arrive already cleaned)
        def _fallback_action(self, agent): ...       # -> (action, description)

Optional hooks: ``_bare_text_key`` (the Dict entry a bare string stands for), ``_info``,
``_render_text``. The game's checks must be the only parse of an action: ``rules.apply`` gets
the normalized action and must not fail on it, and the normalized action must be plain JSON
(it is what a record replays when the submitted one is not). A game whose fallback keeps the
valid parts of the last rejected action sets ``self._rejected_parts`` (plain JSON) in
``_check_action`` and reads it in ``_fallback_action``; the adapter clears it before each
check and records it for replay.

Every array the env hands out (observations, ``infos[seat]["action_mask"]``) is read-only:
the adapter marks the game's arrays after ``_observe`` and the rules' ``legal_mask``. A game
whose ``_observe`` and ``legal_mask`` return read-only arrays already (shared from step to
step, or marked when made) sets ``frozen_arrays = True`` and the adapter skips that walk
(``tests/games/test_read_only_observations.py`` checks every shipped game).

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> env = cluegym.make("decrypto")
    >>> players = {seat: make_agent("random", game="decrypto", seat=seat, action_space=env.action_space(seat))
    ...            for seat in env.possible_agents}
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter():
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     action = None if terminated or truncated else players[agent].act(obs, info)
    ...     env.step(action)
    >>> env.unwrapped.game_over
    True
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from cluegym.envs.core.infos import SeatInfos
from cluegym.envs.core.matching import preload_word_judge
from cluegym.envs.core.options import call_after_init, check_init_options, check_reset_options
from cluegym.envs.core.rules import GameRules
from cluegym.envs.core.record import (
    RecordedAcceptance, RecordedRejection, decode_action, digest, record_action, to_jsonable,
)
from cluegym.envs.core.rng import check_seed, default_rng
from cluegym.envs.core.seats import UnknownSeatError, seat_entry
from cluegym.envs.core.spaces import ActionTextCleaner, action_mask_builder, action_mask_space, array_keys, read_only
from cluegym.envs.core.text import exception_text, reason_text
from cluegym.envs.core.wrapping import OrderEnforcingWrapper, wrap  # noqa: F401 - games import wrap from here



def _fresh_dicts(value: Any) -> Any:
    """``value`` with each of its dicts (to any depth of dicts) new: what the env hands out of
    a value it keeps (a dict of masks), so that a policy that sets an entry changes its own
    copy. Arrays and tuples are shared: they are read-only or immutable."""
    if type(value) is not dict:
        return value
    for item in value.values():
        if type(item) is dict:  # a nested Dict action: its dicts new too
            return {key: _fresh_dicts(item) for key, item in value.items()}
    return {**value}  # the usual flat dict of masks, in one copy


def _handed_out(obs: dict[str, Any]) -> dict[str, Any]:
    """A new dict over a kept observation's values, as ``observe`` hands it out: a Dict
    action's masks a dict of their own too, like the observation."""
    obs = dict(obs)
    mask = obs.get("action_mask")
    if type(mask) is dict:
        obs["action_mask"] = _fresh_dicts(mask)
    return obs


#: The value of a seat's legal mask not built yet for the current State (see _legal_mask).
_NOT_BUILT = object()
#: How many built action masks an env keeps (see ClueGameEnv.action_mask).
_BUILT_MASKS_KEPT = 1024

#: The two composite action spaces, for exact-type checks at every step.
_TUPLE_SPACE, _DICT_SPACE = gymnasium.spaces.Tuple, gymnasium.spaces.Dict

#: Longest forfeit reason kept in a record (longer ones are clipped).
FORFEIT_REASON_MAX_CHARS = 2000


class ClueGameEnv(AECEnv):
    """Base AEC environment for turn-based clue games (see module docstring for the hooks).

    Args:
        max_retries: how many times a seat may resubmit after an invalid action before the
            game's fallback action is applied (and recorded) in its place.
        render_mode: ``"human"`` prints the table, ``"ansi"`` returns it as a string.
        record_observations: store an observation digest per step in the game record, so
            :func:`cluegym.envs.core.record.replay` can verify a replay.

    Attributes:
        config: the game's JSON-serialisable options (recorded with every game).
        rng: the game's generator, created by :meth:`reset` from its seed.
        last_error: why the last :meth:`step` rejected its action (also when the game's
            fallback then applied), None when the action was applied: what
            ``infos[seat]["error"]`` says, without building the seat's info (the learning
            views read it after every learner move).
        last_fallback: whether the last :meth:`step` or :meth:`forfeit` applied the game's
            fallback (``infos[seat]["fallback"]``).
    """

    # is_parallelizable is PettingZoo's "aec_to_parallel can convert this AEC env": it cannot
    # (phases are sequential, not one move per seat per cycle). Every game has a native
    # parallel view instead, ``<game>_v0.parallel_env()`` (:mod:`.parallel`), whose metadata
    # says True.
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "is_parallelizable": False}
    #: Registered versioned id, e.g. ``"decrypto_v0"``.
    game_id: str = ""
    #: The game judges free text with :mod:`~cluegym.envs.core.matching` (whether a hint or a
    #: description says a protected word): :meth:`preload` loads the judge.
    word_judge: bool = False
    #: Whether the game's ``_observe`` and its rules' ``legal_mask`` return read-only arrays
    #: only (then the adapter does not mark them at every new State; see the module docstring).
    frozen_arrays: bool = False
    #: The observation keys only text and vision agents read (the prompt; Dixit's card
    #: images): :meth:`lean_observe` leaves them out.
    full_only_keys: tuple[str, ...] = ("prompt",)
    #: Whether the game's hook takes ``_observe(agent, lean=True)`` and then builds none of
    #: :attr:`full_only_keys` (their cost saved); otherwise :meth:`lean_observe` builds the
    #: whole observation and drops them.
    observes_lean: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every game's options are checked and coerced against its __init__ signature before
        # the body runs, on every construction path (raw_env, env, cluegym.make, the class).
        super().__init_subclass__(**kwargs)
        check_init_options(cls)
        call_after_init(cls, "_add_action_mask_spaces")

    def __init__(
        self,
        *,
        max_retries: int = 3,
        render_mode: str | None = None,
        record_observations: bool = True,
        config: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(max_retries, (int, np.integer)) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} not supported; choose from {self.metadata['render_modes']}"
            )
        self.max_retries = int(max_retries)
        self.render_mode = render_mode
        self.record_observations = record_observations
        self.config: dict[str, Any] = {
            **(config or {}),
            "max_retries": self.max_retries,
            "record_observations": record_observations,
        }
        self.observation_spaces: dict[str, gymnasium.Space] = {}
        self.action_spaces: dict[str, gymnasium.Space] = {}
        #: The current game's State (``None`` before the first ``reset``).
        self.state: Any = None
        self.rng = np.random.default_rng()
        #: Seats whose observation carries ``action_mask`` (set after the game's __init__).
        self._mask_seats: set[str] = set()
        #: Per seat, its action space with what is made from it once (see :meth:`_for_space`):
        #: the function that builds its action mask, the cleaner of its actions' text.
        self._mask_builders: dict[str, tuple[gymnasium.Space, Any]] = {}
        self._cleaners: dict[str, tuple[gymnasium.Space, ActionTextCleaner]] = {}
        #: Action masks built, by (seat, id of the rules' legal mask, acting): (legal mask,
        #: action space, mask).
        self._built_masks: dict[tuple[str, int, bool], tuple[Any, gymnasium.Space, Any]] = {}
        self._seed: int | None = None
        self.last_error: str | None = None
        self.last_fallback = False
        #: Draws the seed of each game started by ``reset()`` without a seed (see :meth:`reset`).
        self._seed_generator: np.random.Generator | None = None
        self._options: dict[str, Any] | None = None
        self._steps: list[dict[str, Any]] = []
        self._retries: dict[str, int] = {}
        self._counters: dict[str, int] = {}
        #: What the last rejected action left for the fallback (set by the game's checks).
        self._rejected_parts: Any = None
        # Observations (and their digests) of the current State, per seat. An observation is
        # a function of the State alone, so it is built once per move: last(), the record's
        # digest and the parallel view all ask for it. Cleared whenever the State changes.
        self._observations: dict[str, dict[str, Any]] = {}
        # The same without full_only_keys (lean_observe), per seat of the current State.
        self._lean_observations: dict[str, dict[str, Any]] = {}
        self._digests: dict[str, str] = {}
        # The rules' legal_mask per seat of the current State: infos and obs["action_mask"]
        # both read it at every step. Cleared with the observations.
        self._legal_masks: dict[str, Any] = {}
        #: Per seat, its observation space and the entries of it that can hold arrays.
        self._array_keys: dict[str, tuple[gymnasium.Space | None, tuple[str, ...]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        # Pickled and deep-copied without the mask builders and text cleaners (closures:
        # rebuilt when asked) and without the current State's observations, digests and legal
        # masks (rebuilt when asked: a copy of a read-only array comes back writable).
        state = dict(self.__dict__)
        state["_mask_builders"], state["_cleaners"], state["_built_masks"] = {}, {}, {}
        state["_observations"], state["_digests"], state["_legal_masks"] = {}, {}, {}
        state["_lean_observations"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # A copied array comes back writable, and the game keeps views of its State with
        # arrays in them (see frozen_arrays): the copy marks what it hands out itself.
        self.frozen_arrays = False
        self.__dict__.setdefault("_array_keys", {})  # pickled by an older version
        self.__dict__.setdefault("_built_masks", {})
        read_only(list(dict.values(self.__dict__.get("infos") or {})))  # a copy's infos are built

    # ------------------------------------------------------------------ hooks
    @property
    def rules(self) -> GameRules:
        """The game's rules (see :mod:`cluegym.envs.core.rules`); set by the game's ``__init__``."""
        return self._rules

    @rules.setter
    def rules(self, rules: GameRules) -> None:
        self._rules = rules
        self.possible_agents = list(rules.seats)

    def _observe(self, agent: str) -> dict[str, Any]:
        """The observation of ``agent`` (a dict matching its observation space)."""
        raise NotImplementedError

    def _info(self, agent: str) -> dict[str, Any]:
        """Extra info for ``agent`` (e.g. the last turn's outcome as that seat may see it)."""
        return {}

    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        """Validate ``action``; return (normalized action, None) or (None, reason)."""
        raise NotImplementedError

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        """The action applied after too many rejections (or a forfeit), and a description of it."""
        raise NotImplementedError

    def _bare_text_key(self, agent: str) -> str | None:
        """The ``Dict`` action entry a bare string stands for now (e.g. ``"utterance"``), so
        it is cleaned like that entry; None when the game does not take a bare string."""
        return None

    def match_game_options(self, index: int) -> dict[str, Any] | None:
        """The ``reset(options=...)`` of game ``index`` of a seeded match, or None (default).

        The match harness asks every env; a game overrides it when a protocol fixes what each
        game of a match plays (Undercover's every-word-pair schedule)."""
        return None

    def check_optioned_game(self, state: Any) -> None:
        """Check a game that ``reset(options=...)`` set up against this env's spaces (the
        rules' ``new_game`` has checked the options' types and the game's rules already).

        The env's word lists are checked when it is built; a word given as a reset option
        is checked here, the same way (a keyword longer than its Text space, or outside its
        charset, made observations outside the observation space). Default: nothing to check.

        Raises:
            ValueError: the game does not fit the spaces; ``reset`` then changes nothing.
        """

    def preload(self) -> None:
        """Load now what the game otherwise loads the first time it needs it, so that the
        first games run as fast as the later ones (and worker processes forked after this
        share what it loaded): the word judge of a game that sets :attr:`word_judge`
        (:func:`~cluegym.envs.core.matching.preload_word_judge`); Dixit reads every card of
        its deck.

        Example:
            >>> import cluegym
            >>> env = cluegym.make("dixit")
            >>> env.unwrapped.preload()  # ~0.5 s for the shipped deck, once per process
        """
        if self.word_judge:
            preload_word_judge()

    def _render_text(self) -> str:
        """A human-readable view of the table."""
        return ""

    def action_from_json(self, agent: str, action: Any) -> Any:
        """Rebuild an action from its JSON form in a record (tags decoded, see
        :func:`~cluegym.envs.core.record.decode_action`; a ``Tuple`` action's list back to a tuple)."""
        action = decode_action(action)
        if isinstance(self.action_spaces[agent], gymnasium.spaces.Tuple) and isinstance(action, list):
            return tuple(action)
        return action

    # ------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> gymnasium.Space:
        return seat_entry(self.observation_spaces, agent, self._unknown_seat)

    def action_space(self, agent: str) -> gymnasium.Space:
        return seat_entry(self.action_spaces, agent, self._unknown_seat)

    def _unknown_seat(self, agent: Any) -> UnknownSeatError:
        """The error for a seat name this game does not have (a ValueError and a KeyError)."""
        return UnknownSeatError.of(self.game_id or type(self).__name__, agent, self.possible_agents)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``: the selected seat's ``(observation, cumulative reward,
        terminated, truncated, info)`` (here, so that a compiled game layer runs it too)."""
        agent = self.agent_selection
        assert agent is not None
        return (
            self.observe(agent) if observe else None, self._cumulative_rewards[agent], self.terminations[agent],
            self.truncations[agent], self.infos[agent],
        )

    def _clear_rewards(self) -> None:
        """PettingZoo's: every seat's reward of the step set to 0 (here for the same reason)."""
        rewards = self.rewards
        for agent in rewards:
            rewards[agent] = 0

    def observe(self, agent: str) -> dict[str, Any]:
        """The seat's observation; a seat whose action has a discrete part also gets
        ``obs["action_mask"]`` (see :meth:`action_mask`).

        Built once per State and seat; each call returns a new dict over the same values (a
        dict of action masks new too). Its arrays are read-only (writing one raises numpy's
        ``ValueError``; copy it to change it): the env reads them again, for the record's
        digest and its legality checks, so a policy that wrote into them would change the
        game behind the env's back."""
        try:
            obs = self._observations.get(agent)
        except TypeError:  # an unhashable name: the error the spaces raise for it
            raise self._unknown_seat(agent) from None
        return _handed_out(obs if obs is not None else self._built_observation(agent))

    def lean_observe(self, agent: str) -> dict[str, Any]:
        """The seat's observation without :attr:`full_only_keys` (the prompt; Dixit's card
        images): what the learning views' featurizers read (a :class:`SeatTask` with
        ``lean_observation``), at a fraction of the prompt's and images' cost.

        Every other entry is :meth:`observe`'s, the same values; built once per State and
        seat (taken from the full observation when that is built already); a new dict each
        call, its arrays read-only.

        Example:
            >>> import cluegym
            >>> env = cluegym.make("decrypto")
            >>> env.reset(seed=0)
            >>> lean = env.unwrapped.lean_observe("alice")
            >>> "prompt" in lean, sorted(lean) == sorted(set(env.observe("alice")) - {"prompt"})
            (False, True)
        """
        try:
            obs = self._lean_observations.get(agent)
        except TypeError:  # an unhashable name: the error the spaces raise for it
            raise self._unknown_seat(agent) from None
        if obs is None:
            if agent not in self.observation_spaces:
                raise self._unknown_seat(agent)
            full = self._observations.get(agent)
            if full is None and self.observes_lean:
                obs = self._finished_observation(agent, self._observe(agent, True))
            else:
                dropped = self.full_only_keys
                full = full if full is not None else self._built_observation(agent)
                obs = {key: value for key, value in full.items() if key not in dropped}
            self._lean_observations[agent] = obs
        return _handed_out(obs)

    def _built_observation(self, agent: str) -> dict[str, Any]:
        """The observation the env keeps for ``agent`` in this State (built now if not yet):
        what :meth:`observe` hands out copies of, and what the record digests."""
        obs = self._observations.get(agent)
        if obs is None:
            if agent not in self.observation_spaces:  # checked once per State and seat
                raise self._unknown_seat(agent)
            obs = self._observations[agent] = self._finished_observation(agent, self._observe(agent))
        return obs

    def _finished_observation(self, agent: str, obs: dict[str, Any]) -> dict[str, Any]:
        """The game hook's ``obs`` of ``agent`` as the env keeps it: its arrays read-only, the
        seat's ``action_mask`` added (itself read-only as built, see action_mask_builder)."""
        if not self.frozen_arrays:
            self._freeze_arrays(agent, obs)
        if agent in self._mask_seats:
            obs["action_mask"] = self.action_mask(agent)
        return obs

    def _freeze_arrays(self, agent: str, obs: dict[str, Any]) -> None:
        """Mark the arrays of the game's observation read-only: the entries of ``agent``'s
        observation space that can hold arrays (see
        :func:`~cluegym.envs.core.spaces.array_keys`; found once per seat and space)."""
        space = self.observation_spaces.get(agent)
        entry = self._array_keys.get(agent)
        if entry is None or entry[0] is not space:
            entry = self._array_keys[agent] = (space, tuple(key for key in array_keys(space) if key != "action_mask"))
        for key in entry[1]:
            value = obs.get(key)
            if type(value) is np.ndarray:
                value.setflags(False)  # write=False, without numpy's keyword parsing
            elif value is not None:
                read_only(value)

    def _observation_digest(self, agent: str) -> str:
        """:func:`~cluegym.envs.core.record.digest` of ``observe(agent)``, once per State."""
        value = self._digests.get(agent)
        if value is None:
            value = self._digests[agent] = digest(self._built_observation(agent))
        return value

    def _state_changed(self) -> None:
        """Forget the observations of the previous State (call after every change of it)."""
        self._observations.clear()
        self._lean_observations.clear()
        self._digests.clear()
        self._legal_masks.clear()

    def _legal_mask(self, agent: str) -> Any:
        """``rules.legal_mask(state, agent)``, once per State."""
        # get() with a marker, not try/except: the first ask of every State is a miss, and a
        # raised KeyError costs more than the lookup (None is a legal mask: a text action).
        mask = self._legal_masks.get(agent, _NOT_BUILT)
        if mask is _NOT_BUILT:
            # Read-only: infos and obs["action_mask"] hand it out, and the game's checks read it.
            mask = self._legal_masks[agent] = self._rules.legal_mask(self.state, agent)
            if not self.frozen_arrays and mask is not None:
                read_only(mask)
        return mask

    def action_mask(self, agent: str) -> Any:
        """``obs["action_mask"]`` of ``agent`` (PettingZoo's convention), from the rules'
        ``legal_mask``: an int8 array for a ``Discrete`` action, a dict (tuple) of masks for a
        ``Dict`` (``Tuple``) action, Text entries as Gymnasium's ``(length, charset mask)``;
        all zero when the seat is not in the current simultaneous block. Exactly what
        ``action_space(agent).sample(mask=...)`` takes (see
        :func:`~cluegym.envs.core.spaces.action_mask_value`; a seat's
        :func:`~cluegym.envs.core.spaces.action_mask_builder` is made once)."""
        state = self.state
        acting = state is not None and bool(self._rules.acts_now(state, agent))
        legal = self._legal_mask(agent)
        # The rules may return the same (never changed) mask again: what was built from it
        # holds (see GameRules.legal_mask), for the same action space. Kept per seat, legal
        # mask (by identity, the mask held so that its id stays its own) and acting: a seat
        # meets the same few masks again (its block's, nobody's, a revealed set's).
        space = self.action_spaces[agent]
        key = (agent, id(legal), acting)
        kept = self._built_masks.get(key)
        if kept is not None and kept[0] is legal and kept[1] is space:
            return kept[2]
        build = self._for_space(self._mask_builders, agent, action_mask_builder)
        mask = build(legal, acting)
        if len(self._built_masks) >= _BUILT_MASKS_KEPT:
            self._built_masks.clear()
        self._built_masks[key] = (legal, space, mask)
        return mask

    def _for_space(self, made: dict[str, tuple[gymnasium.Space, Any]], agent: str, make: Any) -> Any:
        """``make(action_space(agent))``, kept in ``made`` per seat: made once (again if the
        seat's space is replaced), not walked at every step."""
        space = self.action_spaces[agent]
        entry = made.get(agent)
        if entry is None or entry[0] is not space:
            entry = made[agent] = (space, make(space))
        return entry[1]

    def _add_action_mask_spaces(self) -> None:
        """Add ``action_mask`` to the observation space of every seat with a discrete action
        part (called once, after the game's ``__init__`` has built its spaces)."""
        self._mask_seats = set()
        for seat, space in self.action_spaces.items():
            mask = action_mask_space(space)
            observation = self.observation_spaces.get(seat)
            if mask is None or not isinstance(observation, gymnasium.spaces.Dict):
                continue
            self.observation_spaces[seat] = gymnasium.spaces.Dict({**observation.spaces, "action_mask": mask})
            self._mask_seats.add(seat)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. The same ``seed`` (and actions) gives the same game.

        Seeding follows Gymnasium: ``reset(seed=s)`` reseeds; the first ``reset()`` without a
        seed seeds from OS entropy; later ones continue the env's generator, so
        ``reset(seed=s); ...; reset(); ...`` plays the same games every time. Each game still
        records its own integer seed (drawn from that generator), so every record replays alone.

        A ``reset`` that raises changes nothing: the last game (its State and record) stays
        as it was, and the next ``reset`` works as if this one had not been called.

        Raises:
            TypeError: ``seed`` is neither None nor an integer (a float or a bool is not a
                seed), or ``options`` is neither None nor a mapping.
            ValueError: a negative ``seed``, or options the game does not accept.

        Example:
            >>> import cluegym
            >>> env = cluegym.make("taboo")
            >>> env.reset(seed=3); env.unwrapped.game_record()["seed"]
            3
            >>> env.reset(); second = env.unwrapped.game_record()["seed"]        # drawn from 3: the same every run
        """
        check_seed(seed)
        if options is not None:
            check_reset_options(options, self._rules.reset_options, self.game_id)
        seed_generator = self._seed_generator
        if seed is None and self._seed is not None:
            if seed_generator is None:
                # Built on the first reset() without a seed (not at every seeded reset: a
                # generator costs as much as a short game's step).
                seed_generator = np.random.default_rng(np.random.SeedSequence(self._seed, spawn_key=(1,)))
            seed = int(seed_generator.integers(2**63, dtype=np.uint64))
            drawn = True
        else:
            if seed is None:
                seed = int(np.random.SeedSequence().entropy % (2**63))
            seed_generator, drawn = None, False
        seed = int(seed)  # numpy's integers (np.uint64 included) as the record's plain int
        rng = default_rng(seed)  # numpy's default_rng(seed), built faster
        # The game's own checks of the options run here, before anything of the last game
        # is replaced.
        try:
            state = self._rules.new_game(rng, options)
            if options:
                self.check_optioned_game(state)
        except BaseException:
            if drawn:  # undone, so that the next reset() draws this seed again: a draw below
                # 2**63 is exactly one 64-bit output of PCG64 (its mask needs no rejection)
                seed_generator.bit_generator.advance(-1)
            raise
        self._seed_generator = seed_generator
        self._seed = seed
        self._options = to_jsonable(options) if options else None
        self.rng = rng
        self.agents = list(self.possible_agents)
        fresh = dict.fromkeys
        self.rewards = fresh(self.agents, 0.0)
        self._cumulative_rewards = fresh(self.agents, 0.0)
        self.terminations = fresh(self.agents, False)
        self.truncations = fresh(self.agents, False)
        self._retries = fresh(self.agents, 0)
        self._counters = {"invalid_actions": 0, "fallbacks": 0, "forfeits": 0}
        self._steps = []
        self._rejected_parts = None
        self._skip_agent_selection = None
        self.last_error, self.last_fallback = None, False
        self.state = state
        self._state_changed()
        self._refresh_infos()
        self.agent_selection = self._rules.to_move(self.state)
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        obs_digest = self._begin_decision(agent)
        normalized, error = self._validate(agent, action)
        space = self.action_spaces[agent]
        # The exact types first: gymnasium's spaces check isinstance through the ABC machinery.
        top_tuple = type(space) is _TUPLE_SPACE or (type(space) is not _DICT_SPACE and isinstance(space, _TUPLE_SPACE))
        recorded = record_action(action, normalized, error, top_tuple=top_tuple, rejected_parts=self._rejected_parts)
        entry: dict[str, Any] = {"agent": agent, "action": recorded, "obs": obs_digest}
        self.last_error = error
        if error is None:
            self.last_fallback = False
            self._finish_move(agent, normalized, entry, {})
            return
        self._retries[agent] += 1
        self._counters["invalid_actions"] += 1
        entry["error"] = error
        self.last_fallback = self._retries[agent] > self.max_retries
        if not self.last_fallback:
            self._steps.append(entry)
            self._refresh_infos()
            self.infos[agent].update(
                error=error,
                rejected_action=entry["action"],
                retries_left=self.max_retries - self._retries[agent] + 1,
            )
            self._accumulate_rewards()
            return
        normalized, fallback_note = self._fallback_action(agent)
        self._counters["fallbacks"] += 1
        entry["fallback"] = {"action": to_jsonable(normalized), "reason": fallback_note}
        self._finish_move(agent, normalized, entry, {"error": error, "fallback": fallback_note})

    def _was_dead_step(self, action: Any) -> None:
        """PettingZoo's step of a finished seat (the same checks and effects): the seat leaves
        ``agents`` and the per-seat dicts, the next finished seat (or the one PettingZoo kept
        aside) is selected, rewards are cleared. Written out here because every game ends
        with one such step per seat."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        terminations, truncations = self.terminations, self.truncations
        assert terminations[agent] or truncations[agent], "an agent that was not dead as attempted to be removed"
        del terminations[agent], truncations[agent], self.rewards[agent], self._cumulative_rewards[agent]
        del self.infos[agent]
        self.agents.remove(agent)
        dead = next((seat for seat in self.agents if terminations[seat] or truncations[seat]), None)
        if dead is not None:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = dead
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        self._clear_rewards()

    def forfeit(self, reason: str) -> None:
        """The seat to move gives up its current decision (e.g. its agent failed).

        The game's fallback applies at once, exactly as after ``max_retries`` rejections; the
        step is recorded with ``"action": None``, ``"forfeit": reason`` and the fallback, and
        counted in ``counters["forfeits"]`` and ``counters["fallbacks"]``;
        ``infos[seat]`` gets ``forfeit`` and ``fallback``. :func:`~cluegym.envs.core.record.replay`
        forfeits the same steps again.

        Args:
            reason: why the seat gave up (kept in the record, clipped to
                :data:`FORFEIT_REASON_MAX_CHARS` characters).

        Raises:
            RuntimeError: before ``reset`` or when no decision is pending (the game is over
                or the selected seat is done).

        Example:
            >>> import cluegym
            >>> env = cluegym.make("taboo")
            >>> env.reset(seed=0)
            >>> env.unwrapped.forfeit("agent error: TimeoutError: no reply in 60 s")
            >>> env.unwrapped.game_record()["steps"][0]["forfeit"]
            'agent error: TimeoutError: no reply in 60 s'
        """
        agent = getattr(self, "agent_selection", None)
        terminations, truncations = getattr(self, "terminations", {}), getattr(self, "truncations", {})
        if agent is None or self._seed is None:
            raise RuntimeError("forfeit() needs a game in progress: call reset() first")
        if agent not in terminations or terminations[agent] or truncations.get(agent):
            raise RuntimeError(f"forfeit(): {agent!r} has no decision to give up (its game is over)")
        reason = reason_text(reason, FORFEIT_REASON_MAX_CHARS)
        self.last_error, self.last_fallback = None, True
        obs_digest = self._begin_decision(agent)
        normalized, fallback_note = self._fallback_action(agent)
        self._counters["forfeits"] += 1
        self._counters["fallbacks"] += 1
        entry: dict[str, Any] = {
            "agent": agent, "action": None, "forfeit": reason, "obs": obs_digest,
            "fallback": {"action": to_jsonable(normalized), "reason": fallback_note},
        }
        self._finish_move(agent, normalized, entry, {"forfeit": reason, "fallback": fallback_note})

    def _begin_decision(self, agent: str) -> str | None:
        """Clear last step's rewards; the digest of the observation ``agent`` decides on."""
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        # The observation as observe() shows it (action_mask included), as replay() checks
        # it; not _observe()'s.
        return self._observation_digest(agent) if self.record_observations else None

    def _validate(self, agent: str, action: Any) -> tuple[Any, str | None]:
        """Clean the action's text, then run the game's checks; never raises."""
        self._rejected_parts = None
        # Exact type checks: isinstance() may run a hostile value's __class__ property.
        if type(action) is RecordedRejection:
            self._rejected_parts = action.parts
            return None, action.error
        if type(action) is RecordedAcceptance:
            return action.action, None
        try:
            clean = self._for_space(self._cleaners, agent, ActionTextCleaner)
            cleaned, error = clean(action, self._bare_text_key(agent))
            if error is not None:
                return None, error
            return self._check_action(agent, cleaned)
        except Exception as exc:  # noqa: BLE001 - a malformed action must never crash the env
            return None, f"malformed action ({exception_text(exc)})"

    def _finish_move(self, agent: str, action: Any, entry: dict[str, Any], info: dict[str, Any]) -> None:
        """Apply an accepted (or fallback) action, record the step, pass the turn."""
        # Locals: the rules change the State in place (never rebind it), and each attribute
        # read is a dictionary lookup in compiled code too.
        rules, state, rewards = self._rules, self.state, self.rewards
        self._retries[agent] = 0
        events = rules.apply(state, agent, action, self.rng)
        self._state_changed()
        entry["events"] = events if rules.plain_json else to_jsonable(events)
        self._steps.append(entry)
        step_rewards = rules.step_rewards(state, events)
        for seat, reward in step_rewards.items():
            rewards[seat] += float(reward)
        next_agent = rules.to_move(state)
        self._refresh_infos()
        if info:
            self.infos[agent].update(info)
        rewarded = bool(step_rewards)
        if next_agent is None:
            for seat, reward in rules.rewards(state).items():
                rewards[seat] += float(reward)
                rewarded = True
            terminations = self.terminations
            for seat in self.agents:
                terminations[seat] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = next_agent
        # The rewards were cleared when this decision began (_begin_decision): a move that
        # gave none has nothing to accumulate (most moves).
        if rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _refresh_infos(self) -> None:
        """New infos for the current State: every seat's is built when first read (see
        :mod:`.infos`)."""
        if type(getattr(self, "infos", None)) is not SeatInfos:  # first reset, or unpickled
            self.infos = SeatInfos(self._seat_info)
        self.infos.reset(self.agents)

    def _seat_info(self, seat: str) -> dict[str, Any]:
        """``infos[seat]``: the game's ``_info`` and the seat's legal mask."""
        info = dict(self._info(seat))
        mask = self._legal_mask(seat)
        if mask is not None:
            # The arrays read-only, a dict of masks new (see observe).
            info["action_mask"] = mask if type(mask) is not dict else _fresh_dicts(mask)
        return info

    def render(self) -> str | None:
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ records
    @property
    def game_over(self) -> bool:
        """Whether the current game has ended."""
        return self.state is not None and self._rules.to_move(self.state) is None

    def _config_json(self) -> dict[str, Any]:
        """``to_jsonable(self.config)``, converted again only when the config changed (every
        record carries it; the options are set once, at construction). A new dict each time,
        with new copies of its lists and dicts, as the conversion gave."""
        kept = self.__dict__.get("_kept_config")
        if kept is None or kept[0] != self.config:
            converted = to_jsonable(self.config)
            nested = tuple(key for key, value in converted.items() if type(value) is list or type(value) is dict)
            kept = self._kept_config = (copy.deepcopy(self.config), converted, nested)
        config = dict(kept[1])
        for key in kept[2]:
            config[key] = to_jsonable(config[key])
        return config

    def game_record(self) -> dict[str, Any]:
        """The JSON-serialisable record of the current game (see :mod:`.record`)."""
        record = {
            "game": self.game_id,
            "config": self._config_json(),
            "seed": self._seed,
            "options": self._options,
            "steps": list(self._steps),
            "counters": dict(self._counters),
        }
        result = self.game_result()
        if result is not None:
            record["result"] = result
        return record

    def game_result(self) -> dict[str, Any] | None:
        """``game_record()["result"]`` of a finished game (the rules' outcome and the counters,
        what the game's ``metrics`` read) without the rest of the record; None while the game
        runs.

        Example:
            >>> import cluegym
            >>> env = cluegym.make("taboo")
            >>> env.reset(seed=0, options={"target": "apple"})
            >>> env.unwrapped.game_result() is None   # the game runs
            True
            >>> env.step({"utterance": "A red fruit."}); env.step({"utterance": "", "guess": "pear"})
            >>> env.unwrapped.game_result()["winner"]
            'attacker'
        """
        if not self.game_over:
            return None
        result = {**self._rules.result(self.state), **self._counters}
        return result if self._rules.plain_json else to_jsonable(result)
