"""The agents an opponent seat draws from at each reset: fixed specs and learner snapshots."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cluegym.envs.core.rng import integers

__all__ = ["PolicyPool"]


class PolicyPool:
    """The agents one opponent seat draws from at each reset.

    Entries are agent specs (``"glove:k=16"``, ``"random"``, ``"ppo:path=snap.zip"``).
    Snapshots of the learner join through :meth:`add_snapshot`; only the newest
    ``max_snapshots`` are kept. Each reset draws uniformly over the fixed entries and the
    snapshots, except that with probability ``latest_prob`` the newest snapshot is drawn.

    Args:
        entries: the fixed agent specs (at least one).
        max_snapshots: snapshots kept (oldest dropped first).
        latest_prob: chance of facing the newest snapshot when there is one.

    Example:
        >>> import numpy as np
        >>> pool = PolicyPool(["glove", "random"])
        >>> pool.add_snapshot("runs/eve/snapshots/step_10000.zip")  # a spec only: the file is read when played
        >>> pool
        PolicyPool(['glove', 'random'], snapshots=1)
        >>> rng = np.random.default_rng(0)
        >>> [pool.sample(rng) for _ in range(4)]
        ['random', 'ppo:path=runs/eve/snapshots/step_10000.zip', 'ppo:path=runs/eve/snapshots/step_10000.zip', 'glove']
    """

    def __init__(self, entries: Sequence[str], max_snapshots: int = 5, latest_prob: float = 0.5) -> None:
        try:
            entries = [entries] if isinstance(entries, str) else list(entries)
        except TypeError:  # not iterable: list()'s "object is not iterable" said nothing of specs
            raise TypeError(f"a policy pool takes an agent spec or a list of them, got {entries!r}") from None
        for entry in entries:
            if not isinstance(entry, str):
                raise TypeError(f"a policy pool's entries are agent specs (str), got {entry!r}")
        if not entries:
            raise ValueError("a policy pool needs at least one agent spec")
        if not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"latest_prob must be in [0, 1], got {latest_prob}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be >= 1, got {max_snapshots}")
        self.entries = [str(e) for e in entries]
        self.snapshots: list[str] = []
        self.max_snapshots = int(max_snapshots)
        self.latest_prob = float(latest_prob)

    @staticmethod
    def snapshot_spec(path: str) -> str:
        """The agent spec a snapshot at ``path`` plays as (the saved-policy agent)."""
        return f"ppo:path={path}"

    def add_snapshot(self, path: str) -> None:
        """Add a frozen snapshot of the learner (a saved policy file)."""
        spec = self.snapshot_spec(path)
        if spec in self.snapshots:  # a pool shared by several seats gets each snapshot once
            return
        self.snapshots.append(spec)
        del self.snapshots[: max(0, len(self.snapshots) - self.max_snapshots)]

    def sample(self, rng: np.random.Generator) -> str:
        """Draw the spec for one game."""
        if self.snapshots and rng.random() < self.latest_prob:
            return self.snapshots[-1]
        options = self.entries + self.snapshots
        return options[integers(rng, len(options))]

    def __repr__(self) -> str:
        return f"PolicyPool({self.entries}, snapshots={len(self.snapshots)})"
