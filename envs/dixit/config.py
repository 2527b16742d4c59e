"""Dixit's options: :class:`DixitConfig` and the two rule presets it starts from.

Two presets (:data:`PRESETS`), each option overridable:

* ``"dixitworld"`` (default, the DixitWorld arena): 4 players, hands of 4 kept for a whole
  phase (played cards return to the hand), 24 rounds in two phases of 12 with the hands
  passed on between them (P1<->P3, P2<->P4), scoring ``"dixitworld"``.
* ``"official"``: hands of 6, played cards are discarded and each player draws one, the game
  ends when the draw pile cannot refill every hand or someone reaches 30 points, scoring
  ``"official"``.

Example:
    >>> preset_config("official", deck_size=96).num_rounds
    19
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cluegym.envs.core.text import MAX_TEXT_OPTION_CHARS
from cluegym.envs.dixit.scoring import PARTIAL_POINTS, SCORINGS

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

#: The env options of DixitWorld's own run (appendix E): the arena rules (the default preset),
#: cards at their full size (the paper sends its 305 x 460 PNGs "without pre-processing"; the
#: shipped deck's cards have that size). The paper's seed is :data:`PAPER_SEED`; its agents'
#: options (temperature 0.7) are ``cluegym.agents.llm.adapters.dixit.PAPER_AGENT_OPTIONS``.
PAPER_ENV_OPTIONS: dict[str, Any] = {"rules": "dixitworld", "image_size": "full"}
#: "We fix the random seed at 42 for shuffling and candidate order" (appendix E).
PAPER_SEED = 42

#: Most rounds a game may last: the observation holds a row a scored round, so 10**8 rounds
#: built for minutes (DixitWorld plays 24; the official rules as many as the deck allows).
MAX_ROUNDS_LIMIT = 1000


@dataclass(frozen=True)
class DixitConfig:
    """Game options. Defaults are the DixitWorld arena's.

    Attributes:
        num_players: players, 3-6.
        hand_size: cards per hand, 2-12.
        num_rounds: rounds to play (the game may end earlier: ``target_score``, or an empty
            draw pile with ``refill``).
        scoring: ``"dixitworld"`` or ``"official"`` (see :mod:`cluegym.envs.dixit.scoring`).
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
        if not 1 <= self.num_rounds <= MAX_ROUNDS_LIMIT:
            raise ValueError(f"num_rounds must be in 1..{MAX_ROUNDS_LIMIT}, got {self.num_rounds}")
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {self.scoring!r}")
        if self.target_score is not None and self.target_score < 1:
            raise ValueError(f"target_score must be >= 1 or None, got {self.target_score}")
        if not 1 <= self.max_clue_chars <= MAX_TEXT_OPTION_CHARS:
            raise ValueError(f"max_clue_chars must be in 1..{MAX_TEXT_OPTION_CHARS}, got {self.max_clue_chars}")

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
        # A deck of thousands of cards would allow more rounds than any game may last.
        values["num_rounds"] = min(max_rounds(deck_size, values["num_players"], values["hand_size"], values["refill"]),
                                   MAX_ROUNDS_LIMIT)
    return DixitConfig(**values)
