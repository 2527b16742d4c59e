"""Undercover as a PettingZoo AEC environment (``cluegym.envs.undercover_v0``).

The game itself is :class:`~cluegym.envs.undercover.rules.UndercoverRules` (the rules protocol
of :mod:`cluegym.envs.core.rules`), which the shared adapter drives; this module adds the
spaces, the observations and prompts, the action checks (with the belief reports) and their
fallback, and the rendering.

Game card
---------
Seats: ``player_0`` .. ``player_{N-1}`` (default N = 5: 3 civilians, 2 undercover; any N >= 3
with 1..N/2 undercover). A word pair is drawn per game from CoMet's 200 pairs (100 animal,
100 food; or yours) and which of its words is the undercover one is drawn at random. Every
player sees its own word, never its role.

Each round: a speaking phase in a freshly shuffled order (each living player gives a one-
sentence description), then a voting phase: each living player, in seat order, votes for
another living player, and nobody sees a vote of the round, or how many were cast, before
all have voted (the votes are buffered and revealed together). The voters still to vote are
one simultaneous block (``rules.simultaneous``): ``parallel_env()`` lets them vote in one
step. The single most-voted player is eliminated; a tie eliminates nobody. Civilians win when
every undercover player is out; the undercover win when one civilian is left; after
``max_rounds`` (10) rounds ``timeout_winner`` (civilians) wins. Eliminated players stay in
``agents`` (never selected again) until the game ends, so that they receive their team's
reward.

Observations (``Dict``), per seat:
    prompt: CoMet's rules (appendix C; no strategy), the seat's name and word, the public transcript
        (speaking order, descriptions, votes by round once revealed, eliminations), and what
        to answer now.
    word: the seat's secret word.
    player: the seat's index.
    team_sizes: [civilians, undercover] at the start (public, as in CoMet's prompts).
    phase: 0 speaking, 1 voting, 2 game over.
    round: current round (0-based).
    alive: 1 per living player.
    speaking_order: this round's speaking order (player indices, -1 padded).
    descriptions: per round, per player, the description ("" when none).
    votes: per round, per voter, the player voted for (-1: no vote or not revealed yet).
    eliminated_round: per player, the round it was eliminated in (-1: alive).
    vote_mask: 1 for the players the seat may vote for.
    action_mask: ``{"vote": ...}``: the vote_mask while the seat acts (the speaker; a voter
        still to vote), all zeros otherwise; the Text entries as Gymnasium's ``(length,
        charset mask)``.

Actions: ``Dict(description=Text, vote=Discrete(N), beliefs=Text)``. The phase says which
entry counts: ``description`` when speaking, ``vote`` when voting (a bare string or int is
accepted too). ``beliefs`` is optional JSON (``{"self": "civilian", "others": {"player_1":
"undercover"}, "other_word": "tiger"}``), recorded for the identity metrics and never
affecting the game; an unreadable report is recorded with its reason, never rejected (only a
report longer than 2000 characters is, like any Text entry over its bound).
``infos[seat]["action_mask"] = {"vote": int8 mask}``, as in the observation.

Invalid actions (an empty or too long description, one that says the speaker's own word or a
derivative of it, a vote for oneself, an eliminated or unknown player, a wrong type) are
rejected with the reason in ``infos[seat]["error"]`` and the seat acts again, up to
``max_retries``. Fallbacks: the description ``"(silence)"``; no vote.

Rewards: at the end, +1 to every player of the winning team (eliminated or not), -1 to the
losing team; 0 to all on a draw (``timeout_winner="none"``).

Example:
    >>> from cluegym.envs import undercover_v0
    >>> env = undercover_v0.env(num_players=6, num_undercover=2)
    >>> env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> print(obs["prompt"].splitlines()[0])
    You are playing the word game Undercover with 6 players.
"""

from __future__ import annotations

import functools

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Sequence

import gymnasium
try:
    import cython
except ImportError:  # no Cython at run time: the type declarations do nothing
    from cluegym.envs.core import cython_fallback as cython
import numpy as np

from cluegym.envs.core import ClueGameEnv, int_box, mask_space, read_only, text_space, text_tuple, wrap
from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.data import checked_game_words
from cluegym.envs.core.text import describe, to_charset
from cluegym.envs.undercover.beliefs import parse_beliefs
from cluegym.envs.undercover.config import SILENCE, UndercoverConfig
from cluegym.envs.undercover.metrics import metrics
from cluegym.envs.undercover.prompts import full_prompt, rules_prompt, transcript
from cluegym.envs.undercover.rules import UndercoverRules
from cluegym.envs.undercover.state import UndercoverState
from cluegym.envs.undercover.view import FinishedRounds, PublicView, finished_rounds, public_view
from cluegym.envs.undercover.word_pairs import load_word_pairs, random_vocabulary

__all__ = [
    "UndercoverEnv", "env", "raw_env", "metrics", "random_vocabulary", "load_word_pairs", "DEFAULT_AGENTS",
    "RANDOM_AGENT_EMPTY_ENTRIES",
]

#: Agents used by ``cluegym run undercover`` for seats not given on the command line.
DEFAULT_AGENTS: dict[str, str] = {"*": "glove"}
#: Action entries the ``random`` agent leaves empty: a random word is never a readable belief
#: report, and would record an unreadable-beliefs event at every move.
RANDOM_AGENT_EMPTY_ENTRIES: tuple[str, ...] = ("beliefs",)
WORD_MAX_CHARS = 60


def _word_as_used(word: str) -> str:
    """A secret word as the rules use it (:meth:`UndercoverRules.new_game`)."""
    return to_charset(str(word)).strip().lower()


@functools.lru_cache(maxsize=16)
def _check_word_pairs(pairs: tuple[tuple[str, ...], ...]) -> None:
    """Raise ValueError for a pair a game cannot use (once per list and process: envs are
    built per game): a word empty or too long once normalized, or two that become one."""
    for pair in pairs:
        civilian, undercover = checked_game_words(pair, _word_as_used, WORD_MAX_CHARS, "word")
        if civilian == undercover:
            raise ValueError(f"word pair {list(pair)!r} is one word once normalized ({civilian!r})")
BELIEFS_MAX_CHARS = 2000
PHASES: tuple[str, ...] = ("speak", "vote", "over")
_PHASE_INDEX: dict[str, int] = {phase: i for i, phase in enumerate(PHASES)}
_ACTION_FIELDS: tuple[str, ...] = ("description", "vote", "beliefs")


class UndercoverEnv(ClueGameEnv):
    """Undercover, N seats (see the module docstring for the full game card).

    Args:
        num_players: players, 3-20 (default 5).
        num_undercover: undercover players, 1..num_players // 2 (default 2).
        max_rounds: rounds before the game ends on timeout, 1-1000 (default 10).
        timeout_winner: ``"civilians"`` (default, as CoMet's code), ``"undercover"`` or ``"none"``.
        word_pairs: None for CoMet's 200 pairs, a path (JSON or ``a, b`` lines) or a list of pairs.
        themes: restrict to ``"animals"`` and/or ``"food"`` (or your JSON file's themes).
        undercover_seats: fix the undercover seats (e.g. ``[3, 4]``) instead of drawing them,
            for method-per-role experiments; the players are still not told their roles.
        strict_word_check: also reject a description containing the own word inside another
            word (``beehive`` for ``bee``) or one word of a multi-word word.
        max_description_chars: longest description accepted, 10-100000 (default 200).
        pair_schedule: ``"random"`` (default: each game draws its pair) or ``"every_pair"``
            (CoMet's protocol: game ``i`` of a match plays pair ``i // episodes_per_pair`` of
            the list, in order; a match of ``len(pairs) * episodes_per_pair`` games plays every
            pair ``episodes_per_pair`` times). Which word is the undercover one, the seats and
            the speaking orders stay drawn from the seeded generator.
        episodes_per_pair: games per pair under ``"every_pair"`` (default 10, as CoMet).
        max_retries: resubmissions allowed after an invalid action (default 3).
        render_mode: ``"human"`` or ``"ansi"``.

    ``reset(options={"words": [civilian_word, undercover_word], "undercover": [3, 4]})`` fixes
    one game's words and undercover seats; ``reset(options={"game_index": i})`` tells the
    ``"every_pair"`` schedule which game of the match this is (the match harness passes it,
    see :meth:`match_game_options`).
    """

    metadata = {"name": "undercover_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    game_id = "undercover_v0"
    word_judge = True  # descriptions are checked against the speaker's own word
    frozen_arrays = True  # the public view's arrays are shared, the vote mask marked when made
    observes_lean = True  # _observe(agent, lean=True) builds no prompt

    def __init__(
        self,
        *,
        num_players: int = 5,
        num_undercover: int = 2,
        max_rounds: int = 10,
        timeout_winner: Literal["civilians", "undercover", "none"] = "civilians",
        word_pairs: str | Path | Sequence[Sequence[str]] | None = None,
        themes: str | Sequence[str] | None = None,
        undercover_seats: Sequence[int] | None = None,
        strict_word_check: bool = False,
        max_description_chars: int = 200,
        pair_schedule: Literal["random", "every_pair"] = "random",
        episodes_per_pair: int = 10,
        max_retries: int = 3,
        render_mode: str | None = None,
        record_observations: bool = True,
    ) -> None:
        self.game_config = UndercoverConfig(
            num_players=num_players, num_undercover=num_undercover, max_rounds=max_rounds,
            timeout_winner=timeout_winner, max_description_chars=max_description_chars,
            strict_word_check=strict_word_check, pair_schedule=pair_schedule, episodes_per_pair=episodes_per_pair,
        )
        self.word_pairs = load_word_pairs(word_pairs, themes)
        # As the rules use them (folded, lower case): a pair whose words fold to one word or to
        # nothing failed at the reset of the seeds that drew it, a long word left its space.
        _check_word_pairs(tuple(tuple(pair) for pair in self.word_pairs))
        self.undercover_seats = None if undercover_seats is None else [int(i) for i in undercover_seats]
        if self.undercover_seats is not None and (
            len(set(self.undercover_seats)) != num_undercover
            or not all(0 <= i < num_players for i in self.undercover_seats)
        ):
            raise ValueError(
                f"undercover_seats must be {num_undercover} distinct seats in 0..{num_players - 1}, "
                f"got {self.undercover_seats}"
            )
        super().__init__(
            max_retries=max_retries, render_mode=render_mode, record_observations=record_observations,
            config={
                "num_players": num_players, "num_undercover": num_undercover, "max_rounds": max_rounds,
                "timeout_winner": timeout_winner, "themes": themes, "undercover_seats": self.undercover_seats,
                "strict_word_check": strict_word_check, "max_description_chars": max_description_chars,
                "pair_schedule": pair_schedule, "episodes_per_pair": episodes_per_pair,
                "word_pairs": None if word_pairs is None else (
                    str(word_pairs) if isinstance(word_pairs, (str, Path)) else [list(p) for p in self.word_pairs]
                ),
            },
        )
        self.rules = UndercoverRules(self.game_config, self.word_pairs, self.undercover_seats)
        cfg = self.game_config
        self.prompt_max_chars = 4000 + cfg.max_rounds * (120 + num_players * (cfg.max_description_chars + 50))
        self.observation_spaces = {seat: self._observation_space() for seat in self.possible_agents}
        # The same for every observation of this env: built once.
        self._rules_text = rules_prompt(cfg)
        self._team_sizes = read_only(np.array([cfg.num_civilians, cfg.num_undercover], dtype=np.int64))
        # Views of the State's public record, reused while it does not change (see .view).
        self._finished: FinishedRounds | None = None
        self._public: PublicView | None = None
        self.action_spaces = {
            seat: gymnasium.spaces.Dict({
                "description": text_space(cfg.max_description_chars),
                "vote": gymnasium.spaces.Discrete(num_players),
                "beliefs": text_space(BELIEFS_MAX_CHARS, min_length=0),
            })
            for seat in self.possible_agents
        }

    def _observation_space(self) -> gymnasium.spaces.Dict:
        cfg = self.game_config
        n, r = cfg.num_players, cfg.max_rounds
        return gymnasium.spaces.Dict({
            "prompt": text_space(self.prompt_max_chars),
            "word": text_space(WORD_MAX_CHARS),
            "player": gymnasium.spaces.Discrete(n),
            "team_sizes": int_box(n, (2,)),
            "phase": gymnasium.spaces.Discrete(len(PHASES)),
            "round": gymnasium.spaces.Discrete(r + 1),
            "alive": mask_space(n),
            "speaking_order": int_box(n - 1, (n,), low=-1),
            "descriptions": gymnasium.spaces.Tuple([text_tuple(n, cfg.max_description_chars) for _ in range(r)]),
            "votes": int_box(n - 1, (r, n), low=-1),
            "eliminated_round": int_box(r - 1, (n,), low=-1),
            "vote_mask": mask_space(n),
        })

    def match_game_options(self, index: int) -> dict[str, Any] | None:
        """The ``reset`` options of game ``index`` of a match (the match harness asks): the game
        index under the ``"every_pair"`` schedule, else None (nothing to pass)."""
        return {"game_index": int(index)} if self.game_config.pair_schedule == "every_pair" else None

    def check_optioned_game(self, state: UndercoverState) -> None:
        """``words`` given as a reset option fit the Text spaces, as the list's pairs do."""
        checked_game_words((state.civilian_word, state.undercover_word), str, WORD_MAX_CHARS, "word")

    # ------------------------------------------------------------------ hooks
    @cython.locals(state=UndercoverState, finished=FinishedRounds)
    def _finished_rounds(self) -> FinishedRounds:
        """The view of the current State's finished rounds (see :mod:`.view`). Asked for
        every observation and every seat's info: the kept view's check is made here first."""
        finished, state = self._finished, self.state
        if finished is not None and finished.state is state:
            history = state.history
            if finished.length == len(history) and (not history or history[-1] is finished.last):
                return finished
        cfg = self.game_config
        self._finished = finished_rounds(finished, state, cfg.num_players, cfg.max_rounds)
        return self._finished

    @cython.locals(state=UndercoverState, view=PublicView)
    def _observe(self, agent: str, lean: bool = False) -> dict[str, Any]:
        state, cfg, rules = self.state, self.game_config, self._rules
        p = rules.seat_index(agent)
        view = self._public = public_view(self._public, state, self._finished_rounds())
        obs: dict[str, Any] = {
            "prompt": None if lean else full_prompt(
                p, state, cfg, rules.player_to_move(state), rules=self._rules_text, public=view.transcript
            ),
            "word": state.word_of(p),
            "player": p,
            "team_sizes": self._team_sizes,
            "phase": _PHASE_INDEX[state.phase],
            "round": min(state.round, cfg.max_rounds),
            "alive": view.alive,
            "speaking_order": view.order,
            "descriptions": view.descriptions,
            "votes": view.finished.votes,
            "eliminated_round": view.eliminated,
            "vote_mask": rules.vote_mask(state, p),  # the other living players
        }
        if lean:
            del obs["prompt"]  # a placeholder: the key's place in the full observation, kept
        return obs

    @cython.locals(state=UndercoverState)
    def _info(self, agent: str) -> dict[str, Any]:
        state = self.state
        info: dict[str, Any] = {"phase": state.phase}
        history = state.history
        if history:
            info["last_round"] = self._finished_rounds().last_round  # shared until a round ends: read-only
        unreadable = state.unreadable_beliefs
        if unreadable is not None and unreadable[0] == agent:
            info["beliefs_error"] = unreadable[1]
        return info

    @cython.locals(state=UndercoverState)
    def _bare_text_key(self, agent: str) -> str | None:
        return "description" if self.state.phase == "speak" else None

    @cython.locals(state=UndercoverState)
    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        state, rules = self.state, self._rules
        p = rules.seat_index(agent)
        phase = state.phase
        if type(action) is dict or isinstance(action, Mapping):
            for key in action:
                if key not in _ACTION_FIELDS:
                    return None, f"unknown action field {describe(key)}; fields: description, vote, beliefs"
            beliefs = action.get("beliefs")
            value = action.get("description" if phase == "speak" else "vote")
        else:
            beliefs, value = None, action
        normalized: dict[str, Any]
        if phase == "speak":
            if value is None:
                return None, 'speaking phase: give a "description"'
            description, error = rules.check_description(state, p, value)
            if error:
                return None, error
            normalized = {"description": description}
        else:
            if value is None:
                return None, 'voting phase: give a "vote" (a player index)'
            error = rules.vote_error(state, p, value)
            if error:
                return None, error
            normalized = {"vote": int(value)}
        # Beliefs are read here, before anything is applied: an unreadable report is kept
        # with its reason (never rejected), and reading it can never fail mid-move.
        normalized["beliefs"], normalized["beliefs_error"] = parse_beliefs(beliefs, self.game_config.num_players)
        return normalized, None

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        if self.state.phase == "speak":
            return {"description": SILENCE, "beliefs": None}, f"description replaced by {SILENCE!r}"
        return {"vote": None, "beliefs": None}, "no vote counted"

    def _render_text(self) -> str:
        state, cfg = self.state, self.game_config
        roles = ", ".join(
            f"{seat_name(p)}={'U' if role == 'undercover' else 'C'}" for p, role in enumerate(state.roles)
        )
        lines = [
            f"Undercover - round {min(state.round + 1, cfg.max_rounds)}/{cfg.max_rounds}  "
            f"civilians: '{state.civilian_word}'  undercover: '{state.undercover_word}'",
            f"roles: {roles}",
            transcript(state).rstrip(),
        ]
        if state.phase == "over":
            lines.append(f"winner: {state.winner or 'nobody'} ({state.end_reason})")
        return "\n".join(lines)


def raw_env(**kwargs: Any) -> UndercoverEnv:
    """The unwrapped :class:`UndercoverEnv`."""
    return UndercoverEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """:class:`UndercoverEnv` with PettingZoo's order-enforcing wrapper."""
    return wrap(raw_env(**kwargs))

