"""The leaderboard's refusals and column names, on hand-written ``ratings.json`` files (no games
are played): tournaments of one game in folders of one name, a folder given twice, one agent
name for different specs, and malformed reports (one-line error, exit 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from cluegym.benchmarks.leaderboard import build_leaderboard, leaderboard_markdown
from cluegym.cli import main


def write_tournament(folder: Path, game: str, agents: dict[str, str], order: list[str]) -> Path:
    """A tournament folder holding a ``ratings.json`` shaped like ``cluegym tournament``'s,
    the agents ranked in ``order``."""
    folder.mkdir(parents=True)
    ratings = [{"agent": name, "mu": 30.0 - rank, "sigma": 5.0, "ordinal": 15.0 - rank, "games": 4, "wins": 2,
                "draws": 0, "losses": 2, "score": 0.5, "rank": rank} for rank, name in enumerate(order, 1)]
    settings = {"game": game, "agents": agents, "games": 2, "seed": 0, "env": {}}
    (folder / "ratings.json").write_text(json.dumps({"settings": settings, "ratings": ratings}))
    return folder


def test_tournaments_of_one_game_in_folders_of_one_name_get_a_column_each(tmp_path):
    p = write_tournament(tmp_path / "p" / "taboo", "taboo", {"a": "random", "b": "glove"}, ["a", "b"])
    q = write_tournament(tmp_path / "q" / "taboo", "taboo", {"a": "random", "b": "glove"}, ["b", "a"])
    r = write_tournament(tmp_path / "r" / "taboo", "taboo", {"a": "random", "c": "word2vec"}, ["c", "a"])
    old = write_tournament(tmp_path / "old" / "q" / "taboo", "taboo", {"a": "random", "b": "glove"}, ["a", "b"])
    u = write_tournament(tmp_path / "u", "undercover", {"a": "random", "c": "word2vec"}, ["a", "c"])
    board = build_leaderboard([p, q, r, u, old])
    names = [g["name"] for g in board["games"]]
    # each column named by as much of its path as sets it apart from the others of its game
    assert names == ["taboo (p/taboo)", f"taboo ({tmp_path.name}/q/taboo)", "taboo (r/taboo)", "undercover",
                     "taboo (old/q/taboo)"]
    a = next(row for row in board["rows"] if row["agent"] == "a")
    assert {name: cell["rank"] for name, cell in a["per_game"].items()} == dict(zip(names, [1, 2, 2, 1, 1]))
    assert a["games_played"] == 5 and a["rank_score"] == 0.6
    assert f"| mean score | {' | '.join(names)} |" in leaderboard_markdown(board)


def test_a_tournament_folder_given_twice_is_refused(tmp_path, monkeypatch):
    write_tournament(tmp_path / "p" / "taboo", "taboo", {"a": "random", "b": "glove"}, ["a", "b"])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "p")
    for folders, message in (
        (["p/taboo", "p/taboo"], "p/taboo is given twice"),
        (["p/taboo", "./p/../p/taboo"], "p/taboo and p/../p/taboo are the same tournament folder"),
        (["p/taboo", str(tmp_path / "p" / "taboo")], "are the same tournament folder"),
        (["p/taboo", "link/taboo"], "p/taboo and link/taboo are the same tournament folder"),
    ):
        with pytest.raises(ValueError, match="give each tournament once") as exc:
            build_leaderboard(folders)
        assert message in str(exc.value)


def test_one_agent_name_for_different_specs_is_refused(tmp_path):
    p = write_tournament(tmp_path / "p", "taboo", {"a": "random", "b": "glove:k=16,seed=1"}, ["a", "b"])
    q = write_tournament(tmp_path / "q", "undercover", {"a": "random", "b": "glove:seed=1,k=16"}, ["b", "a"])
    r = write_tournament(tmp_path / "r", "taboo", {"a": "glove", "c": "random"}, ["a", "c"])
    assert build_leaderboard([p, q])["rows"][0]["games_played"] == 2  # parameters in another order: one agent
    with pytest.raises(ValueError) as exc:
        build_leaderboard([p, q, r])
    assert str(exc.value).startswith(f"agent name 'a' stands for different agents ('random' in {p}, {q}; "
                                     f"'glove' in {r}); ")


def test_a_parameter_at_its_default_is_the_spec_without_it(tmp_path):
    def undercover(folder: Path, agents: dict[str, str]) -> Path:
        folder = write_tournament(folder, "undercover", agents, list(agents))
        report = json.loads((folder / "ratings.json").read_text())
        report["sides"] = [{"name": "civilians", "seats": ["player_0", "player_1", "player_2"]},
                           {"name": "undercover", "seats": ["player_3", "player_4"]}]
        (folder / "ratings.json").write_text(json.dumps(report))
        return folder

    p = undercover(tmp_path / "p", {"a": "glove", "b": "random"})
    q = undercover(tmp_path / "q", {"a": "glove:k=8", "b": "random"})  # 8: k's default
    r = undercover(tmp_path / "r", {"a": "glove:k=9", "b": "random"})
    assert build_leaderboard([p, q])["rows"][0]["games_played"] == 2  # before: refused as two agents
    with pytest.raises(ValueError, match="agent name 'a' stands for different agents"):
        build_leaderboard([p, q, r])
    # a report without its sides names no seats to read defaults at: only the same parameters match
    hand = write_tournament(tmp_path / "hand", "undercover", {"a": "glove:k=8", "b": "random"}, ["a", "b"])
    with pytest.raises(ValueError, match="agent name 'a' stands for different agents"):
        build_leaderboard([p, hand])


def set_at(keys: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit of a report: set the value at a key path."""
    def edit(report: dict[str, Any]) -> None:
        for key in keys[:-1]:
            report = report[key]
        report[keys[-1]] = value
    return edit


def drop(keys: list[Any]) -> Callable[[dict[str, Any]], None]:
    """An edit of a report: remove the key at a key path."""
    def edit(report: dict[str, Any]) -> None:
        for key in keys[:-1]:
            report = report[key]
        del report[keys[-1]]
    return edit


@pytest.mark.parametrize("edit, message", [
    (set_at(["settings"], {}), "settings.game is missing"),
    (set_at(["settings"], []), "settings is a list, not an object"),
    (drop(["ratings", 0, "rank"]), "ratings[0].rank is missing"),
    (set_at(["ratings"], [1, 2]), "ratings[0] is a number, not an object"),
    (set_at(["settings", "agents"], ["a", "b"]), "settings.agents is a list, not an object"),
    (set_at(["ratings", 1, "ordinal"], None), "ratings[1].ordinal is null, not a number"),
    (set_at(["ratings", 0, "rank"], 3), "ratings[0].rank is 3, not 1 to 2"),
    (set_at(["ratings", 0, "agent"], "z"), "ratings[0].agent 'z' is not in settings.agents"),
    (set_at(["settings", "games"], "2"), "settings.games is a string, not an integer"),
])
def test_a_malformed_report_is_one_line_and_writes_nothing(tmp_path, capsys, edit, message):
    folder = write_tournament(tmp_path / "t", "taboo", {"a": "random", "b": "glove"}, ["a", "b"])
    report = json.loads((folder / "ratings.json").read_text())
    edit(report)
    (folder / "ratings.json").write_text(json.dumps(report))
    with pytest.raises(SystemExit) as exc:
        main(["leaderboard", str(folder), "--out", str(tmp_path / "board")])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err == f"cluegym: error: {folder / 'ratings.json'} is not a tournament report ({message})"
    assert captured.out == "" and not (tmp_path / "board").exists()


def test_a_pipe_in_a_folder_or_agent_name_stays_in_its_markdown_cell(tmp_path):
    a = write_tournament(tmp_path / "x|y" / "taboo", "taboo", {"a|b": "random", "c": "glove"}, ["a|b", "c"])
    b = write_tournament(tmp_path / "z" / "taboo", "taboo", {"a|b": "random", "c": "glove"}, ["c", "a|b"])
    table = [line for line in leaderboard_markdown(build_leaderboard([a, b])).splitlines() if line.startswith("|")]
    cells = [len(line.replace("\\|", "").split("|")) for line in table]
    assert len(set(cells)) == 1  # every row has the header's columns
    assert "x\\|y/taboo" in table[0] and any("| a\\|b |" in line for line in table)
