"""DixitWorld's human evaluation (section 3.3, Table 3, appendix D): the sheet and the scores.

The ratings need people; this module does everything around them:

* ``export``: every storyteller clue of recorded games (the ``--results`` JSONL of ``cluegym
  run dixit`` or of the round-robin) becomes a row of a CSV sheet: the storyteller's agent,
  the clue, the target card and the shuffled candidates (card ids and image files), and empty
  columns for each rater's Clarity and Creativity ratings (1-5) and a human listener's guess
  (a candidate number, 1-based).
* ``score``: the filled sheet -> Table 3 per agent: Clarity (appendix D's three-step median-
  penalty formula, :func:`~cluegym.envs.dixit.human_eval.clue_clarity`), Creativity (mean
  rating normalized to [0, 1]) and human Listener Accuracy (%). Empty cells are skipped.

Usage:
    cluegym run dixit --agent '*=vision' --games 2 --results games.jsonl
    python -m cluegym.benchmarks.dixit_human_eval export --results games.jsonl --raters 3 --out sheet.csv
    python -m cluegym.benchmarks.dixit_human_eval score --sheet sheet.csv

``export`` refuses an existing ``--out`` (it may hold the raters' ratings) unless ``--overwrite``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any, Iterable, NoReturn, Sequence

from tqdm.auto import tqdm

from cluegym.benchmarks.usage import UsageError, check_outputs, positive_int
from cluegym.envs.core.seats import seat_name
from cluegym.harness.results import write_bytes_atomic
from cluegym.envs.dixit.env import get_deck
from cluegym.envs.dixit.human_eval import RATING_SCALE, model_scores

#: The sheet's fixed columns, before the raters' columns.
BASE_COLUMNS: tuple[str, ...] = (
    "clue_id", "agent", "clue", "target", "target_image", "candidates", "candidate_images", "target_number",
)
#: What each recorded round must hold for the sheet (:func:`sheet_rows`).
ROUND_KEYS: tuple[str, ...] = ("round", "storyteller", "clue", "target", "candidates")


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The finished games of a results JSONL (``{"match", "record"}`` rows), each with its seats.

    Raises:
        FileNotFoundError: no such file. ValueError: a row that is not JSON or not a Dixit game
            record (the message names the row).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"results file {str(path)!r} does not exist (write one with cluegym run dixit --results)")
    games = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number} is not a JSON row ({exc})") from None
        record = row.get("record") if isinstance(row, dict) else None
        if not isinstance(record, dict) or "result" not in record:
            continue  # an errored game: nothing to rate
        if record.get("game") not in ("dixit", "dixit_v0"):
            raise ValueError(f"{path}:{number} is a {record.get('game')!r} game, not dixit")
        # checked here, where the row is known: a bare KeyError from sheet_rows named neither
        rounds = record["result"].get("rounds") if isinstance(record["result"], dict) else None
        if not isinstance(rounds, list) or not all(isinstance(r, dict) and all(k in r for k in ROUND_KEYS)
                                                   for r in rounds):
            raise ValueError(f"{path}:{number} is not a finished Dixit game record: its result needs a list of "
                             f"rounds, each with {', '.join(ROUND_KEYS)}")
        games.append({"seats": row.get("match", {}).get("seats", {}), "record": record, "index": row.get("index")})
    return games


def sheet_rows(games: Iterable[dict[str, Any]], raters: int = 3) -> list[dict[str, str]]:
    """One row per storyteller clue (the fallback clue ``(pass)`` is left out).

    Example:
        >>> from cluegym.agents import run_match
        >>> _ = run_match("dixit", {"*": "random"}, games=1, seed=0, results_path="games.jsonl", progress=False)
        >>> rows = sheet_rows(read_records("games.jsonl"), raters=2)
        >>> len(rows), rows[0]["clue_id"], rows[0]["clue"], rows[0]["target"], rows[0]["target_number"]
        (24, '0:0', 'pair', 'card_091', '1')
        >>> sorted(k for k in rows[0] if k.startswith("clarity"))
        ['clarity_1', 'clarity_2']
    """
    if raters < 1:
        raise ValueError(f"raters must be >= 1, got {raters}")
    rows = []
    for game in games:
        config = game["record"].get("config", {})
        deck = get_deck(config.get("deck"), config.get("captions"))
        for record in game["record"]["result"]["rounds"]:
            if record["clue"] == "(pass)":
                continue
            ids = [deck.card_ids[c] for c in record["candidates"]]
            row = {
                "clue_id": f"{game['index']}:{record['round']}",
                "agent": game["seats"].get(seat_name(record["storyteller"]), seat_name(record["storyteller"])),
                "clue": record["clue"], "target": deck.card_ids[record["target"]],
                "target_image": str(deck.paths[deck.card_ids[record["target"]]]),
                "candidates": " ".join(ids), "candidate_images": " ".join(str(deck.paths[c]) for c in ids),
                "target_number": str(record["candidates"].index(record["target"]) + 1),
            }
            for r in range(1, raters + 1):
                row[f"clarity_{r}"] = row[f"creativity_{r}"] = ""
            row["human_guess"] = ""
            rows.append(row)
    return rows


def write_sheet(rows: Sequence[dict[str, str]], path: str | Path) -> Path:
    """Write the rating sheet as CSV (creating folders), atomically: a kill while writing
    leaves the earlier sheet (raters' work, with ``--overwrite``) whole, never half a new one."""
    if not rows:
        raise ValueError("no clue to rate in these results")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    write_bytes_atomic(path, text.getvalue().encode("utf-8"))
    return path


def _rating(value: str, where: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    low, high = RATING_SCALE
    if not value.isdigit() or not low <= int(value) <= high:
        raise ValueError(f"{where}: a rating must be an integer {low}-{high}, got {value!r}")
    return int(value)


def score_sheet(path: str | Path, progress: bool = False) -> dict[str, dict[str, float]]:
    """Table 3 from a filled sheet: per agent, Clarity, Creativity and human accuracy.

    Raises:
        FileNotFoundError: no sheet. ValueError: a file without the sheet's columns, a rating
            outside 1-5 or a guess that is not a candidate number (the message names the row and
            column).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"sheet {str(path)!r} does not exist (write one with the export command)")
    clarity: dict[str, list[list[int]]] = {}
    creativity: dict[str, list[list[int]]] = {}
    guesses: dict[str, list[bool]] = {}
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        columns = list(reader.fieldnames or [])
    _check_columns(path, columns)
    for number, row in enumerate(tqdm(rows, desc="scoring", unit="clue", disable=not progress), 2):
        agent = row.get("agent", "")
        for kind, table in (("clarity", clarity), ("creativity", creativity)):
            ratings = [_rating(v or "", f"{path}:{number} {k}") for k, v in row.items() if k.startswith(f"{kind}_")]
            given = [r for r in ratings if r is not None]
            if given:
                table.setdefault(agent, []).append(given)
        guess = (row.get("human_guess") or "").strip()
        if guess:
            candidates = len((row.get("candidates") or "").split())
            if not guess.isdigit() or not 1 <= int(guess) <= candidates:
                raise ValueError(f"{path}:{number} human_guess: a candidate number 1-{candidates}, got {guess!r}")
            guesses.setdefault(agent, []).append(guess == row["target_number"].strip())
    return model_scores(clarity, creativity, guesses)


def _check_columns(path: Path, columns: Sequence[str]) -> None:
    """Raise ValueError unless ``columns`` are a sheet's: a file of other columns (a results
    JSONL) scored as an empty table, and a guess without ``target_number`` was a KeyError."""
    rated = [c for c in columns if c == "human_guess" or c.startswith(("clarity_", "creativity_"))]
    if "agent" not in columns and not rated:
        raise ValueError(f"{path} has no sheet columns (agent, clarity_k, creativity_k, human_guess): "
                         "is it a sheet written by the export command?")
    needed = ["agent", *(("candidates", "target_number") if "human_guess" in columns else ())]
    missing = [c for c in needed if c not in columns]
    if missing:
        raise ValueError(f"sheet {path} lacks the column(s) {', '.join(missing)} (the export command writes them)")


def _input_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """argparse's one-line usage error (exit 2) for a bad input file, raised as a
    :class:`~cluegym.benchmarks.usage.UsageError` whose text keeps the message for callers of
    :func:`main`."""
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    raise UsageError(message)


def format_scores(table: dict[str, dict[str, float]]) -> str:
    """Table 3 as text (``-`` where a measure was not rated)."""
    width = max([5, *(len(a) for a in table)])
    lines = [f"{'agent':<{width}}{'Acc (%)':>9}{'Clarity':>9}{'Creativity':>11}{'clues':>7}{'guesses':>9}"]
    for agent, row in sorted(table.items()):
        cells = [f"{row[k]:>{w}.{d}f}" if k in row else f"{'-':>{w}}"
                 for k, w, d in (("accuracy", 9, 2), ("clarity", 9, 3), ("creativity", 11, 3), ("clues", 7, 0),
                                 ("guesses", 9, 0))]
        lines.append(f"{agent:<{width}}" + "".join(cells))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cluegym.benchmarks.dixit_human_eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="write the rating sheet (CSV) of recorded games' clues")
    export.add_argument("--results", required=True, help="results JSONL of cluegym run dixit --results")
    export.add_argument("--raters", type=positive_int, default=3, help="rating columns per measure (default 3)")
    export.add_argument("--out", default="dixit_ratings.csv", help="sheet CSV (default dixit_ratings.csv)")
    export.add_argument("--overwrite", action="store_true",
                        help="replace an existing --out (without it, an existing file is refused: it may hold ratings)")
    score = sub.add_parser("score", help="Table 3 from a filled sheet")
    score.add_argument("--sheet", required=True, help="the filled sheet CSV")
    score.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    command = export if args.command == "export" else score
    if args.command == "export":
        # before reading a game: a filled sheet (or the results themselves) overwritten was the raters' work lost
        check_outputs(export, {"--out": args.out}, inputs={"--results": args.results})
        if Path(args.out).exists() and not args.overwrite:
            export.error(f"--out {args.out} already exists (it may hold the raters' ratings); choose another --out "
                         "or replace it with --overwrite")
    try:
        if args.command == "export":
            rows = sheet_rows(tqdm(read_records(args.results), desc="games", unit="game"), raters=args.raters)
            print(f"{len(rows)} clues written to {write_sheet(rows, args.out)}; raters fill clarity_k and "
                  f"creativity_k (1-5: 3 = balanced clarity) and human_guess (candidate number)")
            return 0
        print(format_scores(score_sheet(args.sheet, progress=not args.no_progress)))
    except (OSError, ValueError, csv.Error) as exc:  # a bad input file: a usage error, as argparse's (exit 2)
        _input_error(command, str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
