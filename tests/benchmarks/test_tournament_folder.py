"""A tournament folder holds one tournament: what a rerun resumes, and what a failed start leaves."""

from __future__ import annotations

import json

import pytest

import cluegym.benchmarks.tournament as tournament
from cluegym.benchmarks.tournament import run_tournament

AGENTS = {"a": "random", "b": "random", "c": "random"}


def test_a_rerun_with_the_agents_in_another_order_is_refused_not_replayed(tmp_path):
    """The settings check compared the agents as a dict, blind to their order, which is the
    schedule's: the rerun played every game again into new match files (``000-c-vs-b``, ...)
    beside the old ones, and rated the same games anew (``a``'s rating went to ``c``)."""
    out = tmp_path / "t"
    first = run_tournament("taboo", AGENTS, games=1, seed=1, out_dir=out, progress=False)
    files = sorted(p.name for p in (out / "matches").iterdir())
    with pytest.raises(ValueError, match=r"its agents in another order \(a, b, c\); give --agent in that order"):
        run_tournament("taboo", {"c": "random", "b": "random", "a": "random"}, games=1, seed=1, out_dir=out,
                       progress=False)
    assert sorted(p.name for p in (out / "matches").iterdir()) == files
    again = run_tournament("taboo", AGENTS, games=1, seed=1, out_dir=out, progress=False)
    assert again["ratings"] == first["ratings"]


@pytest.mark.parametrize("options, error, message", [
    # the checks of every match (run_match's check_match_counts), with its errors
    ({"concurrency": 0}, ValueError, "concurrency must be >= 1, got 0"),
    ({"concurrency": 1.5}, TypeError, "concurrency must be an integer >= 1, got 1.5"),
    ({"games": 1.5}, TypeError, "games must be an integer >= 1, got 1.5"),  # was taken
    ({"games": 0}, ValueError, "games must be >= 1, got 0"),
    ({"seed": -1}, ValueError, "seed must be a non-negative integer, got -1"),
    ({"ray_address": " "}, ValueError, "ray_address must be HOST:PORT"),
    ({"agents": {"a": "random", "b" * 101: "random"}}, ValueError, "is 101 characters; at most 100"),
])
def test_an_argument_the_games_would_refuse_fails_before_the_folder_is_made(tmp_path, options, error, message):
    """These failed in the first match, after ``tournament.json`` was written: the corrected
    rerun was then refused as "a tournament with other settings"."""
    arguments = {"agents": {"a": "random", "b": "random"}, "games": 1, "seed": 0, **options}
    with pytest.raises(error, match=message):
        run_tournament("taboo", out_dir=tmp_path / "t", progress=False, **arguments)
    assert not (tmp_path / "t").exists()


def test_a_new_tournament_that_stops_before_any_game_leaves_nothing(tmp_path, monkeypatch):
    """A failure only the first match finds (here: no Ray cluster answering at the address)
    left ``tournament.json``, and the rerun that fixed the address was refused."""
    def no_cluster(*args, **kwargs):
        raise ConnectionError("no Ray cluster at 127.0.0.1:1")

    monkeypatch.setattr(tournament, "run_match", no_cluster)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("kept")
    for out in (tmp_path / "new" / "t", tmp_path / "mine"):
        with pytest.raises(ConnectionError):
            run_tournament("taboo", {"a": "random", "b": "random"}, games=1, seed=0, out_dir=out, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["notes.txt"]
    monkeypatch.undo()
    report = run_tournament("taboo", {"a": "random", "b": "random"}, games=1, seed=0, out_dir=tmp_path / "mine",
                            progress=False)
    assert report["ok"] and json.loads((tmp_path / "mine" / "tournament.json").read_text())["seed"] == 0


def test_a_stopped_tournament_with_played_games_keeps_them(tmp_path, monkeypatch):
    """The clean-up above is only for a tournament that played nothing: a finished game stays."""
    out = tmp_path / "t"
    run_tournament("taboo", {"a": "random", "b": "random"}, games=1, seed=0, out_dir=out, progress=False)
    monkeypatch.setattr(tournament, "run_match", lambda *args, **kwargs: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        run_tournament("taboo", {"a": "random", "b": "random"}, games=2, seed=0, out_dir=out, progress=False)
    assert (out / "tournament.json").exists()
    assert all(path.stat().st_size for path in (out / "matches").glob("*.jsonl"))
