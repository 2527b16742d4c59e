"""The results log of a match (one JSONL row per game) and the counters summed from it.

A row is ``{"match": signature, "index": i, "record": {...}, "agent_stats": {seat: {...}}}``
for a finished game, or ``{"match": ..., "index": i, "error": "...", "agent_stats": ...}``
for a game that errored (replayed by the next run; a later finished row for the same index
wins). Rows written before agent stats were logged count as zeros. The summary's counters
are sums over the rows, so a resumed match reports what an uninterrupted one would.

Example:
    >>> rows = load_rows(Path("games.jsonl"), signature)
    >>> sum_agent_stats({"bob": "llm"}, [row.get("agent_stats") for row in rows.values()])
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["MAX_ERROR_CHARS", "check_writable", "error_text", "game_row", "load_rows", "seat_counters",
           "sum_agent_stats", "write_bytes_atomic", "write_json_atomic"]

# The process's umask, read once at import (reading it means setting it, which is not
# thread-safe later): the permissions an atomically written file should end up with.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

#: Longest error text kept in a row or a forfeit reason (a reply can be megabytes).
MAX_ERROR_CHARS = 500


def error_text(exc: BaseException, *, with_type: bool = True) -> str:
    """``"Type: message"`` of an exception on one line, bounded (and safe when ``str`` fails).

    Example:
        >>> error_text(ValueError("bad\\nreply"))
        'ValueError: bad reply'
    """
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises still needs a reason
        message = "<unprintable>"
    message = " ".join(message.split())
    text = f"{type(exc).__name__}: {message}" if with_type else message
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


def check_writable(path: Path, what: str, *, create: bool) -> None:
    """Fail now, not after the games, when ``path`` cannot be written.

    Creates the parent folders. With ``create`` the file is opened for append (created
    empty when missing, never truncated); otherwise a temporary file is written beside it.

    Raises:
        ValueError: one line naming ``what`` (e.g. ``--summary``) and the reason.
    """
    if path.is_dir():
        raise ValueError(f"{what} {path} is a directory, not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if create or path.exists():
            with path.open("a"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"):
                pass
    except OSError as exc:
        raise ValueError(f"{what} {path} is not writable ({exc.strerror or error_text(exc)})") from exc


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, so a kill leaves the old
    file or the new one, never half of one. The file gets the permissions a plain ``open``
    would give it (the temporary file's own are owner-only: results, summaries and reports
    were unreadable to the rest of a shared machine)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically (:func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, json.dumps(data, indent=2).encode())


def game_row(signature: dict[str, Any], index: int, agent_stats: dict[str, dict[str, float]], *,
             record: dict[str, Any] | None = None, error: str | None = None) -> tuple[dict[str, Any], str]:
    """A results row and its JSONL line. A record that is not strict JSON (NaN, objects)
    makes the row an errored one: it could not be resumed or read by other tools."""
    row: dict[str, Any] = {"match": signature, "index": index}
    if record is not None:
        try:
            line = json.dumps({**row, "record": record, "agent_stats": agent_stats}, allow_nan=False)
            return {**row, "record": record, "agent_stats": agent_stats}, line + "\n"
        except (TypeError, ValueError, RecursionError) as exc:
            error = f"the game record is not strict JSON: {error_text(exc)}"
    row.update(error=error or "unknown error", agent_stats=agent_stats)
    return row, json.dumps(row) + "\n"


def load_rows(path: Path, signature: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The rows of a results file by game index (a finished row wins over an errored one,
    a later row over an earlier one of the same kind).

    A partial last line (a kill mid-write) is cut off the file, so the next appended row is
    not glued to it; that game is replayed.

    Raises:
        ValueError: one line naming the file and line of a row that is not a game of this match.
    """
    rows: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return rows
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]
        with path.open("r+b") as fh:
            fh.truncate(len(data))
    for n, line in enumerate(data.decode(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue  # a line cut short by a kill in an older version: that game is replayed
        where = f"{path}, line {n}"
        if not isinstance(row, dict):
            raise ValueError(f"{where}: not a game row (a JSON {type(row).__name__}, expected an object "
                             f"with match, index and record or error)")
        if row.get("match") != signature:
            raise ValueError(f"{path} holds games of a different match (line {n}: {row.get('match')}); "
                             f"use another --results file for {signature}")
        index = row.get("index")
        if type(index) is not int or index < 0:
            raise ValueError(f"{where}: index must be an integer >= 0, got {index!r}")
        _check_row(row, where, signature.get("seats"))
        if "record" in row or "record" not in rows.get(index, {}):
            rows[index] = row
    return rows


def _check_row(row: dict[str, Any], where: str, seats: Any) -> None:
    record = row.get("record")
    if record is not None:
        if not isinstance(record, dict) or not isinstance(record.get("result"), dict) \
                or not isinstance(record.get("returns"), dict):
            raise ValueError(f"{where}: record must be a game record with result and returns")
        returns = record["returns"]
        # The summary, the tournament's sides and the ratings read every seat's return.
        if isinstance(seats, dict) and (set(returns) != set(seats) or not all(map(_is_number, returns.values()))):
            raise ValueError(f"{where}: the record's returns must give each seat of the match "
                             f"({', '.join(seats)}) a number, got {_short(returns)}")
    elif not isinstance(row.get("error"), str):
        raise ValueError(f"{where}: a game row needs a record or an error")
    stats = row.get("agent_stats", {})
    if not isinstance(stats, dict) or not all(
        isinstance(seat_stats, dict) and all(_is_number(v) for v in seat_stats.values())
        for seat_stats in stats.values()
    ):
        raise ValueError(f"{where}: agent_stats must map seats to numeric counters")


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def sum_agent_stats(seats: dict[str, str], per_game: list[dict[str, dict[str, float]] | None]) -> dict[str, dict[str, float]]:
    """Per seat, each counter summed over games (``None``: a row from before stats were
    logged, zeros). Point values (``last_*``) are not sums: they are left out."""
    totals: dict[str, dict[str, float]] = {seat: {} for seat in seats}
    for game_stats in per_game:
        for seat, seat_stats in (game_stats or {}).items():
            target = totals.setdefault(seat, {})
            for key, value in seat_stats.items():
                if not key.startswith("last_"):
                    target[key] = target.get(key, 0.0) + float(value)
    return totals


def seat_counters(seats: dict[str, str], records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per seat, from the game records' steps: ``decisions`` (moves applied), ``invalid_actions``
    (rejected submissions), ``fallbacks`` (moves the env chose), ``forfeits`` (decisions given
    up) and ``agent_errors`` (forfeits because the agent raised)."""
    keys = ("decisions", "invalid_actions", "fallbacks", "forfeits", "agent_errors")
    counts = {seat: dict.fromkeys(keys, 0) for seat in seats}
    for record in records:
        for step in record.get("steps", []):
            seat = counts.get(step.get("agent"))
            if seat is None:
                continue
            forfeit = step.get("forfeit")
            seat["decisions"] += "events" in step or forfeit is not None
            seat["invalid_actions"] += "error" in step and forfeit is None
            seat["fallbacks"] += "fallback" in step
            seat["forfeits"] += forfeit is not None
            seat["agent_errors"] += isinstance(forfeit, str) and forfeit.startswith("agent error:")
    return counts
