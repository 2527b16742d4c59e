"""Scripted replies for the CoMet drivers' tests: a well-formed answer to every prompt step of
the Undercover and Adversarial Taboo agents (Naive ``llm``, CoT ``llm-cot``, CoMet and its
ablations and reasoning variants), served by :class:`~cluegym.agents.llm.fake_server.FakeChatServer`.

Answers vary with a checksum of the request, so votes, beliefs and guesses differ between
games and outcomes are mixed (a driver that ignored them would print constant tables).

Example:
    >>> with FakeChatServer(comet_reply) as server:
    ...     comet_table1.main([..., "--base-url", server.base_url, "--model", "fake"])
"""

from __future__ import annotations

import zlib
from typing import Any

#: Taboo targets the tests play with (the defender's guesses hit them some of the time).
TABOO_TARGETS = ["apple", "river", "piano"]


def comet_reply(request: dict[str, Any]) -> str:
    """A plausible answer for whatever step ``request`` (an OpenAI chat body) asks for."""
    last = str(request["messages"][-1]["content"])
    n = zlib.crc32("".join(str(m["content"]) for m in request["messages"]).encode())
    player = f"player_{n % 5}"
    label = ("teammate", "opponent", "undecided")[n % 3]
    if "(Feature Extractor)" in last:
        return ('ANSWER: {"features": {"player_1": {"category": "mismatch", "feature": "stripes"}, '
                '"player_2": {"category": "detailed", "feature": "mane"}, '
                '"player_3": {"category": "broad", "feature": "animal"}}, "other_word": "tiger"}')
    if "Metaphor Reasoner)" in last or "(Direct Metaphor Understanding)" in last:
        return 'ANSWER: {"hypotheses": {"player_1": "H1", "player_3": "H0"}}'
    if "(Belief Mapper)" in last:
        return ('ANSWER: {"beliefs": {"player_0": "%s", "player_1": "opponent", "player_2": "teammate", '
                '"player_3": "%s", "player_4": "undecided"}}' % (label, label))
    if "(Self-Monitor)" in last:
        return 'ANSWER: {"identity": "%s", "confidence": 70}' % ("civilian" if n % 3 else "undercover")
    if "(Strategy Planner)" in last:
        return 'ANSWER: {"strategy": "stay vague", "describe": "my_word", "reminder": "watch player_1"}'
    if "(Metaphor Generator, step 1)" in last:
        return 'ANSWER: {"feature": "lives in a group", "method": "%s"}' % ("structural", "spatial")[n % 2]
    if "(Metaphor Generator, step 2)" in last or "(Speaker)" in last:
        return 'ANSWER: {"description": "A crowded house where everyone follows one leader %d."}' % (n % 89)
    if '"revision"' in last:
        return 'ANSWER: {"revision": "Name a habit instead of a place %d."}' % (n % 7)
    if "(Voter)" in last or "voting phase" in last:
        return 'ANSWER: {"vote": "%s", "beliefs": {"self": "civilian", "others": {"%s": "undercover"}}}' % (player, player)
    if '"description"' in last:
        return ('ANSWER: {"description": "It is found on farms %d.", "beliefs": {"self": "civilian", '
                '"others": {"%s": "civilian"}}}' % (n % 89, player))
    if "<FOCUS>" in last:
        return ("<RESPONSE><FOCUS>kitchen</FOCUS><DISTRACT>garden</DISTRACT>"
                "<DIALOGUE>What did you bake last weekend?</DIALOGUE></RESPONSE>")
    if "<CANDIDATE>" in last:
        guess = TABOO_TARGETS[n % 3] if n % 2 else "pie"
        return (f"<RESPONSE><STRATEGY>guess</STRATEGY><CANDIDATE>{guess}</CANDIDATE>"
                "<DIALOGUE>I baked bread with my aunt.</DIALOGUE></RESPONSE>")
    if '"utterance"' in last:
        guess = TABOO_TARGETS[n % 3] if "defender" in last.lower() and n % 4 == 0 else ""
        return 'Thinking... ANSWER: {"utterance": "Let us talk about food %d.", "guess": "%s"}' % (n % 89, guess)
    return "I am not sure."
