"""Decrypto prompts: the paper's system prompts (appendix A.2) and turn prompts (A.3).

The observation's ``"prompt"`` is the whole view of a seat in natural language: the rules
(Listing 1), the role's instructions with its worked example (Listings 2-4), a summary of
every past turn (code, hints, both guesses, hint history per keyword, code history, token
counts), then the turn's request (Listings 5-7). Generalist LLM agents use it verbatim.

Alice's hints reach Bob's and Eve's prompts, so every hint is shown through
:func:`~cluegym.envs.core.text.quote_text` (``{a: "cap", b: "flame"}``): it cannot leave its
quotes or its line.
"""

from __future__ import annotations

from typing import Sequence

from cluegym.envs.core.text import quote_text
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState, format_code

_LETTERS = "abcdefghi"


def system_prompt(cfg: DecryptoConfig) -> str:
    """Listing 1, with the counts of this game's config."""
    n, k, turns = cfg.num_keywords, cfg.code_length, cfg.max_turns
    digits = ", ".join(str(i) for i in range(1, n + 1))
    return (
        "You are playing a variant of the code guessing game Decrypto. The setup of the game is the following:\n"
        "The game is played with three players split into two teams.\n"
        "The first team is composed of the Encoder and the Decoder.\n"
        "The second team is composed of the Interceptor.\n"
        f"The Encoder and Decoder share a list of {n} secret keywords that they can rely on to help communication. "
        "Each keyword has a digit associated with it.\n"
        "For example, if the keywords are {airplane, guitar, hat, plant}, the digits associated with them would be "
        f"{{{digits}}}.\n"
        "The keywords are fixed for the entire game, so the Encoder and Decoder must not reveal them.\n"
        f"Each turn, the Encoder gets a secret code of {k} non-repeating digits between 1 and {n}, e.g. "
        f"{format_code(range(k, 0, -1))}.\n"
        f"They have to then provide {k} hints (one for each code digit) such that the Decoder can guess the code "
        "but the Interceptor cannot.\n"
        "Then, the Decoder and the Interceptor make their guesses and the code is revealed.\n"
        "The Interceptor wins an Interception token if they successfully guess the code.\n"
        "The Encoder and Decoder get a Miscommunication token if the Decoder fails to guess the code.\n"
        f"The Interceptor wins if it gets {cfg.interception_limit} Interception tokens, or if the Encoder and "
        f"Decoder get {cfg.miscommunication_limit} Miscommunication tokens.\n"
        f"The Encoder and Decoder team wins if it makes it through {turns} rounds without triggering "
        f"{cfg.miscommunication_limit} Miscommunications or {cfg.interception_limit} Interceptions.\n"
        f"The hints must be one to {cfg.max_hint_words} words, and make a reference to the meaning of the secret "
        "keyword of the corresponding digit. A hint may not be or contain a keyword.\n"
        "Codes are unique; the same code cannot occur twice in the same game.\n"
        "When responding, first think through your decision step-by-step. After your step-by-step thinking, "
        'provide your final answer as a dictionary, clearly marked with "ANSWER:".'
    )


ROLE_PROMPTS: dict[str, str] = {
    "alice": (
        'You are the Encoder. Provide your hints like "ANSWER: {"hints": ["hint_X", "hint_Y", "hint_Z"]}", '
        "where hint_X, hint_Y, hint_Z are one or two words each. Make sure that the ordering of the hints "
        "follows the order of the code.\n"
        "For example:'''\n"
        "For the code 2-1-3, I need to give hints about the keywords associated with the digits 2, 1, and 3, "
        'which are "hat", "fire", and "answer" respectively.\n'
        '- For the digit 2, the keyword is "hat". The previous hint for this keyword was "top", so I want a '
        'different hint still related to wearing a hat: "cap".\n'
        '- For the digit 1, the keyword is "fire". The previous hint was "heat", so: "flame".\n'
        '- For the digit 3, the keyword is "answer". Something related to giving an answer: "solve".\n'
        'ANSWER: {"hints": ["cap", "flame", "solve"]}\'\'\''
    ),
    "bob": (
        'You are the Decoder. Provide your guess like "ANSWER: {"guess": "X-Y-Z"}". Make sure that the '
        "ordering of the guess follows the order of the hints.\n"
        "For example:'''\n"
        "1. The hint for 'a' is 'cap'. Considering the hint history, the keyword 'hat' (digit 2) is covered by "
        "a cap: {a: 2}.\n"
        "2. The hint for 'b' is 'flame', related to the keyword 'fire' (digit 1): {b: 1}.\n"
        "3. The hint for 'c' is 'solve', related to the keyword 'answer' (digit 3): {c: 3}.\n"
        'ANSWER: {"guess": "2-1-3"}\'\'\''
    ),
    "eve": (
        "You are the Interceptor. You do not have access to the secret keywords. "
        'Provide your guess like "ANSWER: {"guess": "X-Y-Z"}". Make sure that the ordering of the guess '
        "follows the order of the hints.\n"
        "For example:'''\n"
        "1. The hint for 'a' is 'income'; in a previous turn 'salary', also related to money, was the hint "
        "for keyword 2.\n"
        "2. The hint for 'b' is 'power', which fits the earlier hints for keyword 4.\n"
        "3. The hint for 'c' is 'fashion'; 'headgear' was the hint for keyword 3 before.\n"
        'ANSWER: {"guess": "2-4-3"}\'\'\'\n'
        "Remember that the keywords could be anything. Use the most recent hint history to your advantage. "
        "Remember that digits do not repeat in the code."
    ),
}


def keyword_dict(keywords: Sequence[str]) -> str:
    """``{1: condition, 2: task, ...}`` as in the paper's prompts."""
    return "{" + ", ".join(f"{i}: {k}" for i, k in enumerate(keywords, 1)) + "}"


def hint_dict(hints: Sequence[str] | None, count: int = 0) -> str:
    """``{a: "conflict", b: "tool", c: "state"}``: hints lettered in code order, each quoted;
    ``hints=None`` gives ``count`` letters marked ``(not given yet)``."""
    if hints is None:
        return "{" + ", ".join(f"{_LETTERS[i]}: (not given yet)" for i in range(count)) + "}"
    return "{" + ", ".join(f"{_LETTERS[i]}: {quote_text(h)}" for i, h in enumerate(hints)) + "}"


def hint_list(hints: Sequence[str]) -> str:
    """``["conflict", "tool", "state"]``: hints as a quoted list."""
    return "[" + ", ".join(quote_text(h) for h in hints) + "]"


def turn_summaries(state: DecryptoState, cfg: DecryptoConfig) -> str:
    """Every resolved turn (code, hints, guesses) and the running hint and code history."""
    if not state.history:
        return ""
    lines: list[str] = []
    for record in state.history:
        lines += [
            f"Turn {record.turn + 1} summary:",
            f"Code: {format_code(record.code)}",
            f"Hints: {hint_list(record.hints)}",
            f"Decoder guess: {format_code(record.bob_guess)}",
            f"Interceptor guess: {format_code(record.eve_guess)}",
            "",
        ]
    lines.append("Hint History:")
    for i, hints in enumerate(state.hint_history(cfg.num_keywords), 1):
        lines.append(f"Keyword {i}: {', '.join(quote_text(h) for h in hints)}")
    lines.append(f"Code History: {', '.join(format_code(r.code) for r in state.history)}")
    return "\n".join(lines) + "\n\n"


def turn_request(seat: str, state: DecryptoState, cfg: DecryptoConfig) -> str:
    """Listings 5-7: the token count, the seat's private view and what to answer."""
    header = (
        f"Turn {state.turn + 1}: {state.miscommunications} Miscommunications, "
        f"{state.interceptions} Interceptions so far.\n"
    )
    if state.phase == "over":
        return header + f"The game is over: {state.winner} won ({state.end_reason})."
    k = cfg.code_length
    letters = ", ".join(f"{_LETTERS[i]}: {'XYZUVW'[i % 6]}" for i in range(k))
    answer_code = "-".join("XYZUVW"[i % 6] for i in range(k))
    if seat == "alice":
        code = state.code
        targets = "{" + ", ".join(f"{d}: {state.keywords[d - 1]}" for d in code) + "}"
        hint_names = ", ".join(f'\\"hint_{"XYZUVW"[i % 6]}\\"' for i in range(k))
        return header + (
            "You are the Encoder.\n"
            f"The {cfg.num_keywords} keywords are: {keyword_dict(state.keywords)}\n"
            f"The code for this turn is {format_code(code)}, which means you need to provide hints for {targets}.\n"
            "First, think out loud, step-by-step about what hints you should use. Use the meaning of the keywords "
            f"to come up with a one or two-word hint for each digit of the code. Make sure the order of the hints "
            f"matches the order of the code.\n"
            f'Then provide your {k} hints like "ANSWER: {{\\"hints\\": [{hint_names}]}}".'
        )
    role = "Decoder" if seat == "bob" else "Interceptor"
    lines = [header + f"You are the {role}."]
    if seat == "bob":
        lines.append(f"The {cfg.num_keywords} keywords are: {keyword_dict(state.keywords)}")
    lines.append(f"The hints given by the Encoder for this turn are: {hint_dict(state.hints or None, k)}")
    lines.append(
        f"For example, you might think the following connections are true: {{{letters}}}, where the letters "
        f"stand for non-repeating digits from 1 to {cfg.num_keywords}. Your guess should be in the order of "
        f'the hints: {{"guess": "{answer_code}"}}.'
    )
    if seat == "eve":
        lines.append("Use the hint history to your advantage.")
    lines.append(
        f"What is your guess for the {k}-digit code? Reply with concise, step-by-step thinking, double-check "
        f'the order, and then provide your final answer as "ANSWER: {{\\"guess\\": \\"{answer_code}\\"}}".'
    )
    return "\n".join(lines)


def full_prompt(seat: str, state: DecryptoState, cfg: DecryptoConfig) -> str:
    """The seat's complete view: rules, role, past turns, this turn's request."""
    return (
        system_prompt(cfg) + "\n\n" + ROLE_PROMPTS[seat] + "\n\n"
        + turn_summaries(state, cfg) + turn_request(seat, state, cfg)
    )
