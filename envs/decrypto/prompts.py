"""Decrypto prompts: the paper's system prompts (appendix A.2) and user prompts (A.3), verbatim.

The observation's ``"prompt"`` is the whole view of a seat in natural language: the rules
(Listing 1, with its airplane/guitar worked example and "Ignore these keywords in the
future."), the role's instructions with its worked example (Listings 2-4), a summary of every
past turn (code, hints, both guesses, hint history per keyword, code history), then the turn's
request (Listings 5-7; on turn 1 preceded by "This is the first turn. There are no past hints
or past codes.", as the paper's interface shows it, Figures 6-8). Generalist LLM agents use
it verbatim; the specialist (``llm-cot``) splits it into the paper's system and user messages.

For the paper's game (4 keywords, codes of 3, 8 turns, limits of 2) the text is the paper's,
word for word. Other configs change only the counts (``The five keywords are``, ``range from
1 to 5``). Two deliberate departures, both about *values*, not the paper's text:

- Hints shown to other seats go through :func:`~cluegym.envs.core.text.quote_text`
  (``{a: "conflict", b: "tool"}``, ``Hints: ["problem", "status"]``), where the paper prints
  them bare or as a Python list: a hint cannot leave its quotes or its line (the house's
  text-hygiene rule for every seat's free text).
- The paper's listings show escaped quotes (``\\"ANSWER: {\\"hints\\"``) where its interface
  screenshots (Figures 6-8) show plain ones; the prompts use the plain ones a model would see.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

from cluegym.envs.core.memo import cached_call
from cluegym.envs.core.text import quote_text
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState, format_code

__all__ = [
    "FIRST_TURN", "ROLE_PROMPTS", "example_code", "full_prompt", "hint_dict", "hint_list", "keyword_dict",
    "number_word", "role_prompt", "system_prompt", "turn_header", "turn_request", "turn_summaries",
]

_LETTERS = "abcdefghi"
_PLACEHOLDERS = "XYZUVWPQR"
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
# Example keywords of Listing 1 (the paper's 4, extended for larger games).
_EXAMPLE_KEYWORDS = ("airplane", "guitar", "hat", "plant", "river", "candle", "tiger", "mirror", "violin")
#: The line the paper's interface shows before the first turn's request (Figures 6-8).
FIRST_TURN = "This is the first turn. There are no past hints or past codes."


def number_word(n: int) -> str:
    """``4`` -> ``"four"`` (0-9; larger numbers as digits), as the paper writes counts."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def example_code(cfg: DecryptoConfig) -> str:
    """Listing 1's example code, ``3-1-2`` for the paper's game (its digits that fit, in order)."""
    digits = [d for d in (3, 1, 2, 4, 5, 6, 7, 8, 9) if d <= cfg.num_keywords]
    return format_code(digits[: cfg.code_length])


def system_prompt(cfg: DecryptoConfig) -> str:
    """Listing 1 (the rules, given to every seat), with the counts of this game's config."""
    n, k = cfg.num_keywords, cfg.code_length
    digits = ", ".join(str(i) for i in range(1, n + 1))
    examples = ", ".join(_EXAMPLE_KEYWORDS[:n])
    mis, inter = number_word(cfg.miscommunication_limit), number_word(cfg.interception_limit)
    return (
        "You are playing a variant of the code guessing game Decrypto. The setup of the game is the following:\n"
        "The game is played with three players split into two teams.\n"
        "The first team is composed of the Encoder and the Decoder.\n"
        "The second team is composed of the Interceptor.\n"
        f"The Encoder and Decoder share a list of {n} secret keywords that they can rely on to help communication. "
        "Each keyword has a digit associated with it.\n"
        f"For example, if the keywords are {{{examples}}}, the digits associated with them would be {{{digits}}}.\n"
        "The keywords are fixed for the entire game, so the Encoder and Decoder must not reveal them.\n"
        f"Each turn, the Encoder gets a secret code of {k} non-repeating digits between 1 and {n}, "
        f"e.g. {example_code(cfg)}.\n"
        f"They have to then provide {k} hints (one for each code digit) such that the Decoder can guess the code "
        "but the Interceptor cannot.\n"
        "Then, the Decoder and the Interceptor make their guesses and the code is revealed.\n"
        "The Interceptor wins an Interception token if they successfully guess the code.\n"
        "The Encoder and Decoder get a Miscommunication token if the Decoder fails to guess the code.\n"
        f"The Interceptor wins if it gets {inter} Interception tokens, or if the Encoder and Decoder get "
        f"{mis} Miscommunication tokens.\n"
        f"The Encoder and Decoder team wins if it makes it through {cfg.max_turns} rounds without triggering "
        f"{mis} Miscommunications or {inter} Interceptions.\n"
        "The hints must be one or two words, and make a reference to the meaning of the secret keyword of the "
        "corresponding digit.\n"
        "Codes are unique; the same code cannot occur twice in the same game.\n"
        "\n"
        "For example, if the four secret keywords are\n"
        '{1: "airplane", 2: "guitar", 3: "hat", 4: "plant"}\n'
        "and the code for that turn is 3-1-2, which means that we need hints for {3: hat, 1: airplane, 2: guitar}, "
        "the Encoder could hint {3: gentleman, 1: wing, 2: music}. Note that the order of the hints is important.\n"
        "\n"
        "Ignore these keywords in the future.\n"
        "\n"
        "When responding, first think through your decision step-by-step. After your step-by-step thinking, "
        'provide your final answer as a dictionary, clearly marked with "ANSWER:".'
    )


_ALICE = (
    'You are the Encoder. Provide your hints like "ANSWER: {"hints": ["hint_X", "hint_Y", "hint_Z"]}", '
    "where hint_X, hint_Y, hint_Z are one or two words each. Make sure that the ordering of the hints follows "
    "the order of the code.\n"
    "For example:'''\n"
    "To provide the hints, I need to think about the meaning of each keyword and come up with a one or two-word "
    "hint that makes a reference to it.\n"
    'For the code 2-1-3, I need to give hints about the keywords associated with the digits 2, 1, and 3, which '
    'are "hat", "fire", and "answer" respectively.\n'
    "\n"
    "Here's my step-by-step thinking:\n"
    '- For the digit 2, the keyword is "hat". Since the previous hint for this keyword was "top", I want to give '
    'a hint that is different but still related to wearing a hat. One possible hint is "cap".\n'
    "\n"
    '- For the digit 1, the keyword is "fire". The previous hint for this keyword was "heat", so I want to give '
    'a hint that is related to fire but different from "heat". One possible hint is "flame".\n'
    "\n"
    '- For the digit 3, the keyword is "answer". A possible hint could be something related to giving an answer. '
    'One possible hint is "solve".\n'
    "\n"
    'So, the final hints are: {"hints": ["cap", "flame", "solve"]}\n'
    "\n"
    "ANSWER: { \"hints\": [\"cap\", \"flame\", \"solve\"] } '''"
)

_BOB = (
    'You are the Decoder. Provide your guess like "ANSWER: {"guess": "X-Y-Z"}". Make sure that the ordering of '
    "the guess follows the order of the hints.\n"
    "For example:'''\n"
    "1. The hint for digit 'a' is 'cap', which doesn't seem to directly relate to any of the keywords. However, "
    "considering the previous hint history (top, heat, lab), we can look for a connection between 'cap' and one "
    "of the keywords. The keyword 'hat' is associated with digit '2', and a hat is often worn on the head, which "
    "is covered by a cap. So, we can make a connection: {a: hat}.\n"
    "2. The hint for digit 'b' is 'flame', which is related to heat and fire. Since the keyword for digit '1' is "
    "'fire', we can make a connection: {b: fire}.\n"
    "3. The hint for digit 'c' is 'solve', which is related to the keyword associated with digit '3', 'answer'. "
    "Since 'answer' is a solution to a problem, we can make a connection: {c: answer}.\n"
    "4. Now that we have the connections, we can determine the code by looking at the order of the hints: "
    "{a: hat, b: fire, c: answer}. Therefore, the code is {2-1-3}.\n"
    "\n"
    "Final answer:\n"
    "ANSWER: {\"guess\": \"2-1-3\"}'''"
)


def _eve(cfg: DecryptoConfig) -> str:
    return (
        f"You are the Interceptor. You do not have access to the {number_word(cfg.num_keywords)} keywords. "
        'Provide your guess like "ANSWER: {"guess": "X-Y-Z"}" Make sure that the ordering of the guess follows '
        "the order of the hints.\n"
        "For example:'''\n"
        "1. The hint for 'a' is 'income', which is related to money, and in the previous turn, 'salary' was also "
        "related to money, which is associated with keyword 2.\n"
        "2. The hint for 'b' is 'power', which is related to energy or control, and in the previous turn, "
        "'season' was related to sports, which is often associated with power or strength.\n"
        "3. The hint for 'c' is 'fashion', which is related to style or clothing, and in the previous turn, "
        "'headgear' was directly related to a type of hat, which is a type of clothing.\n"
        "Considering possible connections:\n"
        "- 'income' is related to money, and keyword 2 is associated with money.\n"
        "- 'power' is related to energy or control, and keyword 4 is associated with energy or control.\n"
        "- 'fashion' is related to style or clothing, and keyword 3 is associated with clothing.\n"
        "Based on these connections, I'll make a guess that the code is related to keywords 2, 4, and 3.\n"
        "\n"
        "Final Answer:\n"
        "ANSWER: { \"guess\": \"2-4-3\" } '''\n"
        "Remember that the keywords could be anything. Use the most recent hint history to your advantage.\n"
        f"Remember that digits do not repeat in the code and range from 1 to {cfg.num_keywords}."
    )


def role_prompt(seat: str, cfg: DecryptoConfig) -> str:
    """Listings 2-4: the role's instructions and worked example (appended to Listing 1).

    Raises:
        ValueError: an unknown seat.
    """
    if seat == "alice":
        return _ALICE
    if seat == "bob":
        return _BOB
    if seat == "eve":
        return _eve(cfg)
    raise ValueError(f"decrypto has no seat {seat!r}; seats: alice, bob, eve")


#: Listings 2-4 for the paper's game (4 keywords).
ROLE_PROMPTS: dict[str, str] = {seat: role_prompt(seat, DecryptoConfig()) for seat in ("alice", "bob", "eve")}


def keyword_dict(keywords: Sequence[str]) -> str:
    """``{1: condition, 2: task, ...}`` as in the paper's prompts."""
    return "{" + ", ".join(f"{i}: {k}" for i, k in enumerate(keywords, 1)) + "}"


def hint_dict(hints: Sequence[str] | None, count: int = 0) -> str:
    """``{a: "conflict", b: "tool", c: "state"}``: hints lettered in code order, each quoted;
    ``hints=None`` gives ``count`` letters marked ``(not given yet)``."""
    if hints is None:
        return "{" + ", ".join(f"{_LETTERS[i]}: (not given yet)" for i in range(count)) + "}"
    return "{" + ", ".join(f"{_LETTERS[i]}: {_quote(h)}" for i, h in enumerate(hints)) + "}"


def hint_list(hints: Sequence[str]) -> str:
    """``["conflict", "tool", "state"]``: hints as a quoted list."""
    return "[" + ", ".join(_quote(h) for h in hints) + "]"


# A hint is quoted in every later prompt of its game (summaries, hint history): once is enough.
_quote_str = functools.lru_cache(maxsize=65536)(quote_text)


def _quote(text: Any) -> str:
    """:func:`quote_text`, cached for plain strings."""
    return _quote_str(text) if type(text) is str else quote_text(text)


def history_key(state: DecryptoState) -> tuple:
    """The resolved turns' contents, ``((turn, code, hints, bob_guess, eve_guess), ...)``:
    what every view of the past turns is a function of (hashable for a state the rules
    built; a hand-built one may hold lists)."""
    return tuple([turn_key(r) for r in state.history])


def turn_key(record: Any) -> tuple:
    """One resolved turn's entry of :func:`history_key`: ``(turn, code, hints, bob_guess,
    eve_guess)`` of a :class:`~cluegym.envs.decrypto.rules.TurnRecord`."""
    return (record.turn, record.code, record.hints, record.bob_guess, record.eve_guess)


def turn_summaries(state: DecryptoState, cfg: DecryptoConfig) -> str:
    """Every resolved turn (code, hints, guesses) and the running hint and code history
    (Listings 5-7, lines 1-12); before the first reveal, :data:`FIRST_TURN`."""
    if not state.history:
        return FIRST_TURN + "\n"
    key = history_key(state)
    try:
        return cached_summaries(key, cfg.num_keywords)
    except TypeError:  # unhashable parts (a hand-built state): build it uncached
        return summaries_text(key, cfg.num_keywords, cached=False)


@functools.lru_cache(maxsize=1024)
def cached_summaries(key: tuple, num_keywords: int) -> str:
    """:func:`turn_summaries` of the history whose :func:`history_key` is ``key`` (built once
    per turn: the Encoder, Decoder and Interceptor all see the same past)."""
    return summaries_text(key, num_keywords)


def summaries_text(key: Sequence, num_keywords: int, cached: bool = True) -> str:
    """:func:`turn_summaries` built from a :func:`history_key` (``cached``: each finished
    turn's lines come from a cache, which needs hashable records)."""
    if not key:
        return FIRST_TURN + "\n"
    quoted: list[list[str]] = [[] for _ in range(num_keywords)]
    for _, code, hints, _, _ in key:  # DecryptoState.hint_history, from the key, quoted
        for digit, hint in zip(code, hints):
            quoted[digit - 1].append(_quote(hint))
    block = _turn_block if cached else _turn_block.__wrapped__
    blocks = "".join([block(*record) for record in key])
    return blocks + history_lines(quoted, [format_code(record[1]) for record in key])


def history_lines(quoted: Sequence[Sequence[str]], codes: Sequence[str]) -> str:
    """The end of :func:`turn_summaries`: the hint history per keyword (each keyword's
    hints already quoted, see :func:`quote_hint`) and the code history (formatted codes)."""
    lines = ["Hint History:"]
    for i, hints in enumerate(quoted, 1):
        # "Keyword 2:" without a trailing space when it has no hints yet (a quoted hint
        # ends with its quote, so only an empty line had anything to strip)
        lines.append(f"Keyword {i}: {', '.join(hints)}" if hints else f"Keyword {i}:")
    lines.append(f"Code History: {', '.join(codes)}")
    return "\n".join(lines) + "\n\n"


def turn_block(turn: int, code: Sequence[int], hints: Sequence[str], bob_guess: Sequence[int],
               eve_guess: Sequence[int]) -> str:
    """One resolved turn's lines of :func:`turn_summaries` (cached when hashable: a finished
    turn never changes)."""
    return cached_call(_turn_block, turn, code, hints, bob_guess, eve_guess)


def quote_hint(hint: str) -> str:
    """A hint as prompts show it (:func:`~cluegym.envs.core.text.quote_text`, cached)."""
    return _quote(hint)


@functools.lru_cache(maxsize=4096)
def _turn_block(turn: int, code: tuple, hints: tuple, bob_guess: tuple, eve_guess: tuple) -> str:
    """One resolved turn's summary lines (a finished turn never changes)."""
    return (f"Turn {turn + 1} summary:\nCode: {format_code(code)}\nHints: {hint_list(hints)}\n"
            f"Decoder guess: {format_code(bob_guess)}\nInterceptor guess: {format_code(eve_guess)}\n\n")


def turn_header(state: DecryptoState) -> str:
    """``Turn 2: 0 Miscommunications, 0 Interceptions so far.``"""
    # every observation starts its request with one of a few dozen headers
    return cached_call(_header, state.turn, state.miscommunications, state.interceptions)


@functools.lru_cache(maxsize=256)
def _header(turn: int, miscommunications: int, interceptions: int) -> str:
    return f"Turn {turn + 1}: {miscommunications} Miscommunications, {interceptions} Interceptions so far."


def _placeholders(k: int) -> list[str]:
    return [_PLACEHOLDERS[i % len(_PLACEHOLDERS)] for i in range(k)]


def turn_request(seat: str, state: DecryptoState, cfg: DecryptoConfig) -> str:
    """Listings 5-7, from the token count on: the seat's private view and what to answer."""
    return _request(seat, state, cfg, None)


def _request(seat: str, state: DecryptoState, cfg: DecryptoConfig, tail: str | None) -> str:
    """:func:`turn_request`; ``tail``: the seat's constant ending (see :func:`seat_texts`),
    None to look it up."""
    # Each request is one f-string (one copy of its parts, not one per "+").
    header = turn_header(state)
    if state.phase == "over":
        return f"{header}\nThe game is over: {state.winner} won ({state.end_reason})."
    if tail is None:
        tail = cached_call(_request_tails, cfg)[seat if seat in ("alice", "bob") else "eve"]
    if seat == "alice":
        keywords, code = state.keywords, state.code
        targets = ", ".join([f"{d}: {keywords[d - 1]}" for d in code])
        return (f"{header}\nYou are the Encoder.\n{_keywords_line(cfg.num_keywords, keywords)}\nThe code is "
                f"{format_code(code)}, which corresponds to the keywords {{{targets}}}.{tail}")
    hints = _hints_line(state.hints, cfg.code_length)
    if seat == "bob":
        return f"{header}\nYou are the Decoder.\n{_keywords_line(cfg.num_keywords, state.keywords)}\n{hints}{tail}"
    return f"{header}\nYou are the Interceptor.\n{hints}{tail}"


def _hints_line(hints: Sequence[str], k: int) -> str:
    """``The hints given by the Encoder for this turn are: {...}`` (cached per turn's hints:
    the Decoder and the Interceptor see the same)."""
    return cached_call(_cached_hints_line, hints, k)


@functools.lru_cache(maxsize=1024)
def _cached_hints_line(hints: Sequence[str], k: int) -> str:
    return f"The hints given by the Encoder for this turn are: {hint_dict(hints or None, k)}"


def _keywords_line(n: int, keywords: Sequence[str]) -> str:
    """``The four keywords are: {1: ..., ...}`` (cached per game's keywords)."""
    return cached_call(_cached_keywords_line, n, keywords)


@functools.lru_cache(maxsize=1024)
def _cached_keywords_line(n: int, keywords: Sequence[str]) -> str:
    return f"The {number_word(n)} keywords are: {keyword_dict(keywords)}"


@functools.lru_cache(maxsize=64)
def _request_tails(cfg: DecryptoConfig) -> dict[str, str]:
    """Per seat, the end of its request after the state's parts: the same all game long."""
    n, k = cfg.num_keywords, cfg.code_length
    names = _placeholders(k)
    hint_names = ", ".join(f'"hint_{x}"' for x in names)
    hint_vars = ", ".join(f"hint_{x}" for x in names)
    alice = "\n" + "\n".join([
        "First, think out loud, step-by-step about what hints you should use. Use the meaning of the keywords "
        "to come up with a one or two-word hint for each digit of the code. Make sure the order of the hints "
        "matches the order of the code.",
        f'Then provide your {number_word(k)} hints like "ANSWER: {{"hints": [{hint_names}]}}", where '
        f"{hint_vars} are your hints.",
    ])
    connections = "{" + ", ".join(f"{_LETTERS[i]}: {x}" for i, x in enumerate(names)) + "}"
    variables = ", ".join(names)
    answer = "-".join(names)
    example = (f"For example, you might think the following connections are true{{colon}} {connections}, where "
               f"{variables} are non-repeating digits from 1 to {n}.")
    order = f'Your guess should be in the order of the hints: {{"guess": "{answer}"}}.'
    bob = "\n" + "\n".join([
        example.replace("{colon}", ""),
        order,
        f"What is your guess for the {number_word(k)}-digit code? Apply concise, step-by-step thinking, "
        f'double-check the order, and then provide your final answer as "ANSWER: {{"guess": "{answer}"}}".',
    ])
    eve = "\n" + "\n".join([
        example.replace("{colon}", ":") + " " + order,
        "Use the hint history to your advantage.",
        f"What is your guess for the {number_word(k)}-digit code? Reply with very concise, step-by-step thinking, "
        f'followed by your final answer as "ANSWER: {{"guess": "{answer}"}}".',
    ])
    return {"alice": alice, "bob": bob, "eve": eve}


def full_prompt(seat: str, state: DecryptoState, cfg: DecryptoConfig, summaries: str | None = None,
                texts: tuple[str, str] | None = None) -> str:
    """The seat's complete view: rules, role, past turns, this turn's request.

    Args:
        summaries: :func:`turn_summaries` of ``state`` when the caller has it already.
        texts: :func:`seat_texts` of ``seat`` and ``cfg`` when the caller has them already.
    """
    if summaries is None:
        summaries = turn_summaries(state, cfg)
    prefix, tail = seat_texts(seat, cfg) if texts is None else texts
    return f"{prefix}{summaries}{_request(seat, state, cfg, tail)}"  # one copy of the long prefix


def seat_texts(seat: str, cfg: DecryptoConfig) -> tuple[str, str]:
    """The parts of the seat's prompt that are the same all game: rules and role (Listing 1
    and the seat's Listing 2-4), and the end of its turn request.

    Raises:
        ValueError: an unknown seat.
    """
    return cached_call(_cached_seat_texts, seat, cfg)


@functools.lru_cache(maxsize=64)
def _cached_seat_texts(seat: str, cfg: DecryptoConfig) -> tuple[str, str]:
    prefix = system_prompt(cfg) + "\n\n" + role_prompt(seat, cfg) + "\n\n"
    return prefix, _request_tails.__wrapped__(cfg)[seat]
