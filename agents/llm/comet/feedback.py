"""CoMet's feedback on a metaphor (seeds/comet.txt section 3.3): how the other players read it,
from a finished game's record, and whether it succeeded.

The paper's generator "uses game outcomes and others' interpretations as feedback" and Figure
6(b) counts "generated metaphors that mislead opponents while being recognized by teammates".
:func:`metaphor_feedback` reads, for the description a seat gave in a round, every other
player's *answering* belief report (their first report after the description, as in
:mod:`cluegym.envs.undercover.speech_metrics`): the feature they read in it and how they
labelled the speaker, and their vote in that round.

Success rule (documented, since the paper does not spell it out):

* **recognized by teammates**: every teammate who labelled the speaker labelled it as a
  teammate (by role or relative label; "undecided" is not recognition) and no teammate voted
  for the speaker in that round;
* **misled opponents**: no opponent labelled the speaker correctly (as being on the other
  team, or by the speaker's true role), no opponent guessed the speaker's word as the other
  word, and no opponent voted for the speaker in that round.

A metaphor succeeds when both hold. Players without a belief report count by their vote
alone; a player eliminated before the description heard nothing and does not count.

Example:
    >>> from cluegym.agents import run_match
    >>> records = []  # one finished Undercover game's record (glove agents report beliefs too)
    >>> _ = run_match("undercover", {"*": "glove"}, games=1, seed=0, progress=False,
    ...               on_game=lambda index, record: records.append(record))
    >>> fb = metaphor_feedback(records[0]["result"], "player_3", round_index=0)
    >>> fb["description"], fb["recognized"], fb["misled"], fb["success"], fb["won"]
    ('ostrich', False, False, False, True)
    >>> [(i["player"], i["team"], i["label"], i["voted_against"]) for i in fb["interpretations"]]
    [('player_0', 'opponent', 'opponent', False), ('player_1', 'opponent', 'opponent', False),
     ('player_2', 'teammate', 'opponent', False), ('player_4', 'opponent', 'opponent', False)]
"""

from __future__ import annotations

from typing import Any

from cluegym.envs.core.matching import is_same_word_guess
from cluegym.envs.undercover.beliefs import judgment_correct
from cluegym.envs.undercover.speech_metrics import report_time, speeches

__all__ = ["metaphor_feedback"]


def metaphor_feedback(result: dict[str, Any], seat: str, round_index: int) -> dict[str, Any]:
    """How the others read ``seat``'s description of round ``round_index`` (see the module docstring).

    Returns:
        ``{"description", "interpretations": [{"player", "team": "teammate"|"opponent",
        "feature", "label", "label_correct", "word_guess", "voted_against"}], "recognized",
        "misled", "success", "won"}``; ``description`` is None (and ``success`` False) when
        the seat said nothing that round.
    """
    roles: dict[str, str] = result["roles"]
    role = roles[seat]
    won = result.get("winner") == ("civilians" if role == "civilian" else "undercover")
    spoken = [s for s in speeches(result) if s.speaker == seat and s.round == round_index]
    if not spoken:
        return {"description": None, "interpretations": [], "recognized": False, "misled": False, "success": False,
                "won": won}
    speech = spoken[0]
    history = {int(r["round"]): r for r in result.get("history", [])}
    votes = history.get(round_index, {}).get("votes", {})
    orders = {k: [f"player_{p}" for p in r["order"]] for k, r in history.items()}
    eliminated = {e["player"]: e["round"] for e in result.get("eliminated", [])}
    own_word = result["words"][role]
    key = seat.removeprefix("player_")
    interpretations = []
    for other, other_role in roles.items():
        if other == seat or eliminated.get(other, round_index) < round_index:
            continue
        reports = sorted((report_time(b, orders), i, b) for i, b in enumerate(result.get("beliefs", []))
                         if b.get("player") == other)
        answer = next((b for t, _, b in reports if t > speech.time), None)
        beliefs = (answer or {}).get("beliefs") or {}
        label = (beliefs.get("others") or {}).get(key)
        guess = beliefs.get("other_word")
        interpretations.append({
            "player": other,
            "team": "teammate" if other_role == role else "opponent",
            "feature": (beliefs.get("features") or {}).get(key),
            "label": label,
            "label_correct": None if label is None else judgment_correct(label, other_role, role),
            "word_guess": guess,
            "voted_against": votes.get(other) == seat,
        })
    mates = [i for i in interpretations if i["team"] == "teammate"]
    rivals = [i for i in interpretations if i["team"] == "opponent"]
    recognized = not any(i["voted_against"] or i["label_correct"] is False for i in mates)
    misled = not any(
        i["voted_against"] or i["label_correct"] is True
        or (i["word_guess"] and is_same_word_guess(str(i["word_guess"]), own_word))
        for i in rivals
    )
    return {"description": speech.text, "interpretations": interpretations, "recognized": recognized,
            "misled": misled, "success": recognized and misled, "won": won}
