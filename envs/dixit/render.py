"""Dixit's table for people: the text view (``"ansi"``/``"human"``) and the RGB image
(``"rgb_array"``) of the candidates with their owners and votes, the clue and the scores.

Both read a :class:`~cluegym.envs.dixit.state.DixitState` and never change it.

Example:
    >>> from cluegym.envs.dixit.env import raw_env
    >>> env = raw_env(); env.reset(seed=0)
    >>> print(render_text(env.state, env.game_config, env.card_id))
    Dixit - round 1/24, phase story  scores: player_0=0, player_1=0, player_2=0, player_3=0
    >>> image = render_table(env.state, env.game_config, env.deck)
    >>> image.shape, image.dtype
    ((336, 572, 3), dtype('uint8'))
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from cluegym.envs.core.seats import seat_name
from cluegym.envs.core.text import quote_text, to_charset
from cluegym.envs.dixit.config import DixitConfig
from cluegym.envs.dixit.deck import Deck
from cluegym.envs.dixit.prompts import round_summary
from cluegym.envs.dixit.state import DixitState

#: Size of the cards in the table image (height, width).
RENDER_CARD_SIZE = (192, 128)


def render_text(state: DixitState, cfg: DixitConfig, card_id: Callable[[int], str]) -> str:
    """The table as text: scores, every scored round, then the round in play."""
    lines = [
        f"Dixit - round {min(state.round + 1, cfg.num_rounds)}/{cfg.num_rounds}, phase {state.phase}  "
        + "scores: " + ", ".join(f"{seat_name(p)}={s}" for p, s in enumerate(state.scores))
    ]
    for record in state.history:
        lines.append(round_summary(record, card_id))
    if state.phase in ("distract", "vote"):
        lines.append(f"round {state.round + 1}: {seat_name(state.storyteller)} told {quote_text(state.clue)} "
                     f"(target {card_id(state.target)})")
    if state.phase == "vote":
        lines.append("  candidates: " + ", ".join(card_id(c) for c in state.candidates))
    if state.phase == "over":
        lines.append(f"game over ({state.end_reason})")
    return "\n".join(lines)


def table_cards(state: DixitState) -> tuple[str, list[int], list[list[str]], int | None]:
    """What the table image shows: its title, the cards, each card's labels and the target
    (None before it is known): the candidates during the vote, else the last scored round,
    else the storyteller's hand before the first round."""
    n = state.num_players
    if state.phase == "vote":
        shown = list(state.candidates)
        owner = {state.card_played_by(p): p for p in range(n)}
        labels = [[f"{k + 1}. {seat_name(owner[c])}" + (" (target)" if c == state.target else "")]
                  for k, c in enumerate(shown)]
        for voter, k in state.votes.items():
            labels[k].append(f"<- {seat_name(voter)}")
        title = f"Round {state.round + 1}: {seat_name(state.storyteller)} said {quote_text(state.clue)} - voting"
        return title, shown, labels, state.target
    if state.history:
        record = state.history[-1]
        shown = list(record.candidates)
        owner = {c: p for p, c in enumerate(record.played)}
        labels = [[f"{k + 1}. {seat_name(owner[c])}"] for k, c in enumerate(shown)]
        for voter, card in enumerate(record.votes):
            if card >= 0:
                labels[shown.index(card)].append(f"<- {seat_name(voter)}")
        title = (f"Round {record.round + 1}: {seat_name(record.storyteller)} said {quote_text(record.clue)} - "
                 f"{record.outcome.replace('_', ' ')}")
        return title, shown, labels, record.target
    shown = list(state.hands[state.storyteller])
    labels = [[f"card {k + 1}"] for k in range(len(shown))]
    return f"Round 1: {seat_name(state.storyteller)} is the storyteller", shown, labels, None


def render_table(state: DixitState, cfg: DixitConfig, deck: Deck) -> np.ndarray:
    """The table as an RGB image: the candidates (or the storyteller's hand before the
    vote), owners, votes and the target once revealed, the clue and the scores."""
    from PIL import Image, ImageDraw  # deferred: Pillow is only needed to draw the table

    n = cfg.num_players
    ch, cw = RENDER_CARD_SIZE
    margin, top, label_h = 12, 56, 58
    title, shown, labels, target = table_cards(state)
    width = max(len(shown), n) * (cw + margin) + margin
    height = top + ch + label_h + 30
    canvas = Image.new("RGB", (width, height), (245, 240, 228))
    draw = ImageDraw.Draw(canvas)
    draw.text((margin, 10), to_charset(title)[:110], fill=(20, 20, 20))
    draw.text((margin, 30), f"phase: {state.phase}", fill=(90, 90, 90))
    for k, card in enumerate(shown):
        x = margin + k * (cw + margin)
        image = Image.fromarray(np.asarray(deck.image(deck.card_ids[card], RENDER_CARD_SIZE)))
        if card == target:
            draw.rectangle([x - 4, top - 4, x + cw + 3, top + ch + 3], fill=(214, 160, 20))
        canvas.paste(image, (x, top))
        for j, text in enumerate(labels[k][:4]):
            draw.text((x, top + ch + 4 + 13 * j), text, fill=(20, 20, 20))
    scores = "scores: " + "  ".join(f"{seat_name(p)} {s}" for p, s in enumerate(state.scores))
    draw.text((margin, height - 22), scores, fill=(20, 20, 20))
    return np.asarray(canvas, dtype=np.uint8)
