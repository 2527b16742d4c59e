"""Guess the number with a hint, as pure Python: config, state and the rules' verbs.

The hinter knows a secret number from 1 to ``max_number``. Each round it gives a hint in
words (no digits), then the guesser guesses a number it has not guessed before. A wrong
guess tells both whether the secret is higher or lower. Found within ``max_rounds`` rounds:
both win (+1 each); otherwise both get 0.

Example:
    >>> rules = GuessRules(GuessConfig(max_number=20))
    >>> rng = np.random.default_rng(0)
    >>> state = rules.new_game(rng)
    >>> rules.apply(state, "hinter", "a bit more than ten", rng)
    >>> rules.apply(state, "guesser", 11, rng)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from cluegym.envs.core.results import game_metrics
from cluegym.envs.core.rules import GameRules

SEATS: tuple[str, str] = ("hinter", "guesser")
#: The hint given in place of one rejected too often (the fallback).
NO_HINT = "(no hint)"


@dataclass(frozen=True)
class GuessConfig:
    """Game options: the numbers are 1..``max_number``; ``max_rounds`` hint-guess rounds;
    hints of at most ``max_hint_chars`` characters."""

    max_number: int = 20
    max_rounds: int = 5
    max_hint_chars: int = 80

    def __post_init__(self) -> None:
        if self.max_number < 2:
            raise ValueError(f"max_number must be >= 2, got {self.max_number}")
        if not 1 <= self.max_rounds <= self.max_number:
            raise ValueError(f"max_rounds must be in 1..max_number, got {self.max_rounds}")
        if self.max_hint_chars < 10:
            raise ValueError(f"max_hint_chars must be >= 10, got {self.max_hint_chars}")


@dataclass
class GuessState:
    """Everything about one game; ``low``..``high`` is what the feedback still allows."""

    secret: int
    low: int
    high: int
    hints: list[str] = field(default_factory=list)
    guesses: list[int] = field(default_factory=list)
    found: bool = False


class GuessRules(GameRules[GuessState]):
    """The rules protocol's verbs, plus the env's two helpers (action error, fallback)."""

    seats = SEATS

    def __init__(self, config: GuessConfig) -> None:
        self.config = config

    def new_game(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> GuessState:
        return GuessState(secret=int(rng.integers(1, self.config.max_number + 1)), low=1, high=self.config.max_number)

    def to_move(self, state: GuessState) -> str | None:
        if state.found or len(state.guesses) >= self.config.max_rounds:
            return None
        return "hinter" if len(state.hints) == len(state.guesses) else "guesser"

    def legal_mask(self, state: GuessState, seat: str) -> np.ndarray | None:
        """The guesser's legal numbers (index ``i`` is number ``i + 1``): those not guessed
        yet, all zero when it is not the guesser's turn; the hinter's action is text (None)."""
        if seat == "hinter":
            return None
        mask = np.zeros(self.config.max_number, dtype=np.int8)
        if self.to_move(state) == "guesser":
            mask[:] = 1
            mask[[g - 1 for g in state.guesses]] = 0
        return mask

    def action_error(self, state: GuessState, seat: str, action: Any) -> str | None:
        """Why ``action`` is invalid for ``seat`` now (None when it is valid)."""
        if seat == "hinter":
            if not isinstance(action, str) or not action:
                return "a hint must be non-empty text"
            return "a hint may not contain digits; say it in words" if any(c.isdigit() for c in action) else None
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            return f"a guess must be a whole number from 1 to {self.config.max_number}"
        if not 1 <= action <= self.config.max_number:
            return f"{int(action)} is not a number from 1 to {self.config.max_number}"
        return f"{int(action)} was already guessed" if int(action) in state.guesses else None

    def fallback(self, state: GuessState, seat: str) -> Any:
        """No hint, or the lowest number the feedback still allows that was not guessed."""
        if seat == "hinter":
            return NO_HINT
        return next(n for n in range(state.low, state.high + 1) if n not in state.guesses)

    def apply(self, state: GuessState, seat: str, action: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Apply a valid action; return its events."""
        if seat == "hinter":
            state.hints.append(action)
            return [{"type": "hint", "text": action}]
        guess = int(action)
        state.guesses.append(guess)
        state.found = guess == state.secret
        if guess < state.secret:
            state.low = max(state.low, guess + 1)
        elif guess > state.secret:
            state.high = min(state.high, guess - 1)
        verdict = "correct" if state.found else ("higher" if guess < state.secret else "lower")
        return [{"type": "guess", "number": guess, "verdict": verdict}]

    def rewards(self, state: GuessState) -> dict[str, float]:
        return {seat: float(state.found) for seat in SEATS}

    def result(self, state: GuessState) -> dict[str, Any]:
        return {"found": state.found, "rounds": len(state.guesses), "secret": state.secret}


@game_metrics("fifthgame")
def metrics(results: list[dict[str, Any]]) -> dict[str, float]:
    """Success rate and average rounds over finished games' results (and the adapter's
    counters of rejected actions and fallbacks, per game)."""
    n = len(results)
    return {"games": n, "success_rate": sum(r["found"] for r in results) / n if n else 0.0,
            "avg_rounds": sum(r["rounds"] for r in results) / n if n else 0.0,
            **{key: sum(r.get(key, 0) for r in results) / n if n else 0.0 for key in ("invalid_actions", "fallbacks")}}
