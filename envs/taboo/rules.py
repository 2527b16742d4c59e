"""Adversarial Taboo rules (as played in CoMet, after Yao et al. 2021), as pure Python.

The attacker knows a secret target word; the defender does not. They talk in turns, the
attacker first, ``max_turns`` utterances each. The attacker wants the defender to say the
target without saying it itself; the defender wants to work the word out and may guess once.

- The attacker says the target (or a derivative: plural, -ing, -ed, same stem, WordNet
  lemma) -> rule break, the defender wins.
- The defender's utterance says it -> the attacker wins (checked before its guess).
- The defender guesses: right -> the defender wins, wrong -> the attacker wins. The game
  ends at the guess.
- No guess by the turn limit -> a draw.

Example:
    >>> rules = TabooRules(TabooConfig(), targets=["apple", "river"])
    >>> rng = np.random.default_rng(0)
    >>> state = rules.new_game(rng, {"target": "apple"})     # or drawn from the targets
    >>> [event["type"] for event in rules.apply(state, "attacker", {"utterance": "Red and crunchy."}, rng)]
    ['utterance']
    >>> [event["type"] for event in rules.apply(state, "defender", {"utterance": "A fruit?", "guess": "apple"}, rng)]
    ['utterance', 'game_over']
    >>> state.winner, state.end_reason
    ('defender', 'correct_guess')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from cluegym.envs.core.rules import GameRules, option_text
from cluegym.envs.core.text import MAX_TEXT_OPTION_CHARS, collapse_text, to_charset, type_name
from cluegym.envs.core.matching import is_same_word_guess, require_wordnet, says_word
from cluegym.envs.core.rng import integers
from cluegym.envs.core.results import game_metrics

SEATS: tuple[str, str] = ("attacker", "defender")
#: Said in place of an utterance that was rejected too often (the fallback).
SILENCE = "(silence)"


#: Most utterances per player a game may allow: the observation holds a Text space for each of
#: the dialogue's ``2 * max_turns`` lines, so 10**8 built for minutes (the paper plays 5).
MAX_TURNS_LIMIT = 1000


@dataclass(frozen=True)
class TabooConfig:
    """Game options.

    Attributes:
        max_turns: utterances per player before the game is drawn (default 5 each).
        max_utterance_chars: longest utterance accepted.
        max_guess_words: most words in a guess (a word or a short phrase).
        strict_word_check: also count words that merely contain the target (``firefighter``
            for ``fire``) as saying it; by default only the target and its derivatives count.
    """

    max_turns: int = 5
    max_utterance_chars: int = 300
    max_guess_words: int = 3
    strict_word_check: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.max_turns <= MAX_TURNS_LIMIT:
            raise ValueError(f"max_turns must be in 1..{MAX_TURNS_LIMIT}, got {self.max_turns}")
        if not 10 <= self.max_utterance_chars <= MAX_TEXT_OPTION_CHARS:
            raise ValueError(f"max_utterance_chars must be in 10..{MAX_TEXT_OPTION_CHARS}, got {self.max_utterance_chars}")
        if self.max_guess_words < 1:
            raise ValueError(f"max_guess_words must be >= 1, got {self.max_guess_words}")


@dataclass
class Utterance:
    """One line of the dialogue."""

    speaker: str
    turn: int  # the speaker's own turn number, 0-based
    text: str
    guess: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"speaker": self.speaker, "turn": self.turn, "text": self.text, "guess": self.guess}


@dataclass
class TabooState:
    """Everything about one game. ``to_speak`` is ``"attacker"``, ``"defender"`` or None (over)."""

    target: str
    to_speak: str | None = "attacker"
    dialogue: list[Utterance] = field(default_factory=list)
    winner: str | None = None  # "attacker", "defender", or None (draw / running)
    end_reason: str | None = None
    guess: str | None = None
    guess_turn: int | None = None  # the defender turn (1-based) of the guess

    def turns_taken(self, seat: str) -> int:
        return [u.speaker for u in self.dialogue].count(seat)


@functools.lru_cache(maxsize=4096)
def _normalize_target(target: object) -> str:
    """A target as games use it: in the charset, lowercase, whitespace collapsed (cached:
    the same few hundred targets come up game after game)."""
    return " ".join(to_charset(str(target)).lower().split())


#: Why a game ended -> who won.
END_REASONS: dict[str, str | None] = {
    "attacker_said_target": "defender",
    "defender_said_target": "attacker",
    "correct_guess": "defender",
    "wrong_guess": "attacker",
    "turn_limit": None,
}


class TabooRules(GameRules[TabooState]):
    """The rules protocol's verbs for Adversarial Taboo.

    Args:
        config: the game options.
        targets: the words each game's target is drawn from (not needed when every game gets
            ``options={"target": ...}``).

    Raises:
        WordNetMissingError: Debian's WordNet database (the word judge's data) is missing.
    """

    plain_json = True  # events and result: new plain JSON (see GameRules.plain_json)
    reset_options = ("target",)

    seats = SEATS

    def __init__(self, config: TabooConfig | None = None, targets: Sequence[str] | None = None) -> None:
        require_wordnet()  # the word judge needs WordNet: fail before play, not mid-game
        self.config = config or TabooConfig()
        self.targets = tuple(targets) if targets is not None else None

    def new_game(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> TabooState:
        """Start a game with ``options["target"]`` or a target drawn from the target list.

        Raises:
            TypeError: a ``target`` option that is not a string.
            ValueError: no target given and no target list, or an empty target.
        """
        target = (options or {}).get("target")
        if target is None:
            if not self.targets:
                raise ValueError("need a non-empty target list")
            target = self.targets[integers(rng, len(self.targets))]
        else:
            option_text(target, "target")
        if type(target) is str and len(target) <= 200:
            target = _normalize_target(target)
        else:  # odd or long targets (options): uncached
            target = _normalize_target.__wrapped__(target)
        if not target:
            raise ValueError("the target word must not be empty")
        return TabooState(target=target)

    # ------------------------------------------------------------ validation
    @staticmethod
    def normalize(text: str) -> str:
        """``text`` in the shared charset with whitespace collapsed."""
        return collapse_text(text)

    def utterance_error(self, text: object, *, allow_empty: bool = False, normalized: str | None = None) -> str | None:
        """Why ``text`` is not a well-formed utterance (type, empty, length), or None.

        Saying the target is *not* an error here: it is a game event (see :meth:`attack`).

        Args:
            normalized: ``normalize(text)`` when the caller has it already.
        """
        if not isinstance(text, str):
            return f"an utterance must be a string, got {type_name(text)}"
        clean = self.normalize(text) if normalized is None else normalized
        if not clean and not allow_empty:
            return "an utterance must not be empty"
        if len(clean) > self.config.max_utterance_chars:
            return f"the utterance is longer than {self.config.max_utterance_chars} characters"
        return None

    def guess_error(self, guess: object, *, normalized: str | None = None) -> str | None:
        """Why ``guess`` is not a well-formed guess (a word or short phrase), or None.
        An empty guess means no guess.

        Args:
            normalized: ``normalize(guess)`` when the caller has it already.
        """
        if guess is None:
            return None
        if not isinstance(guess, str):
            return f"a guess must be a string, got {type_name(guess)}"
        words = (self.normalize(guess) if normalized is None else normalized).split()
        if len(words) > self.config.max_guess_words:
            return f"a guess is one word or a short phrase (at most {self.config.max_guess_words} words)"
        if words and not any(ch.isalpha() for ch in "".join(words)):
            return "a guess must contain a word"
        return None

    def says_target(self, state: TabooState, text: str) -> bool:
        """Whether ``text`` says the target or a derivative of it."""
        return says_word(text, state.target, strict=self.config.strict_word_check)

    # ----------------------------------------------------------- transitions
    def to_move(self, state: TabooState) -> str | None:
        """The seat to speak next, ``None`` once the game is over."""
        return state.to_speak

    def apply(self, state: TabooState, seat: str, action: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Apply a checked ``{"utterance": ..., "guess": ...}`` (``guess`` for the defender
        only; empty is no guess). Events: the utterance, and ``game_over`` when it ends the game."""
        if seat == "attacker":
            self.attack(state, action["utterance"])
        else:
            self.defend(state, action["utterance"], action.get("guess") or None)
        events: list[dict[str, Any]] = [{"type": "utterance", **state.dialogue[-1].as_dict()}]
        if state.end_reason is not None:
            events.append({"type": "game_over", "winner": state.winner, "reason": state.end_reason})
        return events

    def attack(self, state: TabooState, text: str) -> None:
        """The attacker's utterance. Saying the target ends the game: the defender wins."""
        if state.to_speak != "attacker":
            raise RuntimeError("the attacker cannot speak now")
        text = self.normalize(text) or SILENCE
        state.dialogue.append(Utterance("attacker", state.turns_taken("attacker"), text))
        if text != SILENCE and self.says_target(state, text):
            self._end(state, "attacker_said_target")
        else:
            state.to_speak = "defender"

    def defend(self, state: TabooState, text: str, guess: str | None = None) -> None:
        """The defender's utterance and optional guess (empty or None: no guess).

        Order of judgement: the utterance saying the target (the attacker wins), then the
        guess (right: the defender wins; wrong: the attacker wins), then the turn limit.
        """
        if state.to_speak != "defender":
            raise RuntimeError("the defender cannot speak now")
        text = self.normalize(text)
        guess = self.normalize(guess) if guess else ""
        turn = state.turns_taken("defender")
        state.dialogue.append(Utterance("defender", turn, text or ("" if guess else SILENCE), guess or None))
        if text and self.says_target(state, text):
            self._end(state, "defender_said_target")
        elif guess:
            state.guess, state.guess_turn = guess, turn + 1
            self._end(state, "correct_guess" if is_same_word_guess(guess, state.target) else "wrong_guess")
        elif turn + 1 >= self.config.max_turns:
            self._end(state, "turn_limit")
        else:
            state.to_speak = "attacker"

    @staticmethod
    def _end(state: TabooState, reason: str) -> None:
        state.end_reason, state.winner, state.to_speak = reason, END_REASONS[reason], None

    # --------------------------------------------------------------- results
    def rewards(self, state: TabooState) -> dict[str, float]:
        """+1 to the winner, -1 to the loser; 0 to both on a draw or while the game runs."""
        if state.winner is None:
            return {seat: 0.0 for seat in SEATS}
        return {seat: 1.0 if seat == state.winner else -1.0 for seat in SEATS}

    def result(self, state: TabooState) -> dict[str, Any]:
        """The outcome of a finished game, for :func:`metrics`."""
        return {
            "winner": state.winner,
            "end_reason": state.end_reason,
            "target": state.target,
            "guess": state.guess,
            "guess_turn": state.guess_turn,
            "attacker_turns": state.turns_taken("attacker"),
            "defender_turns": state.turns_taken("defender"),
            "dialogue": [u.as_dict() for u in state.dialogue],
        }


@game_metrics("taboo")
def metrics(results: Sequence[dict]) -> dict[str, Any]:
    """Adversarial Taboo metrics over finished games' results (``record["result"]``).

    Returns:
        games; ``attacker_win_rate``, ``defender_win_rate``, ``draw_rate``; rule breaks:
        ``attacker_rule_break_rate`` (the attacker said the target) and
        ``defender_slip_rate`` (the defender said it); ``guess_rate``, ``correct_guess_rate``,
        ``wrong_guess_rate`` (shares of games); ``guess_accuracy`` (right guesses / guesses);
        ``avg_turns_to_guess`` (defender turns, over games with a guess); ``avg_turns``
        (utterances per game); invalid actions, fallbacks and forfeits per game.
    """
    n = len(results)
    if n == 0:
        return {"games": 0}

    def share(reason: str) -> float:
        return float(np.mean([r["end_reason"] == reason for r in results]))

    guessed = [r for r in results if r.get("guess")]
    return {
        "games": n,
        "attacker_win_rate": float(np.mean([r["winner"] == "attacker" for r in results])),
        "defender_win_rate": float(np.mean([r["winner"] == "defender" for r in results])),
        "draw_rate": float(np.mean([r["winner"] is None for r in results])),
        "attacker_rule_break_rate": share("attacker_said_target"),
        "defender_slip_rate": share("defender_said_target"),
        "guess_rate": float(len(guessed) / n),
        "correct_guess_rate": share("correct_guess"),
        "wrong_guess_rate": share("wrong_guess"),
        "guess_accuracy": float(np.mean([r["end_reason"] == "correct_guess" for r in guessed])) if guessed else None,
        "avg_turns_to_guess": float(np.mean([r["guess_turn"] for r in guessed])) if guessed else None,
        "avg_turns": float(np.mean([r["attacker_turns"] + r["defender_turns"] for r in results])),
        "invalid_actions": float(np.mean([r.get("invalid_actions", 0) for r in results])),
        "fallbacks": float(np.mean([r.get("fallbacks", 0) for r in results])),
        "forfeits": float(np.mean([r.get("forfeits", 0) for r in results])),
    }
