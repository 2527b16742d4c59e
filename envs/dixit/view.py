"""What Dixit's observations show of the game, built once and shared from step to step.

:class:`FinishedRounds` holds the prompt text and ``history_*`` arrays of the scored rounds
(a scored round never changes); the env keeps one and replaces it when a round is scored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cluegym.envs.core import pad_texts, read_only
from cluegym.envs.core.text import to_charset
from cluegym.envs.dixit.prompts import round_summary, rounds_text
from cluegym.envs.dixit.scoring import RoundRecord

if TYPE_CHECKING:  # the env imports this module
    from cluegym.envs.dixit.env import DixitEnv

__all__ = ["FinishedRounds", "printable"]


def printable(text: str) -> bool:
    """Whether ``text`` is printable ASCII (so in the charset: ``to_charset`` keeps it)."""
    return text.isascii() and text.isprintable()


class FinishedRounds:
    """What every observation and info shows of a history of scored rounds, built once per
    round: a scored round never changes, and rebuilding the whole history at every step made
    a game's observations quadratic in its length.

    It stands for the records it holds, compared by value (``==``, at the cost of an identity
    check while they are the same objects): a State's history only grows and a scored round
    is never changed, so the view is rebuilt exactly when a round is scored, or for another
    game; a copied State (``copy.deepcopy``) or a replayed game shows the same values. Its
    arrays are read-only and handed to every observation until the next round is scored.

    Attributes:
        records: the scored rounds, oldest first.
        summaries: each round's :func:`~cluegym.envs.dixit.prompts.round_summary`, folded to
            the charset.
        rounds: :func:`~cluegym.envs.dixit.prompts.rounds_text` of the summaries.
        storytellers, played, votes, points, clues: the ``history_*`` observation entries.
        last_round: ``round_view`` of the last record (the infos' ``last_round``, None before
            the first), shared by every seat's info: treat it as read-only.
    """

    __slots__ = ("records", "summaries", "rounds", "storytellers", "played", "votes", "points", "clues",
                 "last_round")

    def __init__(self, env: "DixitEnv", records: list[RoundRecord], previous: "FinishedRounds | None") -> None:
        cfg = env.game_config
        n, r = cfg.num_players, cfg.num_rounds
        self.records = list(records)
        # What the previous view has of the first rounds is kept when they are the same (the
        # view of the round before, in play): only the new rounds are added.
        if previous is not None and records[: len(previous.records)] == previous.records:
            start, summaries = len(previous.records), list(previous.summaries)
            storytellers, played = previous.storytellers.copy(), previous.played.copy()
            votes, points = previous.votes.copy(), previous.points.copy()
        else:
            start, summaries = 0, []
            storytellers = np.full(r, -1, dtype=np.int64)
            played = np.full((r, n), -1, dtype=np.int64)
            votes = np.full((r, n), -1, dtype=np.int64)
            points = np.full((r, n), -1, dtype=np.int64)
        for i in range(start, len(records)):
            record = records[i]
            summaries.append(to_charset(round_summary(record, env.card_id)))
            storytellers[i] = record.storyteller
            played[i] = record.played
            votes[i] = record.votes
            points[i] = record.points
        self.summaries = summaries
        self.rounds = rounds_text(summaries)
        self.storytellers, self.played = read_only(storytellers), read_only(played)
        self.votes, self.points = read_only(votes), read_only(points)
        self.clues = pad_texts([rec.clue for rec in records], r)
        self.last_round = env.rules.round_view(records[-1]) if records else None
