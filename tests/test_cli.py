"""The `cluegym` command: list, run with specs, errors, summaries, resume."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cluegym.agents import AgentSpecError, make_agent, parse_agent_spec
from cluegym.cli import main


def test_parse_agent_spec():
    assert parse_agent_spec("glove:k=16,embedding=word2vec") == ("glove", {"k": "16", "embedding": "word2vec"})
    assert parse_agent_spec("random") == ("random", {})
    with pytest.raises(AgentSpecError, match="key=value"):
        parse_agent_spec("glove:k")


def test_make_agent_errors_list_what_exists():
    import cluegym

    env = cluegym.make("decrypto")
    with pytest.raises(AgentSpecError, match="registered agents: .*glove.*random"):
        make_agent("nosuch", game="decrypto", seat="alice", action_space=env.action_space("alice"))
    with pytest.raises(AgentSpecError, match="no parameter kk; accepted: .*k=16"):
        make_agent("glove:kk=3", game="decrypto", seat="alice", action_space=env.action_space("alice"))
    with pytest.raises(AgentSpecError, match="k='many': expected int"):
        make_agent("glove:k=many", game="decrypto", seat="alice", action_space=env.action_space("alice"))
    agent = make_agent("glove:k=4", game="decrypto", seat="alice", action_space=env.action_space("alice"))
    assert agent.k == 4 and agent.embedding == "glove"


def test_run_prints_metrics_and_writes_summary(tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(["run", "decrypto", "--agent", "alice=glove:k=16", "--agent", "bob=glove", "--agent", "eve=word2vec",
                 "--games", "4", "--seed", "0", "--summary", str(out), "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "first game:" in printed and "avg_turns" in printed and "encoder_win_rate" in printed
    summary = json.loads(out.read_text())
    assert summary["games"] == 4 and summary["seats"]["eve"] == "word2vec"
    assert 1 <= summary["metrics"]["avg_turns"] <= 8


def test_run_is_reproducible_and_resumes(tmp_path):
    args = ["run", "decrypto", "--agent", "*=random", "--games", "3", "--seed", "3", "--no-progress", "--no-show"]
    results = tmp_path / "games.jsonl"
    main(args + ["--results", str(results), "--summary", str(tmp_path / "a.json")])
    lines = results.read_text().splitlines()
    assert len(lines) == 3
    # simulate a kill mid-write: the last line is cut; a rerun replays that game only
    results.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])
    main(args + ["--results", str(results), "--summary", str(tmp_path / "b.json")])
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert a["metrics"] == b["metrics"]
    # the replayed game is stored whole: the file holds the 3 games again, one per line
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["index"] for r in rows) == [0, 1, 2]
    assert results.read_text() == "\n".join(lines) + "\n"  # same seed, same games, byte for byte


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "nosuchgame"], "unknown game 'nosuchgame'"),
        (["run", "decrypto", "--agent", "alice=nosuch"], "registered agents"),
        (["run", "decrypto", "--agent", "carol=random"], "no seat carol"),
        (["run", "decrypto", "--agent", "alice"], "must look like NAME=VALUE"),
        (["run", "decrypto", "--games", "0"], "games must be >= 1"),
        (["run", "decrypto", "--env", "max_turns=99"], "max_turns"),
        # The later of two --agent alice=... silently won.
        (["run", "decrypto", "--agent", "alice=glove", "--agent", "alice=random"], "--agent name 'alice' is given twice"),
        # A value nested past the interpreter's recursion limit gave a RecursionError traceback.
        (["run", "decrypto", "--env", "max_turns=" + "[" * 30_000], "decrypto option max_turns='[[["),
    ],
)
def test_run_errors_are_clear(argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--no-progress"])
    assert message in str(exc.value)


def test_list_subprocess():
    out = subprocess.run([sys.executable, "-m", "cluegym.cli", "list"], capture_output=True, text=True, check=True).stdout
    assert "decrypto" in out and "glove" in out and "random" in out
