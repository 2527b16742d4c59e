"""Usage errors of the ``train_*`` demonstrations and the DixitWorld drivers come before the
work: one argparse line (exit 2), nothing trained or played, no earlier run, sheet or results
file lost."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from usage_errors import no_work, refused

from cluegym.agents import run_match
from cluegym.benchmarks import (
    dixit_handswap, dixit_human_eval, dixit_paper, dixit_roundrobin, train_decrypto, train_dixit, train_rllib,
    train_taboo, train_undercover,
)

#: module -> the function that does its work (replaced so that reaching it fails the test)
WORK = {train_taboo: "train", train_undercover: "train", train_dixit: "train", train_decrypto: "train",
        train_rllib: "train_rllib", dixit_handswap: "check", dixit_roundrobin: "play", dixit_paper: "run_match"}
DEMOS = [train_taboo, train_undercover, train_dixit]
TRAINERS = [*DEMOS, train_decrypto, train_rllib]


class Trained(Exception):
    """Raised by the stand-in of the training: the run got past every check."""


def _refused(module: Any, argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> str:
    """``module.main(argv)`` is argparse's usage error containing ``message``, before any work."""
    if module in WORK:
        monkeypatch.setattr(module, WORK[module], no_work)
    return refused(module.main, argv, message, capsys)

def _earlier_run(folder: Path) -> dict[str, bytes]:
    """An earlier run's outputs in ``folder``; returns what they hold."""
    (folder / "checkpoints").mkdir(parents=True)
    files = {"config.json": b'{"steps": 128}', "policy.zip": b"PK-policy", "table.md": b"| table |",
             "checkpoints/step_128.zip": b"PK-checkpoint"}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def _run_kept(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        assert (folder / name).read_bytes() == data, name


# -- item 1: an earlier run is replaced only with --overwrite ---------------------------------------

@pytest.mark.parametrize("module", TRAINERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_train_script_refuses_an_earlier_run_without_overwrite(module: Any, tmp_path: Path, capsys, monkeypatch):
    out = tmp_path / "myrun"
    files = _earlier_run(out)
    last = _refused(module, ["--out", str(out)], f"--out {out} holds an earlier run", capsys, monkeypatch)
    assert "--overwrite" in last and "config.json" in last
    _run_kept(out, files)


def test_train_decrypto_refuses_an_earlier_seat_run_or_summary(tmp_path: Path, capsys, monkeypatch):
    files = _earlier_run(tmp_path / "runs" / "decrypto-eve")
    _refused(train_decrypto, ["--out", str(tmp_path / "runs")], "decrypto-eve/config.json", capsys, monkeypatch)
    _run_kept(tmp_path / "runs" / "decrypto-eve", files)
    summary = tmp_path / "only" / "summary.json"
    summary.parent.mkdir()
    summary.write_text("[]")
    _refused(train_decrypto, ["--out", str(summary.parent), "--seats", "bob"], "summary.json", capsys, monkeypatch)
    assert summary.read_text() == "[]"


@pytest.mark.parametrize("module", TRAINERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@pytest.mark.parametrize("overwrite", [False, True])
def test_train_script_passes_overwrite_to_the_run(module: Any, overwrite: bool, tmp_path: Path, monkeypatch):
    seen: list[Any] = []

    def fake_train(config: Any) -> Any:
        seen.append(config)
        raise Trained

    monkeypatch.setattr(module, WORK[module], fake_train)
    out = tmp_path / "myrun"
    if overwrite:
        _earlier_run(out)
    with pytest.raises(Trained):
        module.main(["--out", str(out), *(["--overwrite"] if overwrite else [])])
    assert seen[0].overwrite is overwrite


@pytest.mark.parametrize("module", TRAINERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_train_script_out_that_is_a_file_refused(module: Any, tmp_path: Path, capsys, monkeypatch):
    out = tmp_path / "notes.txt"
    out.write_text("mine")
    _refused(module, ["--out", str(out)], "is a file, not a folder", capsys, monkeypatch)
    assert out.read_text() == "mine"


# -- item 2: bad numbers are usage errors, before any folder is made -------------------------------

BAD_NUMBERS = [
    *((m, flag, value) for m in DEMOS for flag, value in (("--steps", "-5"), ("--eval-games", "0"), ("--n-envs", "0"))),
    (train_decrypto, "--eve-steps", "-5"), (train_decrypto, "--bob-steps", "0"), (train_decrypto, "--eval-games", "0"),
    (train_decrypto, "--n-envs", "0"),
    (train_rllib, "--steps", "0"), (train_rllib, "--eval-games", "0"), (train_rllib, "--eval-every", "0"),
    (train_rllib, "--steps", "-5"),
]


@pytest.mark.parametrize(("module", "flag", "value"), BAD_NUMBERS,
                         ids=[f"{m.__name__.rsplit('.', 1)[-1]}{f}={v}" for m, f, v in BAD_NUMBERS])
def test_train_script_bad_number_refused(module: Any, flag: str, value: str, tmp_path: Path, capsys, monkeypatch):
    out = tmp_path / "new"
    _refused(module, ["--out", str(out), flag, value], f"argument {flag}: must be an integer >= 1", capsys, monkeypatch)
    assert not out.exists()


CONFIG_ERRORS = [
    (train_taboo, ["--seed", "-1"], "seed must be a non-negative integer"),
    (train_decrypto, ["--seed", "-1"], "seed must be a non-negative integer"),
    (train_decrypto, ["--seats", "eve", "eve"], "--seats names eve more than once"),
    (train_rllib, ["--seed", "-1"], "seed must be a non-negative integer"),
    (train_rllib, ["--shaping", "nan"], "shaping must be a finite scale >= 0, got nan"),
    (train_rllib, ["--num-env-runners", "-1"], "num_env_runners must be >= 0"),
    (train_rllib, ["--algo-arg", "lr"], "--algo-arg 'lr' must look like KEY=VALUE"),
    (train_rllib, ["--algo-arg", "lr=1", "--algo-arg", "lr=2"], "--algo-arg name 'lr' is given twice"),
]


@pytest.mark.parametrize(("module", "argv", "message"), CONFIG_ERRORS,
                         ids=[f"{m.__name__.rsplit('.', 1)[-1]}{a[0]}" for m, a, _ in CONFIG_ERRORS])
def test_train_script_bad_setting_refused_before_training(module: Any, argv: list[str], message: str, tmp_path: Path,
                                                          capsys, monkeypatch):
    out = tmp_path / "new"
    _refused(module, ["--out", str(out), *argv], message, capsys, monkeypatch)
    assert not out.exists()  # train_decrypto made --out before its first check


def test_train_rllib_plot_checked_before_training(tmp_path: Path, capsys, monkeypatch):
    _refused(train_rllib, ["--out", str(tmp_path / "run"), "--plot", str(tmp_path)], "is a directory", capsys,
             monkeypatch)
    _refused(train_rllib, ["--out", str(tmp_path / "run"), "--plot", str(tmp_path / "run" / "curve.png")],
             "the run's own curve", capsys, monkeypatch)
    assert not (tmp_path / "run").exists()


# -- items 3, 4: the rating sheet ----------------------------------------------------------------

@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results JSONL of one short Dixit game (4 clues)."""
    path = tmp_path_factory.mktemp("dixit") / "games.jsonl"
    run_match("dixit", {"player_0": "random", "player_1": "random", "player_2": "random:seed=2",
                        "player_3": "random:seed=2"}, games=1, seed=0, env_kwargs={"num_rounds": 4}, results_path=path,
              progress=False)
    return path


def _filled_sheet(path: Path) -> bytes:
    path.write_text("clue_id,agent,clue,target,target_image,candidates,candidate_images,target_number,clarity_1,"
                    "creativity_1,human_guess\nNone:0,random,sun,c1,a.png,c1 c2 c3 c4,a b c d,1,4,5,1\n")
    return path.read_bytes()


def test_export_refuses_an_existing_sheet_unless_overwrite(results: Path, tmp_path: Path, capsys, monkeypatch):
    sheet = tmp_path / "sheet.csv"
    before = _filled_sheet(sheet)
    last = _refused(dixit_human_eval, ["export", "--results", str(results), "--out", str(sheet)],
                    f"--out {sheet} already exists", capsys, monkeypatch)
    assert "--overwrite" in last and sheet.read_bytes() == before
    assert dixit_human_eval.main(["export", "--results", str(results), "--out", str(sheet), "--overwrite"]) == 0
    assert len(list(csv.DictReader(sheet.open()))) == 4


def test_export_refuses_the_default_sheet_when_it_exists(results: Path, tmp_path: Path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = _filled_sheet(tmp_path / "dixit_ratings.csv")
    _refused(dixit_human_eval, ["export", "--results", str(results)], "--out dixit_ratings.csv already exists",
             capsys, monkeypatch)
    assert (tmp_path / "dixit_ratings.csv").read_bytes() == before


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_export_out_same_as_results_refused(overwrite: list[str], results: Path, capsys, monkeypatch):
    before = results.read_bytes()
    _refused(dixit_human_eval, ["export", "--results", str(results), "--out", str(results), *overwrite],
             "is the same file as --results", capsys, monkeypatch)
    assert results.read_bytes() == before


def test_export_bad_out_or_raters_refused(results: Path, tmp_path: Path, capsys, monkeypatch):
    _refused(dixit_human_eval, ["export", "--results", str(results), "--out", str(tmp_path)], "is a directory",
             capsys, monkeypatch)
    out = tmp_path / "s.csv"
    _refused(dixit_human_eval, ["export", "--results", str(results), "--out", str(out), "--raters", "0"],
             "argument --raters: must be an integer >= 1", capsys, monkeypatch)
    assert not out.exists()


def test_export_malformed_result_row_named(results: Path, tmp_path: Path, capsys, monkeypatch):
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    rows[0]["record"]["result"] = {}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "s.csv"
    _refused(dixit_human_eval, ["export", "--results", str(bad), "--out", str(out)],
             f"{bad}:1 is not a finished Dixit game record", capsys, monkeypatch)
    assert not out.exists()


def test_export_missing_results_is_a_usage_error(tmp_path: Path, capsys, monkeypatch):
    _refused(dixit_human_eval, ["export", "--results", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "s.csv")],
             "does not exist", capsys, monkeypatch)


def test_score_sheet_without_target_number_names_the_column(tmp_path: Path, capsys, monkeypatch):
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("clue_id,agent,clue,candidates,clarity_1,creativity_1,human_guess\n1:0,random,sun,a b c d,3,4,2\n")
    _refused(dixit_human_eval, ["score", "--sheet", str(sheet), "--no-progress"],
             "lacks the column(s) target_number", capsys, monkeypatch)


def test_score_of_a_file_that_is_no_sheet_refused(results: Path, capsys, monkeypatch):
    _refused(dixit_human_eval, ["score", "--sheet", str(results), "--no-progress"], "has no sheet columns", capsys,
             monkeypatch)


# -- items 5, 7: the round-robin and the hand-swap check ------------------------------------------

DRIVER_ERRORS = [
    (dixit_handswap, ["--a", "random", "--b", "random:seed=2", "--json", "{tmp}"], "--json {tmp} is a directory"),
    (dixit_handswap, ["--a", "random", "--b", "random:seed=2", "--out", "{tmp}"], "--out {tmp} is a directory"),
    (dixit_handswap, ["--a", "random", "--b", "random"], "two different agents"),
    (dixit_handswap, ["--a", "nope", "--b", "random"], "--a: unknown agent 'nope'"),
    (dixit_handswap, ["--a", "random", "--b", "random:seed=2", "--deals", "0"], "argument --deals: must be an integer"),
    (dixit_roundrobin, ["--agent", "random", "--json", "{tmp}"], "--json {tmp} is a directory"),
    (dixit_roundrobin, ["--agent", "random", "--agent", "random"], "--agent random is given more than once"),
    (dixit_roundrobin, ["--agent", "nope"], "unknown agent 'nope'"),
    (dixit_roundrobin, ["--agent", "random", "--games", "0"], "argument --games: must be an integer"),
    # -- item 6, 7: the paper preset's match
    (dixit_paper, ["--agent", "*=random", "--agent", "*=vision"], "--agent name '*' is given twice"),
    (dixit_paper, ["--env", "num_rounds=2", "--env", "num_rounds=4"], "--env name 'num_rounds' is given twice"),
    (dixit_paper, ["--agent", "random"], "--agent 'random' must look like SEAT=SPEC"),
    (dixit_paper, ["--agent", "*=nope"], "unknown agent 'nope'"),
    (dixit_paper, ["--games", "0"], "argument --games: must be an integer"),
]


@pytest.mark.parametrize(("module", "argv", "message"), DRIVER_ERRORS,
                         ids=[f"{m.__name__.rsplit('.', 1)[-1]}{'_'.join(a)}" for m, a, _ in DRIVER_ERRORS])
def test_dixit_driver_usage_error_before_the_games(module: Any, argv: list[str], message: str, tmp_path: Path,
                                                   capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default figure path lands here
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    _refused(module, [*argv, "--no-progress"], message.replace("{tmp}", str(tmp_path)), capsys, monkeypatch)
    assert not list(tmp_path.glob("*.png"))
