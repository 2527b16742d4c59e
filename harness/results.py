"""The results log of a match (one JSONL row per game) and the counters summed from it.

A row is ``{"match": signature, "index": i, "record": {...}, "agent_stats": {seat: {...}}}``
for a finished game, or ``{"match": ..., "index": i, "error": "...", "agent_stats": ...}``
for a game that errored (replayed by the next run; a later finished row for the same index
wins). Rows written before agent stats were logged count as zeros. The summary's counters
are sums over the rows, so a resumed match reports what an uninterrupted one would.

Example:
    >>> from cluegym.agents import make_agent
    >>> from cluegym.agents.llm.backends.scripted import ScriptedBackend
    >>> from cluegym.harness.match_game import play_match_game
    >>> def scripted_llm(spec, **kwargs):  # an LLM agent whose replies are scripted (no model)
    ...     agent = make_agent(spec, **kwargs)
    ...     if spec == "llm-cot":
    ...         agent.backend = ScriptedBackend(['ANSWER: {"guess": "1-2-3"}'])
    ...     return agent
    >>> seats = {"alice": "random", "bob": "llm-cot", "eve": "random"}
    >>> signature = match_signature("decrypto", seats, 0, {})
    >>> with open("games.jsonl", "w") as file:
    ...     for index in range(2):
    ...         row, line = play_match_game("decrypto", seats, index, seed=0, env_kwargs={},
    ...                                     signature=signature, make_agent=scripted_llm)
    ...         _ = file.write(line)
    >>> rows = load_rows(Path("games.jsonl"), signature)
    >>> sorted(rows)
    [0, 1]
    >>> totals = sum_agent_stats(seats, [row.get("agent_stats") for row in rows.values()])
    >>> totals["alice"], {key: totals["bob"][key] for key in ("decisions", "llm_calls", "parse_failures")}
    ({}, {'decisions': 4.0, 'llm_calls': 4.0, 'parse_failures': 0.0})
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path, PurePath
from typing import Any, Mapping

import numpy as np

__all__ = ["MAX_ERROR_CHARS", "check_writable", "error_text", "game_row", "json_options", "load_rows",
           "match_signature", "seat_counters",
           "sum_agent_stats", "write_bytes_atomic", "write_json_atomic"]

# The process's umask, read once at import (reading it means setting it, which is not
# thread-safe later): the permissions an atomically written file should end up with.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

#: How every game row's line starts (``game_row`` writes ``match`` first): a line that does
#: not parse is a row cut short by a kill only when it starts so; any other is not a results file.
ROW_START = '{"match": '

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


def written_path(path: Path) -> Path:
    """The file a write to ``path`` reaches: a symlink's target (written through, the link
    kept), or ``path`` itself when its link names no path, as ``/dev/stdout`` does when the
    output is a pipe (``/proc/<pid>/fd/pipe:[...]``, which no folder holds).

    Example:
        >>> written_path(Path("/dev/null"))
        PosixPath('/dev/null')
    """
    target = Path(os.path.realpath(path))
    if not target.exists() and os.path.exists(path):
        return Path(path)
    return target


def check_writable(path: Path, what: str, *, create: bool) -> None:
    """Fail now, not after the games, when ``path`` cannot be written as it will be.

    Creates the parent folders. With ``create`` (a results file: read back, then appended to)
    the file is opened for append (created empty when missing, never truncated) and must be a
    regular file (a pipe such as /dev/stdout would be read until it closes); otherwise (a file
    replaced atomically, :func:`write_bytes_atomic`) a temporary file is written in its folder:
    appending to an existing file proved nothing about that folder, and the write after the
    games then failed.

    Raises:
        ValueError: one line naming ``what`` (e.g. ``--summary``) and the reason.
    """
    target = written_path(path)
    try:
        if target.is_dir():
            raise ValueError(f"{what} {path} is a directory, not a file")
        if create and target.exists() and not target.is_file():
            raise ValueError(f"{what} {path} is not a regular file (it is read back to resume)")
        target.parent.mkdir(parents=True, exist_ok=True)
        if create or (target.exists() and not target.is_file()):
            with target.open("a"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"):
                pass
    except OSError as exc:
        raise ValueError(f"{what} {path} is not writable ({exc.strerror or error_text(exc)})") from exc


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, so a kill leaves the old
    file or the new one, never half of one.

    A symlink is written through (its target is replaced, the link kept), a file that is not
    a regular one (``/dev/null``, a FIFO) is written to, not replaced, and the new file keeps
    the old one's permissions, or gets those a plain ``open`` gives a new file (the temporary
    file's own are owner-only). Replacing the path itself swapped a user's symlink, or a
    device such as ``/dev/null``, for a private file.
    """
    target = written_path(path)
    if target.exists() and not target.is_file():
        with target.open("wb") as fh:
            fh.write(data)
        return
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_UMASK
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically (:func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, json.dumps(data, indent=2).encode())


def json_options(env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Game options as JSON reads them back: numpy scalars as Python numbers, paths as
    strings, tuples as lists.

    A match plays and records these (its results file keys rows by them), so a resumed match
    compares what it reads back with what it was given: a tuple came back a list (the rerun
    was refused as another match), and a numpy integer or a path made the first row fail to
    serialise, after that game was played.

    Raises:
        ValueError: an option that has no JSON form (naming it).

    Example:
        >>> json_options({"keywords": ("cat", "dog"), "max_turns": np.int64(3)})
        {'keywords': ['cat', 'dog'], 'max_turns': 3}
    """
    def plain(value: Any) -> Any:
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, PurePath):
            return str(value)
        raise TypeError(f"a {type(value).__name__} has no JSON form")

    options = {}
    for key, value in env_kwargs.items():
        try:
            options[key] = json.loads(json.dumps(value, default=plain, allow_nan=False))
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"game option {key}={value!r:.80} cannot be recorded: {error_text(exc, with_type=False)}") \
                from None
    return options


def match_signature(game: str, seats: Mapping[str, str], seed: int, env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """How a match's rows are keyed in its results file (a rerun must match it to resume).

    Args:
        game: registered game name.
        seats: seat -> agent spec (every seat, as :func:`~cluegym.harness.resolve_seats` fills them).
        seed: the match seed (a numpy integer is recorded as a Python one).
        env_kwargs: the game options, as :func:`json_options` gives them.
    """
    return {"game": game, "seats": dict(seats), "seed": int(seed), "env": json_options(env_kwargs)}


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
        ValueError: one line naming the file and line of a row that is not a game of this match
            (or of a line that is no game row at all: the file is left as it was).
    """
    rows: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return rows
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    tail = data[len(complete):]
    for n, line in enumerate(complete.decode(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}, line {n}"
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if line.startswith(ROW_START):
                continue  # a row cut short by a kill in an older version: that game is replayed
            raise ValueError(f"{where}: not a game row (not JSON); is {path.name} a results file?") from None
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
    if tail:
        # A partial last line (a kill mid-write) is cut off, so the next appended row is not glued
        # to it; only once every line above is known to be this match's, and only a row's start.
        if not tail.startswith(ROW_START.encode()):
            raise ValueError(f"{path}: its last line is not a game row; is {path.name} a results file?")
        with path.open("r+b") as fh:
            fh.truncate(len(complete))
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
        # The summary's counters and the first game's transcript read every step: a record
        # without them passed this check and broke the summary after the missing games played.
        steps = record.get("steps")
        if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
            raise ValueError(f"{where}: the record's steps must be a list of step objects, got {_short(steps)}")
    elif not isinstance(row.get("error"), str):
        raise ValueError(f"{where}: a game row needs a record or an error")
    stats = row.get("agent_stats", {})
    if not isinstance(stats, dict) or not all(
        isinstance(seat_stats, dict) and all(_is_number(v) for v in seat_stats.values())
        for seat_stats in stats.values()
    ):
        raise ValueError(f"{where}: agent_stats must map seats to numeric counters")
    strangers = [seat for seat in stats if isinstance(seats, dict) and seat not in seats]
    if strangers:  # they showed up in the summary as counters of a seat the match lacks
        raise ValueError(f"{where}: agent_stats names seat(s) {', '.join(map(repr, strangers))} that the match "
                         f"({', '.join(seats)}) lacks")


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
