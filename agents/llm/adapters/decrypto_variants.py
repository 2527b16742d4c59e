"""Decrypto prompt variants ("modes") for the paper's robustness study (Figure 4).

The paper hand-writes 5 system and 5 user prompts for the Encoder and the Decoder: a system
prompt is a rules component (variants of Listing 1) plus a role component (variants of
Listings 2 and 3), a user prompt is the turn summary and request (variants of Listings 5 and
6). It prints only one of each, the listings, and says that the others exist
("we tested five variants of the system prompt"). Here:

* mode 0 (``"paper"``) is the paper's text, the listings verbatim (:mod:`cluegym.envs.decrypto.prompts`);
* modes 1-4 are **ours** (the paper does not print its variants): the same rules, role, facts
  and answer format, told in another register: 1 ``"concise"`` (terse lines, no worked
  example), 2 ``"briefing"`` (Markdown sections and a history table, a different worked
  example), 3 ``"story"`` (narrative prose), 4 ``"checklist"`` (numbered rules, a checklist
  and a keyword sheet).

Every mode states the same game (counts from the config: keywords, code length, turns,
token limits), shows the same facts of the turn (keywords, the code or the hints, every
past turn's code, hints and both guesses, the hints per keyword, the codes played, both
token counts) and asks for the same ``ANSWER: {"hints": [...]}`` / ``ANSWER: {"guess":
"X-Y-Z"}``, so only the wording varies. Other seats' hints are quoted by
:func:`~cluegym.envs.core.text.quote_text`, as in the env's own prompts. Only Alice and Bob
have variants (the paper varies the encoder's and decoder's prompts; Eve keeps Listings 1, 4, 7).

Example:
    >>> from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState
    >>> cfg = DecryptoConfig()
    >>> state = DecryptoState(keywords=("condition", "task", "issue", "device"), code=(2, 4, 1))
    >>> print(user_prompt(cfg, "alice", 1, state).splitlines()[0])
    Turn 1 of 8. Miscommunications: 0/2. Interceptions: 0/2.
"""

from __future__ import annotations

from cluegym.agents.llm.adapters.decrypto_user_variants import USER_VARIANTS, answer_format
from cluegym.envs.decrypto.prompts import example_code, number_word, role_prompt, system_prompt
from cluegym.envs.decrypto.prompts import turn_request, turn_summaries
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoState

__all__ = ["MODES", "MODE_NAMES", "VARIED_SEATS", "check_mode", "rules_prompt", "seat_role_prompt",
           "system_prompt_variant", "user_prompt"]

#: The modes' names, by index (0 is the paper's text, 1-4 are ours).
MODE_NAMES: tuple[str, ...] = ("paper", "concise", "briefing", "story", "checklist")
#: Number of modes of each prompt (the paper's 5).
MODES = len(MODE_NAMES)
#: The seats whose prompts vary (the paper's encoder and decoder).
VARIED_SEATS: tuple[str, ...] = ("alice", "bob")


def check_mode(mode: object, what: str, seat: str) -> int:
    """``mode`` as an int in ``0..MODES-1``, valid for ``seat``.

    Raises:
        ValueError: not an integer in range, or a mode other than 0 for a seat without
            variants (Eve), one line.
    """
    if isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode < MODES:
        names = ", ".join(f"{i} ({n})" for i, n in enumerate(MODE_NAMES))
        raise ValueError(f"{what} must be an integer mode 0-{MODES - 1}: {names}; got {mode!r}")
    if mode and seat not in VARIED_SEATS:
        raise ValueError(f"{what}={mode}: only the encoder and decoder (alice, bob) have prompt variants; "
                         f"{seat} keeps the paper's prompts (mode 0)")
    return mode


# ------------------------------------------------------------------------- rules (Listing 1)
def _rules_concise(cfg: DecryptoConfig) -> str:  # ours (mode 1)
    n, k = cfg.num_keywords, cfg.code_length
    return (
        "Game: Decrypto, three-player variant.\n"
        "Teams: the Encoder and the Decoder play together against the Interceptor.\n"
        f"Keywords: the Encoder and the Decoder share {n} secret keywords, numbered 1 to {n}. They stay the same "
        "all game; the Interceptor never sees them.\n"
        f"Turn: the Encoder gets a secret code of {k} different digits from 1 to {n} (e.g. {example_code(cfg)}) and "
        f"gives {k} hints, one per digit, in the order of the code. The Decoder and the Interceptor then each guess "
        "the code, and the code is revealed to everyone.\n"
        "Hints: one or two words each, referring to the meaning of the keyword of their digit, never to its "
        "spelling.\n"
        "Tokens: a wrong Decoder guess gives the team a Miscommunication token; a right Interceptor guess gives the "
        "Interceptor an Interception token.\n"
        f"End: the Interceptor wins with {cfg.interception_limit} Interception tokens or when the team has "
        f"{cfg.miscommunication_limit} Miscommunication tokens; the team wins by lasting {cfg.max_turns} turns.\n"
        "A code is never used twice in the same game.\n"
        'Answer: reason step by step first, then give your final answer as a dictionary after "ANSWER:".'
    )


def _rules_briefing(cfg: DecryptoConfig) -> str:  # ours (mode 2)
    n, k = cfg.num_keywords, cfg.code_length
    return (
        "# Decrypto (three-player variant)\n\n"
        "## Players\n"
        f"- **Encoder** and **Decoder**: one team. They share {number_word(n)} secret keywords, numbered 1 to {n}, "
        "fixed for the whole game.\n"
        "- **Interceptor**: the other team. Does not know the keywords and learns only from what is revealed.\n\n"
        "## Each turn\n"
        f"1. The Encoder receives a secret code: {number_word(k)} distinct digits between 1 and {n}, for example "
        f"{example_code(cfg)}. A code never repeats within a game.\n"
        f"2. The Encoder gives {number_word(k)} hints of one or two words, one per digit, in the order of the code. "
        "A hint refers to the meaning of its keyword.\n"
        "3. The Decoder and the Interceptor guess the code independently.\n"
        "4. The code is revealed: everyone sees the hints and both guesses.\n\n"
        "## Scoring\n"
        "- The Decoder is wrong: the team gets a Miscommunication token.\n"
        "- The Interceptor is right: the Interceptor gets an Interception token.\n"
        f"- {number_word(cfg.miscommunication_limit).capitalize()} Miscommunication tokens or "
        f"{number_word(cfg.interception_limit)} Interception tokens: the Interceptor wins. The team wins if it "
        f"completes {cfg.max_turns} turns first.\n\n"
        "## Answering\n"
        'Explain your reasoning step by step, then end with your final answer: a dictionary after "ANSWER:".'
    )


def _rules_story(cfg: DecryptoConfig) -> str:  # ours (mode 3)
    n, k = cfg.num_keywords, number_word(cfg.code_length)
    return (
        "Welcome to Decrypto, a game of coded messages, played here by three players. Two of them, the Encoder and "
        "the Decoder, are partners passing secret messages; the third, the Interceptor, listens in and tries to "
        "crack them.\n"
        f"The partners share a secret list of {number_word(n)} keywords, each known by its number from 1 to {n}. "
        "Nobody else sees this list, and it does not change during the game.\n"
        f"At the start of every turn the Encoder is handed a code: {k} different numbers from 1 to {n}, such as "
        f"{example_code(cfg)}. The Encoder passes it on with {k} hints of one or two words, one for each number and "
        "in the same order; each hint should call to mind the meaning of the keyword behind its number.\n"
        "The Decoder, who knows the keywords, and the Interceptor, who does not, both try to recover the code. Then "
        "the code is revealed, so everyone learns which hint went with which number, and turn after turn the "
        "Interceptor learns more about the keywords.\n"
        "When the Decoder gets the code wrong, the partners collect a Miscommunication token; when the Interceptor "
        f"gets it right, the Interceptor collects an Interception token. With {number_word(cfg.miscommunication_limit)} "
        f"Miscommunication tokens or {number_word(cfg.interception_limit)} Interception tokens the Interceptor wins; "
        f"if the partners last {cfg.max_turns} turns, they win. The same code never comes up twice in one game.\n"
        'Take the time to reason step by step, then state your final answer as a dictionary introduced by "ANSWER:".'
    )


def _rules_checklist(cfg: DecryptoConfig) -> str:  # ours (mode 4)
    n, k = cfg.num_keywords, cfg.code_length
    return (
        "DECRYPTO RULES (three-player variant)\n"
        "R1. Players: Encoder and Decoder (team A) against the Interceptor (team B).\n"
        f"R2. Team A shares {n} secret keywords, numbered 1-{n}, fixed for the whole game. The Interceptor never "
        "sees them.\n"
        f"R3. Each turn the Encoder receives a code of {k} non-repeating digits from 1 to {n} (example: "
        f"{example_code(cfg)}). No code occurs twice in a game.\n"
        f"R4. The Encoder gives {k} hints in the order of the code; each hint is one or two words and refers to the "
        "meaning of the keyword with that digit.\n"
        "R5. The Decoder and the Interceptor each guess the code; then the code, the hints and both guesses are "
        "made public.\n"
        "R6. Wrong Decoder guess: one Miscommunication token for team A. Correct Interceptor guess: one Interception "
        "token for team B.\n"
        f"R7. Team B wins at {cfg.miscommunication_limit} Miscommunication tokens or {cfg.interception_limit} "
        f"Interception tokens; otherwise team A wins after {cfg.max_turns} turns.\n"
        'RESPONSE FORMAT: your step-by-step reasoning first, then a final line with "ANSWER:" and a dictionary.'
    )


_RULES = (system_prompt, _rules_concise, _rules_briefing, _rules_story, _rules_checklist)


def rules_prompt(cfg: DecryptoConfig, mode: int) -> str:
    """The rules component of the system prompt: Listing 1 (mode 0) or our variant 1-4.

    Raises:
        ValueError: an unknown mode.
    """
    return _RULES[check_mode(mode, "system_mode", "alice")](cfg)


# ------------------------------------------------------------------ roles (Listings 2 and 3)
def _letters(k: int) -> str:
    return ", ".join("abcdefghi"[:k])


def _roles(cfg: DecryptoConfig) -> dict[str, tuple[str, ...]]:
    """Per seat, the role component of modes 1-4 (ours)."""
    k = cfg.code_length
    hints, guess = answer_format("alice", k), answer_format("bob", k)
    alice = (
        f"You are the Encoder. Reply with {hints}: one hint per code digit, in the order of the code.",
        "## Your role: Encoder\n"
        "You know the keywords and this turn's code. Write one hint per digit, in the order of the code, so that "
        "your Decoder can match each hint to its keyword while the Interceptor, who sees only the past hints, "
        "cannot. Avoid repeating earlier hints.\n"
        f"Final answer format: {hints}\n\n"
        "### Example\n"
        "Keywords {1: ocean, 2: piano, 3: desert, 4: clock}, code 4-2-1.\n"
        '- Digit 4 is clock. The earlier hint was "alarm"; a new one: "tick".\n'
        '- Digit 2 is piano. No earlier hint; "keys" is clear to the Decoder.\n'
        '- Digit 1 is ocean. The earlier hint was "salt"; "tide" still points at the sea.\n'
        'ANSWER: {"hints": ["tick", "keys", "tide"]}',
        "You are the Encoder, the one who sends the message. Your partner knows the keywords; the Interceptor "
        "does not, but remembers every hint you have given and the keyword it turned out to belong to. Choose hints "
        "that your partner will link to the right keywords at once while leaving the Interceptor unsure: a hint "
        "too close to an earlier one for the same keyword gives the game away. Say your hints are for the code "
        '2-1-3 and keyword 2 is "bridge", already hinted with "river": "span" keeps the link for your partner '
        'without repeating the river. When you are ready, write ' + hints + " with your hints in the order of the code.",
        "ROLE: Encoder.\n"
        "Checklist before answering:\n"
        "[ ] For every digit of the code, in order, find its keyword.\n"
        "[ ] For each of those keywords, look at the hints already given for it (the Interceptor has seen them).\n"
        "[ ] Pick a one- or two-word hint that refers to the keyword's meaning, differs from the earlier ones and "
        "does not fit the other keywords better.\n"
        "[ ] Check that no hint is a keyword or contains one.\n"
        "[ ] Put the hints in the order of the code.\n"
        f"OUTPUT: {hints}",
    )
    bob = (
        f"You are the Decoder. Reply with {guess}: for each hint, in order, the digit of the keyword it refers to.",
        "## Your role: Decoder\n"
        "You know the keywords but not the code. Match each hint, in the order given, to the keyword it refers to; "
        "the digits of those keywords, in the same order, are the code. Digits do not repeat.\n"
        f"Final answer format: {guess}\n\n"
        "### Example\n"
        "Keywords {1: ocean, 2: piano, 3: desert, 4: clock}, hints {a: tick, b: keys, c: tide}.\n"
        "- a: tick points to clock (4).\n"
        "- b: keys points to piano (2).\n"
        "- c: tide points to ocean (1).\n"
        'ANSWER: {"guess": "4-2-1"}',
        "You are the Decoder, the one who receives the message. You know the keywords; the Interceptor does not. "
        "Read each hint in the order given and ask which keyword it brings to mind; the digits of those keywords, "
        "in that order, are the code. Your partner avoids obvious hints to keep the Interceptor guessing, so look "
        'for the less direct links as well: "span" may stand for "bridge" even if "river" was its last hint. '
        f"Remember that no digit repeats. When you are ready, write {guess}.",
        "ROLE: Decoder.\n"
        "Checklist before answering:\n"
        f"[ ] Read the hints in order ({_letters(k)}).\n"
        "[ ] For each hint, judge how well it fits each keyword, using the earlier hints for each keyword too.\n"
        "[ ] Give each hint a different keyword; the code is the digits of those keywords in the order of the hints.\n"
        "[ ] Check that no digit repeats and that the code is not one already played.\n"
        f"OUTPUT: {guess}",
    )
    return {"alice": alice, "bob": bob}


def seat_role_prompt(cfg: DecryptoConfig, seat: str, mode: int) -> str:
    """The role component of ``seat``'s system prompt: Listings 2-4 (mode 0) or our variant.

    Raises:
        ValueError: an unknown seat or mode, or a mode other than 0 for Eve.
    """
    mode = check_mode(mode, "system_mode", seat)
    if mode == 0:
        return role_prompt(seat, cfg)
    return _roles(cfg)[seat][mode - 1]


def system_prompt_variant(cfg: DecryptoConfig, seat: str, mode: int) -> str:
    """``seat``'s system prompt in ``mode``: the rules, a blank line, the role (mode 0 is
    the paper's Listing 1 + Listing 2/3/4)."""
    return rules_prompt(cfg, check_mode(mode, "system_mode", seat)) + "\n\n" + seat_role_prompt(cfg, seat, mode)


def user_prompt(cfg: DecryptoConfig, seat: str, mode: int, state: DecryptoState) -> str:
    """``seat``'s user prompt in ``mode`` for the turn ``state`` is at: Listings 5-7 (mode 0,
    the summaries then the request) or our variant.

    Raises:
        ValueError: an unknown seat or mode, or a mode other than 0 for Eve.
    """
    mode = check_mode(mode, "user_mode", seat)
    if mode == 0:
        return turn_summaries(state, cfg) + turn_request(seat, state, cfg)
    if seat not in VARIED_SEATS:
        raise ValueError(f"decrypto has no seat {seat!r} with prompt variants; seats: {', '.join(VARIED_SEATS)}")
    return USER_VARIANTS[mode - 1](cfg, seat, state)

