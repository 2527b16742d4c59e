"""Our user-prompt variants 1-4 for Decrypto's Encoder and Decoder (variants of the paper's
Listings 5 and 6; mode 0 is the listings themselves, in :mod:`cluegym.envs.decrypto.prompts`).

The paper says it hand-wrote five user prompts but prints one; these four are **ours**. Each
shows the facts of Listings 5/6 (the turn, both token counts, every past turn's code, hints
and both guesses, the hints per keyword, the codes played, the keywords, and the code for
Alice or the hints for Bob) and asks for the same answer; only the layout and wording change.
Used through :func:`cluegym.agents.llm.adapters.decrypto_variants.user_prompt`.

Example:
    >>> from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState
    >>> state = DecryptoState(keywords=("condition", "task", "issue", "device"), code=(2, 4, 1))
    >>> USER_VARIANTS[0](DecryptoConfig(), "alice", state).splitlines()[-1][:40]
    'Reason briefly, then reply ANSWER: {"hin'
"""

from __future__ import annotations

from typing import Callable

from cluegym.envs.core.text import quote_text
from cluegym.envs.decrypto.prompts import hint_dict, hint_list, keyword_dict, number_word
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState, TurnRecord, format_code

__all__ = ["USER_VARIANTS", "answer_format"]

_PLACEHOLDERS = "XYZUVWPQR"
_LETTERS = "abcdefghi"


def answer_format(seat: str, code_length: int) -> str:
    """The answer the seat must give: ``ANSWER: {"hints": ["hint_X", ...]}`` (Alice) or
    ``ANSWER: {"guess": "X-Y-Z"}`` (Bob), for codes of ``code_length`` digits."""
    names = [_PLACEHOLDERS[i % len(_PLACEHOLDERS)] for i in range(code_length)]
    if seat == "alice":
        return 'ANSWER: {"hints": [' + ", ".join(f'"hint_{x}"' for x in names) + "]}"
    return 'ANSWER: {"guess": "' + "-".join(names) + '"}'


def _targets(state: DecryptoState) -> str:
    return "{" + ", ".join(f"{d}: {state.keywords[d - 1]}" for d in state.code) + "}"


def _quoted(hints: list[str] | tuple[str, ...], joiner: str = ", ") -> str:
    return joiner.join(quote_text(h) for h in hints)


def _verdict(guess: tuple[int, ...], code: tuple[int, ...]) -> str:
    return "right" if tuple(guess) == tuple(code) else "wrong"


def _codes_played(state: DecryptoState) -> str:
    return ", ".join(format_code(r.code) for r in state.history) or "none"


def _concise(cfg: DecryptoConfig, seat: str, state: DecryptoState) -> str:  # ours (mode 1)
    lines = [f"Turn {state.turn + 1} of {cfg.max_turns}. Miscommunications: {state.miscommunications}/"
             f"{cfg.miscommunication_limit}. Interceptions: {state.interceptions}/{cfg.interception_limit}."]
    if state.history:
        lines.append("Previous turns:")
        lines += [f"- turn {r.turn + 1}: code {format_code(r.code)}, hints {hint_list(r.hints)}, Decoder guessed "
                  f"{format_code(r.bob_guess)}, Interceptor guessed {format_code(r.eve_guess)}" for r in state.history]
        per_keyword = state.hint_history(cfg.num_keywords)
        lines.append("Hints so far per keyword: " + "; ".join(
            f"{i}: {_quoted(h) or '(none)'}" for i, h in enumerate(per_keyword, 1)))
        lines.append(f"Codes played: {_codes_played(state)}")
    else:
        lines.append("Previous turns: none.")
    lines.append(f"Keywords: {keyword_dict(state.keywords)}")
    if seat == "alice":
        lines.append(f"Code: {format_code(state.code)} ({_targets(state)}).")
    else:
        lines.append(f"Hints for this turn: {hint_dict(state.hints or None, cfg.code_length)}")
    lines.append(f"Reason briefly, then reply {answer_format(seat, cfg.code_length)}.")
    return "\n".join(lines)


def _briefing(cfg: DecryptoConfig, seat: str, state: DecryptoState) -> str:  # ours (mode 2)
    lines = ["## Game so far"]
    if state.history:
        lines += ["| turn | code | hints | Decoder's guess | Interceptor's guess |", "|---|---|---|---|---|"]
        lines += [f"| {r.turn + 1} | {format_code(r.code)} | {_quoted(r.hints)} | {format_code(r.bob_guess)} | "
                  f"{format_code(r.eve_guess)} |" for r in state.history]
        lines += ["", "## Hints per keyword"]
        lines += [f"- {i} ({word}): {_quoted(h) or 'none yet'}"
                  for i, (word, h) in enumerate(zip(state.keywords, state.hint_history(cfg.num_keywords)), 1)]
        lines.append(f"- codes played: {_codes_played(state)}")
    else:
        lines.append("No turn has been played yet.")
    lines += ["", f"## Turn {state.turn + 1} of {cfg.max_turns}",
              f"Miscommunication tokens: {state.miscommunications} of {cfg.miscommunication_limit}. "
              f"Interception tokens: {state.interceptions} of {cfg.interception_limit}.",
              f"Your keywords: {keyword_dict(state.keywords)}"]
    answer = answer_format(seat, cfg.code_length)
    if seat == "alice":
        lines += [f"Your code: **{format_code(state.code)}**, that is {_targets(state)}.",
                  f"Think step by step about each hint, then finish with {answer}"]
    else:
        lines += [f"The Encoder's hints: {hint_dict(state.hints or None, cfg.code_length)}",
                  f"Work out step by step which keyword each hint refers to, check the order, then finish with {answer}"]
    return "\n".join(lines)


def _told(record: TurnRecord) -> str:
    hints = [quote_text(h) for h in record.hints]
    said = ", ".join(hints[:-1]) + " and " + hints[-1] if len(hints) > 1 else hints[0]
    return (f"In turn {record.turn + 1} the code was {format_code(record.code)} and the hints were {said}; the "
            f"Decoder answered {format_code(record.bob_guess)} ({_verdict(record.bob_guess, record.code)}) and the "
            f"Interceptor {format_code(record.eve_guess)} ({_verdict(record.eve_guess, record.code)}).")


def _story(cfg: DecryptoConfig, seat: str, state: DecryptoState) -> str:  # ours (mode 3)
    if state.history:
        story = " ".join(_told(r) for r in state.history)
        seen = "; ".join(f"keyword {i}: {_quoted(h) or 'nothing yet'}"
                         for i, h in enumerate(state.hint_history(cfg.num_keywords), 1))
        past = (f"{story}\nSo the Interceptor has seen these hints for each keyword: {seen}; and the codes "
                f"{_codes_played(state)}.")
    else:
        past = "This is the opening turn: nothing has been revealed yet."
    tokens = (f"Your team holds {state.miscommunications} Miscommunication token(s) and the Interceptor "
              f"{state.interceptions} Interception token(s); this is turn {state.turn + 1} of {cfg.max_turns}.")
    answer = answer_format(seat, cfg.code_length)
    keywords = f"Your {number_word(cfg.num_keywords)} keywords are {keyword_dict(state.keywords)}."
    if seat == "alice":
        request = (f"You are the Encoder. {keywords} The code to pass on this turn is {format_code(state.code)}, "
                   f"meaning {_targets(state)}. Think aloud about each hint, then give {answer}.")
    else:
        request = (f"You are the Decoder. {keywords} The Encoder has just given the hints "
                   f"{hint_dict(state.hints or None, cfg.code_length)}. Think aloud about which keyword each hint "
                   f"points to, keep the order of the hints, then give {answer}.")
    return "\n".join([past, tokens, request])


def _checklist(cfg: DecryptoConfig, seat: str, state: DecryptoState) -> str:  # ours (mode 4)
    lines = [f"STATUS: turn {state.turn + 1}/{cfg.max_turns}; Miscommunications {state.miscommunications}/"
             f"{cfg.miscommunication_limit}; Interceptions {state.interceptions}/{cfg.interception_limit}.",
             "KEYWORD SHEET:"]
    lines += [f"  {i}. {word}: earlier hints {_quoted(h) or 'none'}"
              for i, (word, h) in enumerate(zip(state.keywords, state.hint_history(cfg.num_keywords)), 1)]
    lines.append(f"CODES ALREADY PLAYED: {_codes_played(state)}")
    lines.append("TURN LOG:" if state.history else "TURN LOG: empty (first turn).")
    lines += [f"  turn {r.turn + 1}: code {format_code(r.code)}; hints {hint_list(r.hints)}; Decoder "
              f"{format_code(r.bob_guess)} ({_verdict(r.bob_guess, r.code)}); Interceptor {format_code(r.eve_guess)} "
              f"({_verdict(r.eve_guess, r.code)})" for r in state.history]
    if seat == "alice":
        lines.append(f"YOUR CODE: {format_code(state.code)}, that is {_targets(state)}")
        task = "one hint per code digit, in the order of the code"
    else:
        given = state.hints or ("(not given yet)",) * cfg.code_length
        lines.append("HINTS THIS TURN: " + "  ".join(
            f"{_LETTERS[i]}. {quote_text(h) if state.hints else h}" for i, h in enumerate(given)))
        task = "one keyword digit per hint, in the order of the hints"
    lines.append(f"TASK: work through the checklist step by step ({task}), then output "
                 f"{answer_format(seat, cfg.code_length)}")
    return "\n".join(lines)


#: Our user prompts, modes 1-4: ``(config, seat, state) -> text``.
USER_VARIANTS: tuple[Callable[[DecryptoConfig, str, DecryptoState], str], ...] = (
    _concise, _briefing, _story, _checklist)
