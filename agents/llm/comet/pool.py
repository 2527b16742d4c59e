"""CoMet's experience pool: metaphors (Undercover) and attacker games (Taboo) with their
outcomes, others' interpretations and revisions, which grows after every game and feeds
examples to later prompts.

Where it lives (the agents' ``experience=`` option, :meth:`ExperiencePool.from_option`):

* ``"run"`` (the default): one in-memory pool per name shared by every CoMet agent of this
  process, so experience persists across the games of a run (agents are built afresh for
  every game) and is gone when the process ends. ``"run:<name>"`` keeps separate pools (e.g.
  one per method under test). On a Ray cluster each worker process has its own.
* ``"off"``: no pool: nothing is shown and nothing is kept (CoMet with 0 experiences).
* ``"default"``: ``<cache_dir>/comet_experience.jsonl``; any other value: a JSONL path. Both
  persist across runs.

Example:
    >>> pool = ExperiencePool.from_option("default")  # <cache_dir>/comet_experience.jsonl
    >>> pool.add({"game": "undercover", "method": "spatial", "metaphor": "...", "success": True})
    >>> pool.examples("undercover", "spatial", k=1)[0]["method"]
    'spatial'
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from cluegym.agents.llm.backends import cache_dir
from cluegym.agents.llm.checks import check_option_file


class ExperiencePool:
    """A JSONL file of metaphor experiences that grows from self-play outcomes.

    Each line: ``{"game", "role", "word", "feature", "method", "metaphor", "success",
    "won", "interpretation", "revision"}``. Lines are appended with one ``write`` in append
    mode, so concurrent games may share a file.

    Args:
        path: the JSONL file; None keeps experiences in memory only.
        enabled: False for no pool at all (``experience=off``): :meth:`add` keeps nothing.
        limit: only the first ``limit`` entries are visible (Figure 6(b): 0, 50, 100
            experiences); None for all.
    """

    def __init__(self, path: str | Path | None, *, enabled: bool = True, limit: int | None = None) -> None:
        if limit is not None and limit < 0:
            raise ValueError(f"the experience limit must be >= 0, got {limit}")
        self.path = None if path is None else Path(path).expanduser()
        self.enabled = enabled
        self.limit = limit
        self._memory: list[dict[str, Any]] = []

    @classmethod
    def from_option(cls, value: str | None, limit: int | None = None, *, write: bool = True) -> "ExperiencePool":
        """The pool an agent's ``experience=`` option names (see the module docstring):
        None/"run"/"run:<name>" the shared in-memory pool of this run, "off" none,
        "default" ``<cache_dir>/comet_experience.jsonl``, else a JSONL path.

        Args:
            value: the option's value.
            limit: only the first ``limit`` entries are visible; None for all.
            write: the agent adds to the pool: its file must be writable (and is created empty
                when missing); False only reads it (a missing file is an empty pool).

        Raises:
            ValueError: one line naming the ``experience=`` file and why it cannot be used (a
                folder, not writable or readable, not UTF-8 text), or a negative ``limit``.
        """
        text = "run" if value is None else str(value).strip()
        lowered = text.lower()
        if lowered in ("off", "none", "false", "0"):
            return cls(None, enabled=False, limit=limit)
        if lowered == "run" or lowered.startswith("run:"):
            shared = _RUN_POOLS.setdefault(text, cls(None))
            return shared if limit is None else shared.view(limit)
        default = lowered in ("default", "on", "true")
        pool = cls(cache_dir() / "comet_experience.jsonl" if default else text, limit=limit)
        pool._check_file(write)
        return pool

    def _check_file(self, write: bool) -> None:
        """Raise a one-line ValueError unless :attr:`path` can be read and, with ``write``,
        appended to, so that a bad ``experience=`` fails when the agent is built, not after
        every game."""
        if self.path is None:
            return
        check_option_file(self.path, "experience", write=write)
        try:
            self.path.read_text(encoding="utf-8")  # as every entries() call reads it
        except FileNotFoundError:
            pass  # read only, and nothing to read yet
        except UnicodeDecodeError:
            raise ValueError(f"the experience= file {self.path} is not UTF-8 JSONL text") from None

    def view(self, limit: int | None) -> "ExperiencePool":
        """This pool (same storage) with only its first ``limit`` entries visible."""
        other = ExperiencePool(self.path, enabled=self.enabled, limit=limit)
        other._memory = self._memory  # shared storage: what one adds, the other sees
        return other

    def entries(self, game: str | None = None) -> list[dict[str, Any]]:
        """The visible entries (of ``game``), oldest first."""
        if not self.enabled:
            return []
        rows = list(self._memory)
        if self.path is not None and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a line cut short by a kill
        if self.limit is not None:
            rows = rows[: self.limit]
        return [r for r in rows if game is None or r.get("game") == game]

    def add(self, entry: dict[str, Any]) -> None:
        """Keep ``entry`` (appended to the file, or in memory; nothing when disabled)."""
        if not self.enabled:
            return
        if self.path is None:
            self._memory.append(entry)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(entry, ensure_ascii=True) + "\n"
        with open(self.path, "a+b") as fh:
            # After a kill mid-write the file ends in a partial line: start a new line, or this
            # entry would be glued to it and unreadable. (A racing writer may add a blank line,
            # which readers skip.)
            if fh.tell() > 0:
                fh.seek(-1, 2)
                if fh.read(1) != b"\n":
                    line = "\n" + line
            fh.write(line.encode("utf-8"))

    def examples(self, game: str, method: str | None = None, words: Sequence[str] = (), k: int = 3) -> list[dict[str, Any]]:
        """The ``k`` most useful experiences: successful ones first, same method and
        overlapping words preferred, most recent first among equals."""
        rows = self.entries(game)
        wanted = {w.lower() for w in words if w}

        def score(item: tuple[int, dict[str, Any]]) -> tuple:
            index, row = item
            text = " ".join(str(row.get(f, "")) for f in ("word", "feature", "metaphor", "target")).lower()
            overlap = sum(1 for w in wanted if w in text)
            return (bool(row.get("success")), method is not None and row.get("method") == method, overlap, index)

        ranked = sorted(enumerate(rows), key=score, reverse=True)
        return [row for _, row in ranked[:k]]

    def __len__(self) -> int:
        return len(self.entries())


#: The run-level in-memory pools by name (``experience=run`` / ``run:<name>``).
_RUN_POOLS: dict[str, ExperiencePool] = {}


def clear_run_pools() -> None:
    """Forget every run-level pool (a new run in the same process starts empty)."""
    _RUN_POOLS.clear()
