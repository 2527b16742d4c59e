"""What a match does to the files it is pointed at: it writes its own, and leaves others as they were."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cluegym.agents import run_match
from cluegym.cli import main
from cluegym.harness.results import write_json_atomic

RUN = ["run", "taboo", "--agent", "*=random", "--games", "1", "--seed", "3", "--no-progress", "--no-show"]


def test_a_summary_is_written_through_a_symlink_and_into_a_device(tmp_path):
    """The summary replaced whatever was at its path: a symlink became a file of its own (the
    target kept the old summary), and as root ``--summary /dev/null`` replaced the device."""
    real = tmp_path / "real.json"
    real.write_text("{}")
    (tmp_path / "link.json").symlink_to(real)
    assert main(RUN + ["--summary", str(tmp_path / "link.json")]) in (0, 1)
    assert (tmp_path / "link.json").is_symlink() and json.loads(real.read_text())["game"] == "taboo"

    write_json_atomic(Path(os.devnull), {"written": "and gone"})
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_summary_to_dev_stdout_goes_down_a_pipe():
    """``--summary /dev/stdout | cat`` was refused as "not writable (No such file or
    directory)": the link's target, ``pipe:[...]``, names no path."""
    code = ("import sys; from cluegym.cli import main; "
            f"sys.exit(main({RUN + ['--summary', '/dev/stdout']!r}))")
    ran = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=300)
    assert ran.returncode in (0, 1), ran.stderr
    assert "not writable" not in ran.stderr
    summary, _ = json.JSONDecoder().raw_decode(ran.stdout[ran.stdout.index("{"):])  # the table follows it
    assert summary["game"] == "taboo" and summary["games"] == 1


def test_a_summary_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    summary = tmp_path / "summary.json"
    summary.write_text("{}")
    summary.chmod(0o640)
    write_json_atomic(summary, {"a": 1})
    assert stat.S_IMODE(summary.stat().st_mode) == 0o640 and json.loads(summary.read_text()) == {"a": 1}


@pytest.mark.parametrize("content", [
    '{"a": 1}\n[1,2]\n{"b": 2}',  # JSON lines that are no game rows, the last one unfinished
    "some notes\nthe last line",  # a text file
    json.dumps({"game": "taboo", "games": 3}, indent=2),  # an earlier --summary, given as --results
])
def test_a_file_that_is_no_results_file_is_refused_and_left_as_it_was(tmp_path, capsys, content):
    """The loader cut the file's "unfinished" last line before it checked the rest, so a refused
    run still changed the file; a text file or a summary lost its last line, got game rows
    appended, and the run exited 0."""
    results = tmp_path / "not_results.jsonl"
    results.write_text(content)
    with pytest.raises(SystemExit) as exc:
        main(RUN + ["--results", str(results)])
    assert exc.value.code == 2 and results.read_text() == content
    err = capsys.readouterr().err.strip()
    assert err.startswith("cluegym: error:") and "\n" not in err


def test_a_row_cut_short_by_a_kill_is_still_replayed(tmp_path):
    """The rule above keeps what a kill leaves: a row's start without its end."""
    results = tmp_path / "games.jsonl"
    run_match("taboo", {"*": "random"}, games=2, seed=3, results_path=results, progress=False)
    lines = results.read_text().splitlines(keepends=True)
    results.write_text(lines[0] + lines[1][:40])
    summary = run_match("taboo", {"*": "random"}, games=2, seed=3, results_path=results, progress=False)
    assert summary["games"] == 2 and results.read_text() == "".join(lines)


def test_a_results_path_that_is_no_regular_file_is_refused(tmp_path):
    """``--results /dev/stdout | cat`` hung: the loader read the pipe until it closed."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is not a regular file"):
        run_match("taboo", {"*": "random"}, games=1, results_path=fifo, progress=False)


def test_a_summary_folder_that_takes_no_new_file_fails_before_the_games(tmp_path, monkeypatch):
    """The check appended to the existing summary, but the atomic write needs a new file in its
    folder: in a folder the user may not write, every game was played, then the write failed
    and the games were lost. (A folder that refuses new files, as the temporary file sees it:
    root, who runs the tests, may write anywhere.)"""
    import cluegym.harness.results as results

    summary = tmp_path / "summary.json"
    summary.write_text("{}")

    def no_new_files(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(results.tempfile, "NamedTemporaryFile", no_new_files)
    played = []
    with pytest.raises(ValueError, match="--summary .*summary.json is not writable \\(Permission denied\\)"):
        run_match("taboo", {"*": "random"}, games=5, summary_path=summary, progress=False,
                  on_game=lambda index, record: played.append(index))
    assert played == [] and summary.read_text() == "{}"


def test_a_seat_that_forfeits_every_decision_makes_the_match_not_ok():
    """The README's exit status 1 for "a seat never got a move through" missed forfeits: an LLM
    whose every reply failed to parse, or a human whose input closed, gave ok and exit 0."""
    import cluegym.agents
    from cluegym.agents.random_agent import RandomAgent
    from cluegym.harness import Forfeit

    class GivesUp(RandomAgent):
        def act(self, observation, info):
            raise Forfeit("no readable answer")

    cluegym.agents.AGENTS["gives-up"] = f"{__name__}:GivesUp"
    globals()["GivesUp"] = GivesUp
    try:
        summary = run_match("decrypto", {"alice": "gives-up", "*": "random"}, games=2, seed=0, progress=False)
    finally:
        del cluegym.agents.AGENTS["gives-up"]
    assert not summary["ok"] and "seat alice: every decision was forfeited" in summary["problems"]
    assert summary["seat_counters"]["alice"]["forfeits"] == summary["seat_counters"]["alice"]["decisions"] > 0


def test_numpy_seeds_paths_and_tuples_are_recorded_as_json_reads_them_back(tmp_path):
    """A numpy seed or option, or a path, made the first row fail to serialise (a traceback
    after game 0, nothing saved); a tuple came back a list, and the rerun was refused as
    another match."""
    from cluegym.harness.results import json_options

    words = tmp_path / "words.txt"
    words.write_text("\n".join(["river", "stone", "cloud", "piano", "tiger", "lemon", "chair", "glass"]) + "\n")
    results = tmp_path / "games.jsonl"
    first = run_match("decrypto", {"*": "random"}, games=2, seed=np.int64(2), results_path=results, progress=False,
                      env_kwargs={"keywords": words, "max_turns": np.int64(4)})
    assert first["ok"] and first["games"] == 2 and first["env"] == {"keywords": str(words), "max_turns": 4}
    again = run_match("decrypto", {"*": "random"}, games=3, seed=2, results_path=results, progress=False,
                      env_kwargs={"keywords": str(words), "max_turns": 4})
    assert again["games"] == 3 and len(results.read_text().splitlines()) == 3
    assert json_options({"pair": (1, 2)}) == {"pair": [1, 2]}
    with pytest.raises(ValueError, match="game option bad=.* cannot be recorded"):
        json_options({"bad": object()})


def test_a_match_of_many_games_starts_without_a_task_per_game():
    """A task (and a list entry) per game was made before the first game: --games 10000000
    took gigabytes and half a minute before playing. A run stopped at once now costs nothing."""
    import cluegym.agents
    from cluegym.agents.random_agent import RandomAgent

    class StopsAtOnce(RandomAgent):
        def act(self, observation, info):
            raise KeyboardInterrupt

    cluegym.agents.AGENTS["stops-at-once"] = f"{__name__}:StopsAtOnce"
    globals()["StopsAtOnce"] = StopsAtOnce
    try:
        with pytest.raises(KeyboardInterrupt):
            run_match("taboo", {"*": "stops-at-once"}, games=10**12, progress=False)
    finally:
        del cluegym.agents.AGENTS["stops-at-once"]
