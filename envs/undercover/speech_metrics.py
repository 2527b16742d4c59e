"""One seat's counts in one recorded game for CoMet's six metrics (seeds/comet.txt, Table 3 of
appendix E), read from ``record["result"]`` alone.

For a seat ``p`` of a finished game, :func:`seat_counts` returns the numerators and
denominators of appendix E:

* **WR**: ``won`` (the seat's team won).
* **FER** = F_extracted / S_others: ``received`` counts the speech entries (descriptions) of
  other players that ``p`` heard (said while ``p`` was in the game); ``features_valid`` those
  for which ``p``'s answering report (see below) holds a feature for the speaker that the judge
  accepts (:meth:`~cluegym.envs.undercover.judge.SpeechJudge.feature_valid`).
* **OIAA** = M_correct / S_others: ``judged_correct`` counts the received speech entries for
  which ``p``'s answering report labels the speaker correctly (a role, or teammate/opponent;
  "undecided" or no label is not correct). The denominator is the speech entries, not the
  judgments made.
* **SIAA** = I_correct / I_total: ``self_attempts`` reports that state ``p``'s identity,
  ``self_correct`` those that are right.
* **PPC** = 1 - L_opponents / S_self: ``speeches`` counts ``p``'s descriptions, ``leaked``
  those the judge finds give ``p``'s word away (:meth:`~cluegym.envs.undercover.judge.
  SpeechJudge.leaks`).
* **IISC** = IS_self / S_self: ``inconsistent`` counts ``p``'s descriptions the judge finds
  identity-inconsistent (fitting the other team's word better than ``p``'s own).

The *answering report* of a speech entry is ``p``'s first belief report made after it: a
report made while speaking sees the descriptions said before ``p``'s turn of that round, a
report made while voting sees the whole round. Agents that never report a field leave its
flag (``reports_features``, ``reports_others``, ``reports_self``) False, and the aggregate
then says "n/a" (None), never 0.

Example:
    >>> import cluegym
    >>> from cluegym.agents import make_agent
    >>> from cluegym.envs.undercover.judge import WordNetJudge
    >>> from cluegym.harness.play import play_game
    >>> from cluegym.harness.seats import build_agents, resolve_seats
    >>> env = cluegym.make("undercover")
    >>> seats = resolve_seats("undercover", {"*": "random"}, env.possible_agents)
    >>> agents = build_agents("undercover", env, seats, make_agent=make_agent)
    >>> record = play_game(env, agents, seed=0, agent_seeds={seat: i for i, seat in enumerate(agents)})
    >>> counts = seat_counts(record["result"], "player_0", WordNetJudge())
    >>> counts.role, counts.speeches, counts.received, counts.features_valid, counts.reports_features
    ('civilian', 2, 7, 0, False)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cluegym.envs.undercover.beliefs import judgment_correct
from cluegym.envs.undercover.config import CIVILIAN, SILENCE, TEAMS, UNDERCOVER
from cluegym.envs.undercover.judge import SpeechJudge

__all__ = ["SeatCounts", "Speech", "report_time", "seat_counts", "speeches"]


@dataclass(frozen=True)
class Speech:
    """One description of a finished game: its round, its place in the speaking order, who said what."""

    round: int
    position: int
    speaker: str
    text: str

    @property
    def time(self) -> tuple[int, int, int]:
        """Its place in play order (comparable with :func:`report_time`)."""
        return (self.round, 0, self.position)


@dataclass
class SeatCounts:
    """The appendix-E counts of one seat in one game (see the module docstring)."""

    role: str
    won: bool
    speeches: int = 0
    leaked: int = 0
    inconsistent: int = 0
    received: int = 0
    features_valid: int = 0
    judged_correct: int = 0
    self_attempts: int = 0
    self_correct: int = 0
    reports_features: bool = False
    reports_others: bool = False
    reports_self: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The counts as JSON."""
        return asdict(self)


def speeches(result: dict[str, Any]) -> list[Speech]:
    """Every description of a finished game, in play order."""
    out = []
    for record in result.get("history", []):
        order = [f"player_{p}" for p in record["order"]]
        for position, seat in enumerate(order):
            if seat in record["descriptions"]:
                out.append(Speech(record["round"], position, seat, record["descriptions"][seat]))
    return out


def report_time(report: dict[str, Any], orders: dict[int, list[str]]) -> tuple[int, int, int]:
    """When a belief report was made: with the player's speech (seeing the earlier speakers of
    the round) or while voting (seeing the whole round)."""
    rnd = int(report["round"])
    if report.get("phase") == "vote":
        return (rnd, 1, 0)
    order = orders.get(rnd, [])
    position = order.index(report["player"]) if report["player"] in order else len(order)
    return (rnd, 0, position)


def seat_counts(result: dict[str, Any], seat: str, judge: SpeechJudge) -> SeatCounts:
    """The appendix-E counts of ``seat`` in the finished game ``result`` (see the module docstring).

    Args:
        result: a finished game's ``record["result"]``.
        seat: the seat, e.g. ``"player_3"``.
        judge: decides valid features, leaks and inconsistent statements.

    Raises:
        KeyError: ``seat`` did not play in this game.
    """
    roles: dict[str, str] = result["roles"]
    role = roles[seat]
    words = result["words"]
    own_word = words[role]
    other_word = words[UNDERCOVER if role == CIVILIAN else CIVILIAN]
    counts = SeatCounts(role=role, won=result.get("winner") == TEAMS[role])
    orders = {int(r["round"]): [f"player_{p}" for p in r["order"]] for r in result.get("history", [])}
    reports = sorted(
        ((report_time(b, orders), b) for b in result.get("beliefs", []) if b.get("player") == seat),
        key=lambda item: item[0],
    )
    for _, report in reports:
        beliefs = report.get("beliefs") or {}
        counts.reports_features |= "features" in beliefs
        counts.reports_others |= "others" in beliefs
        if "self" in beliefs:
            counts.reports_self = True
            counts.self_attempts += 1
            counts.self_correct += beliefs["self"] == role
    out_round = next((e["round"] for e in result.get("eliminated", []) if e["player"] == seat), None)
    for speech in speeches(result):
        if speech.speaker == seat:
            counts.speeches += 1
            if speech.text != SILENCE:
                counts.leaked += judge.leaks(speech.text, own_word, other_word)
                counts.inconsistent += judge.inconsistent(speech.text, own_word, other_word)
            continue
        if out_round is not None and speech.round > out_round:
            continue  # said after the seat was eliminated: never heard
        counts.received += 1
        answer = next((b for t, b in reports if t > speech.time), None)
        if answer is None:
            continue
        beliefs = answer.get("beliefs") or {}
        key = speech.speaker.removeprefix("player_")
        label = (beliefs.get("others") or {}).get(key)
        if label is not None and judgment_correct(label, role, roles[speech.speaker]):
            counts.judged_correct += 1
        feature = (beliefs.get("features") or {}).get(key)
        if feature and speech.text != SILENCE and judge.feature_valid(feature, speech.text, words[roles[speech.speaker]]):
            counts.features_valid += 1
    return counts
