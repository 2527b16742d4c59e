"""Dixit rules (DixitWorld's DixitArena, with the board game's official rules as a preset).

Cards are integers ``0 .. deck_size - 1`` (indices into a :class:`~cluegym.envs.dixit.deck.Deck`);
this module never sees an image or a caption. Each round: the storyteller picks a card from
its hand and gives a clue; every listener, in seat order after the storyteller, submits a
distractor from its hand; the storyteller's card and the distractors are shuffled into the
candidates; every listener votes for a candidate other than its own card, without seeing the
others' votes; then the round is scored and revealed.

Two presets (:data:`PRESETS`), each option overridable:

* ``"dixitworld"`` (default, the DixitWorld arena): 4 players, hands of 4 kept for a whole
  phase (played cards return to the hand), 24 rounds in two phases of 12 with the hands
  passed on between them (P1<->P3, P2<->P4), scoring ``"dixitworld"``.
* ``"official"``: hands of 6, played cards are discarded and each player draws one, the game
  ends when the draw pile cannot refill every hand or someone reaches 30 points, scoring
  ``"official"``.

Scoring (:func:`score_round`), ``c`` correct listeners out of ``L``:

============  ==============================  ==============================
outcome       ``"dixitworld"``                ``"official"``
============  ==============================  ==============================
0 < c < L     storyteller +3, correct +3      storyteller +3, correct +3
c == L        storyteller 0, listeners +3     storyteller 0, listeners +2
c == 0        storyteller 0, listeners +2     storyteller 0, listeners +2
============  ==============================  ==============================

and in every case +1 to a distractor's owner for each vote it receives.

Example:
    >>> rules = DixitRules(DixitConfig())
    >>> state = rules.new_game(np.random.default_rng(0), deck_size=96)
    >>> rules.tell(state, slot=2, clue="a quiet storm")
    >>> for p in rules.listeners(state):
    ...     rules.distract(state, p, slot=0, rng=np.random.default_rng(1))
    >>> for p in rules.listeners(state):
    ...     rules.vote(state, p, index=int(np.flatnonzero(rules.card_mask(state, p))[0]))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import describe, to_charset, type_name

#: Scoring rules (see the module docstring).
SCORINGS: tuple[str, ...] = ("dixitworld", "official")
#: Phases of a round; ``"over"`` once the game has ended.
PHASES: tuple[str, ...] = ("story", "distract", "vote", "over")
#: Round outcomes, from the storyteller's point of view.
OUTCOMES: tuple[str, ...] = ("partial", "all_correct", "all_wrong")
#: The clue used when a storyteller's clue was rejected too often (the fallback).
PASS_CLUE = "(pass)"
#: Points of the storyteller and of each correct listener on a partial-correct round.
PARTIAL_POINTS = 3
#: Rule presets: the option values each one sets (``None`` rounds: as many as the deck allows).
PRESETS: dict[str, dict[str, Any]] = {
    "dixitworld": {
        "num_players": 4, "hand_size": 4, "num_rounds": 24, "scoring": "dixitworld",
        "hand_swap": True, "refill": False, "target_score": None,
    },
    "official": {
        "num_players": 4, "hand_size": 6, "num_rounds": None, "scoring": "official",
        "hand_swap": False, "refill": True, "target_score": 30,
    },
}


@dataclass(frozen=True)
class DixitConfig:
    """Game options. Defaults are the DixitWorld arena's.

    Attributes:
        num_players: players, 3-6.
        hand_size: cards per hand, 2-12.
        num_rounds: rounds to play (the game may end earlier: ``target_score``, or an empty
            draw pile with ``refill``).
        scoring: ``"dixitworld"`` or ``"official"`` (see the module docstring).
        hand_swap: at round ``num_rounds // 2`` every hand passes to the seat
            ``num_players // 2`` places on (P1<->P3, P2<->P4 with 4 players).
        refill: played cards are discarded and each player draws one after every round
            (official); otherwise played cards return to their owner's hand (DixitWorld).
        target_score: end the game after the round in which someone reaches this score.
        max_clue_chars: longest clue accepted.
    """

    num_players: int = 4
    hand_size: int = 4
    num_rounds: int = 24
    scoring: str = "dixitworld"
    hand_swap: bool = True
    refill: bool = False
    target_score: int | None = None
    max_clue_chars: int = 200

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= 6:
            raise ValueError(f"num_players must be in 3..6, got {self.num_players}")
        if not 2 <= self.hand_size <= 12:
            raise ValueError(f"hand_size must be in 2..12, got {self.hand_size}")
        if self.num_rounds < 1:
            raise ValueError(f"num_rounds must be >= 1, got {self.num_rounds}")
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {self.scoring!r}")
        if self.target_score is not None and self.target_score < 1:
            raise ValueError(f"target_score must be >= 1 or None, got {self.target_score}")
        if self.max_clue_chars < 1:
            raise ValueError(f"max_clue_chars must be >= 1, got {self.max_clue_chars}")

    @property
    def action_size(self) -> int:
        """Size of the ``card`` action: a hand slot or a candidate index, whichever is larger."""
        return max(self.hand_size, self.num_players)

    @property
    def swap_round(self) -> int | None:
        """The first round played with passed-on hands, or None without a hand swap."""
        return self.num_rounds // 2 if self.hand_swap and self.num_rounds >= 2 else None

    @property
    def listener_max_points(self) -> int:
        """Most points a listener can make in one round: a correct guess plus a vote on its card
        from every other listener (``3 + num_players - 2``)."""
        return PARTIAL_POINTS + self.num_players - 2

    def cards_needed(self) -> int:
        """Cards the deck must hold to deal every hand."""
        return self.num_players * self.hand_size


def max_rounds(deck_size: int, num_players: int, hand_size: int, refill: bool, default: int = 24) -> int:
    """Rounds a deck allows: with ``refill`` every round uses up ``num_players`` cards after the
    deal; without it hands are reused and any number works (``default`` is returned)."""
    if not refill:
        return default
    return 1 + max(0, deck_size - num_players * hand_size) // num_players


def preset_config(
    rules: str = "dixitworld", *, deck_size: int | None = None, **overrides: Any
) -> DixitConfig:
    """A :class:`DixitConfig` from a preset name and explicit options (``None`` = preset value).

    Args:
        rules: ``"dixitworld"`` or ``"official"``.
        deck_size: cards in the deck; needed when the rounds are ``None`` (as many as the deck
            allows, the official preset).
        **overrides: any :class:`DixitConfig` field.

    Raises:
        ValueError: an unknown preset or option, or an invalid combination.
    """
    if rules not in PRESETS:
        raise ValueError(f"rules must be one of {', '.join(PRESETS)}, got {rules!r}")
    known = set(DixitConfig.__dataclass_fields__)
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"unknown Dixit option {', '.join(unknown)}; options: {', '.join(sorted(known))}")
    values = {**PRESETS[rules], **{k: v for k, v in overrides.items() if v is not None}}
    if values.get("target_score") == 0:
        values["target_score"] = None  # 0 switches the preset's target score off
    if values.get("num_rounds") is None:
        if deck_size is None:
            raise ValueError("num_rounds=None (as many as the deck allows) needs the deck size")
        values["num_rounds"] = max_rounds(deck_size, values["num_players"], values["hand_size"], values["refill"])
    return DixitConfig(**values)


def score_round(
    num_players: int,
    storyteller: int,
    target: int,
    played: Mapping[int, int],
    votes: Mapping[int, int | None],
    scoring: str = "dixitworld",
) -> tuple[list[int], str]:
    """Points of one round and its outcome.

    Args:
        num_players: players in the game.
        storyteller: the storyteller's seat.
        target: the storyteller's card.
        played: seat -> card it put on the table (the storyteller's target included).
        votes: listener seat -> card it voted for (None: no vote, counted as wrong).
        scoring: ``"dixitworld"`` or ``"official"``.

    Returns:
        (points per seat, outcome): the outcome is ``"partial"`` (some but not all listeners
        found the target), ``"all_correct"`` or ``"all_wrong"``.

    Example:
        >>> score_round(4, 0, 10, {0: 10, 1: 11, 2: 12, 3: 13}, {1: 10, 2: 11, 3: 10})
        ([3, 4, 0, 3], 'partial')
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
    listeners = [p for p in range(num_players) if p != storyteller]
    correct = [p for p in listeners if votes.get(p) == target]
    points = [0] * num_players
    if 0 < len(correct) < len(listeners):
        outcome = "partial"
        points[storyteller] += PARTIAL_POINTS
        for p in correct:
            points[p] += PARTIAL_POINTS
    elif correct:
        outcome = "all_correct"
        for p in listeners:
            points[p] += PARTIAL_POINTS if scoring == "dixitworld" else 2
    else:
        outcome = "all_wrong"
        for p in listeners:
            points[p] += 2
    owner = {card: seat for seat, card in played.items()}
    for voter, card in votes.items():
        seat = owner.get(card) if card is not None else None
        if seat is not None and seat != storyteller and seat != voter:
            points[seat] += 1
    return points, outcome


@dataclass
class RoundRecord:
    """One scored round, public once revealed.

    Attributes:
        round: 0-based round number.
        hand_phase: 0 before the hand swap, 1 after it.
        storyteller: the storyteller's seat.
        clue: the storyteller's clue.
        target: the storyteller's card.
        played: per seat, the card it put on the table.
        candidates: the shuffled candidate cards, as shown to the listeners.
        votes: per seat, the card it voted for (-1 for the storyteller or no vote).
        points: per seat, the points of this round.
        outcome: ``"partial"``, ``"all_correct"`` or ``"all_wrong"``.
    """

    round: int
    hand_phase: int
    storyteller: int
    clue: str
    target: int
    played: list[int]
    candidates: list[int]
    votes: list[int]
    points: list[int]
    outcome: str

    @property
    def listeners(self) -> list[int]:
        return [p for p in range(len(self.played)) if p != self.storyteller]

    @property
    def correct(self) -> list[int]:
        """Listeners that voted for the target."""
        return [p for p in self.listeners if self.votes[p] == self.target]

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round, "hand_phase": self.hand_phase, "storyteller": self.storyteller,
            "clue": self.clue, "target": self.target, "played": list(self.played),
            "candidates": list(self.candidates), "votes": list(self.votes), "points": list(self.points),
            "outcome": self.outcome, "correct": self.correct,
            "target_position": self.candidates.index(self.target),
        }


@dataclass
class DixitState:
    """Everything about one game.

    Attributes:
        hands: per seat, its cards; slot order is stable (a refilled card takes the slot of
            the card it replaces).
        draw_pile: undealt cards, next draw last.
        discard: discarded cards (with ``refill``).
        round: current round (0-based).
        phase: ``"story"``, ``"distract"``, ``"vote"`` or ``"over"``.
        clue: this round's clue (``""`` until given).
        played: seat -> hand slot it played this round.
        candidates: this round's shuffled candidate cards (empty until the vote).
        votes: seat -> candidate index it voted for this round.
        scores: per seat, the running score.
        history: scored rounds, oldest first.
        end_reason: ``"rounds"``, ``"target_score"`` or ``"deck_exhausted"`` once over.
    """

    hands: list[list[int]]
    draw_pile: list[int]
    discard: list[int] = field(default_factory=list)
    round: int = 0
    phase: str = "story"
    clue: str = ""
    played: dict[int, int] = field(default_factory=dict)
    candidates: list[int] = field(default_factory=list)
    votes: dict[int, int] = field(default_factory=dict)
    scores: list[int] = field(default_factory=list)
    history: list[RoundRecord] = field(default_factory=list)
    end_reason: str | None = None

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def storyteller(self) -> int:
        """This round's storyteller: the storytellers rotate seat by seat."""
        return self.round % self.num_players

    @property
    def target(self) -> int | None:
        """The storyteller's card this round, once chosen."""
        slot = self.played.get(self.storyteller)
        return None if slot is None else self.hands[self.storyteller][slot]

    def card_played_by(self, seat: int) -> int | None:
        """The card ``seat`` put on the table this round, if any."""
        slot = self.played.get(seat)
        return None if slot is None else self.hands[seat][slot]

    def own_candidate(self, seat: int) -> int | None:
        """Index among the candidates of the card ``seat`` played, during the vote."""
        card = self.card_played_by(seat)
        if card is None or card not in self.candidates:
            return None
        return self.candidates.index(card)


class DixitRules:
    """The transitions of Dixit. All randomness comes from the generators passed in.

    Args:
        config: the game options.
    """

    def __init__(self, config: DixitConfig | None = None) -> None:
        self.config = config or DixitConfig()

    # ----------------------------------------------------------------- setup
    def new_game(
        self, rng: np.random.Generator, deck_size: int, hands: Sequence[Sequence[int]] | None = None
    ) -> DixitState:
        """Shuffle the deck and deal; or deal the given ``hands`` (the rest is the draw pile).

        Raises:
            ValueError: the deck is too small, or ``hands`` are malformed (wrong sizes, cards
                out of range or dealt twice).
        """
        cfg = self.config
        n, h = cfg.num_players, cfg.hand_size
        if deck_size < cfg.cards_needed():
            raise ValueError(f"a deck of {deck_size} cards cannot deal {n} hands of {h}")
        if hands is None:
            order = [int(c) for c in rng.permutation(deck_size)]
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
            pile = [int(c) for c in rng.permutation(deck_size) if int(c) not in taken]
        return DixitState(hands=dealt, draw_pile=pile, scores=[0] * n)

    # ------------------------------------------------------------- queries
    def listeners(self, state: DixitState) -> list[int]:
        """This round's listeners, in play order (seat order after the storyteller)."""
        n = state.num_players
        return [(state.storyteller + k) % n for k in range(1, n)]

    def to_move(self, state: DixitState) -> int | None:
        """The seat to act, or None when the game is over."""
        if state.phase == "story":
            return state.storyteller
        if state.phase == "distract":
            return next(p for p in self.listeners(state) if p not in state.played)
        if state.phase == "vote":
            return next(p for p in self.listeners(state) if p not in state.votes)
        return None

    def card_mask(self, state: DixitState, seat: int) -> np.ndarray:
        """1 for the ``card`` values ``seat`` may choose now (all 0 when it is not to act).

        Hand slots in the story and distract phases; candidate indices in the vote, its own
        card excluded.
        """
        mask = np.zeros(self.config.action_size, dtype=np.int8)
        if self.to_move(state) != seat:
            return mask
        if state.phase in ("story", "distract"):
            mask[: len(state.hands[seat])] = 1
        elif state.phase == "vote":
            mask[: len(state.candidates)] = 1
            own = state.own_candidate(seat)
            if own is not None:
                mask[own] = 0
        return mask

    def card_error(self, state: DixitState, seat: int, index: Any) -> str | None:
        """Why ``index`` is not a legal ``card`` for ``seat`` now, or None."""
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
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
        text = " ".join(to_charset(clue).split())
        if not text:
            return "the clue must not be empty"
        if len(text) > self.config.max_clue_chars:
            return f"the clue is longer than {self.config.max_clue_chars} characters"
        return None

    @staticmethod
    def normalize_clue(clue: str) -> str:
        """The clue as stored: folded to the charset, whitespace collapsed."""
        return " ".join(to_charset(clue).split())

    # ----------------------------------------------------------- transitions
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
        """A listener submits a distractor; the last one shuffles the candidates.

        Returns:
            True when this was the last distractor (the vote starts).
        """
        if state.phase != "distract" or self.to_move(state) != seat:
            raise RuntimeError(f"seat {seat} cannot submit a distractor now (phase {state.phase!r})")
        if not 0 <= slot < len(state.hands[seat]):
            raise ValueError(f"slot {slot} is not in seat {seat}'s hand")
        state.played[seat] = int(slot)
        if len(state.played) < state.num_players:
            return False
        cards = [state.card_played_by(state.storyteller)] + [state.card_played_by(p) for p in self.listeners(state)]
        state.candidates = [int(cards[i]) for i in rng.permutation(len(cards))]
        state.votes = {}
        state.phase = "vote"
        return True

    def vote(self, state: DixitState, seat: int, index: int | None) -> RoundRecord | None:
        """A listener votes for a candidate (None: no vote); the last vote scores the round.

        Returns:
            The scored round after the last vote, else None.
        """
        if state.phase != "vote" or self.to_move(state) != seat:
            raise RuntimeError(f"seat {seat} cannot vote now (phase {state.phase!r})")
        if index is not None and self.card_error(state, seat, index) is not None:
            raise ValueError(self.card_error(state, seat, index))
        state.votes[seat] = -1 if index is None else int(index)
        if len(state.votes) < state.num_players - 1:
            return None
        return self._resolve(state)

    def _resolve(self, state: DixitState) -> RoundRecord:
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
    def max_points(self, state: DixitState) -> list[int]:
        """Per seat, the most points it could have made in the rounds played (eq. 1's maximum):
        3 per round as storyteller, ``3 + num_players - 2`` per round as listener."""
        best = [0] * state.num_players
        for record in state.history:
            for p in range(state.num_players):
                best[p] += PARTIAL_POINTS if p == record.storyteller else self.config.listener_max_points
        return best

    def result(self, state: DixitState) -> dict[str, Any]:
        """The outcome of a finished game, for :func:`metrics`."""
        top = max(state.scores)
        return {
            "num_players": state.num_players,
            "scoring": self.config.scoring,
            "scores": list(state.scores),
            "max_points": self.max_points(state),
            "winners": [p for p, s in enumerate(state.scores) if s == top],
            "end_reason": state.end_reason,
            "rounds": [r.as_dict() for r in state.history],
        }


# ---------------------------------------------------------------------------- metrics

def _seat_tallies(results: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Per seat: storyteller outcomes (1 partial), listener hits, normalized scores per game."""
    tallies: dict[str, dict[str, list[float]]] = {}
    for result in results:
        n = int(result["num_players"])
        for p in range(n):
            t = tallies.setdefault(seat_name(p), {"story": [], "listen": [], "normalized": [], "score": []})
            best = result["max_points"][p]
            t["normalized"].append(100.0 * result["scores"][p] / best if best else 0.0)
            t["score"].append(float(result["scores"][p]))
        for record in result["rounds"]:
            storyteller = record["storyteller"]
            tallies[seat_name(storyteller)]["story"].append(float(record["outcome"] == "partial"))
            for p in range(n):
                if p != storyteller:
                    tallies[seat_name(p)]["listen"].append(float(record["votes"][p] == record["target"]))
    return tallies


def _role_scores(story: Sequence[float], listen: Sequence[float], normalized: Sequence[float],
                 score: Sequence[float]) -> dict[str, float]:
    s = 100.0 * float(np.mean(story)) if story else 0.0
    lis = 100.0 * float(np.mean(listen)) if listen else 0.0
    return {
        "storyteller_score": s, "listener_accuracy": lis, "overall": (s + lis) / 2,
        "normalized_score": float(np.mean(normalized)) if normalized else 0.0,
        "mean_score": float(np.mean(score)) if score else 0.0,
    }


def lolo(results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Leave-one-listener-out stability (DixitWorld appendix H.2).

    For every round and every listener, the storyteller's points are recomputed without that
    listener's vote; ``delta`` is the change. Stability is ``1 - std(delta) / 3``.
    """
    deltas: list[float] = []
    for result in results:
        n = int(result["num_players"])
        for record in result["rounds"]:
            storyteller = record["storyteller"]
            listeners = [p for p in range(n) if p != storyteller]
            hits = {p: record["votes"][p] == record["target"] for p in listeners}
            original = PARTIAL_POINTS if record["outcome"] == "partial" else 0
            for left_out in listeners:
                rest = [hits[p] for p in listeners if p != left_out]
                partial = 0 < sum(rest) < len(rest)
                deltas.append((PARTIAL_POINTS if partial else 0) - original)
    if not deltas:
        return {"lolo_avg_delta": 0.0, "lolo_std_delta": 0.0, "lolo_stability": 1.0}
    std = float(np.std(deltas))
    return {"lolo_avg_delta": float(np.mean(deltas)), "lolo_std_delta": std,
            "lolo_stability": 1.0 - std / PARTIAL_POINTS}


def metrics(results: Sequence[Mapping[str, Any]], agents: Mapping[str, str] | None = None) -> dict[str, Any]:
    """DixitArena's metrics over finished games' results (``record["result"]``), in percent.

    Args:
        results: finished games' results.
        agents: optional seat -> agent name (e.g. a match summary's ``"seats"``); adds one
            ``agent:<name>`` entry per agent, pooling its seats.

    Returns:
        ``games``, ``rounds``; ``storyteller_score`` (% of rounds partial-correct),
        ``listener_accuracy`` (% of votes on the target), ``overall`` (their mean),
        ``normalized_score`` (eq. 1: points / most points attainable in the roles played,
        averaged over seats and games, %); the outcome split ``partial``/``all_correct``/
        ``all_wrong`` (% of rounds); ``lolo_*`` (appendix H.2); ``target_position_chi2`` (chi-
        squared statistic of the target's candidate position against uniform, as in section
        3.4); ``invalid_actions``, ``fallbacks`` and ``forfeits`` per game; and per seat
        ``seat:player_i`` (and per agent ``agent:<name>``) a dict of ``storyteller_score``,
        ``listener_accuracy``, ``overall``, ``normalized_score``, ``mean_score``.
    """
    n_games = len(results)
    if n_games == 0:
        return {"games": 0}
    rounds = [r for result in results for r in result["rounds"]]
    tallies = _seat_tallies(results)
    pooled = {key: [v for t in tallies.values() for v in t[key]] for key in ("story", "listen", "normalized", "score")}
    out: dict[str, Any] = {"games": n_games, "rounds": len(rounds)}
    role = _role_scores(pooled["story"], pooled["listen"], pooled["normalized"], pooled["score"])
    out.update({k: role[k] for k in ("storyteller_score", "listener_accuracy", "overall", "normalized_score")})
    for outcome in OUTCOMES:
        out[outcome] = 100.0 * float(np.mean([r["outcome"] == outcome for r in rounds])) if rounds else 0.0
    out.update(lolo(results))
    positions: dict[int, list[int]] = {}
    for r in rounds:
        positions.setdefault(len(r["candidates"]), []).append(int(r["target_position"]))
    chi2 = 0.0
    for size, pos in positions.items():
        counts = np.bincount(pos, minlength=size).astype(float)
        expected = len(pos) / size
        chi2 += float(((counts - expected) ** 2 / expected).sum())
    out["target_position_chi2"] = chi2
    out["invalid_actions"] = float(np.mean([r.get("invalid_actions", 0) for r in results]))
    out["fallbacks"] = float(np.mean([r.get("fallbacks", 0) for r in results]))
    out["forfeits"] = float(np.mean([r.get("forfeits", 0) for r in results]))
    for seat, t in sorted(tallies.items()):
        out[f"seat:{seat}"] = _role_scores(t["story"], t["listen"], t["normalized"], t["score"])
    if agents:
        by_agent: dict[str, dict[str, list[float]]] = {}
        for seat, name in agents.items():
            if seat not in tallies:
                continue
            pool = by_agent.setdefault(str(name), {k: [] for k in ("story", "listen", "normalized", "score")})
            for key in pool:
                pool[key].extend(tallies[seat][key])
        for name, pool in sorted(by_agent.items()):
            out[f"agent:{name}"] = _role_scores(pool["story"], pool["listen"], pool["normalized"], pool["score"])
    return out


__all__ = [
    "DixitConfig", "DixitRules", "DixitState", "RoundRecord", "PRESETS", "SCORINGS", "PHASES", "OUTCOMES",
    "PASS_CLUE", "score_round", "preset_config", "max_rounds", "metrics", "lolo", "seat_name",
]
