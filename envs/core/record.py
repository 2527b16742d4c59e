"""JSON game records: every step of a game, enough to replay it exactly.

A record holds the game id, its config, the reset seed, and per step: the seat, the action as
submitted (JSON), whether it was rejected (and why), any fallback, and a digest of the
observation the seat acted on. :func:`replay` re-runs a record and checks every digest.

Example:
    >>> record = env.unwrapped.game_record()
    >>> json.dump(record, open("game.json", "w"))
    >>> replay(record)["result"] == record["result"]
    True
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and nested containers into plain JSON types."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def digest(observation: Any) -> str:
    """A short stable hash of an observation (images hashed by their bytes)."""
    h = hashlib.sha1()

    def feed(v: Any) -> None:
        if isinstance(v, dict):
            for k in sorted(v):
                h.update(str(k).encode())
                feed(v[k])
        elif isinstance(v, (list, tuple)):
            h.update(b"[")
            for item in v:
                feed(item)
            h.update(b"]")
        elif isinstance(v, str):
            h.update(b"s" + v.encode() + b"\0")
        elif isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, (int, float, np.generic)) and not isinstance(v, bool):
            h.update(repr(v.item() if isinstance(v, np.generic) else v).encode())
        else:
            h.update(json.dumps(to_jsonable(v)).encode())

    feed(observation)
    return h.hexdigest()[:16]


class ReplayMismatch(RuntimeError):
    """A replayed game diverged from its record (different observation or seat)."""


def replay_env(record: dict[str, Any], check_digests: bool = True) -> Any:
    """Replay a game record step by step and return the env in the recorded end state.

    Args:
        record: a record from ``env.unwrapped.game_record()``.
        check_digests: compare each observation digest with the recorded one.

    Raises:
        ReplayMismatch: if the seat to move or an observation differs from the record.
    """
    import cluegym

    env = cluegym.make(record["game"], **record["config"])
    env.reset(seed=record["seed"], options=record.get("options"))
    for i, step in enumerate(record["steps"]):
        agent = env.agent_selection
        if agent != step["agent"]:
            raise ReplayMismatch(f"step {i}: {agent!r} to move, record says {step['agent']!r}")
        if check_digests and step.get("obs") is not None:
            got = digest(env.observe(agent))
            if got != step["obs"]:
                raise ReplayMismatch(f"step {i}: observation of {agent!r} differs from the record")
        env.step(env.unwrapped.action_from_json(agent, step["action"]))
    return env


def replay(record: dict[str, Any], check_digests: bool = True) -> dict[str, Any]:
    """Replay a record (see :func:`replay_env`) and return the replayed game's record."""
    return replay_env(record, check_digests).unwrapped.game_record()


def transcript(record: dict[str, Any]) -> str:
    """The rendered end state of a recorded game (its table as text)."""
    return replay_env(record, check_digests=False).unwrapped._render_text()
