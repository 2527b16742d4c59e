"""Ctrl-C stops a match of agents that never await (random, the embedding baselines) at the
next game boundary (the match used to play to its last game first); a match's counts are
whole numbers."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from processes import interrupted_run

from cluegym.agents import run_match


def test_ctrl_c_stops_a_match_of_agents_that_never_await(tmp_path):
    results = tmp_path / "games.jsonl"
    games = 200_000  # tens of minutes of random Decrypto games: the run must stop long before
    command = [sys.executable, "-m", "cluegym.cli", "run", "decrypto", "--agent", "*=random", "--games", str(games),
               "--env", "max_turns=3", "--no-show", "--no-progress", "--results", str(results)]
    returncode, err = interrupted_run(command, results, rows=5)
    assert returncode == 130, err[-2000:]
    assert "Traceback" not in err and f"the finished games are in {results}, rerun to resume" in err
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert 5 <= len(rows) < games and all("record" in r for r in rows)


@pytest.mark.parametrize("changes, error, message", [
    ({"concurrency": 1.5}, TypeError, "concurrency must be an integer >= 1, got 1.5"),
    ({"concurrency": True}, TypeError, "concurrency must be an integer >= 1, got True"),  # counted as 1
    ({"games": 2.5}, TypeError, "games must be an integer >= 1, got 2.5"),
    ({"games": 0}, ValueError, "games must be >= 1, got 0"),
    ({"concurrency": np.int64(2)}, None, None),
])
def test_run_match_takes_only_whole_counts(changes, error, message):
    # a float failed in range() inside the event loop with a bare TypeError
    kwargs = {"games": 2, "env_kwargs": {"max_turns": 2}, "progress": False, **changes}
    if error is None:
        assert run_match("decrypto", {"*": "random"}, **kwargs)["ok"]
        return
    with pytest.raises(error, match=message):
        run_match("decrypto", {"*": "random"}, **kwargs)
