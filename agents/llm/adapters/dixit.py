"""Dixit prompts for VLM agents: DixitWorld's prompts (appendix C) with the card images.

* Generalist (``llm``): the env's prompt verbatim, followed by the images it refers to (the
  hand in the story and distract phases, the candidates in the vote), each labelled
  ``Card k`` / ``Candidate k``; the JSON answer becomes the env's ``Dict(card, clue)``.
* Specialist (``llm-cot``): the paper's separate steps: the storyteller first selects the
  target from its hand, then writes the description with only that image; a listener picks
  a distractor from its hand; the vote uses either strategy of the paper:
  ``listener=direct`` (one call, all candidates: direct selection) or
  ``listener=entailment`` (one call per candidate scoring 0-100, calls sent concurrently,
  argmax over the candidates that are not the seat's own).

Both agents also answer DixitBench's entailment scoring (an observation whose ``"task"`` is
``"entailment"``, one candidate): they rate the image 0-100 with the paper's entailment
prompt and return ``{"card": 0, "rating": score}``.

:data:`PAPER_AGENT_OPTIONS` are the agent options of DixitWorld's run (temperature 0.7, as in
section 3 and appendix B); with the env's ``PAPER_ENV_OPTIONS`` they make the ``paper``
preset of :mod:`cluegym.benchmarks.dixit_paper`.

Every answer is ``{"reasoning": ..., "answer": ...}`` JSON, read tolerantly. Images are sent
as base64 PNG data URLs; text-only backends (``backend=local`` or ``vision=false``) see a
placeholder instead, so play the env with ``reveal_captions=True`` for them (the captions are
then in the prompts).
"""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any, Sequence

import numpy as np

from cluegym.agents.base import Forfeit
from cluegym.agents.llm.agent import LLMAgent
from cluegym.agents.llm.backends import Message
from cluegym.agents.llm.parsing import ParseError, extract_dict, parse_int, parse_json_answer, shown
from cluegym.envs.core.text import quote_text
from cluegym.envs.dixit.prompts import DIRECT_SELECTION, ENTAILMENT_SCORING, json_answer

STORY, DISTRACT, VOTE = 0, 1, 2
#: The ``"task"`` of an observation that asks for one candidate's 0-100 rating (DixitBench).
ENTAILMENT_TASK = "entailment"
#: DixitWorld's sampling: "All models are configured with the temperature of 0.7" (section 3).
PAPER_AGENT_OPTIONS: dict[str, Any] = {"temperature": 0.7}


def is_entailment(observation: dict[str, Any]) -> bool:
    """Whether the observation asks for an entailment rating of its one candidate."""
    return observation.get("task") == ENTAILMENT_TASK


def parse_rating(text: str) -> float:
    """The 0-100 rating in a ``{"reasoning": ..., "answer": ...}`` reply (fractions rounded down).

    Raises:
        ParseError: no number from 0 to 100 in the answer.
    """
    return float(parse_int(parse_json_answer(text)[0], 0, 100, "score", allow_fraction=True))


def image_part(image: np.ndarray) -> dict[str, Any]:
    """An OpenAI ``image_url`` content part holding ``image`` (H, W, 3 uint8) as a PNG data URL."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buffer, format="PNG")
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()}}


def labelled_images(label: str, images: np.ndarray, captions: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """``Card 1`` + image, ``Card 2`` + image, ... (captions added when the env reveals them)."""
    parts: list[dict[str, Any]] = []
    for i, image in enumerate(images):
        text = f"{label} {i + 1}" + (f" (caption: {captions[i]})" if captions is not None and i < len(captions) else "") + ":"
        parts += [{"type": "text", "text": text}, image_part(image)]
    return parts


def num_candidates(observation: dict[str, Any]) -> int:
    return int(np.sum(np.asarray(observation["candidate_ids"]) >= 0))


def phase_images(observation: dict[str, Any]) -> list[dict[str, Any]]:
    """The images the current phase's prompt refers to."""
    if is_entailment(observation):
        return [{"type": "text", "text": "The image:"}, image_part(np.asarray(observation["candidates"])[0])]
    if int(observation["phase"]) == VOTE:
        k = num_candidates(observation)
        return labelled_images("Candidate", np.asarray(observation["candidates"])[:k])
    return labelled_images("Card", np.asarray(observation["hand"]))


# ------------------------------------------------------------------------- generalist
def generalist_messages(observation: dict[str, Any], info: dict[str, Any], seat: str) -> list[Message]:
    """The env's prompt verbatim, then the images it numbers."""
    content = [{"type": "text", "text": str(observation["prompt"])}, *phase_images(observation)]
    return [{"role": "user", "content": content}]


def parse_action(text: str, observation: dict[str, Any], info: dict[str, Any], seat: str) -> dict[str, Any]:
    """Story: ``{"card": k, "clue": ...}``; distract/vote: ``{"answer": k}`` -> ``{"card": k - 1}``;
    an entailment rating (DixitBench): ``{"answer": r}`` -> ``{"card": 0, "rating": r}``.

    Raises:
        ParseError: no readable card number (or clue, or rating) for the phase.
    """
    if is_entailment(observation):
        return {"card": 0, "rating": parse_rating(text)}
    phase = int(observation["phase"])
    if phase == STORY:
        answer = extract_dict(text, "clue")
        card = answer.get("card", answer.get("answer"))
        clue = answer.get("clue")
        if clue is not None and not isinstance(clue, str):
            raise ParseError(f'the clue must be text in quotes, got {shown(clue)}; '
                             'answer {"reasoning": ..., "card": number, "clue": "your description"}')
        clue = " ".join((clue or "").split())
        if not clue:
            raise ParseError('the clue is empty; answer {"reasoning": ..., "card": number, "clue": "your description"}')
        return {"card": card_choice(card, observation, info), "clue": clue}
    answer, _ = parse_json_answer(text)
    return {"card": card_choice(answer, observation, info)}


def card_choice(value: Any, observation: dict[str, Any], info: dict[str, Any] | None = None) -> int:
    """The 0-based slot a 1-based answer names: a hand card (story, distract) or a candidate
    (vote; never the seat's own card), checked against ``info["action_mask"]["card"]``.

    Raises:
        ParseError: not a number in range, or a card the seat may not choose.
    """
    phase = int(observation["phase"])
    if phase == VOTE:
        slot = parse_int(value, 1, num_candidates(observation), "candidate number") - 1
        own = int(observation.get("own_candidate", -1))
        if slot == own:
            raise ParseError(f"candidate {own + 1} is your own card: you cannot vote for it")
    else:
        slot = parse_int(value, 1, len(observation["hand"]), "card number") - 1
    masks = info.get("action_mask") if isinstance(info, dict) else None
    mask = masks.get("card") if isinstance(masks, dict) else None
    if mask is not None and slot < len(mask) and not mask[slot]:
        raise ParseError(f"{'candidate' if phase == VOTE else 'card'} {slot + 1} cannot be chosen now")
    return slot


# ------------------------------------------------------------------------- specialist
STORY_SELECT = (
    "You are a storyteller in a Dixit game. You must select one card from your {h}-card hand as the target image. "
    "Your goal: maximize your own score by ensuring some, but not all, players guess correctly."
)
STORY_DESCRIBE = (
    "You are a storyteller in a Dixit game. Create a description for your chosen image. Scoring rules: - All guess "
    "correctly = 0 points - None guess correctly = 0 points - Some guess correctly = 3 points (optimal) Your "
    "description should balance ambiguity and clarity, using metaphorical and emotional language."
)
DISTRACTOR = (
    "You are a player in a Dixit game. Given the storyteller's description, choose one card from your hand that "
    "could plausibly match it (but is not the target). Your goal: mislead others into choosing your card."
)


def _captions(observation: dict[str, Any], key: str) -> list[str] | None:
    return list(observation[key]) if key in observation else None


class DixitWorldAgent(LLMAgent):
    """DixitWorld's prompts, one step at a time (registered as ``llm-cot`` for dixit).

    Args:
        listener: ``"direct"`` (direct selection, one call) or ``"entailment"`` (entailment
            scoring: one call per candidate, 0-100, argmax).
        **kwargs: the :class:`~cluegym.agents.llm.agent.LLMAgent` options.
    """

    games = ("dixit",)
    style = "dixitworld"

    def __init__(self, game: str, seat: str, action_space: Any, *, listener: str = "direct", **kwargs: Any) -> None:
        if listener not in ("direct", "entailment"):
            raise ValueError(f"listener must be 'direct' or 'entailment', got {listener!r}")
        super().__init__(game, seat, action_space, **kwargs)
        self.listener = listener

    async def decide(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        if is_entailment(observation):
            captions = _captions(observation, "candidate_captions")
            score = await self._score_image(str(observation["clue"]), np.asarray(observation["candidates"])[0],
                                            captions[0] if captions else None, 0, final=True)
            return {"card": 0, "rating": score}
        phase = int(observation["phase"])
        hand = np.asarray(observation["hand"])
        h = len(hand)
        hand_captions = _captions(observation, "hand_captions")
        clue = str(observation["clue"])
        if phase == STORY:
            select = STORY_SELECT.format(h=h) + "\n" + json_answer(
                [("reasoning", "Brief analysis (max 50 words)"), ("answer", f"The card number (1-{h})")])
            content = [{"type": "text", "text": select}, *labelled_images("Card", hand, hand_captions)]
            slot = await self.ask([{"role": "user", "content": content}],
                                  lambda t: card_choice(parse_json_answer(t)[0], observation, info), step="select_target")
            describe = STORY_DESCRIBE + "\n" + json_answer(
                [("reasoning", "Reasoning towards final description"), ("answer", "Your crafted Dixit description")])
            chosen = [{"type": "text", "text": "Your chosen image" + (f" (caption: {hand_captions[slot]})" if hand_captions else "") + ":"},
                      image_part(hand[slot])]
            clue_text = await self.ask([{"role": "user", "content": [{"type": "text", "text": describe}, *chosen]}],
                                       parse_description, step="describe", final=False, on_failure=None)
            if clue_text is None:  # keep the chosen card; the env falls back to "(pass)" for the clue
                clue_text = ""
            return {"card": slot, "clue": clue_text}
        if phase == DISTRACT:
            text = (DISTRACTOR + f"\nThe storyteller's description: {quote_text(clue)}\n" + json_answer(
                [("reasoning", "Brief analysis (max 50 words)"), ("answer", f"The card number (1-{h})")]))
            content = [{"type": "text", "text": text}, *labelled_images("Card", hand, hand_captions)]
            slot = await self.ask([{"role": "user", "content": content}],
                                  lambda t: card_choice(parse_json_answer(t)[0], observation, info), step="distractor")
            return {"card": slot}
        k = num_candidates(observation)
        candidates = np.asarray(observation["candidates"])[:k]
        captions = _captions(observation, "candidate_captions")
        own = int(observation["own_candidate"])
        if self.listener == "direct":
            text = (DIRECT_SELECTION + f"\nThe storyteller's description: {quote_text(clue)}\n"
                    + (f"Candidate {own + 1} is your own card: you cannot vote for it.\n" if own >= 0 else "")
                    + json_answer([("reasoning", "Brief analysis (max 50 words)"), ("answer", f"The candidate number (1-{k})")]))
            content = [{"type": "text", "text": text}, *labelled_images("Candidate", candidates, captions)]
            choice = await self.ask([{"role": "user", "content": content}],
                                    lambda t: card_choice(parse_json_answer(t)[0], observation, info), step="direct_selection")
            return {"card": choice}
        return {"card": await self._entailment_vote(clue, candidates, captions, own)}

    async def _score_image(self, clue: str, image: np.ndarray, caption: str | None, candidate: int,
                           final: bool = False) -> float:
        """The paper's entailment scoring of one image (0-100); -1 when no readable score came
        (within a vote), or a forfeit when the rating is the answer itself (``final``)."""
        prompt = ENTAILMENT_SCORING + f"\nThe clue: {quote_text(clue)}\n" + json_answer(
            [("reasoning", "Detailed reasoning for the score"), ("answer", "Your numerical rating (0-100)")])
        shown_image = [{"type": "text", "text": "The image" + (f" (caption: {caption})" if caption else "") + ":"},
                       image_part(image)]
        failure: Any = Forfeit if final else -1.0
        value = await self.ask([{"role": "user", "content": [{"type": "text", "text": prompt}, *shown_image]}],
                               parse_rating, step="entailment_score", final=final, on_failure=failure,
                               extra={"candidate": candidate})
        return float(value)

    async def _entailment_vote(self, clue: str, candidates: np.ndarray, captions: list[str] | None, own: int) -> int:
        options = [i for i in range(len(candidates)) if i != own]

        async def score(i: int) -> float:
            return await self._score_image(clue, candidates[i], captions[i] if captions else None, i)

        scores = await asyncio.gather(*(score(i) for i in options))
        best = max(scores)
        ties = [i for i, s in zip(options, scores) if s == best]
        return int(ties[int(self.rng.integers(len(ties)))])


def parse_description(text: str) -> str:
    answer, _ = parse_json_answer(text)
    if not isinstance(answer, str):
        raise ParseError(f'the description must be text in quotes, got {shown(answer)}; '
                         'answer {"reasoning": ..., "answer": "your description"}')
    clue = " ".join(answer.split())
    if not clue:
        raise ParseError('the description is empty; answer {"reasoning": ..., "answer": "your description"}')
    return clue


def specialist_class(seat: str) -> type[LLMAgent]:
    return DixitWorldAgent
