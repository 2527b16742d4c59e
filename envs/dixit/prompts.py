"""Dixit prompts: DixitWorld's prompts (appendix C) adapted to each phase, with the table.

The observation's ``"prompt"`` is a seat's whole view in natural language: the rules and
scoring of this game, the seat's role this round, the scores, every scored round (clue,
cards, votes, points), then the request of the phase in the paper's wording, answered in
JSON. Images travel in the observation's ``"hand"`` and ``"candidates"`` arrays, in the
order the prompt numbers them (Card 1 = ``hand[0]``, Candidate 1 = ``candidates[0]``); with
``reveal_captions`` the prompt also gives each card's caption, so a text-only model can play.
Card and candidate numbers in prompts are 1-based; the ``card`` action is 0-based.

The storyteller's clue reaches every other seat's prompt, so it is shown through
:func:`~cluegym.envs.core.text.quote_text` (``clue "a quiet storm"``): a ``"`` inside it is
escaped and cannot close its quotes, and it cannot start a line of its own.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import quote_text
from cluegym.envs.dixit.config import DixitConfig
from cluegym.envs.dixit.scoring import RoundRecord
from cluegym.envs.dixit.state import DixitState

#: card index -> display name (the deck's card id).
CardName = Callable[[int], str]
#: card index -> caption, or None when captions are hidden.
CardCaption = Callable[[int], str] | None

_SCORING_TEXT = {
    "dixitworld": (
        "- Some but not all listeners find the storyteller's card: the storyteller and each listener who found it "
        "score 3.\n"
        "- All listeners find it: the storyteller scores 0, every listener scores 3.\n"
        "- No listener finds it: the storyteller scores 0, every listener scores 2.\n"
    ),
    "official": (
        "- Some but not all listeners find the storyteller's card: the storyteller and each listener who found it "
        "score 3.\n"
        "- All or no listeners find it: the storyteller scores 0, every listener scores 2.\n"
    ),
}

DIRECT_SELECTION = (
    "You are a player in a Dixit game trying to guess which image matches the storyteller's description. "
    "Evaluate all candidates and select the one that best fits."
)
ENTAILMENT_SCORING = (
    "You are evaluating how well an image matches a given clue in a Dixit game. "
    "Provide a numerical score (0-100) with reasoning."
)


def json_answer(fields: Sequence[tuple[str, str]]) -> str:
    """The paper's "respond strictly in JSON" block with these fields."""
    body = ",\n".join(f'  "{name}": "{meaning}"' for name, meaning in fields)
    return "IMPORTANT: Respond strictly in JSON format:\n{\n" + body + "\n}"


@functools.lru_cache(maxsize=64)
def _answer(kind: str, count: int) -> str:
    """The JSON block of a request (``kind`` story, distract or vote; ``count`` cards or
    candidates), built once per kind and count: every decision's prompt ends with one."""
    if kind == "story":
        return json_answer([
            ("reasoning", "Brief analysis (max 50 words)"),
            ("card", f"The card number (1-{count})"),
            ("clue", "Your crafted Dixit description"),
        ])
    noun = "card" if kind == "distract" else "candidate"
    return json_answer([("reasoning", "Brief analysis (max 50 words)"), ("answer", f"The {noun} number (1-{count})")])


def rules_prompt(cfg: DixitConfig) -> str:
    """The rules of this game: players, hands, rounds, hand swap, scoring."""
    n, h = cfg.num_players, cfg.hand_size
    hands = (
        "After each round the played cards are discarded and everyone draws a new card."
        if cfg.refill else "Played cards return to their owner's hand after each round."
    )
    swap = (
        f" After round {cfg.swap_round}, every hand passes to the player {n // 2} seats on (hands swap)."
        if cfg.swap_round is not None else ""
    )
    end = f"The game lasts {cfg.num_rounds} rounds"
    if cfg.target_score is not None:
        end += f", or ends when a player reaches {cfg.target_score} points"
    return (
        f"You are playing Dixit, a storytelling game with picture cards, with {n} players "
        f"({', '.join(seat_name(p) for p in range(n))}). Each player holds {h} cards. "
        f"{hands}{swap} {end}.\n"
        "Each round one player is the storyteller (the role rotates): the storyteller picks a card from their "
        "hand and gives a description of it (the clue). Each other player (a listener) then picks a card from "
        "their own hand that could plausibly match the clue, to mislead the others. The storyteller's card and "
        "the listeners' cards are shuffled and shown as the candidates. Each listener votes for the candidate "
        "they believe is the storyteller's card; you cannot vote for your own card, and nobody sees the votes "
        "before everyone has voted.\n"
        "Scoring:\n" + _SCORING_TEXT[cfg.scoring] +
        "- Each listener also scores 1 point for every vote another listener gives to their card."
    )


def cards_listing(label: str, cards: Sequence[int], caption: CardCaption, own: int | None = None,
                  note: str = "") -> str:
    """``Card 1``, ``Card 2``, ... (with captions when revealed); marks the seat's own card."""
    if caption is None:
        return _numbered_listing(label, len(cards), own, note)
    lines = []
    for i, card in enumerate(cards):
        text = f"{label} {i + 1}"
        if caption is not None:
            text += f": {caption(card)}"
        if own is not None and i == own:
            text += " (your own card)"
        lines.append(text)
    return (note + "\n" if note else "") + "\n".join(lines)


@functools.lru_cache(maxsize=256)
def _numbered_listing(label: str, count: int, own: int | None, note: str) -> str:
    """:func:`cards_listing` without captions (numbers only), built once per shape: it is in
    every decision's prompt."""
    lines = [f"{label} {i + 1}" + (" (your own card)" if own is not None and i == own else "") for i in range(count)]
    return (note + "\n" if note else "") + "\n".join(lines)


def round_summary(record: RoundRecord, name: CardName) -> str:
    """One scored round, as every player saw it revealed."""
    n = len(record.played)
    lines = [
        f"Round {record.round + 1}: storyteller {seat_name(record.storyteller)}, clue {quote_text(record.clue)}, "
        f"outcome {record.outcome.replace('_', ' ')}."
    ]
    for p in range(n):
        if p == record.storyteller:
            lines.append(f"  {seat_name(p)} (storyteller) played {name(record.played[p])}; +{record.points[p]}")
        else:
            vote = record.votes[p]
            verdict = "no vote" if vote < 0 else f"voted {name(vote)}" + (" (correct)" if vote == record.target else "")
            lines.append(f"  {seat_name(p)} played {name(record.played[p])}, {verdict}; +{record.points[p]}")
    return "\n".join(lines)


def scores_line(scores: Sequence[int]) -> str:
    """``Scores: player_0 3, player_1 5, ...``"""
    return "Scores: " + ", ".join(f"{seat_name(p)} {s}" for p, s in enumerate(scores)) + "."


def rounds_text(summaries: Sequence[str]) -> str:
    """The scored rounds' part of the table (``""`` before the first): their
    :func:`round_summary` texts under a heading."""
    return "Previous rounds:\n" + "\n".join(summaries) if summaries else ""


def table_summary(state: DixitState, name: CardName) -> str:
    """Scores and every scored round."""
    return _table(scores_line(state.scores), rounds_text([round_summary(r, name) for r in state.history]))


def _table(scores: str, rounds: str) -> str:
    return f"{scores}\n{rounds}" if rounds else scores


def request(seat: int, state: DixitState, cfg: DixitConfig, name: CardName, caption: CardCaption) -> str:
    """The paper's prompt for the seat's decision now (or a status line when it waits)."""
    h = len(state.hands[seat])
    hand_note = "Your hand (images in the observation's \"hand\", in this order):"
    if state.phase == "over":
        return f"The game is over ({state.end_reason}). Final scores: " + ", ".join(
            f"{seat_name(p)} {s}" for p, s in enumerate(state.scores)) + "."
    storyteller = state.storyteller
    header = f"Round {state.round + 1} of {cfg.num_rounds}. The storyteller is {seat_name(storyteller)}."
    if state.phase == "story":
        if seat != storyteller:
            return header + f" You are {seat_name(seat)}, a listener: wait for the storyteller's clue."
        return "\n".join([
            header,
            f"You are a storyteller in a Dixit game. You must select one card from your {h}-card hand as the target "
            "image and create a description for it. Your goal: maximize your own score by ensuring some, but not "
            "all, players guess correctly.",
            "Scoring rules: - All guess correctly = 0 points - None guess correctly = 0 points - Some guess correctly "
            "= 3 points (optimal). Your description should balance ambiguity and clarity, using metaphorical and "
            "emotional language.",
            cards_listing("Card", state.hands[seat], caption, note=hand_note),
            _answer("story", h),
        ])
    clue_line = f"The storyteller's description: {quote_text(state.clue)}"
    if state.phase == "distract":
        if seat == storyteller:
            return header + f"\n{clue_line}\nYou are the storyteller: wait for the listeners' cards."
        if seat in state.played:
            return header + f"\n{clue_line}\nYou have submitted your card: wait for the vote."
        return "\n".join([
            header, clue_line,
            "You are a player in a Dixit game. Given the storyteller's description, choose one card from your hand "
            "that could plausibly match it (but is not the target). Your goal: mislead others into choosing your card.",
            cards_listing("Card", state.hands[seat], caption, note=hand_note),
            _answer("distract", h),
        ])
    k = len(state.candidates)
    own = state.own_candidate(seat)
    listing = cards_listing(
        "Candidate", state.candidates, caption, own=own,
        note="The candidates (images in the observation's \"candidates\", in this order):",
    )
    if seat == storyteller:
        return "\n".join([header, clue_line, listing, "You are the storyteller: wait for the votes."])
    if seat in state.votes:
        return "\n".join([header, clue_line, listing, "You have voted: wait for the other listeners."])
    return "\n".join([
        header, clue_line, DIRECT_SELECTION, listing,
        "You cannot vote for your own card.",
        _answer("vote", k),
    ])


def full_prompt(seat: int, state: DixitState, cfg: DixitConfig, name: CardName, caption: CardCaption = None) -> str:
    """The seat's whole view: rules, who it is, scores and history, the current request."""
    return assemble_prompt(
        rules_prompt(cfg), seat, scores_line(state.scores),
        rounds_text([round_summary(r, name) for r in state.history]), request(seat, state, cfg, name, caption),
    )


def assemble_prompt(rules: str, seat: int, scores: str, rounds: str, request_text: str) -> str:
    """:func:`full_prompt` from its parts (:func:`rules_prompt`, :func:`scores_line`,
    :func:`rounds_text`, :func:`request`): the env keeps the parts that change once per game
    or per round and builds only the rest at each step."""
    return "\n\n".join([rules, f"You are {seat_name(seat)}.", _table(scores, rounds), request_text])


def entailment_prompt(clue: str, caption: str | None = None) -> str:
    """Appendix C's entailment scoring prompt for one image (DixitBench's second strategy)."""
    parts = [ENTAILMENT_SCORING, f"The clue: {quote_text(clue)}"]
    parts.append(
        "The image is the observation's \"candidates\"[0]" + (f"; its caption: {caption}" if caption is not None else "") + "."
    )
    parts.append(json_answer([("reasoning", "Detailed reasoning for the score"),
                              ("answer", "Your numerical rating (0-100)")]))
    return "\n".join(parts)


def direct_prompt(clue: str, num_candidates: int, captions: Sequence[str] | None = None) -> str:
    """Appendix C's direct selection prompt for a DixitBench item."""
    listing = "\n".join(
        f"Candidate {i + 1}" + (f": {captions[i]}" if captions is not None else "") for i in range(num_candidates)
    )
    return "\n".join([
        DIRECT_SELECTION, f"The storyteller's description: {quote_text(clue)}",
        "The candidates (images in the observation's \"candidates\", in this order):", listing,
        json_answer([("reasoning", "Brief analysis (max 50 words)"),
                     ("answer", f"The candidate number (1-{num_candidates})")]),
    ])
