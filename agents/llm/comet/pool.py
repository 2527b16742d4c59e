"""CoMet's experience pool: a JSONL file of metaphors (Undercover) and attacker games (Taboo)
with their outcomes, which grows after every game and feeds examples to later prompts.

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


class ExperiencePool:
    """A JSONL file of metaphor experiences that grows from self-play outcomes.

    Each line: ``{"game", "role", "word", "feature", "method", "metaphor", "success",
    "won", "interpretation", "revision"}``. Lines are appended with one ``write`` in append
    mode, so concurrent games may share a file.

    Args:
        path: the JSONL file; None keeps experiences in memory only.
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path).expanduser()
        self._memory: list[dict[str, Any]] = []

    @classmethod
    def from_option(cls, value: str | None) -> "ExperiencePool":
        """``None``/"off": in memory; ``"default"``: ``<cache_dir>/comet_experience.jsonl``; else a path."""
        if value is None or str(value).lower() in ("", "off", "none", "memory"):
            return cls(None)
        if str(value).lower() in ("default", "on", "true"):
            return cls(cache_dir() / "comet_experience.jsonl")
        return cls(value)

    def entries(self, game: str | None = None) -> list[dict[str, Any]]:
        rows = list(self._memory)
        if self.path is not None and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a line cut short by a kill
        return [r for r in rows if game is None or r.get("game") == game]

    def add(self, entry: dict[str, Any]) -> None:
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
