"""What Undercover's observations and infos show of a game, built once and reused.

An observation used to rebuild the whole public record (transcript, description rows, vote
table) from the State's history at every step, which made a game's observations quadratic in
its length. The public record changes little from one step to the next: a finished round never
changes, and the round in play changes once per description (the votes stay hidden until the
round is finished). So the env keeps two views of its State:

* :class:`FinishedRounds`, extended once per finished round;
* :class:`PublicView`, the round in play on top of it, made anew only when what it shows
  changed: from the previous view when the next speaker of the order described
  (:func:`after_description`, most speaking steps), else from the State.

A view belongs to one State object and holds it, so its identity checks stay valid; a State
copied with ``copy.deepcopy``, a replayed game or a new game is another State and gets new
views (a deep copy of the whole env copies its views with its State, which stay consistent).
The rules never change a round once it is in the history, and neither may anyone else. What
the observations hand out is immutable: read-only arrays, shared by every observation that
shows them, strings and tuples; the one value shared but not frozen is the infos'
``last_round`` dict (read-only by contract).

Example:
    >>> from cluegym.envs.undercover.env import raw_env
    >>> from cluegym.envs.undercover.prompts import transcript
    >>> env = raw_env(); env.reset(seed=0)
    >>> env.step({"description": "it is round", "beliefs": "", "vote": 1})
    >>> finished = finished_rounds(None, env.state, num_players=5, max_rounds=10)
    >>> view = public_view(None, env.state, finished)
    >>> print(view.transcript)
    Round 1 (speaking order: player_0, player_3, player_2, player_4, player_1)
      player_0: "it is round"
    Still in the game: player_0, player_1, player_2, player_3, player_4.
    <BLANKLINE>
    >>> view.transcript == transcript(env.state)
    True
"""

from __future__ import annotations

from typing import Any

try:
    import cython
except ImportError:  # no Cython at run time: the type declarations do nothing
    from cluegym.envs.core import cython_fallback as cython
import numpy as np

from cluegym.envs.core.spaces import read_only
from cluegym.envs.undercover.prompts import (
    compose_transcript, description_line, finished_round_text, living_line, round_in_play,
)
from cluegym.envs.undercover.state import RoundRecord, UndercoverState, seat_names


class FinishedRounds:
    """What every observation and info shows of a State's finished rounds, built once per
    round (a finished round never changes).

    It covers the first ``length`` rounds of ``state.history``, the last of them ``last``.

    Attributes:
        text: the transcript of the finished rounds (``prompts.history_text``).
        descriptions: per round (``max_rounds`` rows), the observation's row of descriptions
            (``""`` where nobody spoke or the round is not finished).
        votes: ``max_rounds x num_players``, the revealed votes (-1: none); read-only,
            replaced (not changed) when a round ends, and shown by every observation.
        last_round: ``history[-1].as_dict()`` (the infos' ``last_round``), shared by every
            seat's info until the next round ends: read-only.
    """

    __slots__ = ("state", "num_players", "length", "last", "text", "descriptions", "votes", "last_round", "memo")

    @cython.locals(state=UndercoverState)
    def __init__(self, state: UndercoverState, num_players: int, max_rounds: int) -> None:
        self.state = state
        self.num_players = num_players
        self.length = 0
        self.last: RoundRecord | None = None
        self.text = ""
        self.descriptions: list[tuple[str, ...]] = [("",) * num_players] * max_rounds
        self.votes = read_only(np.full((max_rounds, num_players), -1, dtype=np.int64))
        self.last_round: dict[str, Any] | None = None
        #: Transcript lines of the round in play already built (see ``prompts.transcript``).
        self.memo: dict[tuple[Any, ...], str] = {}

    def extend(self) -> None:
        """Add the rounds the State finished since (once per round)."""
        history, n = self.state.history, self.num_players
        table = self.votes.copy()  # a new table: observations of earlier rounds show the old one
        for record in history[self.length:]:
            # The round in play's lines were built for its observations: the memo has them.
            self.text += finished_round_text(record, n, self.memo)
            row = [""] * n
            for speaker, text in record.descriptions.items():
                row[speaker] = text
            self.descriptions[record.round] = tuple(row)
            votes = [-1] * n
            for voter, target in record.votes.items():
                votes[voter] = -1 if target is None else target
            table[record.round] = votes
        self.votes = read_only(table)
        self.length = len(history)
        self.memo = {}  # the lines of the rounds before are in ``text`` now
        if history:
            self.last = history[-1]
            self.last_round = self.last.as_dict(seat_names(n))


@cython.locals(state=UndercoverState, view=FinishedRounds)
def finished_rounds(
    view: FinishedRounds | None, state: UndercoverState, num_players: int, max_rounds: int
) -> FinishedRounds:
    """``view`` brought up to date with ``state``'s history: the same view when nothing was
    finished since, extended when rounds were added, a new one for another State (or a
    history that was rewritten rather than extended)."""
    history = state.history
    length = len(history)
    if view is None or view.state is not state or view.length > length or (
        view.length and history[view.length - 1] is not view.last
    ):
        view = FinishedRounds(state, num_players, max_rounds)
    if view.length != length:
        view.extend()
    return view


class PublicView:
    """What every seat's observation shows of the game now: the transcript (finished rounds
    and the round in play) and the public arrays, rebuilt when one of them changed (after
    every description; once per round while voting).

    It is a function of the State's public parts, which it keeps a copy of to tell whether
    it still holds (see :meth:`matches`): phase, round, order, this round's descriptions,
    who is alive, when each eliminated player went out, and the finished rounds.

    Attributes:
        transcript: ``prompts.transcript(state)``.
        round_text: its lines of the round in play, ``prompts.round_in_play(state)``.
        living: its last line, ``prompts.living_line`` (shared while nobody is eliminated).
        descriptions: the observation's ``descriptions`` (a tuple of rows; immutable).
        order, alive, eliminated: the observation's ``speaking_order``, ``alive`` and
            ``eliminated_round`` (read-only, shown by every observation of the view).
        in_order: whether this round's descriptions are those of the first speakers of its
            order (as the rules play it), so that the next one adds the round's last line.
    """

    __slots__ = (
        "state", "finished", "length", "key_phase", "key_round", "key_order", "key_descriptions", "key_alive",
        "key_eliminated", "transcript", "round_text", "living", "descriptions", "order", "alive", "eliminated",
        "in_order",
    )

    @cython.locals(state=UndercoverState, finished=FinishedRounds)
    def __init__(self, state: UndercoverState, finished: FinishedRounds, previous: PublicView | None = None) -> None:
        self.state, self.finished, self.length = state, finished, finished.length
        # Copies: the State changes in place.
        self.key_phase, self.key_round, self.key_order = state.phase, state.round, tuple(state.order)
        self.key_descriptions = dict(state.descriptions)
        self.key_alive = list(state.alive)
        self.key_eliminated = dict(state.eliminated_round)
        n = finished.num_players
        # The arrays, and the transcript's line of who is still in, change once a round.
        same_table = previous is not None and previous.state is state and previous.key_order == self.key_order and (
            previous.key_alive == self.key_alive and previous.key_eliminated == self.key_eliminated
        )
        self.living = previous.living if same_table else living_line(state.alive, seat_names(n))
        self.round_text = round_in_play(state, finished.memo)
        self.transcript = compose_transcript(finished.text, self.round_text, state.phase, self.living)
        spoken = len(self.key_descriptions)
        order, described = self.key_order, self.key_descriptions
        self.in_order = spoken <= len(order) and all([p in described for p in order[:spoken]])
        rows = finished.descriptions
        if state.phase != "over":
            # This round's descriptions so far (its votes stay hidden until it is finished).
            row = [""] * n
            for speaker, text in state.descriptions.items():
                row[speaker] = text
            rows = list(rows)
            rows[state.round] = tuple(row)
        self.descriptions = tuple(rows)
        if same_table:  # a description or a phase change
            self.order, self.alive, self.eliminated = previous.order, previous.alive, previous.eliminated
            return
        self.order = read_only(np.array(list(self.key_order) + [-1] * (n - len(self.key_order)), dtype=np.int64))
        self.alive = read_only(np.array(self.key_alive, dtype=np.int8))
        eliminated = [-1] * n
        for player, rnd in self.key_eliminated.items():
            eliminated[player] = rnd
        self.eliminated = read_only(np.array(eliminated, dtype=np.int64))

    @cython.locals(state=UndercoverState, finished=FinishedRounds)
    def matches(self, state: UndercoverState, finished: FinishedRounds) -> bool:
        """Whether this view still shows ``state`` (with ``finished`` its finished rounds)."""
        return (
            self.state is state and self.finished is finished and self.length == finished.length
            and self.key_phase == state.phase and self.key_round == state.round and self.key_order == state.order
            and self.key_descriptions == state.descriptions and self.key_alive == state.alive
            and self.key_eliminated == state.eliminated_round
        )


@cython.locals(view=PublicView, state=UndercoverState, finished=FinishedRounds, after=PublicView)
def after_description(view: PublicView, state: UndercoverState, finished: FinishedRounds) -> PublicView | None:
    """The view of ``state`` when it is ``view``'s with one more description, the next
    speaker's of the order (the step after most speaking steps), else None.

    Everything but this round's line and row is ``view``'s: the new view is built from it,
    not from the State (what ``PublicView(state, finished)`` builds, as the tests check)."""
    spoken = len(view.key_descriptions)
    descriptions = state.descriptions
    if not (
        view.in_order and view.key_phase == "speak" and spoken < len(view.key_order)
        and len(descriptions) == spoken + 1 and view.state is state and view.finished is finished
        and view.length == finished.length and view.key_round == state.round
        and (state.phase == "speak" or state.phase == "vote") and view.key_order == state.order
        and view.key_alive == state.alive and view.key_eliminated == state.eliminated_round
    ):
        return None
    speaker = view.key_order[spoken]
    text = descriptions.get(speaker)
    # The earlier descriptions unchanged (the State's dict may be edited in place).
    if text is None or not view.key_descriptions.items() <= descriptions.items():
        return None
    after = PublicView.__new__(PublicView)  # its fields are set here, from ``view``'s
    after.state, after.finished, after.length = state, finished, view.length
    after.key_phase, after.key_round, after.key_order = state.phase, view.key_round, view.key_order
    after.key_descriptions = dict(descriptions)
    after.key_alive, after.key_eliminated = view.key_alive, view.key_eliminated
    after.living, after.in_order = view.living, True
    line = description_line(speaker, text, seat_names(finished.num_players), finished.memo)
    after.round_text = view.round_text + line
    after.transcript = compose_transcript(finished.text, after.round_text, state.phase, after.living)
    rows = list(view.descriptions)
    row = list(rows[view.key_round])
    row[speaker] = text
    rows[view.key_round] = tuple(row)
    after.descriptions = tuple(rows)
    after.order, after.alive, after.eliminated = view.order, view.alive, view.eliminated
    return after


@cython.locals(state=UndercoverState, view=PublicView, after=PublicView)
def public_view(view: PublicView | None, state: UndercoverState, finished: FinishedRounds) -> PublicView:
    """``view`` when it still shows ``state``, else a new view of it (reusing what did not change)."""
    if view is not None:
        if view.matches(state, finished):
            return view
        after = after_description(view, state, finished)
        if after is not None:
            return after
    return PublicView(state, finished, view)
