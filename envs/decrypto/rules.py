"""Decrypto rules (3-player variant of the Decrypto benchmark paper), as pure Python.

Alice (encoder) and Bob (decoder) share 4 secret keywords; Eve (interceptor) does not. Each
turn Alice draws a secret code of 3 distinct digits 1-4 (never repeated in a game) and gives
one hint per digit. Bob and Eve guess the code independently, then the code is revealed.
A wrong Bob is a miscommunication, a right Eve an interception; two of either and Eve wins.
Surviving all turns wins for Alice and Bob.

:class:`DecryptoRules` implements the rules protocol (:mod:`cluegym.envs.core.rules`) over a
:class:`DecryptoState`: Alice's action is her hints (a tuple of strings), Bob's and Eve's an
index into ``rules.codes``. Bob and Eve form one simultaneous block (``simultaneous``): neither
sees the other's guess before the code is revealed.

Example:
    >>> rules = DecryptoRules(DecryptoConfig(), keyword_pool=["apple", "bird", "castle", "river", "moon"])
    >>> rng = np.random.default_rng(0)
    >>> state = rules.new_game(rng)                      # or options={"keywords": [...]}
    >>> [event["type"] for event in rules.apply(state, "alice", ("fruit", "wing", "tower"), rng)]
    ['hints']
    >>> rules.simultaneous(state)
    ('bob', 'eve')
    >>> _ = rules.apply(state, "bob", rules.code_index[state.code], rng)
    >>> [event["type"] for event in rules.apply(state, "eve", 0, rng)]  # the reveal
    ['guess', 'reveal']
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

import numpy as np

from cluegym.envs.core.matching import HINT_RULES, hint_keyword, require_wordnet
from cluegym.envs.core.rng import choice_without_replacement, integers
from cluegym.envs.core.rules import GameRules, option_texts
from cluegym.envs.core.text import to_charset, type_name
from cluegym.envs.core.results import game_metrics

SEATS: tuple[str, str, str] = ("alice", "bob", "eve")
#: The seats that guess each turn, in the order the AEC env asks them.
GUESSERS: tuple[str, str] = ("bob", "eve")
_GUESSER_SET = frozenset(GUESSERS)  # "every guesser has guessed" as one set comparison
#: Shown in place of a hint that was rejected too often (the fallback): it carries no meaning.
PASS_HINT = "(pass)"
# A hint word: letters and digits, inner ' - . & allowed (``R2-D2``, ``7-Eleven``, ``AT&T``),
# with at least one letter, so a bare number (``2``) cannot spell out a code digit.
_HINT_WORD = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9'.&-]*[A-Za-z0-9.])?$")
_LETTER = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class DecryptoConfig:
    """Game options. Defaults are the paper's.

    Attributes:
        num_keywords: secret keywords per game (digits run 1..num_keywords).
        code_length: digits per code (distinct).
        max_turns: turns Alice and Bob must survive.
        miscommunication_limit: miscommunication tokens that make Eve win.
        interception_limit: interception tokens that make Eve win.
        max_hint_words: words allowed per hint (1..this).
        max_hint_chars: characters allowed per hint.
        hint_rule: when a hint breaks the keyword rule
            (:func:`~cluegym.envs.core.matching.hint_keyword`): ``"paper"`` (the keyword, its
            stem/lemma, or the keyword as a whole word of the hint) or ``"substring"`` (also
            any word containing the keyword's letters, e.g. ``seal`` for ``sea``).
    """

    num_keywords: int = 4
    code_length: int = 3
    max_turns: int = 8
    miscommunication_limit: int = 2
    interception_limit: int = 2
    max_hint_words: int = 2
    max_hint_chars: int = 40
    hint_rule: Literal["paper", "substring"] = "paper"

    def __post_init__(self) -> None:
        if self.hint_rule not in HINT_RULES:
            raise ValueError(f"hint_rule must be one of {', '.join(HINT_RULES)}; got {self.hint_rule!r}")
        if not 2 <= self.num_keywords <= 9:
            raise ValueError(f"num_keywords must be in 2..9, got {self.num_keywords}")
        if not 1 <= self.code_length <= self.num_keywords:
            raise ValueError(f"code_length must be in 1..num_keywords, got {self.code_length}")
        n_codes = len(all_codes(self.num_keywords, self.code_length))
        if not 1 <= self.max_turns <= n_codes:
            raise ValueError(f"max_turns must be in 1..{n_codes} (distinct codes), got {self.max_turns}")
        for name in ("miscommunication_limit", "interception_limit", "max_hint_words", "max_hint_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


#: Longest submitted hint whose form check is cached (longer ones are rejected anyway).
_HINT_CACHE_CHARS = 200


@functools.lru_cache(maxsize=65536)
def _hint_form(hint: str, max_chars: int, max_words: int) -> tuple[str, str | None]:
    """``(cleaned hint, None)``, or ``(cleaned hint, why its form is not a hint's)``: the
    keyword-independent part of :meth:`DecryptoRules.hint_error` (cached: agents and
    retries submit the same words again and again)."""
    text = to_charset(hint).strip()
    if not text:
        return text, "a hint must not be empty"
    if len(text) > max_chars:
        return text, f"hint {text[:20]!r}... is longer than {max_chars} characters"
    words = text.split()
    if len(words) > max_words:
        return text, f"hint {text!r} has {len(words)} words; hints are 1-{max_words} words"
    bad = [w for w in words if not (_HINT_WORD.match(w) and _LETTER.search(w))]
    if bad:
        return text, (f"hint {text!r} must be made of words (letters, digits and inner ' - . &, with a letter), "
                      f"not {bad[0]!r}")
    return text, None


def all_codes(num_keywords: int = 4, code_length: int = 3) -> tuple[tuple[int, ...], ...]:
    """Every code: ordered tuples of distinct digits 1..num_keywords (24 for the defaults)."""
    return tuple(itertools.permutations(range(1, num_keywords + 1), code_length))


def format_code(code: Sequence[int] | None) -> str:
    """``(3, 1, 4)`` -> ``"3-1-4"`` (``"none"`` for a missing code)."""
    if code is None:
        return "none"
    if type(code) is tuple:  # every prompt formats the same few dozen codes
        try:
            return _code_text(code)
        except TypeError:  # unhashable digits: formatted (or rejected) below
            pass
    return "-".join([str(int(d)) for d in code])


@functools.lru_cache(maxsize=4096)
def _code_text(code: tuple[int, ...]) -> str:
    return "-".join([str(int(d)) for d in code])


@dataclass(frozen=True)
class TurnRecord:
    """One resolved turn, public once the code is revealed (frozen: the views of the past
    are kept per history, see ``DecryptoEnv._observation``)."""

    turn: int
    code: tuple[int, ...]
    hints: tuple[str, ...]
    bob_guess: tuple[int, ...]
    eve_guess: tuple[int, ...]

    @property
    def miscommunication(self) -> bool:
        return self.bob_guess != self.code

    @property
    def interception(self) -> bool:
        return self.eve_guess == self.code

    def as_dict(self) -> dict:
        code, bob_guess, eve_guess = self.code, self.bob_guess, self.eve_guess
        return {
            "turn": self.turn, "code": list(code), "hints": list(self.hints),
            "bob_guess": list(bob_guess), "eve_guess": list(eve_guess),
            # the miscommunication and interception properties, inlined (built per seat per step)
            "miscommunication": bob_guess != code, "interception": eve_guess == code,
        }


@dataclass
class DecryptoState:
    """Everything about one game. ``phase`` is ``"encode"``, ``"decode"`` or ``"over"``."""

    keywords: tuple[str, ...]
    turn: int = 0
    phase: str = "encode"
    code: tuple[int, ...] = ()
    hints: tuple[str, ...] = ()
    guesses: dict[str, tuple[int, ...]] = field(default_factory=dict)
    history: list[TurnRecord] = field(default_factory=list)
    miscommunications: int = 0
    interceptions: int = 0
    winner: str | None = None  # "encoders" or "interceptor"
    end_reason: str | None = None  # "miscommunications", "interceptions" or "survived"

    def hint_history(self, num_keywords: int) -> list[list[str]]:
        """Revealed hints per keyword (index 0 = keyword 1), oldest first."""
        per_keyword: list[list[str]] = [[] for _ in range(num_keywords)]
        for record in self.history:
            for digit, hint in zip(record.code, record.hints):
                per_keyword[digit - 1].append(hint)
        return per_keyword

    @property
    def last_turn(self) -> TurnRecord | None:
        """The last resolved turn (what every seat saw revealed), None before the first."""
        return self.history[-1] if self.history else None

    @property
    def used_codes(self) -> set[tuple[int, ...]]:
        return {r.code for r in self.history} | ({self.code} if self.code else set())

    @property
    def guessers_left(self) -> tuple[str, ...]:
        """The seats that still have to guess this turn, Bob first (empty outside decoding)."""
        if self.phase != "decode":
            return ()
        return tuple(seat for seat in GUESSERS if seat not in self.guesses)


class DecryptoRules(GameRules[DecryptoState]):
    """The rules protocol's verbs for Decrypto. All randomness comes from the generator passed in.

    Args:
        config: the game options.
        keyword_pool: the words each game's keywords are drawn from (not needed when every
            game gets ``options={"keywords": [...]}``).

    Raises:
        WordNetMissingError: Debian's WordNet database (the word judge's data) is missing.
    """

    plain_json = True  # events and result: new plain JSON (see GameRules.plain_json)
    reset_options = ("keywords",)

    seats = SEATS

    def __init__(self, config: DecryptoConfig | None = None, keyword_pool: Sequence[str] | None = None) -> None:
        require_wordnet()  # the word judge needs WordNet: fail before play, not mid-game
        self.config = config or DecryptoConfig()
        self.keyword_pool = tuple(keyword_pool) if keyword_pool is not None else None
        # (pool, the pool as new_game normalizes each drawn keyword): built once, not per game.
        self._normalized_pool: tuple[Any, tuple[str, ...]] = (None, ())
        self.codes = all_codes(self.config.num_keywords, self.config.code_length)
        self.code_index = {code: i for i, code in enumerate(self.codes)}
        # legal_mask's masks by the codes revealed so far (None: no choice now), read-only.
        self._masks: dict[tuple[tuple[int, ...], ...] | None, np.ndarray] = {}

    # ----------------------------------------------------------------- setup
    def new_game(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> DecryptoState:
        """Start a game with ``options["keywords"]`` or keywords drawn from the keyword pool;
        draw turn 1's code.

        Raises:
            TypeError: a ``keywords`` option that is not a list of strings.
            ValueError: no keywords given and no pool of enough words, or the keywords given
                are not ``num_keywords`` distinct non-empty words.
        """
        n = self.config.num_keywords
        keywords = (options or {}).get("keywords")
        if keywords is None:
            if self.keyword_pool is None or len(self.keyword_pool) < n:
                raise ValueError(f"need a keyword pool of at least {n} words")
            picks = choice_without_replacement(rng, len(self.keyword_pool), n)
            source, pool = self._normalized_pool
            if source is not self.keyword_pool:  # first game, or a pool set since
                pool = tuple(str(k).strip().lower() for k in self.keyword_pool)
                self._normalized_pool = (self.keyword_pool, pool)
            keywords = tuple([pool[i] for i in picks])
        else:
            keywords = tuple(k.strip().lower() for k in option_texts(keywords, "keywords", n))
        if len(keywords) != n or len(set(keywords)) != n or not all(keywords):
            raise ValueError(f"need {n} distinct non-empty keywords, got {list(keywords)}")
        state = DecryptoState(keywords=keywords)
        self._draw_code(state, rng)
        return state

    def _draw_code(self, state: DecryptoState, rng: np.random.Generator) -> None:
        used = state.used_codes  # once, not once per code
        unused = [c for c in self.codes if c not in used] if used else self.codes
        state.code = unused[integers(rng, len(unused))]

    # ------------------------------------------------------------ validation
    def hint_error(self, hint: object, keywords: Sequence[str]) -> str | None:
        """Why ``hint`` is not a valid hint for these keywords, or None if it is.

        A hint is 1..max_hint_words words, each of letters and digits with at least one letter
        (inner ``'``, ``-``, ``.``, ``&`` allowed: ``R2-D2``, ``7-Eleven``), and must not break
        the keyword rule of ``config.hint_rule`` (:func:`~cluegym.envs.core.matching.hint_keyword`):
        under the paper's rule, not be a keyword, share its stem or lemma, or contain it as a
        whole word (``fire truck``); ``farm`` for ``arm`` is fine.
        """
        if not isinstance(hint, str):
            return f"a hint must be a string, got {type_name(hint)}"
        cfg = self.config
        if type(hint) is str and len(hint) <= _HINT_CACHE_CHARS:
            text, error = _hint_form(hint, cfg.max_hint_chars, cfg.max_hint_words)
        else:
            text, error = _hint_form.__wrapped__(hint, cfg.max_hint_chars, cfg.max_hint_words)
        if error is not None:
            return error
        keyword = hint_keyword(text, keywords, self.config.hint_rule)
        if keyword is not None:
            what = "contains" if self.config.hint_rule == "substring" else "contains as a word"
            return f"hint {text!r} is, {what} or shares a stem with the keyword {keyword!r}"
        return None

    def hints_error(self, hints: object, keywords: Sequence[str]) -> str | None:
        """Why a set of hints is invalid (wrong count or an invalid hint), or None."""
        if isinstance(hints, str) or not isinstance(hints, (list, tuple)):
            return f"hints must be a tuple of {self.config.code_length} strings, got {type_name(hints)}"
        if len(hints) != self.config.code_length:
            return f"expected {self.config.code_length} hints (one per code digit), got {len(hints)}"
        for i, hint in enumerate(hints):
            error = self.hint_error(hint, keywords)
            if error is not None:
                return f"hint {i + 1}: {error}"
        return None

    # ------------------------------------------------------------- protocol
    def to_move(self, state: DecryptoState) -> str | None:
        """The seat to act: Alice when encoding, then Bob, then Eve; None when over."""
        if state.phase == "encode":
            return "alice"
        if state.phase == "decode":
            guesses = state.guesses
            for seat in GUESSERS:  # state.guessers_left[0], without building the tuple
                if seat not in guesses:
                    return seat
        return None

    def simultaneous(self, state: DecryptoState) -> tuple[str, ...]:
        """Bob and Eve guess without seeing each other's guess: while decoding, the block is
        the guessers still to guess (``("bob", "eve")``, then ``("eve",)``)."""
        phase = state.phase
        if phase == "decode":
            guesses = state.guesses  # state.guessers_left, without the property's overhead
            return tuple([seat for seat in GUESSERS if seat not in guesses])
        return ("alice",) if phase == "encode" else ()  # GameRules.simultaneous: (to_move,) or ()

    def acts_now(self, state: DecryptoState, seat: str) -> bool:
        """``seat in self.simultaneous(state)``, without building the block (asked for every
        observation with an action mask)."""
        phase = state.phase
        if phase == "decode":
            return seat in GUESSERS and seat not in state.guesses
        return phase == "encode" and seat == "alice"

    def legal_mask(self, state: DecryptoState, seat: str) -> np.ndarray | None:
        """Bob's and Eve's legal codes (index ``i`` is ``codes[i]``): every code not revealed
        in an earlier turn, while the seat still has to guess this turn; all zeros otherwise.
        Alice's action is text (None). The array is read-only."""
        if seat not in GUESSERS:
            return None
        # In the block (simultaneous) exactly when decoding and not yet guessed this turn.
        revealed = tuple([record.code for record in state.history]) if (
            state.phase == "decode" and seat not in state.guesses
        ) else None
        mask = self._masks.get(revealed)
        if mask is None:
            if revealed is None:
                mask = np.zeros(len(self.codes), dtype=np.int8)
            else:
                mask = np.ones(len(self.codes), dtype=np.int8)
                code_index = self.code_index
                for code in revealed:
                    index = code_index.get(code)
                    if index is not None:  # a revealed code outside this config's codes masks nothing
                        mask[index] = 0
            mask.setflags(write=False)  # observations and infos show it, so it can be shared
            if len(self._masks) >= 4096:
                self._masks.clear()
            self._masks[revealed] = mask
        return mask

    def apply(self, state: DecryptoState, seat: str, action: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
        """Alice's hints (already checked, or the fallback) or a guesser's code index; the
        last guess of a turn reveals the code, awards tokens and ends the game or draws the
        next turn's code from ``rng``."""
        if seat == "alice":
            if state.phase != "encode":
                raise RuntimeError(f"cannot give hints in phase {state.phase!r}")
            state.hints = tuple([to_charset(h).strip() for h in action])
            state.guesses = {}
            state.phase = "decode"
            return [{"type": "hints", "turn": state.turn, "hints": list(state.hints)}]
        guesses = state.guesses
        if state.phase != "decode" or seat not in GUESSERS or seat in guesses:  # not in guessers_left
            raise RuntimeError(f"{seat!r} cannot guess now (phase {state.phase!r})")
        guesses[seat] = self.codes[int(action)]
        events: list[dict[str, Any]] = [{"type": "guess", "seat": seat, "turn": state.turn}]
        if guesses.keys() >= _GUESSER_SET:  # no guessers left: reveal
            record = self._resolve_turn(state, rng)
            events.append({"type": "reveal", **record.as_dict()})
            if state.winner is not None:
                events.append({"type": "game_over", "winner": state.winner, "reason": state.end_reason})
        return events

    def _resolve_turn(self, state: DecryptoState, rng: np.random.Generator) -> TurnRecord:
        """Reveal the code, award tokens, end the game or start the next turn."""
        record = TurnRecord(
            turn=state.turn, code=state.code, hints=state.hints,
            bob_guess=state.guesses["bob"], eve_guess=state.guesses["eve"],
        )
        state.history.append(record)
        state.miscommunications += record.miscommunication
        state.interceptions += record.interception
        cfg = self.config
        if state.miscommunications >= cfg.miscommunication_limit:
            state.winner, state.end_reason = "interceptor", "miscommunications"
        elif state.interceptions >= cfg.interception_limit:
            state.winner, state.end_reason = "interceptor", "interceptions"
        elif state.turn + 1 >= cfg.max_turns:
            state.winner, state.end_reason = "encoders", "survived"
        state.turn += 1
        state.hints, state.guesses = (), {}
        if state.winner is not None:
            state.phase, state.code = "over", ()
        else:
            state.phase = "encode"
            self._draw_code(state, rng)
        return record

    def rewards(self, state: DecryptoState) -> dict[str, float]:
        """+1 for the winning side, -1 for the losing side, 0 while the game runs."""
        if state.winner is None:
            return {seat: 0.0 for seat in SEATS}
        sign = 1.0 if state.winner == "encoders" else -1.0
        return {"alice": sign, "bob": sign, "eve": -sign}

    def result(self, state: DecryptoState) -> dict[str, Any]:
        """The outcome of a finished game, for :func:`metrics`."""
        return {
            "winner": state.winner,
            "end_reason": state.end_reason,
            "turns": len(state.history),
            "miscommunications": state.miscommunications,
            "interceptions": state.interceptions,
            "keywords": list(state.keywords),
            "history": [r.as_dict() for r in state.history],
        }


@game_metrics("decrypto")
def metrics(results: Sequence[dict]) -> dict[str, float]:
    """The paper's metrics over finished games' results (``record["result"]``).

    Returns:
        games; ``encoder_win_rate`` (the survival rate); ``miscommunication_end_rate`` and
        ``interception_end_rate`` (share of games ending that way, Figure 2 left);
        ``avg_turns`` and ``avg_turns_sem`` (Figure 2 right); ``avg_miscommunications``,
        ``avg_interceptions``; ``miscommunication_rate`` and ``interception_rate`` (events per
        turn played, the paper's event rate); ``invalid_actions``/``fallbacks``/``forfeits`` per game.
    """
    n = len(results)
    if n == 0:
        return {"games": 0}
    turns = np.array([r["turns"] for r in results], dtype=float)
    total_turns = max(turns.sum(), 1.0)
    mis = np.array([r["miscommunications"] for r in results], dtype=float)
    inter = np.array([r["interceptions"] for r in results], dtype=float)
    return {
        "games": n,
        "encoder_win_rate": float(np.mean([r["winner"] == "encoders" for r in results])),
        "miscommunication_end_rate": float(np.mean([r["end_reason"] == "miscommunications" for r in results])),
        "interception_end_rate": float(np.mean([r["end_reason"] == "interceptions" for r in results])),
        "avg_turns": float(turns.mean()),
        "avg_turns_sem": float(turns.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
        "avg_miscommunications": float(mis.mean()),
        "avg_interceptions": float(inter.mean()),
        "miscommunication_rate": float(mis.sum() / total_turns),
        "interception_rate": float(inter.sum() / total_turns),
        "invalid_actions": float(np.mean([r.get("invalid_actions", 0) for r in results])),
        "fallbacks": float(np.mean([r.get("fallbacks", 0) for r in results])),
        "forfeits": float(np.mean([r.get("forfeits", 0) for r in results])),
    }
