"""Guess the number with a hint, as a PettingZoo AEC environment (``fifthgame_v0``).

Game card
---------
Seats: ``hinter`` (knows the secret number, 1..``max_number``) and ``guesser``. Each round
the hinter gives a hint in words, then the guesser guesses; a wrong guess tells both whether
the secret is higher or lower. Both win when the guesser finds it within ``max_rounds``.

Observations (``Dict``): ``prompt`` (the seat's full view in words), ``round``, ``low`` and
``high`` (what the feedback still allows); the hinter also sees ``secret``, the guesser the
last ``hint``, and (added by the adapter from ``rules.legal_mask``) its ``action_mask``:
the numbers not guessed yet.

Actions: hinter ``Text`` (no digits); guesser ``Discrete(max_number, start=1)``. An invalid
action is rejected with the reason in ``infos[seat]["error"]``; after ``max_retries`` the
fallback is the hint ``"(no hint)"`` or the lowest number still possible.

Rewards: +1 to both when the secret is found, else 0.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from cluegym.envs.core.base import ClueGameEnv, wrap
from cluegym.envs.core.spaces import text_space
from cluegym.envs.core.text import quote_text

from .rules import NO_HINT, GuessConfig, GuessRules, metrics

__all__ = ["GuessEnv", "env", "raw_env", "metrics", "DEFAULT_AGENTS"]

#: Agents used by ``cluegym run fifthgame`` for seats not given on the command line.
DEFAULT_AGENTS: dict[str, str] = {"hinter": "random", "guesser": "random"}


class GuessEnv(ClueGameEnv):
    """Guess the number with a hint, 2 seats (see the module docstring for the game card).

    Args:
        max_number: the secret is a number from 1 to this (default 20).
        max_rounds: hint-guess rounds before the game is lost (default 5).
        max_hint_chars: longest hint accepted (default 80).
        max_retries: resubmissions allowed after an invalid action (default 3).
        render_mode: ``"human"`` or ``"ansi"``.
        record_observations: store an observation digest per step in the record.
    """

    metadata = {"name": "fifthgame_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    game_id = "fifthgame_v0"

    def __init__(self, *, max_number: int = 20, max_rounds: int = 5, max_hint_chars: int = 80,
                 max_retries: int = 3, render_mode: str | None = None, record_observations: bool = True) -> None:
        self.rules = GuessRules(GuessConfig(max_number, max_rounds, max_hint_chars))
        super().__init__(max_retries=max_retries, render_mode=render_mode, record_observations=record_observations,
                         config={"max_number": max_number, "max_rounds": max_rounds, "max_hint_chars": max_hint_chars})
        number = gymnasium.spaces.Discrete(max_number, start=1)
        shared = {"prompt": text_space(1000 + max_rounds * (max_hint_chars + 60)),
                  "round": gymnasium.spaces.Discrete(max_rounds + 1), "low": number, "high": number}
        self.observation_spaces = {
            "hinter": gymnasium.spaces.Dict({**shared, "secret": number}),
            "guesser": gymnasium.spaces.Dict({**shared, "hint": text_space(max_hint_chars)}),
        }
        self.action_spaces = {"hinter": text_space(max_hint_chars, min_length=1), "guesser": number}

    def _observe(self, agent: str) -> dict[str, Any]:
        state = self.state
        obs: dict[str, Any] = {"prompt": self._prompt(agent), "round": len(state.guesses),
                               "low": state.low, "high": state.high}
        if agent == "hinter":
            obs["secret"] = state.secret
        else:
            obs["hint"] = state.hints[-1] if state.hints else ""
        return obs

    def _prompt(self, agent: str) -> str:
        state, cfg = self.state, self.rules.config
        lines = [f"You are the {agent} in Guess the Number (numbers 1 to {cfg.max_number}). Each round the hinter "
                 "gives a hint in words (no digits), then the guesser guesses a new number; a wrong guess tells "
                 f"whether the secret is higher or lower. You both win if it is found within {cfg.max_rounds} rounds."]
        if agent == "hinter":
            lines.append(f"The secret number is {state.secret}.")
        for hint, guess in zip(state.hints, state.guesses):
            verdict = "higher" if guess < state.secret else "lower"
            lines.append(f"Hint {quote_text(hint)}, guess {guess}: the secret is {verdict}.")
        to_move = self.rules.to_move(state)
        if to_move is None:
            lines.append("The game is over: the secret was " + ("found." if state.found else "not found."))
            return "\n".join(lines)
        lines.append(f"Round {len(state.guesses) + 1} of {cfg.max_rounds}; the secret is from {state.low} to "
                     f"{state.high}.")
        if agent != to_move:
            lines.append(f"Wait for the {to_move}.")
        elif agent == "hinter":
            lines.append(f"Give your hint (at most {cfg.max_hint_chars} characters), e.g. ANSWER: just above ten")
        else:
            lines.append(f"Hint: {quote_text(state.hints[-1])}. Answer with one number you have not guessed, "
                         f"e.g. ANSWER: {self.rules.fallback(state, agent)}")
        return "\n".join(lines)

    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        error = self.rules.action_error(self.state, agent, action)
        return (None, error) if error else (action if agent == "hinter" else int(action), None)

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        action = self.rules.fallback(self.state, agent)
        return action, ("hint replaced by " + repr(NO_HINT) if agent == "hinter" else f"guessed {action}")

    def _render_text(self) -> str:
        state = self.state
        rounds = [f"  hint {quote_text(h)} -> guess {g}" for h, g in zip(state.hints, state.guesses)]
        outcome = "found" if state.found else ("not found" if self.game_over else "playing")
        return "\n".join([f"Guess the number - secret {state.secret}", *rounds, f"  {outcome}"])


def raw_env(**kwargs: Any) -> GuessEnv:
    """The unwrapped :class:`GuessEnv`."""
    return GuessEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """:class:`GuessEnv` with PettingZoo's order-enforcing wrapper."""
    return wrap(raw_env(**kwargs))
