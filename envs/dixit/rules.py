"""Dixit rules (DixitWorld's DixitArena, with the board game's official rules as a preset).

:class:`DixitRules` implements the rules protocol (:mod:`cluegym.envs.core.rules`) over a
:class:`~cluegym.envs.dixit.state.DixitState`, which holds all of a game's state. Cards are
integers ``0 .. deck_size - 1`` (indices into the deck's card ids); this module never sees an
image or a caption. Each round:

1. ``story``: the storyteller picks a card from its hand and gives a clue;
2. ``distract``: every listener, in seat order after the storyteller, submits a distractor
   from its hand; the last one shuffles the storyteller's card and the distractors into
   the candidates;
3. ``vote``: every listener votes for a candidate other than its own card;
4. the round is scored (:mod:`cluegym.envs.dixit.scoring`) and revealed.

Seats are ``player_0`` .. ``player_{N-1}`` at the protocol verbs (``to_move``,
``legal_mask``, ``apply``, ``simultaneous``, events and rewards); inside, the rules number
them ``0 .. N-1`` (:meth:`DixitRules.seat_index` converts). An action is
``{"card": hand slot, "clue": text}`` from the storyteller, ``{"card": slot}`` from a
distractor, ``{"card": candidate index}`` from a voter, already checked by the env
(:meth:`DixitRules.card_error`, :meth:`DixitRules.clue_error`).

The distractors and the votes are simultaneous blocks (:meth:`DixitRules.simultaneous`): no
listener sees another's card or vote before the candidates, or the round, are revealed.
Options (:mod:`cluegym.envs.dixit.config`) are :class:`DixitConfig` with its two presets.

Example:
    >>> rules = DixitRules(DixitConfig(), card_ids=[f"card_{i:03d}" for i in range(96)])
    >>> rng = np.random.default_rng(0)
    >>> state = rules.new_game(rng)                     # or options={"hands": [[...], ...]}
    >>> rules.apply(state, "player_0", {"card": 2, "clue": "a quiet storm"}, rng)[0]["type"]
    'story'
    >>> rules.simultaneous(state)
    ('player_1', 'player_2', 'player_3')
    >>> for seat in rules.simultaneous(state):
    ...     events = rules.apply(state, seat, {"card": 0}, rng)
    >>> events[-1]["type"]                               # the last distractor adds the candidates
    'candidates'
    >>> for seat in rules.simultaneous(state):
    ...     legal = np.flatnonzero(rules.legal_mask(state, seat)["card"])
    ...     events = rules.apply(state, seat, {"card": int(legal[0])}, rng)
    >>> events[-1]["type"]                               # the last vote scores the round
    'round'
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from cluegym.envs.core.rng import permutation
from cluegym.envs.core.rules import GameRules
from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import collapse_text, describe, is_integer, type_name
from cluegym.envs.dixit.config import PRESETS, DixitConfig
from cluegym.envs.dixit.scoring import PARTIAL_POINTS, SCORINGS, RoundRecord, score_round
from cluegym.envs.dixit.state import DixitState, listeners_of

# DixitConfig, DixitState, PRESETS and SCORINGS are re-exported: the rules' types, and wrappers
# and the options test import them from here.
__all__ = ["DixitRules", "DixitState", "DixitConfig", "PHASES", "PASS_CLUE", "PRESETS", "SCORINGS"]

#: Phases of a round; ``"over"`` once the game has ended.
PHASES: tuple[str, ...] = ("story", "distract", "vote", "over")
#: The clue used when a storyteller's clue was rejected too often (the fallback).
PASS_CLUE = "(pass)"


class DixitRules(GameRules[DixitState]):
    """The rules protocol's verbs for Dixit, on numbered seats inside (see the module
    docstring). All randomness comes from the generators passed in.

    Args:
        config: the game options.
        card_ids: the deck's card ids, by card index (events and results name cards by id;
            fixed hands may be given by id).
        deck_name: the deck's name, recorded in every result.
        reveal_captions: whether the players see the cards' captions, recorded in every
            result (the rules never read a caption).

    Attributes:
        seats: ``player_0`` .. ``player_{N-1}``.
    """

    plain_json = True  # events and result: new plain JSON (see GameRules.plain_json)
    reset_options = ("hands",)

    def __init__(self, config: DixitConfig, card_ids: Sequence[str], *, deck_name: str = "",
                 reveal_captions: bool = False) -> None:
        self.config = config
        self.card_ids = tuple(card_ids)
        self.deck_name = deck_name
        self.reveal_captions = bool(reveal_captions)
        self.seats = tuple(seat_name(p) for p in range(config.num_players))
        self._seat_numbers = {seat: p for p, seat in enumerate(self.seats)}
        self._card_numbers = {card: i for i, card in enumerate(self.card_ids)}
        self._masks: dict[tuple[int, int | None], np.ndarray] = {}
        #: legal_mask's dict per card mask (by id, holding the mask, so that the id stays its own).
        self._legal_masks: dict[int, dict[str, np.ndarray]] = {}

    def seat_index(self, seat: str) -> int:
        """The number of seat ``seat``: ``"player_2"`` -> ``2``."""
        return self._seat_numbers[seat]

    def card_index(self, card: int | str) -> int:
        """A card's index from its index or its deck id.

        Raises:
            TypeError: a card that is neither an id (a string) nor an index (an integer).
            ValueError: an id that is not in the deck.
        """
        if isinstance(card, str):
            if card not in self._card_numbers:
                raise ValueError(f"card {card!r} is not in deck {self.deck_name!r}")
            return self._card_numbers[card]
        if not is_integer(card):
            raise TypeError(f"a card is its deck id (a string) or index (an integer), got {describe(card)}")
        return int(card)

    # ----------------------------------------------------------------- setup
    def new_game(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> DixitState:
        """Shuffle the deck and deal; or deal ``options["hands"]`` (per seat, card ids or
        indices), the rest of the deck shuffled into the draw pile.

        Raises:
            ValueError: the deck is too small, or the hands are malformed (wrong sizes, cards
                not in the deck or dealt twice).
        """
        hands = (options or {}).get("hands")
        if hands is not None:
            if not isinstance(hands, (list, tuple)) or not all(isinstance(hand, (list, tuple)) for hand in hands):
                raise TypeError(f"reset option 'hands' must be a list of lists of cards, got {describe(hands)}")
            hands = [[self.card_index(c) for c in hand] for hand in hands]
        cfg, deck_size = self.config, len(self.card_ids)
        n, h = cfg.num_players, cfg.hand_size
        if deck_size < cfg.cards_needed():
            raise ValueError(f"a deck of {deck_size} cards cannot deal {n} hands of {h}")
        if hands is None:
            order = permutation(rng, deck_size)
            dealt = [order[i * h:(i + 1) * h] for i in range(n)]
            pile = order[n * h:]
        else:
            dealt = [[int(c) for c in hand] for hand in hands]
            flat = [c for hand in dealt for c in hand]
            if len(dealt) != n or any(len(hand) != h for hand in dealt):
                raise ValueError(f"hands must be {n} lists of {h} cards, got sizes {[len(x) for x in dealt]}")
            if len(set(flat)) != len(flat) or not all(0 <= c < deck_size for c in flat):
                raise ValueError(f"hands must hold distinct cards in 0..{deck_size - 1}")
            taken = set(flat)
            pile = [c for c in permutation(rng, deck_size) if c not in taken]
        return DixitState(hands=dealt, draw_pile=pile, scores=[0] * n)

    # ------------------------------------------------------------- who acts
    def acting_seats(self, state: DixitState) -> list[int]:
        """The numbered seats of the current simultaneous block, in play order: the
        storyteller; the listeners still to play a card; the listeners still to vote."""
        phase, n = state.phase, len(state.hands)
        if phase == "story":
            return [state.round % n]
        if phase == "distract":
            done = state.played
        elif phase == "vote":
            done = state.votes
        else:
            return []
        return [p for p in listeners_of(state.round % n, n) if p not in done]

    def seat_to_move(self, state: DixitState) -> int | None:
        """The numbered seat to act (the first of :meth:`acting_seats`), or None when the game
        is over."""
        phase, n = state.phase, len(state.hands)
        if phase == "story":
            return state.round % n
        if phase == "distract":
            done = state.played
        elif phase == "vote":
            done = state.votes
        else:
            return None
        for p in listeners_of(state.round % n, n):
            if p not in done:
                return p
        return None

    def is_acting(self, state: DixitState, seat: int) -> bool:
        """Whether numbered ``seat`` is in the current simultaneous block (``seat in
        acting_seats(state)``, without building the block)."""
        phase, n = state.phase, len(state.hands)
        if not 0 <= seat < n:
            return False
        if phase == "story":
            return seat == state.round % n
        if phase == "distract":
            return seat != state.round % n and seat not in state.played
        if phase == "vote":
            return seat != state.round % n and seat not in state.votes
        return False

    def to_move(self, state: DixitState) -> str | None:
        seat = self.seat_to_move(state)
        return None if seat is None else self.seats[seat]

    def acts_now(self, state: DixitState, seat: str) -> bool:
        """``seat in self.simultaneous(state)``, without building the block."""
        p = self._seat_numbers.get(seat) if type(seat) is str else None
        return p is not None and self.is_acting(state, p)

    def simultaneous(self, state: DixitState) -> tuple[str, ...]:
        """The storyteller alone; then the listeners still to play a distractor; then the
        listeners still to vote (seat order after the storyteller). A listener's view shows
        neither another listener's distractor nor its vote before the reveal."""
        return tuple(self.seats[p] for p in self.acting_seats(state))

    # ------------------------------------------------------------ legality
    def card_mask(self, state: DixitState, seat: int) -> np.ndarray:
        """1 for the ``card`` values numbered ``seat`` may choose now (all 0 when it is not in
        the current simultaneous block).

        Hand slots in the story and distract phases; candidate indices in the vote, its own
        card excluded. The mask is read-only and shared (see :meth:`_mask`).
        """
        if not self.is_acting(state, seat):
            return self._mask(0, None)
        if state.phase in ("story", "distract"):
            return self._mask(len(state.hands[seat]), None)
        if state.phase == "vote":
            return self._mask(len(state.candidates), state.own_candidate(seat))
        return self._mask(0, None)

    def _mask(self, legal: int, excluded: int | None) -> np.ndarray:
        """The ``card`` mask with the first ``legal`` values allowed except ``excluded``.

        Built once per (legal, excluded) pair and read-only: a mask is asked for per seat at
        every move, and a table has only a few distinct ones (hand sizes, candidate counts).
        """
        key = (legal, excluded)
        mask = self._masks.get(key)
        if mask is None:
            mask = np.zeros(self.config.action_size, dtype=np.int8)
            mask[:legal] = 1
            if excluded is not None:
                mask[excluded] = 0
            mask.setflags(write=False)
            self._masks[key] = mask
        return mask

    def legal_mask(self, state: DixitState, seat: str) -> dict[str, np.ndarray | None]:
        """``{"card": card_mask}``, the action's one discrete entry (the clue is free text).

        The same dict for the same card mask (those are shared, see :meth:`_mask`): never
        changed, so what the env built from it holds (see ``GameRules.legal_mask``), and the
        seat's action mask is not rebuilt at every step.
        """
        card = self.card_mask(state, self.seat_index(seat))
        legal = self._legal_masks.get(id(card))
        if legal is None or legal["card"] is not card:
            legal = self._legal_masks[id(card)] = {"card": card}
        return legal

    def card_error(self, state: DixitState, seat: int, index: Any) -> str | None:
        """Why ``index`` is not a legal ``card`` for numbered ``seat`` now, or None."""
        if type(index) is not int:  # a plain int (most answers) needs no conversion
            if not is_integer(index):
                return f"card must be an integer index, got {describe(index)}"
            index = int(index)
        if state.phase in ("story", "distract"):
            size = len(state.hands[seat])
            if not 0 <= index < size:
                return f"card {index} is not a slot of your hand (0..{size - 1})"
            return None
        if state.phase == "vote":
            size = len(state.candidates)
            if not 0 <= index < size:
                return f"vote {index} is not a candidate (0..{size - 1})"
            if index == state.own_candidate(seat):
                return f"candidate {index} is your own card; vote for another candidate"
            return None
        return "the game is over"

    def clue_error(self, clue: Any) -> str | None:
        """Why ``clue`` is not a valid clue, or None: a non-empty printable text of at most
        ``max_clue_chars`` characters."""
        if not isinstance(clue, str):
            return f"the clue must be a string, got {type_name(clue)}"
        text = self.normalize_clue(clue)
        if not text:
            return "the clue must not be empty"
        if len(text) > self.config.max_clue_chars:
            return f"the clue is longer than {self.config.max_clue_chars} characters"
        return None

    @staticmethod
    def normalize_clue(clue: str) -> str:
        """The clue as stored: folded to the charset, whitespace collapsed."""
        return collapse_text(clue)

    # ----------------------------------------------------------- transitions
    def apply(self, state: DixitState, seat: str, action: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Apply a checked action of ``seat`` (the seat to move); return its events: the
        story; a distractor (and the shuffled candidates after the last); a vote (and the
        scored round after the last, and the game's end)."""
        p = self.seat_index(seat)
        if p != self.seat_to_move(state):
            raise RuntimeError(f"{seat} cannot act now (phase {state.phase!r})")
        if state.phase == "story":
            self.tell(state, action["card"], action["clue"])
            return [{"type": "story", "storyteller": seat, "round": state.round, "clue": state.clue}]
        if state.phase == "distract":
            events: list[dict[str, Any]] = [{"type": "distractor", "player": seat, "round": state.round}]
            if self.distract(state, p, action["card"], rng):
                events.append({"type": "candidates", "round": state.round,
                               "candidates": [self.card_ids[c] for c in state.candidates]})
            return events
        record = self.vote(state, p, action["card"])
        events = [{"type": "vote", "player": seat, "round": state.round if record is None else record.round}]
        if record is not None:
            events.append({"type": "round", **self.round_view(record)})
            if state.phase == "over":
                events.append({"type": "game_over", "scores": list(state.scores), "reason": state.end_reason})
        return events

    def tell(self, state: DixitState, slot: int, clue: str) -> None:
        """The storyteller's move: a hand slot and a (validated) clue."""
        if state.phase != "story":
            raise RuntimeError(f"cannot tell a story in phase {state.phase!r}")
        if not 0 <= slot < len(state.hands[state.storyteller]):
            raise ValueError(f"slot {slot} is not in the storyteller's hand")
        state.played = {state.storyteller: int(slot)}
        state.clue = self.normalize_clue(clue)
        state.phase = "distract"

    def distract(self, state: DixitState, seat: int, slot: int, rng: np.random.Generator) -> bool:
        """Numbered ``seat`` submits a distractor; the last one shuffles the candidates.

        Returns:
            True when this was the last distractor (the vote starts).
        """
        if state.phase != "distract" or self.seat_to_move(state) != seat:
            raise RuntimeError(f"seat {seat} cannot submit a distractor now (phase {state.phase!r})")
        if not 0 <= slot < len(state.hands[seat]):
            raise ValueError(f"slot {slot} is not in seat {seat}'s hand")
        state.played[seat] = int(slot)
        if len(state.played) < state.num_players:
            return False
        cards = [state.card_played_by(state.storyteller)] + [state.card_played_by(p) for p in state.listeners]
        state.candidates = [int(cards[i]) for i in permutation(rng, len(cards))]
        state.votes = {}
        state.phase = "vote"
        return True

    def vote(self, state: DixitState, seat: int, index: int | None) -> RoundRecord | None:
        """Numbered ``seat`` votes for a candidate (None: no vote); the last vote scores the round.

        Returns:
            The scored round after the last vote, else None.
        """
        if state.phase != "vote" or self.seat_to_move(state) != seat:
            raise RuntimeError(f"seat {seat} cannot vote now (phase {state.phase!r})")
        if index is not None and self.card_error(state, seat, index) is not None:
            raise ValueError(self.card_error(state, seat, index))
        state.votes[seat] = -1 if index is None else int(index)
        if len(state.votes) < state.num_players - 1:
            return None
        return self._score(state)

    def _score(self, state: DixitState) -> RoundRecord:
        """Score and record the round, then end the game or set up the next round."""
        cfg = self.config
        n = state.num_players
        storyteller, target = state.storyteller, state.target
        played = {p: state.card_played_by(p) for p in range(n)}
        voted = {p: (state.candidates[i] if i >= 0 else None) for p, i in state.votes.items()}
        points, outcome = score_round(n, storyteller, target, played, voted, cfg.scoring)
        hand_phase = int(cfg.swap_round is not None and state.round >= cfg.swap_round)
        record = RoundRecord(
            round=state.round, hand_phase=hand_phase, storyteller=storyteller, clue=state.clue,
            target=int(target), played=[int(played[p]) for p in range(n)], candidates=list(state.candidates),
            votes=[-1 if voted.get(p) is None else int(voted[p]) for p in range(n)], points=points,
            outcome=outcome,
        )
        state.history.append(record)
        state.scores = [s + d for s, d in zip(state.scores, points)]
        slots = dict(state.played)
        state.clue, state.played, state.candidates, state.votes = "", {}, [], {}
        if cfg.target_score is not None and max(state.scores) >= cfg.target_score:
            state.end_reason = "target_score"
        elif state.round + 1 >= cfg.num_rounds:
            state.end_reason = "rounds"
        elif cfg.refill and len(state.draw_pile) < n:
            state.end_reason = "deck_exhausted"
        if cfg.refill and state.end_reason is None:
            for seat, slot in slots.items():
                state.discard.append(state.hands[seat][slot])
                state.hands[seat][slot] = state.draw_pile.pop()
        state.round += 1
        if state.end_reason is not None:
            state.phase = "over"
            return record
        if cfg.swap_round is not None and state.round == cfg.swap_round:
            self.pass_hands(state)
        state.phase = "story"
        return record

    def pass_hands(self, state: DixitState) -> None:
        """Every hand passes ``num_players // 2`` seats on (P1<->P3, P2<->P4 with 4 players)."""
        n = state.num_players
        shift = n // 2
        old = state.hands
        state.hands = [list(old[(p - shift) % n]) for p in range(n)]

    # ------------------------------------------------------------- outcome
    def round_view(self, record: RoundRecord) -> dict[str, Any]:
        """A scored round as JSON with card ids and seat names (its ``round`` event, and the
        env's ``infos[seat]["last_round"]``)."""
        view = record.as_dict()
        view["target"] = self.card_ids[view["target"]]
        for key in ("played", "candidates"):
            view[key] = [self.card_ids[c] for c in view[key]]
        view["votes"] = [self.card_ids[c] if c >= 0 else None for c in view["votes"]]
        view["storyteller"] = self.seats[view["storyteller"]]
        view["correct"] = [self.seats[c] for c in view["correct"]]
        return view

    def step_rewards(self, state: DixitState, events: list[dict[str, Any]]) -> dict[str, float]:
        """Each round's points, given when the round is scored (its ``round`` event)."""
        for event in events:
            if event["type"] == "round":
                return {self.seats[p]: float(v) for p, v in enumerate(event["points"])}
        return {}

    def rewards(self, state: DixitState) -> dict[str, float]:
        """Nothing more at the end: every point was given as its round's reward."""
        return {seat: 0.0 for seat in self.seats}

    def max_points(self, state: DixitState) -> list[int]:
        """Per seat, the most points it could have made in the rounds played (eq. 1's maximum):
        3 per round as storyteller, ``3 + num_players - 2`` per round as listener."""
        best = [0] * state.num_players
        for record in state.history:
            for p in range(state.num_players):
                best[p] += PARTIAL_POINTS if p == record.storyteller else self.config.listener_max_points
        return best

    def result(self, state: DixitState) -> dict[str, Any]:
        """The outcome of a finished game, for :func:`~cluegym.envs.dixit.metrics.metrics`
        (seats and cards numbered)."""
        top = max(state.scores)
        return {
            "num_players": state.num_players,
            "scoring": self.config.scoring,
            "scores": list(state.scores),
            "max_points": self.max_points(state),
            "winners": [p for p, s in enumerate(state.scores) if s == top],
            "end_reason": state.end_reason,
            "rounds": [r.as_dict() for r in state.history],
            "deck": self.deck_name,
            "reveal_captions": self.reveal_captions,
        }
