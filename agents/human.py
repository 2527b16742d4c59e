"""A person at the table: ``--agent SEAT=human`` plays a seat of any game from a terminal.

The human sees what an LLM in that seat would see, the seat's prompt, followed by its
structured view (every observation field; images are listed, since a terminal cannot show
them: ``cluegym play`` shows them in a browser), and types an answer. The answer is read like
an LLM's reply, by the game's LLM adapter (:attr:`GameSpec.llm_adapter`, or the generic
adapter reading the action space), so the format the prompt asks for always works. Shorter
forms work too:

* just the value, when the prompt asks for one JSON field: ``2`` for ``{"answer": 2}``,
  ``1-3-4`` for a Decrypto guess, ``red, sky, tree`` for three hints;
* ``key=value`` pairs separated by ``;``, e.g. ``card=2; clue=a quiet sunset`` (a single pair
  under another name than the prompt asks for counts by its value: ``card=2`` for ``{"answer": 2}``).

An answer that cannot be read is asked again at once, with the reason; an answer the env
rejects is asked again with the env's reason (``info["error"]``). At the end of input (Ctrl-D)
the human forfeits the decision and the env's documented fallback plays it.

The console is pluggable (:class:`HumanConsole`): :class:`TerminalConsole` reads standard
input; the browser play page (:mod:`cluegym.benchmarks.play_server`) plugs in its own.

Example:
    cluegym run decrypto --agent alice=human --agent bob=glove --agent eve=random --no-progress
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

import gymnasium
import numpy as np

from cluegym.agents.base import Agent, Forfeit
from cluegym.agents.llm.adapters.generic import GenericAdapter
from cluegym.agents.llm.agent import game_adapter
from cluegym.agents.llm.parsing import ParseError
from cluegym.envs.core.record import to_jsonable

__all__ = ["HumanAgent", "HumanConsole", "HumanTurn", "TerminalConsole", "read_human_answer", "view_fields"]

#: The quoted JSON key an adapter's error message asks for, e.g. ``{"guess": "3-2-1"}`` or
#: ``no dictionary with "answer"``.
_EXPECTED_KEY = re.compile(r'(?:\{\s*"(\w+)"\s*:|with "(\w+)")')
#: ``key=value`` (a key is a word).
_PAIR = re.compile(r"^\s*(\w+)\s*=\s*(.*?)\s*$", re.S)
#: Longest rendering of one structured field in the terminal.
MAX_FIELD_CHARS = 400
#: What the terminal says about the answer formats.
ANSWER_HELP = ("answer as the prompt asks, or just the value (e.g. 2, or red, sky, tree), "
               "or key=value pairs separated by ';' (e.g. card=2; clue=a quiet sunset)")


@dataclass
class HumanTurn:
    """One question to the human.

    Attributes:
        game: registered game name.
        seat: the seat to play.
        prompt: the seat's prompt (what an LLM would read).
        fields: the structured view, field -> JSON value (images as ``{"$image": i}``).
        images: the images the fields point to (uint8 HxWx3 arrays).
        reason: why the last answer was not taken (unreadable, or rejected by the env).
    """

    game: str
    seat: str
    prompt: str
    fields: dict[str, Any]
    images: list[np.ndarray] = field(default_factory=list)
    reason: str | None = None


class HumanConsole(Protocol):
    """Where a human reads a :class:`HumanTurn` and types the answer."""

    async def ask(self, turn: HumanTurn) -> str | None:
        """The typed answer, or None at the end of input (the human left)."""


def view_fields(observation: Any) -> tuple[dict[str, Any], list[np.ndarray]]:
    """The structured view of an observation: fields as JSON values, images set apart.

    Example:
        >>> fields, images = view_fields({"prompt": "...", "hand": np.zeros((2, 4, 4, 3), np.uint8), "round": 1})
        >>> fields
        {'hand': [{'$image': 0}, {'$image': 1}], 'round': 1}
    """
    if not isinstance(observation, dict):
        return {"observation": to_jsonable(observation)}, []
    fields: dict[str, Any] = {}
    images: list[np.ndarray] = []

    def image(array: np.ndarray) -> dict[str, int]:
        images.append(array)
        return {"$image": len(images) - 1}

    for key, value in observation.items():
        if key in ("prompt", "action_mask"):
            continue
        if isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 3 and value.shape[-1] == 3:
            fields[key] = image(value)
        elif isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 4 and value.shape[-1] == 3:
            fields[key] = [image(v) for v in value]
        else:
            fields[key] = to_jsonable(value)
    return fields, images


def _shorthand_value(text: str, key: str) -> Any:
    """A bare answer as the JSON value of ``key``: JSON when it parses, a list for
    comma-separated hints, else the text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    if key.endswith("s") and "," in text:  # a plural field (hints): one item per comma
        return [part.strip() for part in text.split(",")]
    return text.strip()


def read_human_answer(text: str, observation: Any, info: dict[str, Any], seat: str, parse: Any) -> Any:
    """The action in a human's answer (see the module docstring for the forms).

    Args:
        text: what the human typed.
        observation, info, seat: the decision.
        parse: the adapter's ``parse_action(text, observation, info, seat)``.

    Raises:
        ParseError: no form of the answer is readable (the first reason).
    """
    pairs = [_PAIR.match(part) for part in text.split(";")] if "=" in text else []
    if pairs and all(pairs):
        as_object = {m.group(1): _shorthand_value(m.group(2), m.group(1)) for m in pairs}
        try:
            return parse("ANSWER: " + json.dumps(as_object), observation, info, seat)
        except ParseError as exc:
            # one pair under another name than the prompt's (card=2 where it asks for "answer"):
            # the value is what counts
            expected = _EXPECTED_KEY.search(str(exc))
            key = expected and (expected.group(1) or expected.group(2))
            if len(as_object) != 1 or not key or key in as_object:
                raise
            return parse("ANSWER: " + json.dumps({key: next(iter(as_object.values()))}), observation, info, seat)
    try:
        return parse(text, observation, info, seat)
    except ParseError as exc:
        expected = _EXPECTED_KEY.search(str(exc))
        if expected is None or not text.strip():
            raise
        key = expected.group(1) or expected.group(2)
        # the short form is what the human meant: its reason (e.g. "not your own card") is the one to show
        return parse("ANSWER: " + json.dumps({key: _shorthand_value(text, key)}), observation, info, seat)


class TerminalConsole:
    """The terminal: prints the turn, reads one line (``input`` and ``output`` default to the
    process's standard streams)."""

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input
        self.output = output

    def render(self, turn: HumanTurn) -> str:
        """The text shown for a turn."""
        lines = ["", "=" * 72, f"{turn.game}: you play {turn.seat}", "=" * 72, turn.prompt.rstrip(), "",
                 "structured view:"]
        for key, value in turn.fields.items():
            shown = json.dumps(value)
            if "$image" in shown:
                count = shown.count("$image")
                shown = f"[{count} image{'s' * (count != 1)}: see them with `cluegym play`]"
            lines.append(f"  {key}: {shown if len(shown) <= MAX_FIELD_CHARS else shown[:MAX_FIELD_CHARS] + '...'}")
        if turn.reason:
            lines += ["", f"!! {turn.reason}"]
        lines += ["", f"({ANSWER_HELP})"]
        return "\n".join(lines)

    async def ask(self, turn: HumanTurn) -> str | None:
        output = self.output or sys.stdout
        output.write(self.render(turn) + "\n")
        output.write("your answer> ")
        output.flush()
        # a thread, so that an asyncio match (and its progress bar) is not frozen while waiting
        line = await asyncio.to_thread((self.input or sys.stdin).readline)
        return None if line == "" else line.rstrip("\n")


class HumanAgent(Agent):
    """A person playing one seat (see the module docstring).

    Attributes:
        console: where the human reads and answers (:class:`TerminalConsole` by default).
    """

    games = ("*",)

    def __init__(self, game: str, seat: str, action_space: gymnasium.Space, *, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        self.console: HumanConsole = TerminalConsole()
        adapter = game_adapter(game)
        self._parse = adapter.parse_action if adapter is not None else GenericAdapter(action_space).parse_action
        self._counts = {"decisions": 0.0, "unreadable_answers": 0.0, "env_rejections": 0.0}

    async def act_async(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """Ask the human until an answer reads as an action.

        Raises:
            Forfeit: the input ended (the env's fallback plays this decision).
        """
        error = info.get("error") if isinstance(info, dict) else None
        if error:
            self._counts["env_rejections"] += 1
        else:
            self._counts["decisions"] += 1
        fields, images = view_fields(observation)
        prompt = str(observation.get("prompt", "")) if isinstance(observation, dict) else ""
        reason = f"the game rejected your last answer: {error}" if error else None
        while True:
            text = await self.console.ask(HumanTurn(self.game, self.seat, prompt, fields, images, reason))
            if text is None:
                raise Forfeit("the human player left (end of input)")
            try:
                return read_human_answer(text, observation, info, self.seat, self._parse)
            except ParseError as exc:
                self._counts["unreadable_answers"] += 1
                reason = f"could not read your answer: {exc}"

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        return asyncio.run(self.act_async(observation, info))

    def stats(self) -> dict[str, float]:
        return dict(self._counts)
