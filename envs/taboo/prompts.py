"""Adversarial Taboo prompts: CoMet's game rules (appendix C), each role's knowledge and
victory conditions, the dialogue so far, and the request of the moment.

The prompt holds rules, role knowledge and history only (the paper's Background and
Information parts): Figure 18's attacker and defender strategies (metaphors, interference,
"guess only on a repeated suspicion") belong to the CoMet agent
(:mod:`cluegym.agents.llm.comet.prompts`), and nothing here pushes a guess on the last turn,
so the Naive and CoT baselines that read this prompt play on the rules alone.

Answers are read as ``ANSWER: {"utterance": "..."}`` (attacker) and
``ANSWER: {"utterance": "...", "guess": ""}`` (defender; a non-empty guess ends the game).

Each utterance and guess is shown through :func:`~cluegym.envs.core.text.quote_text`
(``Attacker (turn 1): "What grows in an orchard?"``), so neither player can write a line
that poses as the game master.
"""

from __future__ import annotations

import functools

from cluegym.envs.core.memo import cached_call
from cluegym.envs.core.text import quote_text
from cluegym.envs.taboo.rules import TabooConfig, TabooState


def rules_prompt(cfg: TabooConfig) -> str:
    """CoMet's rules of Adversarial Taboo (appendix C) with this game's turn limit."""
    return (
        "You are playing Adversarial Taboo, a conversation game between two players: an attacker and a defender.\n"
        "At the start, the attacker is secretly given a target word that the defender does not know. The "
        "attacker's task is to steer the conversation toward topics related to the target word without ever "
        "saying it directly. Meanwhile, the defender tries to figure out the target word but must avoid "
        "accidentally saying it. If the defender thinks they know the word, they can guess it (once). The game "
        "ends immediately after this guess: the defender wins if correct, otherwise the attacker wins.\n"
        "The attacker speaks first and the players take turns. Saying the target word or any form of it "
        "(plural, -ing, -ed, the same stem) counts as saying it: if the attacker says it, the attacker breaks "
        "the rules and the defender wins; if the defender says it, the attacker wins.\n"
        f"The game also has a turn limit of {cfg.max_turns} utterances each: if no guess occurs within the "
        "allowed number of turns, the game ends with no winner.\n"
        "Both sides engage in honest dialogue, guidance and guessing. The attacker is not allowed to "
        "intentionally and clearly guide towards wrong words so that the defender makes incorrect guesses. The "
        "defender cannot avoid discussing the topic with the attacker and ask the attacker for clues instead."
    )


ATTACKER_PROMPT = (
    "You are the attacker. The secret word is [{word}]. The defender does not know it.\n"
    "You win if the defender says the secret word (or any form of it) or guesses a wrong word. You lose if "
    "you say the secret word or any form of it yourself, or if the defender guesses it."
)

DEFENDER_PROMPT = (
    "You are the defender. You do not know the secret word; the attacker does.\n"
    "You win if you guess the secret word. You lose if you say it (or any form of it) or if your guess is "
    "wrong. You may guess once; the game ends at your guess."
)


def dialogue(state: TabooState) -> str:
    """The conversation so far, one line per utterance."""
    if not state.dialogue:
        return "Nothing has been said yet."
    lines = []
    for u in state.dialogue:
        speaker, turn, text, guess = u.speaker, u.turn, u.text, u.guess
        if type(speaker) is str and type(turn) is int and type(text) is str and (guess is None or type(guess) is str):
            lines.append(_cached_line(speaker, turn, text, guess))
        else:
            lines.append(_line(speaker, turn, text, guess))
    return "\n".join(lines)


def _line(speaker: str, turn: int, text: str, guess: str | None) -> str:
    """One utterance's line of :func:`dialogue`."""
    line = f"{speaker.capitalize()} (turn {turn + 1}): {quote_text(text)}"
    if guess:
        line += f"  [guess: {quote_text(guess)}]"
    return line


# An utterance's line is shown again in every later prompt of its game: built once.
_cached_line = functools.lru_cache(maxsize=4096)(_line)


_ENDINGS = {
    "attacker_said_target": "the attacker said the target word (a rule break): the defender wins",
    "defender_said_target": "the defender said the target word: the attacker wins",
    "correct_guess": "the defender guessed the word: the defender wins",
    "wrong_guess": "the defender guessed wrong: the attacker wins",
    "turn_limit": "the turn limit was reached without a guess: a draw",
}


def request(seat: str, state: TabooState, cfg: TabooConfig) -> str:
    """What the seat is asked now (or whom it waits for, or how the game ended)."""
    if state.to_speak is None:
        return f"The game is over: {_ENDINGS[state.end_reason]}. The target word was '{state.target}'."
    turn = state.turns_taken(seat) + 1
    if state.to_speak != seat:
        return f"Waiting for the {state.to_speak} to speak."
    if seat == "attacker":
        return (
            f"Your turn {turn} of {cfg.max_turns}. Say one natural utterance that steers the defender towards the "
            f"secret word without saying it.\n"
            'Provide your final answer like "ANSWER: {"utterance": "your utterance"}".'
        )
    return (
        f"Your turn {turn} of {cfg.max_turns}. Reply to the attacker without saying the word you "
        "suspect; to guess, put your guess in \"guess\" (the game ends at a guess), otherwise leave it empty.\n"
        'Provide your final answer like "ANSWER: {"utterance": "your reply", "guess": ""}".'
    )


def full_prompt(seat: str, state: TabooState, cfg: TabooConfig) -> str:
    """The seat's complete view: rules, role (and the word, for the attacker), dialogue, request."""
    target = state.target if seat == "attacker" else None
    return "".join((cached_call(_prefix, cfg, target), dialogue(state), "\n\n", request(seat, state, cfg)))


@functools.lru_cache(maxsize=1024)
def _prefix(cfg: TabooConfig, target: str | None) -> str:
    """Rules and role (the attacker's with its ``target``; None: the defender's), up to the
    dialogue: the same all game long."""
    role = DEFENDER_PROMPT if target is None else ATTACKER_PROMPT.format(word=target)
    return rules_prompt(cfg) + "\n\n" + role + "\n\nConversation so far:\n"
