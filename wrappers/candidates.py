"""Candidate actions: a seat's Text action becomes a ``Discrete(n)`` choice among candidates.

RL libraries (Stable-Baselines3, RLlib, SuperSuit) cannot take ``Text`` spaces. A
*candidate generator* proposes, at every decision, up to ``n`` complete actions for the seat
(Decrypto hint triples, Undercover descriptions, Taboo utterances, Dixit clue words); the
policy picks one by index. The candidates are part of the observation (so a policy can see
what it chooses) together with a 0/1 mask of the indices that hold a candidate.

A generator is any callable ``(observation, info) -> Sequence[action]`` that depends only on
its inputs (so the same observation always gives the same list). The list may be shorter
than ``n``: the remaining indices are masked out. Picking a masked index is rejected by the
env like any invalid action (reason in ``infos[seat]["error"]``), never applied.

Example:
    >>> from cluegym.envs import decrypto_v0
    >>> from cluegym.wrappers.decrypto import HintCandidates
    >>> env = CandidateActions(decrypto_v0.env(), {"alice": HintCandidates(n=8)}, n=8)
    >>> env.reset(seed=0)
    >>> obs, *_ = env.last()           # alice: obs["candidates"] holds 8 hint triples
    >>> env.step(int(np.flatnonzero(obs["action_mask"])[0]))
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from cluegym.agents.encoders.vocabulary import top_order  # re-exported: the generators rank with it
from cluegym.envs.core.seats import seat_get
from cluegym.envs.core.spaces import mask_space, text_tuple
from cluegym.envs.core.text import is_integer, to_charset

__all__ = ["CandidateGenerator", "CandidateActions", "candidate_text", "candidate_mask", "top_order"]

#: ``(observation, info) -> candidate actions`` for one decision of one seat.
CandidateGenerator = Callable[[dict[str, Any], dict[str, Any]], Sequence[Any]]

CANDIDATE_MAX_CHARS = 200


def candidate_text(action: Any, max_chars: int = CANDIDATE_MAX_CHARS) -> str:
    """How a candidate reads in the observation: a string as is, a tuple joined by ``" | "``."""
    if isinstance(action, str):
        text = action
    elif isinstance(action, (list, tuple)):
        text = " | ".join(str(a) for a in action)
    else:
        text = json.dumps(action, sort_keys=True, default=str)
    return to_charset(text, max_chars)


def candidate_mask(candidates: Sequence[Any], n: int) -> np.ndarray:
    """1 for the indices that hold a candidate (the first ``len(candidates)``, at most ``n``)."""
    mask = np.zeros(n, dtype=np.int8)
    mask[: min(len(candidates), n)] = 1
    return mask


class CandidateActions(BaseWrapper):
    """Replace the Text action of some seats by ``Discrete(n)`` over generated candidates.

    Args:
        env: a cluegym AEC env (wrapped or raw).
        generators: seat -> candidate generator. Seats not named keep their spaces.
        n: number of choices (the size of the ``Discrete`` space).
        key: for seats whose action space is a ``Dict`` (e.g. Undercover's
            ``{"vote", "description"}``), the entry that the candidates replace; the other
            entries stay as they are. None replaces the whole action.

    Observations of a wrapped seat gain ``"candidates"`` (a tuple of ``n`` strings, ``""``
    where there is no candidate) and a mask: ``"action_mask"`` when the whole action is
    replaced, ``"candidate_mask"`` when only the ``key`` entry is.
    """

    def __init__(self, env: Any, generators: Mapping[str, CandidateGenerator], n: int,
                 key: str | None = None) -> None:
        super().__init__(env)
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        unknown = sorted(set(generators) - set(env.possible_agents))
        if unknown:
            raise ValueError(f"no seat {', '.join(unknown)}; seats: {', '.join(env.possible_agents)}")
        self.generators = dict(generators)
        self.n = int(n)
        self.key = key
        self._candidates: dict[str, list[Any]] = {}
        self._action_spaces: dict[str, gymnasium.Space] = {}
        self._observation_spaces: dict[str, gymnasium.Space] = {}
        for seat in self.generators:
            inner_action = env.action_space(seat)
            inner_obs = env.observation_space(seat)
            if key is None:
                self._action_spaces[seat] = gymnasium.spaces.Discrete(self.n)
                mask_key = "candidate_mask" if "action_mask" in inner_obs.spaces else "action_mask"
            else:
                if not isinstance(inner_action, gymnasium.spaces.Dict) or key not in inner_action.spaces:
                    raise ValueError(f"seat {seat!r}: action space has no entry {key!r} to replace")
                self._action_spaces[seat] = gymnasium.spaces.Dict(
                    {**inner_action.spaces, key: gymnasium.spaces.Discrete(self.n)})
                mask_key = "candidate_mask"
            self._observation_spaces[seat] = gymnasium.spaces.Dict(
                {**inner_obs.spaces, "candidates": text_tuple(self.n, CANDIDATE_MAX_CHARS),
                 mask_key: mask_space(self.n)})
        self._mask_key = {seat: next(k for k in ("action_mask", "candidate_mask")
                                     if k in self._observation_spaces[seat].spaces
                                     and k not in env.observation_space(seat).spaces)
                          for seat in self.generators}

    # ------------------------------------------------------------------ spaces
    def action_space(self, agent: str) -> gymnasium.Space:
        return seat_get(self._action_spaces, agent) or self.env.action_space(agent)

    def observation_space(self, agent: str) -> gymnasium.Space:
        return seat_get(self._observation_spaces, agent) or self.env.observation_space(agent)

    # ------------------------------------------------------------- candidates
    def candidates(self, agent: str) -> list[Any]:
        """This decision's candidate actions for ``agent`` (computed once per step).

        Raises:
            UnknownSeatError: ``agent`` is no seat of the game (an unhashable name included).
            KeyError: a seat of the game that the wrapper gives no candidates.
        """
        if seat_get(self._action_spaces, agent) is None:
            self.env.action_space(agent)  # the env's own error for a name that is no seat
            raise KeyError(f"seat {agent!r} has no candidates; wrapped seats: {', '.join(self.generators)}")
        if agent not in self._candidates:
            obs = self.env.observe(agent)
            info = self.env.infos.get(agent, {})
            self._candidates[agent] = list(self.generators[agent](obs, info))[: self.n]
        return self._candidates[agent]

    def observe(self, agent: str) -> Any:
        obs = self.env.observe(agent)
        if agent not in self.generators or obs is None:
            return obs
        cands = self.candidates(agent) if agent in self.env.agents and not self._done(agent) else []
        texts = [candidate_text(c) for c in cands] + [""] * (self.n - len(cands))
        return {**obs, "candidates": tuple(texts), self._mask_key[agent]: candidate_mask(cands, self.n)}

    def _done(self, agent: str) -> bool:
        return bool(self.env.terminations.get(agent) or self.env.truncations.get(agent))

    # ------------------------------------------------------------------- steps
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._candidates = {}
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        # A seat that is out (terminated or truncated) takes None, its dead step; a live
        # seat's None is a choice like any other, rejected below with the wrapper's reason.
        if agent not in self.generators or self._done(agent):
            self._candidates = {}
            self.env.step(action)
            return
        cands = self.candidates(agent)
        index = action.get(self.key) if self.key is not None and isinstance(action, dict) else action
        problem = self._index_error(index, len(cands))
        if problem is None:
            chosen = cands[int(index)]
            inner = {**action, self.key: chosen} if self.key is not None else chosen
        else:
            # Hand the env something it rejects (and counts, retries, falls back from), then
            # say in the seat's info why: the index did not name a candidate.
            inner = {**action, self.key: None} if self.key is not None and isinstance(action, dict) else None
            inner = inner if inner is not None else float("nan")
        self._candidates = {}
        self.env.step(inner)
        if problem is not None and self.env.infos.get(agent, {}).get("error"):
            self.env.infos[agent]["error"] = problem

    def _index_error(self, index: Any, available: int) -> str | None:
        if not is_integer(index):
            return f"a candidate choice must be an integer index in 0..{self.n - 1}, got {index!r}"
        if not 0 <= int(index) < self.n:
            return f"candidate index {int(index)} is out of range 0..{self.n - 1}"
        if int(index) >= available:
            return f"candidate index {int(index)} is masked: only {available} candidates this step"
        return None
