"""Decrypto as a PettingZoo AEC environment (``cluegym.envs.decrypto_v0``).

The game itself is :class:`~cluegym.envs.decrypto.rules.DecryptoRules` (the rules protocol of
:mod:`cluegym.envs.core.rules`), which the shared adapter drives; this module adds the spaces,
the observations and prompts, the action checks with their fallback, and the rendering.

Game card
---------
Seats: ``alice`` (encoder), ``bob`` (decoder), ``eve`` (interceptor). Alice and Bob share 4
secret keywords drawn from a shipped list of ~680 concrete nouns (or yours). Each turn Alice
gets a secret code of 3 distinct digits 1-4 (24 codes, never repeated in a game) and gives 3
hints of 1-2 words in code order. Hint rule (the paper's "real words ... refer to the meaning of
the keywords, not to their spelling"): a hint is rejected when it is a keyword, shares its stem
or lemma (``fires``, ``mice`` for ``mouse``) or contains it as a whole word (``fire truck``,
``fire-truck``); words that merely contain its letters are valid (``farm`` for ``arm``,
``seal`` for ``sea``); words are letters and digits with a letter (``R2-D2``, ``7-Eleven``).
``hint_rule="substring"`` also rejects any word containing a keyword (the older, stricter rule).
Bob, then Eve, guess the code independently (Eve from turn 1, never seeing Bob's
guess); then code, hints and guesses are public. Two miscommunications (Bob wrong) or two
interceptions (Eve right) and Eve wins; surviving 8 turns wins for Alice and Bob.

Order per turn: alice -> bob -> eve. Bob and Eve are one simultaneous block
(``rules.simultaneous``): ``parallel_env()`` lets them guess in one step.

Observations (``Dict``), per seat:
    prompt: the paper's system + turn prompt for the seat (appendix A.2/A.3), with all turn
        summaries, hint history per keyword, code history and token counts.
    turn: current turn (0-based).
    keywords: the 4 keywords (alice, bob only).
    code: this turn's code, digits 1-4 (alice only).
    hints: this turn's hints ("" until given).
    hint_history: per keyword, its revealed hints, oldest first, padded with "".
    code_history: revealed codes, one row per past turn, 0-padded.
    guess_history: per past turn, Bob's and Eve's guesses, 0-padded.
    tokens: [miscommunications, interceptions].
    action_mask: (bob, eve) 1 for codes that can still occur (revealed codes never recur)
        while the seat still has to guess this turn, all zeros otherwise (also in
        ``infos[seat]["action_mask"]``).

Actions:
    alice: ``Tuple(Text, Text, Text)``, the hints in code order.
    bob, eve: ``Discrete(24)``, an index into :data:`CODES` (``CODES[i] == (1, 2, 3)`` etc.).

Invalid actions (a hint that breaks the rules, a non-code, a masked code) are rejected with
the reason in ``infos[seat]["error"]`` and the same seat acts again, up to ``max_retries``.
Fallback: for Alice each invalid hint becomes ``"(pass)"``; for Bob/Eve a random legal code.

Rewards: +1 to the winning side, -1 to the losing side, at the end. ``infos[seat]["last_turn"]``
holds the last resolved turn (code, hints, guesses, miscommunication, interception): one dict
per turn, shared by every seat's info until the next turn is resolved (treat it as read-only).

Example:
    >>> from cluegym.envs import decrypto_v0
    >>> env = decrypto_v0.env()
    >>> env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> print(obs["prompt"].splitlines()[0])
    You are playing a variant of the code guessing game Decrypto. The setup of the game is the following:
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Literal, NamedTuple, Sequence

import gymnasium
import numpy as np

from cluegym.envs.core import ClueGameEnv, int_box, mask_space, pad_texts, read_only, text_space, text_tuple, wrap
from cluegym.envs.core.data import checked_game_words, shipped_word_list, word_list_option
from cluegym.envs.core.rng import integers
from cluegym.envs.core.text import describe, is_integer
from cluegym.envs.decrypto.prompts import (
    full_prompt, history_key, history_lines, quote_hint, seat_texts, summaries_text, turn_block, turn_key,
)
from cluegym.envs.decrypto.rules import (
    PASS_HINT, SEATS, DecryptoConfig, DecryptoRules, DecryptoState, TurnRecord, all_codes, format_code, metrics,
)

__all__ = ["CODES", "DecryptoEnv", "env", "raw_env", "metrics", "random_vocabulary", "DEFAULT_AGENTS"]

#: The 24 codes of the default game, in the order of the Discrete actions.
CODES: tuple[tuple[int, ...], ...] = all_codes()
#: Agents used by ``cluegym run decrypto`` for seats not given on the command line.
DEFAULT_AGENTS: dict[str, str] = {"alice": "glove:k=16", "bob": "glove", "eve": "word2vec"}
PROMPT_MAX_CHARS = 20_000
WORD_MAX_CHARS = 40


def _keyword_as_used(word: str) -> str:
    """A keyword as the rules use it (:meth:`DecryptoRules.new_game`)."""
    return str(word).strip().lower()


@functools.lru_cache(maxsize=16)
def _distinct(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` without repeats, in order (the same tuple when it has none: the shipped list)."""
    kept = tuple(dict.fromkeys(words))
    return words if len(kept) == len(words) else kept


def random_vocabulary() -> tuple[str, ...]:
    """The shipped hint vocabulary (~5,000 nouns), used by the random agent for hints."""
    return shipped_word_list("cluegym.envs.decrypto", "hint_vocab.txt")


class DecryptoEnv(ClueGameEnv):
    """Decrypto, 3 seats (see the module docstring for the full game card).

    Args:
        max_turns: turns Alice and Bob must survive (default 8).
        miscommunication_limit: miscommunications that lose the game (default 2).
        interception_limit: interceptions that lose the game (default 2).
        code_length: digits per code (default 3).
        num_keywords: keywords per game (default 4).
        keywords: keyword pool: None for the shipped list, a path to a word-list file, or a
            list of words. ``reset(options={"keywords": [...]})`` fixes one game's keywords.
        hint_rule: ``"paper"`` (default: a hint may not be a keyword, share its stem/lemma or
            contain it as a whole word) or ``"substring"`` (also no word containing a keyword).
        max_retries: resubmissions allowed after an invalid action (default 3).
        render_mode: ``"human"`` or ``"ansi"``.
    """

    metadata = {"name": "decrypto_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    game_id = "decrypto_v0"
    word_judge = True  # Alice's hints are checked against the keywords
    frozen_arrays = True  # the past's arrays are shared, the others marked when made
    observes_lean = True  # _observe(agent, lean=True) builds no prompt

    def __init__(
        self,
        *,
        max_turns: int = 8,
        miscommunication_limit: int = 2,
        interception_limit: int = 2,
        code_length: int = 3,
        num_keywords: int = 4,
        keywords: str | Path | Sequence[str] | None = None,
        hint_rule: Literal["paper", "substring"] = "paper",
        max_retries: int = 3,
        render_mode: str | None = None,
        record_observations: bool = True,
    ) -> None:
        self.game_config = DecryptoConfig(
            num_keywords=num_keywords, code_length=code_length, max_turns=max_turns,
            miscommunication_limit=miscommunication_limit, interception_limit=interception_limit,
            hint_rule=hint_rule,
        )
        # As the rules use them (stripped, lower case), each checked once per list, and each once:
        # "Apple" beside "apple" made the games that drew both fail at their reset.
        self.keyword_pool = _distinct(checked_game_words(
            word_list_option(keywords, "cluegym.envs.decrypto", "keywords.txt"), _keyword_as_used, WORD_MAX_CHARS,
            "keyword"))
        if len(self.keyword_pool) < num_keywords:
            raise ValueError(f"keyword list has {len(self.keyword_pool)} distinct words (case ignored); "
                             f"need >= {num_keywords}")
        super().__init__(
            max_retries=max_retries, render_mode=render_mode, record_observations=record_observations,
            config={
                "max_turns": max_turns, "miscommunication_limit": miscommunication_limit,
                "interception_limit": interception_limit, "code_length": code_length,
                "num_keywords": num_keywords, "hint_rule": hint_rule,
                "keywords": None if keywords is None else (str(keywords) if isinstance(keywords, (str, Path)) else list(self.keyword_pool)),
            },
        )
        self.rules = DecryptoRules(self.game_config, self.keyword_pool)
        #: seat -> (config, its constant prompt texts), see _seat_texts
        self._prompt_texts: dict[str, tuple[DecryptoConfig, tuple[str, str]]] = {}
        #: (the history's records, config, its _Past) of the last observation (see _observation)
        self._kept_past: tuple[tuple, DecryptoConfig, _Past] | None = None
        #: the same for the past's prompt text (see _summaries)
        self._kept_text: tuple[tuple, DecryptoConfig, _PastText] | None = None
        #: (the last resolved turn, its as_dict()): the infos' last_turn (see _info)
        self._last_turn_view: tuple[TurnRecord, dict[str, Any]] | None = None
        self.codes = self.rules.codes
        self.observation_spaces = {seat: self._make_observation_space(seat) for seat in SEATS}
        self.action_spaces = {
            "alice": text_tuple(code_length, WORD_MAX_CHARS),
            "bob": gymnasium.spaces.Discrete(len(self.codes)),
            "eve": gymnasium.spaces.Discrete(len(self.codes)),
        }

    def check_optioned_game(self, state: DecryptoState) -> None:
        """``keywords`` given as a reset option fit the Text spaces, as the list's words do."""
        checked_game_words(state.keywords, str, WORD_MAX_CHARS, "keyword")

    def __getstate__(self) -> dict[str, Any]:
        # A copy rebuilds its view of the past (a copied array comes back writable).
        return {**super().__getstate__(), "_kept_past": None, "_kept_text": None, "_last_turn_view": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickled by an older version: the views it lacks
        super().__setstate__({"_kept_past": None, "_kept_text": None, "_last_turn_view": None, **state})

    def _make_observation_space(self, seat: str) -> gymnasium.spaces.Dict:
        cfg = self.game_config
        n, k, t = cfg.num_keywords, cfg.code_length, cfg.max_turns
        spaces: dict[str, gymnasium.Space] = {
            "prompt": text_space(PROMPT_MAX_CHARS),
            "turn": gymnasium.spaces.Discrete(t + 1),
            "hints": text_tuple(k, WORD_MAX_CHARS),
            "hint_history": gymnasium.spaces.Tuple([text_tuple(t, WORD_MAX_CHARS) for _ in range(n)]),
            "code_history": int_box(n, (t, k)),
            "guess_history": int_box(n, (t, 2, k)),
            "tokens": int_box(t, (2,)),
        }
        if seat in ("alice", "bob"):
            spaces["keywords"] = text_tuple(n, WORD_MAX_CHARS)
        if seat == "alice":
            spaces["code"] = int_box(n, (k,))
        else:
            spaces["action_mask"] = mask_space(len(all_codes(n, k)))
        return gymnasium.spaces.Dict(spaces)

    # ------------------------------------------------------------------ hooks
    def _observe(self, agent: str, lean: bool = False) -> dict[str, Any]:
        # No action_mask here: the adapter's observe() adds it (from the rules' legal_mask),
        # as the last key, where this view would put it.
        return self._observation(self.state, agent, None, lean)

    def _seat_texts(self, agent: str) -> tuple[str, str]:
        """:func:`~cluegym.envs.decrypto.prompts.seat_texts` of ``agent`` for this env's config,
        kept per env (the config's hash is not free and the texts never change)."""
        cfg = self.game_config
        cached = self._prompt_texts.get(agent)
        if cached is None or cached[0] is not cfg:
            cached = self._prompt_texts[agent] = (cfg, seat_texts(agent, cfg))
        return cached[1]

    def _observation(self, state: DecryptoState, agent: str, legal_mask: Any, lean: bool = False) -> dict[str, Any]:
        """The observation of ``agent`` in ``state``; ``legal_mask(state, agent)`` gives
        Bob's and Eve's ``action_mask`` (None: left out); ``lean``: no prompt (see the
        adapter's ``lean_observe``)."""
        cfg = self.game_config
        n, k, t = cfg.num_keywords, cfg.code_length, cfg.max_turns
        # The past's view is the same for every seat and step of a turn: kept for the last
        # history seen (its records compared by identity first, then by value: frozen).
        records = tuple(state.history)
        self._kept_past = _kept_history_view(
            self._kept_past, records, cfg, state, lambda prev, record, i: _extend_past(prev, record, i, t),
            lambda key: _past_view(key, n, t, k), lambda key: _build_past(key, n, t, k))
        code_history, guess_history, hint_history = self._kept_past[2][:3]
        obs: dict[str, Any] = {
            "prompt": None if lean else full_prompt(agent, state, cfg, self._summaries(state, records),
                                                    self._seat_texts(agent)),
            "turn": min(state.turn, t),
            "hints": pad_texts(state.hints, k),
            "hint_history": hint_history,
            # shared by every view of this history: read-only, as every observation's arrays
            "code_history": code_history,
            "guess_history": guess_history,
            "tokens": _int_row((state.miscommunications, state.interceptions)),
        }
        if lean:
            del obs["prompt"]  # a placeholder: the key's place in the full observation, kept
        if agent in ("alice", "bob"):
            obs["keywords"] = tuple(state.keywords)
        if agent == "alice":
            obs["code"] = _int_row(tuple(state.code) if state.code else (0,) * k)
        elif legal_mask is not None:
            obs["action_mask"] = legal_mask(state, agent)
        return obs

    def _summaries(self, state: DecryptoState, records: tuple) -> str:
        """The prompt's text of ``state``'s resolved turns (``records``, its history), kept
        as the past's view is (see :func:`_kept_history_view`)."""
        cfg = self.game_config
        n = cfg.num_keywords
        self._kept_text = _kept_history_view(
            self._kept_text, records, cfg, state, lambda prev, record, i: _extend_past_text(prev, record),
            lambda key: _past_text(key, n), lambda key: _build_past_text(key, n))
        return self._kept_text[2].summaries

    def view(self, state: DecryptoState, seat: str) -> dict[str, Any]:
        """The observation ``seat`` gets in ``state``: how a recorded game is shown to a new
        guesser (:mod:`cluegym.benchmarks.decrypto_table1`) without replaying its actions.

        Example:
            >>> state = DecryptoState(keywords=("a", "b", "c", "d"), phase="decode", code=(1, 2, 3),
            ...                       hints=("x", "y", "z"))
            >>> raw_env().view(state, "eve")["prompt"].endswith('"ANSWER: {"guess": "X-Y-Z"}".')
            True
        """
        return self._observation(state, seat, self._rules.legal_mask)

    def _info(self, agent: str) -> dict[str, Any]:
        last_turn = self.state.last_turn
        if last_turn is None:
            return {}
        kept = self._last_turn_view
        if kept is None or kept[0] is not last_turn:
            # One dict per resolved turn, shared by every seat's info until the next (as
            # Dixit's and Undercover's last_round): a seat's info was built at every step.
            kept = self._last_turn_view = (last_turn, last_turn.as_dict())
        return {"last_turn": kept[1]}

    def _check_action(self, agent: str, action: Any) -> tuple[Any, str | None]:
        if agent == "alice":
            error = self._rules.hints_error(action, self.state.keywords)
            if error is not None:
                if isinstance(action, (list, tuple)) and len(action) == self.game_config.code_length:
                    # the fallback keeps the valid hints of the last rejected set
                    self._rejected_parts = [h if type(h) is str else None for h in action]
                return None, error
            return tuple([str(h) for h in action]), None
        if type(action) is not int and not is_integer(action):  # a plain int: no call
            return None, f"a guess must be an integer code index in 0..{len(self.codes) - 1}, got {describe(action)}"
        index = int(action)
        if not 0 <= index < len(self.codes):
            return None, f"code index {index} is out of range 0..{len(self.codes) - 1}"
        if not self._legal_mask(agent)[index]:  # the adapter's legal_mask, cached per State
            return None, f"code {format_code(self.codes[index])} was already revealed and cannot recur"
        return index, None

    def _fallback_action(self, agent: str) -> tuple[Any, str]:
        if agent == "alice":
            k = self.game_config.code_length
            given = self._rejected_parts or (None,) * k
            hints = tuple(
                str(h).strip() if self._rules.hint_error(h, self.state.keywords) is None else PASS_HINT
                for h in given
            )
            return hints, f"invalid hints replaced by {PASS_HINT!r}: {list(hints)}"
        legal = np.flatnonzero(self._rules.legal_mask(self.state, agent))
        index = int(legal[integers(self.rng, len(legal))])
        return index, f"random legal code {format_code(self.codes[index])}"

    def _render_text(self) -> str:
        state = self.state
        # Once the game is over, the header counts the turns played, not the next one.
        turn = len(state.history) if state.phase == "over" else min(state.turn + 1, self.game_config.max_turns)
        lines = [
            f"Decrypto - turn {turn}/{self.game_config.max_turns}"
            f"  miscommunications {state.miscommunications}  interceptions {state.interceptions}",
            f"keywords: {', '.join(f'{i}={k}' for i, k in enumerate(state.keywords, 1))}",
        ]
        for r in state.history:
            flags = ("MISCOMMUNICATION " if r.bob_guess != r.code else "") + ("INTERCEPTION" if r.eve_guess == r.code else "")
            lines.append(
                f"  turn {r.turn + 1}: code {format_code(r.code)} hints {list(r.hints)} "
                f"bob {format_code(r.bob_guess)} eve {format_code(r.eve_guess)} {flags}".rstrip()
            )
        if state.phase == "over":
            lines.append(f"winner: {state.winner} ({state.end_reason})")
        elif state.hints:
            lines.append(f"  turn {state.turn + 1}: hints {list(state.hints)} (guessing)")
        return "\n".join(lines)


@functools.lru_cache(maxsize=1024)
def _int_row(values: tuple[int, ...]) -> np.ndarray:
    """``values`` as a read-only int64 array, one per distinct row (a few token counts and
    codes, shown again and again)."""
    return read_only(np.array(values, dtype=np.int64))


class _Past(NamedTuple):
    """What every seat's observation shows of the resolved turns (one history key), but the
    prompt's text (:class:`_PastText`, built only for a full observation)."""

    code_history: np.ndarray  # read-only: every observation of this history shows it
    guess_history: np.ndarray  # read-only: every observation of this history shows it
    hint_history: tuple[tuple[str, ...], ...]  # per keyword, padded
    hints: tuple[tuple[str, ...], ...]  # per keyword, unpadded: what the next turn's view extends


class _PastText(NamedTuple):
    """The prompt's text of the resolved turns (one history key): the learning views' lean
    observations never ask for it, so it is built apart from :class:`_Past`."""

    summaries: str  # prompts.turn_summaries
    # what the next turn's text extends:
    quoted: tuple[tuple[str, ...], ...]  # per keyword, quoted for the prompt
    blocks: str  # the turns' summary blocks
    codes: tuple[str, ...]  # formatted codes


def _kept_history_view(kept: tuple | None, records: tuple, cfg: DecryptoConfig, state: DecryptoState,
                       extend: Any, cached: Any, build: Any) -> tuple:
    """``(records, cfg, view)``: a view of ``state``'s resolved turns (``records``, its
    history; a :class:`_Past` or a :class:`_PastText`), for the env to keep instead of
    ``kept`` (the last one it kept, or None).

    ``kept`` itself when it shows these records; else, when they are one turn more (the usual
    step of a game), ``extend(view, turn_key(last record), turn index)`` of its view, without
    the history's key and the cache's lookups of every turn; else ``cached(key)`` by the
    history's key, or ``build(key)`` when its parts are unhashable (a hand-built state)."""
    if kept is not None and kept[1] is cfg:
        if kept[0] == records:
            return kept
        if len(records) == len(kept[0]) + 1 and records[:-1] == kept[0]:
            return records, cfg, extend(kept[2], turn_key(records[-1]), len(records) - 1)
    key = history_key(state)
    try:
        view = cached(key)
    except TypeError:  # unhashable parts (a hand-built state): build it uncached
        view = build(key)
    return records, cfg, view


@functools.lru_cache(maxsize=1024)
def _past_view(key: tuple, n: int, t: int, k: int) -> _Past:
    """The :class:`_Past` of the resolved turns whose
    :func:`~cluegym.envs.decrypto.prompts.history_key` is ``key``: built once per turn (every
    seat sees the same past), from the view before the last turn (cached too: the past only
    grows by one turn at a time)."""
    if not key:
        return _build_past(key, n, t, k)
    return _extend_past(_past_view(key[:-1], n, t, k), key[-1], len(key) - 1, t)


@functools.lru_cache(maxsize=1024)
def _past_text(key: tuple, n: int) -> _PastText:
    """The :class:`_PastText` of ``key`` (as :func:`_past_view`, cached, from the text
    before the last turn)."""
    if not key:
        return _build_past_text(key, n)
    return _extend_past_text(_past_text(key[:-1], n), key[-1])


def _extend_past(prev: _Past, record: tuple, i: int, t: int) -> _Past:
    """``prev`` (the view of the first ``i`` turns) with turn ``i`` added, ``record`` its
    :func:`~cluegym.envs.decrypto.prompts.history_key` entry."""
    _, code, hints, bob_guess, eve_guess = record
    code_history, guess_history = prev.code_history.copy(), prev.guess_history.copy()
    code_history[i] = code
    guess_history[i, 0] = bob_guess
    guess_history[i, 1] = eve_guess
    per_keyword, padded = list(prev.hints), list(prev.hint_history)
    for digit, hint in zip(code, hints):  # DecryptoState.hint_history, one turn more
        j = digit - 1
        per_keyword[j] += (hint,)
        padded[j] = per_keyword[j][:t] + ("",) * (t - len(per_keyword[j]))  # pad_texts(..., t)
    return _Past(read_only(code_history), read_only(guess_history), tuple(padded), tuple(per_keyword))


def _extend_past_text(prev: _PastText, record: tuple) -> _PastText:
    """``prev`` (the text of the turns before) with the turn of ``record`` (its
    :func:`~cluegym.envs.decrypto.prompts.history_key` entry) added."""
    _, code, hints, _, _ = record
    quoted = list(prev.quoted)
    for digit, hint in zip(code, hints):
        quoted[digit - 1] += (quote_hint(hint),)
    blocks = prev.blocks + turn_block(*record)
    codes = prev.codes + (format_code(code),)
    return _PastText(blocks + history_lines(quoted, codes), tuple(quoted), blocks, codes)


def _build_past(key: Sequence, n: int, t: int, k: int) -> _Past:
    """The :class:`_Past` of ``key`` built in one go (the empty history, or a hand-built
    state whose records are not hashable)."""
    per_keyword = _hints_per_keyword(key, n)
    code_history = np.zeros((t, k), dtype=np.int64)
    guess_history = np.zeros((t, 2, k), dtype=np.int64)
    for i, (_, code, _, bob_guess, eve_guess) in enumerate(key):
        code_history[i] = code
        guess_history[i, 0] = bob_guess
        guess_history[i, 1] = eve_guess
    return _Past(
        read_only(code_history), read_only(guess_history), tuple(pad_texts(h, t) for h in per_keyword),
        tuple(tuple(h) for h in per_keyword),
    )


def _build_past_text(key: Sequence, n: int) -> _PastText:
    """The :class:`_PastText` of ``key`` built in one go (as :func:`_build_past`)."""
    return _PastText(
        summaries_text(key, n, cached=False),
        tuple(tuple(quote_hint(x) for x in h) for h in _hints_per_keyword(key, n)),
        "".join(turn_block(*record) for record in key), tuple(format_code(r[1]) for r in key),
    )


def _hints_per_keyword(key: Sequence, n: int) -> list[list[str]]:
    """Per keyword, its hints in ``key``'s turns (DecryptoState.hint_history)."""
    per_keyword: list[list[str]] = [[] for _ in range(n)]
    for _, code, hints, _, _ in key:
        for digit, hint in zip(code, hints):
            per_keyword[digit - 1].append(hint)
    return per_keyword


def raw_env(**kwargs: Any) -> DecryptoEnv:
    """The unwrapped :class:`DecryptoEnv`."""
    return DecryptoEnv(**kwargs)


def env(**kwargs: Any):
    """:class:`DecryptoEnv` with PettingZoo's order-enforcing wrapper."""
    return wrap(raw_env(**kwargs))
