"""Undercover prompts: CoMet's game rules (appendix C), the public transcript, and the request
of the moment.

The observation's ``"prompt"`` is a seat's whole view in natural language, the paper's
Background and Information parts only (appendix D): the rules and victory conditions (with
this game's counts), the seat's name and secret word (never its role), every round so far
(speaking order, descriptions, votes once revealed, eliminations), then what to answer. It
holds no strategy: CoMet's covert-communication goal (Figures 16-17) belongs to the CoMet
agent alone (:mod:`cluegym.agents.llm.comet.prompts`), so that the Naive and CoT baselines
that read this prompt are not given CoMet's strategy.
Generalist LLM agents use it verbatim; answers are read as ``ANSWER: {"description": ...}``
or ``ANSWER: {"vote": "player_3"}``.

Descriptions reach every other seat's prompt, so each is shown through
:func:`~cluegym.envs.core.text.quote_text` (``player_3: "It buzzes."``): a description cannot
start a line of its own or pose as a ``Votes:``/``Result:`` line.
"""

from __future__ import annotations

try:
    import cython
except ImportError:  # no Cython at run time: the type declarations do nothing
    from cluegym.envs.core import cython_fallback as cython

import functools
from typing import Any

from cluegym.envs.core.memo import cached_call
from cluegym.envs.core.text import quote_text
from cluegym.envs.undercover.config import UndercoverConfig
from cluegym.envs.undercover.state import RoundRecord, UndercoverState, seat_names

_TIMEOUT_TEXT = {
    "civilians": "the civilians win",
    "undercover": "the undercover players win",
    "none": "nobody wins",
}


def rules_prompt(cfg: UndercoverConfig) -> str:
    """CoMet's rules of Undercover (appendix C) with this game's counts: rules and victory
    conditions, no strategy."""
    n, c, u = cfg.num_players, cfg.num_civilians, cfg.num_undercover
    return (
        f"You are playing the word game Undercover with {n} players.\n"
        "At the beginning of the game, each player is randomly assigned one of two words that share some "
        "similarities. Players are divided into two teams based on their assigned words: the majority group "
        f"(the civilians, {c} players) and the minority group (the undercover players, {u} players). Each team "
        "shares the same word, which is known only to the players on that team. At the start of the game, "
        "players are only given their team's secret word, with no additional information: nobody is told which "
        "team they are on, so you do not know whether your word is the civilians' word or the undercover word.\n"
        "Each round, all surviving players take turns, in a random order, to briefly describe their word in one "
        "sentence without directly revealing it: a description that contains your word, or any form of it, is not "
        "allowed. After the descriptions, all surviving players vote at the same time (nobody sees the votes "
        "before everyone has voted) for another surviving player, and the player who received the most votes is "
        "eliminated. If there is a tie, no one is eliminated and the game continues.\n"
        "If all the undercover players are eliminated, the civilians win; if the undercover players survive until "
        f"only one civilian remains, the undercover players win. After {cfg.max_rounds} rounds the game ends and "
        f"{_TIMEOUT_TEXT[cfg.timeout_winner]}. Eliminated players stay on their team and win or lose with it."
    )


def _round_block(
    record: RoundRecord | None, order: tuple[int, ...], descriptions: dict[int, str], number: int,
    names: tuple[str, ...], memo: dict[tuple[Any, ...], str] | None = None,
) -> str:
    """The transcript lines of one round, each ended by a newline.

    ``memo`` keeps lines already built, keyed by what they show (the round in play is shown
    again after every description; only the new line needs building)."""
    if memo is None:
        memo = {}
    key: tuple[Any, ...] = (number, order)
    header = memo.get(key)
    if header is None:
        header = memo[key] = f"Round {number} (speaking order: {', '.join([names[p] for p in order])})\n"
    parts = [header]
    for p in order:
        if p in descriptions:
            parts.append(description_line(p, descriptions[p], names, memo))
    if record is not None:
        votes = ", ".join([
            f"{names[v]} -> {'no vote' if t is None else names[t]}" for v, t in sorted(record.votes.items())
        ])
        parts.append(f"  Votes: {votes}\n")
        if record.eliminated is None:
            parts.append("  Result: a tie, nobody was eliminated.\n")
        else:
            parts.append(f"  Result: {names[record.eliminated]} was eliminated.\n")
    return "".join(parts)


def description_line(player: int, text: str, names: tuple[str, ...], memo: dict[tuple[Any, ...], str]) -> str:
    """A description's transcript line (``  player_3: "It buzzes."``), kept in ``memo``."""
    key = (player, text)
    line = memo.get(key)
    if line is None:
        line = memo[key] = f"  {names[player]}: {quote_text(text)}\n"
    return line


def finished_round_text(record: RoundRecord, num_players: int, memo: dict[tuple[Any, ...], str] | None = None) -> str:
    """The transcript of a finished round (its lines, each ended by a newline). A finished
    round never changes, so callers may build it once and keep it (see :func:`transcript`).

    ``memo``: lines already built while the round was in play (see :func:`transcript`)."""
    return _round_block(record, record.order, record.descriptions, record.round + 1, seat_names(num_players), memo)


@cython.locals(state=UndercoverState)
def history_text(state: UndercoverState) -> str:
    """The transcript of every finished round of ``state`` (see :func:`finished_round_text`)."""
    n = len(state.alive)
    return "".join([finished_round_text(record, n) for record in state.history])


@cython.locals(state=UndercoverState)
def transcript(
    state: UndercoverState, finished: str | None = None, memo: dict[tuple[Any, ...], str] | None = None,
    living: str | None = None,
) -> str:
    """The public record: each round's order, descriptions and (revealed) votes.

    Args:
        state: the game.
        finished: :func:`history_text` of ``state`` when the caller keeps it (the finished
            rounds never change, so the env builds their text once per round); None builds it.
        memo: lines of the round in play already built, kept by the caller between calls
            (keyed by what they show, so any dict the caller keeps for one game will do).
        living: :func:`living_line` of ``state`` when the caller keeps it (it changes when
            a round ends); None builds it.
    """
    names = seat_names(len(state.alive))
    return compose_transcript(
        history_text(state) if finished is None else finished, round_in_play(state, memo), state.phase,
        living_line(state.alive, names) if living is None else living,
    )


@cython.locals(state=UndercoverState)
def round_in_play(state: UndercoverState, memo: dict[tuple[Any, ...], str] | None = None) -> str:
    """The transcript lines of the round in play (``""`` once the game is over); ``memo``
    as for :func:`transcript`."""
    if state.phase not in ("speak", "vote"):
        return ""
    return _round_block(None, state.order, state.descriptions, state.round + 1, seat_names(len(state.alive)), memo)


# No count of the votes cast: the voters vote at once (one simultaneous block), so a voter's
# view must not change while the others vote.
_VOTING_LINE = "  Voting: every player still in the game votes; the votes are revealed when everyone has voted.\n"


def compose_transcript(finished: str, round_text: str, phase: str, living: str) -> str:
    """:func:`transcript` from its parts: the finished rounds' text, :func:`round_in_play`,
    the phase and :func:`living_line`."""
    if phase == "vote":
        return "".join([finished, round_text, _VOTING_LINE, living])
    return "".join([finished, round_text, living])


def living_line(alive: list[bool], names: tuple[str, ...]) -> str:
    """The transcript's last line: who is still in the game."""
    living = ", ".join([names[p] for p, in_game in enumerate(alive) if in_game])
    return f"Still in the game: {living}.\n"


BELIEFS_HELP = (
    'You may add your beliefs to your answer; they are recorded for analysis and never change the game: '
    '"beliefs": {"self": "civilian" or "undercover", "others": {"player_1": "civilian", "player_2": "undercover", '
    '...}, "other_word": "your guess of the other team\'s word", "features": {"player_1": "the feature you read in '
    'their latest description", ...}}.'
)


@cython.locals(state=UndercoverState)
def request(seat: int, state: UndercoverState, cfg: UndercoverConfig, to_move: int | None) -> str:
    """What the seat is asked now (or what it waits for, or how the game ended).

    While voting, every living player that has not voted yet is asked for its vote (the
    votes are simultaneous, whoever the AEC env asks first), so its view is the same before
    and after the others vote.
    """
    if state.phase == "over":
        names = seat_names(len(state.alive))
        winner = {"civilians": "the civilians won", "undercover": "the undercover players won"}.get(
            state.winner or "", "nobody won"
        )
        reasons = {
            "undercover_eliminated": "all undercover players were eliminated",
            "one_civilian_left": "only one civilian was left",
            "timeout": f"the {cfg.max_rounds}-round limit was reached",
        }
        roles = ", ".join([f"{names[p]}={r}" for p, r in enumerate(state.roles)])
        return (
            f"The game is over: {winner} ({reasons[state.end_reason]}). The civilians' word was "
            f"'{state.civilian_word}' and the undercover word was '{state.undercover_word}'. Roles: {roles}."
        )
    if not state.alive[seat]:
        return f"You were eliminated in round {state.eliminated_round[seat] + 1}; your team plays on without you."
    if state.phase == "speak" and to_move == seat:
        return _speak_request(state.round, cfg.max_rounds, state.word_of(seat), cfg.max_description_words)
    if state.phase == "vote" and seat not in state.votes:
        return cached_call(_vote_request, state.round, cfg.max_rounds, seat, tuple(state.alive))
    round_text = f"Round {state.round + 1} of at most {cfg.max_rounds}"
    if state.phase == "vote":
        return f"{round_text}: you have voted; the votes are revealed when every player has voted."
    waiting_for = seat_names(len(state.alive))[to_move] if to_move is not None else "the others"
    return f"{round_text}: waiting for {waiting_for} to speak."


# The two requests an acting seat gets, kept: the same few texts, over and over.
@functools.lru_cache(maxsize=1024)
def _speak_request(round_index: int, max_rounds: int, word: str, max_words: int) -> str:
    return (
        f"Round {round_index + 1} of at most {max_rounds}: it is your turn to speak. Describe your word '{word}' in "
        f"one sentence (at most {max_words} words) without saying it or any form of it.\n"
        f"{BELIEFS_HELP}\n"
        'Provide your final answer like "ANSWER: {"description": "your one-sentence description"}".'
    )


@functools.lru_cache(maxsize=1024)
def _vote_request(round_index: int, max_rounds: int, seat: int, alive: tuple[bool, ...]) -> str:
    names = seat_names(len(alive))
    options = ", ".join([names[p] for p, in_game in enumerate(alive) if in_game and p != seat])
    return (
        f"Round {round_index + 1} of at most {max_rounds}: voting phase. Vote for the player you want to eliminate, "
        f"one of: {options} (not yourself, {names[seat]}).\n"
        f"{BELIEFS_HELP}\n"
        'Provide your final answer like "ANSWER: {"vote": "player_X"}".'
    )


@cython.locals(state=UndercoverState)
def full_prompt(
    seat: int, state: UndercoverState, cfg: UndercoverConfig, to_move: int | None, *,
    rules: str | None = None, public: str | None = None,
) -> str:
    """The seat's complete view: rules, identity and word, the transcript, the request.

    Args:
        seat: the seat's player number.
        state: the game.
        cfg: the game's options.
        to_move: the player to act (see ``UndercoverRules.player_to_move``).
        rules: :func:`rules_prompt` of ``cfg`` when the caller keeps it (the same for every
            prompt of an env); None builds it.
        public: :func:`transcript` of ``state`` when the caller keeps it (the same for every
            seat, and for every vote of a round); None builds it.
    """
    identity = f"You are {seat_names(len(state.alive))[seat]}. Your secret word is '{state.word_of(seat)}'."
    # One join: the rules and the transcript are most of the text, copied once.
    return "".join([
        rules_prompt(cfg) if rules is None else rules, "\n\n", identity, "\n\nGame so far:\n",
        transcript(state) if public is None else public, "\n", request(seat, state, cfg, to_move),
    ])
