"""Usage errors of the Decrypto and CoMet paper drivers come before the work: one argparse
line (exit 2), no game played, no file written, no input overwritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from usage_errors import no_work, refused

from cluegym.benchmarks import (
    comet_figure5, comet_figure6, decrypto_figure2, decrypto_figure3, decrypto_figure4, decrypto_table1, decrypto_tom,
)
from cluegym.benchmarks.plotting import figure_path
from cluegym.envs.undercover.metrics import METRIC_NAMES

#: module -> the function that plays its games (replaced so that reaching it fails the test)
WORK = {decrypto_table1: "run", decrypto_figure2: "run", decrypto_figure3: "run", decrypto_figure4: "run",
        decrypto_tom: "run_tom_eval", comet_figure6: "run", comet_figure5: "run_table1"}


@pytest.fixture
def games(tmp_path: Path) -> Path:
    """A results file read_games accepts (the drivers refuse before replaying it)."""
    turn = {"turn": 0, "code": [1, 2, 3], "hints": ["a", "b", "c"], "bob_guess": [1, 2, 3], "eve_guess": [3, 2, 1]}
    row = {"record": {"seed": 0, "config": {}, "result": {"history": [turn], "keywords": ["w", "x", "y", "z"]}}}
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def _refused(module: Any, argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> str:
    """``module.main(argv)`` is argparse's usage error containing ``message``, before any work."""
    if module in WORK:
        monkeypatch.setattr(module, WORK[module], no_work)
    return refused(module.main, argv, message, capsys)

def test_table1_json_same_as_results_refused(games: Path, capsys, monkeypatch) -> None:
    before = games.read_bytes()
    _refused(decrypto_table1, ["--results", str(games), "--agent", "random", "--seeds", "1", "--json", str(games)],
             "is the same file as --results", capsys, monkeypatch)
    assert games.read_bytes() == before


def test_figure6_json_same_as_pool_refused(tmp_path: Path, capsys) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text('{"kept": true}\n')
    # a run that needs no LLM (the old driver played it, then wrote its JSON over the pool)
    with pytest.raises(SystemExit) as exc:
        comet_figure6.main(["--part", "a", "--variants", "G=random", "--baseline", "R=random", "--pairs", "1",
                            "--pool", str(pool), "--json", str(pool), "--out", str(tmp_path / "f6.png")])
    assert exc.value.code == 2
    assert "--json" in capsys.readouterr().err and pool.read_text() == '{"kept": true}\n'
    assert not (tmp_path / "f6.png").exists()


@pytest.mark.parametrize("module, argv", [
    (decrypto_tom, ["--out", "{dir}"]),
    (decrypto_table1, ["--results", "{games}", "--json", "{dir}"]),
    (decrypto_figure2, ["--json", "{dir}"]),
    (decrypto_figure2, ["--out", "{dir}/figure.json"]),
    (decrypto_figure3, ["--json", "{dir}"]),
    (decrypto_figure3, ["--out", "{dir}/figure.txt"]),
    (decrypto_figure4, ["--backend", "local", "--json", "{dir}"]),
    (comet_figure6, ["--json", "{dir}"]),
    (comet_figure5, ["--table", "{games}", "--out", "{dir}/figure.json"]),
])
def test_outputs_checked_before_the_games(module: Any, argv: list[str], games: Path, tmp_path: Path, capsys,
                                          monkeypatch) -> None:
    folder = tmp_path / "adir"
    folder.mkdir()
    argv = [a.format(dir=folder, games=games) for a in argv]
    _refused(module, argv, "--", capsys, monkeypatch)
    assert list(folder.iterdir()) == []


def test_figure2_creates_the_folder_of_its_outputs(tmp_path: Path, capsys, monkeypatch) -> None:
    metrics = {"miscommunication_end_rate": 0.5, "interception_end_rate": 0.0, "avg_turns": 4.0}
    monkeypatch.setattr(decrypto_figure2, "run", lambda ks, *a, **k: {n: {k: [metrics] for k in ks}
                                                                      for n in decrypto_figure2.PAIRS})
    out, data = tmp_path / "new" / "f2.png", tmp_path / "other" / "f2.json"
    assert decrypto_figure2.main(["--ks", "1,2", "--games", "1", "--seeds", "1", "--out", str(out),
                                  "--json", str(data)]) == 0
    assert out.read_bytes().startswith(b"\x89PNG") and set(json.loads(data.read_text())) == set(decrypto_figure2.PAIRS)
    assert f"plot written to {out}" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--ks", "abc"], "--ks: must be comma-separated integers >= 1"),
    (["--ks", "1,"], "--ks: must be comma-separated integers >= 1"),
    (["--ks", "0"], "--ks: must be comma-separated integers >= 1"),
    (["--ks", "2,2"], "--ks: repeats a K value"),
    (["--games", "0"], "--games: must be an integer >= 1"),
    (["--seeds", "0"], "--seeds: must be an integer >= 1"),
    (["--eve", "nosuch"], "--eve: unknown agent 'nosuch'"),
])
def test_figure2_options_checked(argv: list[str], message: str, tmp_path: Path, capsys, monkeypatch) -> None:
    _refused(decrypto_figure2, [*argv, "--out", str(tmp_path / "f2.png")], message, capsys, monkeypatch)
    assert not (tmp_path / "f2.png").exists()


@pytest.mark.parametrize("module, argv, message", [
    (decrypto_table1, ["--agent", "nosuch"], "--agent nosuch: unknown agent 'nosuch'"),
    (decrypto_table1, ["--role", "decoder", "--agent", "g=glove:k=16"], "--agent g: agent 'glove'"),
    (decrypto_table1, ["--miscommunication-limit", "0"], "--miscommunication-limit: must be an integer >= 1"),
    (decrypto_table1, ["--miscommunication-limit", "-3"], "--miscommunication-limit: must be an integer >= 1"),
    (decrypto_table1, ["--interception-limit", "0"], "--interception-limit: must be an integer >= 1"),
    (decrypto_figure3, ["--agent", "nosuch"], "--agent nosuch as alice: unknown agent 'nosuch'"),
    (decrypto_figure3, ["--eve", "nosuch"], "--eve: unknown agent 'nosuch'"),
    (decrypto_tom, ["--spec", "nosuch"], "unknown agent 'nosuch'"),
    (decrypto_tom, ["--spec", "random"], "has no parameter tom"),
    (decrypto_tom, ["--bob", "nosuch"], "bob plays 'nosuch'"),
    (decrypto_tom, ["--concurrency", "0"], "--concurrency: must be an integer >= 1"),
    (decrypto_tom, ["--env", "max_turns"], "--env 'max_turns' must look like KEY=VALUE"),
    (decrypto_tom, ["--env", "max_turns="], "--env 'max_turns=' must look like KEY=VALUE"),
    (decrypto_tom, ["--env", "max_turns=3", "--env", "max_turns=4"], "--env name 'max_turns' is given twice"),
    (decrypto_tom, ["--env", "nosuch=1"], "decrypto has no option nosuch"),
    (decrypto_tom, ["--games", "0"], "--games: must be an integer >= 1"),
    (decrypto_tom, ["--games", "-2"], "--games: must be an integer >= 1"),
    (decrypto_tom, ["--seed", "-1"], "--seed must be an integer >= 0"),
    (decrypto_figure4, ["--backend", "local", "--seed", "-1"], "--seed: expected non-negative integer"),
])
def test_specs_and_options_checked(module: Any, argv: list[str], message: str, games: Path, capsys,
                                   monkeypatch) -> None:
    if module is decrypto_table1:
        argv = ["--results", str(games), *argv]
    _refused(module, argv, message, capsys, monkeypatch)


@pytest.mark.parametrize("module, argv", [
    (decrypto_table1, ["--results", "{games}", "--agent", "a=random", "--agent", "a=glove"]),
    (decrypto_figure3, ["--agent", "a=random", "--agent", "a=glove"]),
    (decrypto_figure3, ["--agent", "glove", "--agent", "glove"]),
    (decrypto_figure4, ["--backend", "local", "--model", "a=fake", "--model", "a=other"]),
    (decrypto_figure4, ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--model", "m"]),
])
def test_label_given_twice_refused(module: Any, argv: list[str], games: Path, capsys, monkeypatch) -> None:
    _refused(module, [a.format(games=games) for a in argv], "is given twice", capsys, monkeypatch)


def test_figure5_reports_the_file_written(tmp_path: Path, capsys, monkeypatch) -> None:
    rows = {m: {"balanced": {n: 0.5 for n in METRIC_NAMES}} for m in ("A", "B")}
    table = tmp_path / "t1.json"
    table.write_text(json.dumps({"against": {"A": rows}}))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    for out in ("adir", "plain"):  # a folder, and a name without an extension: matplotlib adds .png
        assert comet_figure5.main(["--table", str(table), "--out", out]) == 0
        assert f"figure written to {out}.png;" in capsys.readouterr().out
        assert (tmp_path / f"{out}.png").read_bytes().startswith(b"\x89PNG")
    assert figure_path("out/figure") == "out/figure.png" and figure_path("f.svg") == "f.svg"


@pytest.mark.parametrize("kwargs, message", [
    ({"games": 0}, "games must be >= 1, got 0"), ({"concurrency": 0}, "concurrency must be >= 1"),
    ({"seed": -1}, "seed"),
])
def test_tom_eval_from_python_refuses_counts_before_any_agent(kwargs, message, monkeypatch) -> None:
    # games=0 returned tables of NaN; the function is the library's entry, not only main's
    monkeypatch.setattr(decrypto_tom, "make_agent", no_work)
    with pytest.raises(ValueError, match=message):
        decrypto_tom.run_tom_eval("random", **kwargs)


def test_figure4_checks_every_models_agents_before_the_first_match(monkeypatch) -> None:
    # the second model's bad option was found after the first model's matches (hours of LLM time)
    monkeypatch.setattr(decrypto_figure4, "run_match", no_work)
    models = {"ok": decrypto_figure4.model_spec("local", None, None),
              "late": decrypto_figure4.model_spec("local", None, None, "temperature=9")}
    with pytest.raises(ValueError, match="model 'late': alice: .*temperature"):
        decrypto_figure4.run(models, decrypto_figure4.sample_combos(1, seed=0), games=1, seeds=1, progress=False)
    with pytest.raises(ValueError, match="model 'ok': eve: unknown agent 'nosuch'"):
        decrypto_figure4.run({"ok": models["ok"]}, decrypto_figure4.sample_combos(1, seed=0), games=1, seeds=1,
                             eve="nosuch", progress=False)


def test_figure6_pool_a_folder_refused_before_part_a(tmp_path: Path, capsys, monkeypatch) -> None:
    # part (b)'s agents refused it, after part (a)'s games had run
    message = _refused(comet_figure6, ["--pool", str(tmp_path), "--out", str(tmp_path / "f6.png")],
                       f"--pool: the experience= file {tmp_path} is a directory", capsys, monkeypatch)
    assert "\n" not in message.strip()
    # part (a) alone never opens the pool
    monkeypatch.setattr(comet_figure6, "run_cli", lambda body: 0)
    assert comet_figure6.main(["--part", "a", "--pool", str(tmp_path), "--out", str(tmp_path / "f6.png")]) == 0
