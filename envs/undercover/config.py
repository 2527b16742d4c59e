"""Undercover's options and the names its rules, prompts and metrics share.

Example:
    >>> UndercoverConfig(num_players=6, num_undercover=2).num_civilians
    4
"""

from __future__ import annotations

from dataclasses import dataclass

from cluegym.envs.core.text import MAX_TEXT_OPTION_CHARS

CIVILIAN, UNDERCOVER = "civilian", "undercover"
ROLES: tuple[str, str] = (CIVILIAN, UNDERCOVER)
#: Team names used for winners (``winner`` is one of these, or None for a draw).
TEAMS: dict[str, str] = {CIVILIAN: "civilians", UNDERCOVER: "undercover"}
#: The description applied after too many invalid ones (the fallback): it says nothing.
SILENCE = "(silence)"
#: How a game's word pair is chosen (see :attr:`UndercoverConfig.pair_schedule`).
PAIR_SCHEDULES: tuple[str, ...] = ("random", "every_pair")

#: Most seats a game may have: observations hold a row a seat a round, so 50 seats with
#: 1,000 rounds took 10 s to build and 10**5 seats ran out of memory (the papers play 4-6).
MAX_PLAYERS_LIMIT = 20
#: Most rounds a game may last (a vote eliminates a seat most rounds; the papers play <= 10).
MAX_ROUNDS_LIMIT = 1000


@dataclass(frozen=True)
class UndercoverConfig:
    """Game options. Defaults are CoMet's (5 players, 2 undercover, 10 rounds).

    Attributes:
        num_players: players N (>= 3).
        num_undercover: undercover players, 1..N/2 (they are the minority or a tie).
        max_rounds: rounds before the game ends on timeout.
        timeout_winner: who wins at timeout: ``"civilians"`` (CoMet's code), ``"undercover"``
            or ``"none"`` (a draw, rewards 0).
        max_description_chars: longest description accepted.
        max_description_words: most words in a description (one sentence).
        strict_word_check: also reject descriptions containing the word inside another word
            (``beehive`` for ``bee``) or one word of a multi-word word (``otter`` for ``sea
            otter``); by default only the word and its derivatives are rejected.
        pair_schedule: how a game's word pair is chosen: ``"random"`` (drawn from the game's
            generator) or ``"every_pair"`` (CoMet's protocol: game ``i`` of a match plays pair
            ``i // episodes_per_pair``, cycling through the list, so every pair is played
            ``episodes_per_pair`` times in a row; which word is the undercover one is still
            drawn from the seeded generator).
        episodes_per_pair: games per pair under ``"every_pair"`` (CoMet: 10).
    """

    num_players: int = 5
    num_undercover: int = 2
    max_rounds: int = 10
    timeout_winner: str = "civilians"
    max_description_chars: int = 200
    max_description_words: int = 40
    strict_word_check: bool = False
    pair_schedule: str = "random"
    episodes_per_pair: int = 10

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= MAX_PLAYERS_LIMIT:
            raise ValueError(f"num_players must be in 3..{MAX_PLAYERS_LIMIT}, got {self.num_players}")
        if not 1 <= self.num_undercover <= self.num_players // 2:
            raise ValueError(
                f"num_undercover must be in 1..{self.num_players // 2} for {self.num_players} players "
                f"(the undercover are the minority), got {self.num_undercover}"
            )
        if not 1 <= self.max_rounds <= MAX_ROUNDS_LIMIT:
            raise ValueError(f"max_rounds must be in 1..{MAX_ROUNDS_LIMIT}, got {self.max_rounds}")
        if self.timeout_winner not in ("civilians", "undercover", "none"):
            raise ValueError(f"timeout_winner must be 'civilians', 'undercover' or 'none', got {self.timeout_winner!r}")
        if self.pair_schedule not in PAIR_SCHEDULES:
            raise ValueError(f"pair_schedule must be one of {', '.join(PAIR_SCHEDULES)}, got {self.pair_schedule!r}")
        if self.episodes_per_pair < 1:
            raise ValueError(f"episodes_per_pair must be >= 1, got {self.episodes_per_pair}")
        if not 10 <= self.max_description_chars <= MAX_TEXT_OPTION_CHARS:
            raise ValueError(f"max_description_chars must be in 10..{MAX_TEXT_OPTION_CHARS}, "
                             f"got {self.max_description_chars}")
        if self.max_description_words < 1:
            raise ValueError(f"max_description_words must be >= 1, got {self.max_description_words}")

    @property
    def num_civilians(self) -> int:
        """Players of the majority team."""
        return self.num_players - self.num_undercover
