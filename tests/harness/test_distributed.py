"""Distributed evaluation: a match played as Ray tasks writes the rows a local run writes, byte
for byte, resumes from the same results file, and logs errored games the same way.

Ray runs on this machine only: in-process (``address="local"``, 2 CPUs, no dashboard) or a head
started with ``ray start --head --block`` on a free loopback port, stopped by signalling that
process (never ``ray stop``, which would stop every Ray on the machine). conftest.py turns usage
reports off and gives the session a random Ray token that keeps anyone else out of the cluster.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from cluegym import harness
from cluegym.agents import make_agent, run_match
from cluegym.agents.random_agent import RandomAgent
from cluegym.cli import main
from cluegym.harness import AgentFactory, RayNotInstalledError, agent_seed
from processes import free_port, ray_on_loopback, wait_for_line

#: Summary keys that a Ray run must reproduce (wall_s and games_per_s are timings).
SAME_SUMMARY_KEYS = ("game", "seats", "games", "seed", "env", "metrics", "agent_stats", "seat_counters",
                     "mean_return", "errored_games", "ok", "problems")
#: The match the tests play: cheap random players, a seed of its own.
SEATS = {"*": "random"}
SEED = 11


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """An in-process Ray on this machine (2 CPUs) that run_match(ray_address=...) reuses."""
    with ray_on_loopback() as ray:
        yield ray


def sorted_lines(path: Path) -> list[str]:
    """The file's lines, by game index."""
    return sorted(path.read_text().splitlines(), key=lambda line: json.loads(line)["index"])


def finished_lines(path: Path) -> dict[int, str]:
    """Game index -> the line of its finished row."""
    rows = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if "record" in row:
            rows[row["index"]] = line
    return rows


def same_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The part of a summary that does not depend on timing, as JSON would hold it."""
    return json.loads(json.dumps({key: summary[key] for key in SAME_SUMMARY_KEYS}))


def factory_with(spec_name: str, agent_class: type) -> AgentFactory:
    """make_agent, plus ``spec_name`` played by ``agent_class`` (a class built in a test's
    function: Ray pickles it, and this closure, by value; the workers cannot import this module)."""

    def factory(spec: str, *, game: str, seat: str, action_space: Any, seed: int | None = None) -> Any:
        if spec == spec_name:
            return agent_class(game, seat, action_space, seed=seed)
        return make_agent(spec, game=game, seat=seat, action_space=action_space, seed=seed)

    return factory


def breaking_factory(match_seed: int, broken_game: int, how: str) -> AgentFactory:
    """make_agent, plus a ``breaker`` agent that breaks game ``broken_game`` when reset: it raises
    (``how="raise"``) or kills its process (``how="exit"``, a dying Ray worker). Built in a
    function so that Ray pickles it by value: the workers cannot import this test module."""
    broken_seeds = {agent_seed(match_seed, broken_game, seat) for seat in range(8)}

    class ResetBreaker(RandomAgent):
        def reset(self, seed: int | None = None) -> None:
            super().reset(seed)
            if seed in broken_seeds:
                if how == "exit":
                    os._exit(1)
                raise RuntimeError(f"reset broke with seed {seed}")

    return factory_with("breaker", ResetBreaker)


def test_ray_rows_and_summary_equal_a_local_run(ray_cluster, tmp_path):
    seen: dict[int, dict[str, Any]] = {}
    local = run_match("decrypto", SEATS, games=6, seed=SEED, results_path=tmp_path / "local.jsonl", progress=False)
    remote = run_match("decrypto", SEATS, games=6, seed=SEED, results_path=tmp_path / "ray.jsonl", progress=False,
                       ray_address="local", on_game=lambda index, record: seen.update({index: record}))
    assert sorted_lines(tmp_path / "ray.jsonl") == sorted_lines(tmp_path / "local.jsonl")
    assert same_summary(remote) == same_summary(local) and remote["ok"]
    # on_game sees every game's record in the driver, as in a local run
    local_records = {json.loads(line)["index"]: json.loads(line)["record"] for line in sorted_lines(tmp_path / "local.jsonl")}
    assert sorted(seen) == list(range(6)) and json.loads(json.dumps(seen[3])) == local_records[3]


def test_ray_run_resumes_a_results_file(ray_cluster, tmp_path):
    run_match("decrypto", SEATS, games=5, seed=SEED, results_path=tmp_path / "local.jsonl", progress=False)
    local = finished_lines(tmp_path / "local.jsonl")
    # a partial file: games 0 and 3 finished, game 1 errored; a resumed run plays 1, 2 and 4 only
    errored = json.loads(local[1])
    errored.pop("record")
    errored["error"] = "RuntimeError: earlier failure"
    partial = tmp_path / "partial.jsonl"
    partial.write_text(local[0] + "\n" + json.dumps(errored) + "\n" + local[3] + "\n")
    summary = run_match("decrypto", SEATS, games=5, seed=SEED, results_path=partial, progress=False,
                        ray_address="local")
    lines = partial.read_text().splitlines()
    assert len(lines) == 3 + 3  # nothing already finished was played again
    assert finished_lines(partial) == local
    assert summary["games"] == 5 and summary["errored_games"]["count"] == 0


def test_a_stopped_ray_run_keeps_its_games_and_resumes(ray_cluster, tmp_path, monkeypatch):
    run_match("decrypto", SEATS, games=6, seed=SEED, results_path=tmp_path / "local.jsonl", progress=False)

    def no_cancel(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("ray.cancel can abort the driver when it races a finishing task")

    monkeypatch.setattr(ray_cluster, "cancel", no_cancel)

    def stop(index: int, record: dict[str, Any]) -> None:
        raise KeyboardInterrupt  # Ctrl-C in the driver as the first game comes back

    results = tmp_path / "ray.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_match("decrypto", SEATS, games=6, seed=SEED, results_path=results, progress=False,
                  ray_address="local", on_game=stop)
    kept = len(results.read_text().splitlines())
    assert 1 <= kept < 6
    run_match("decrypto", SEATS, games=6, seed=SEED, results_path=results, progress=False, ray_address="local")
    assert len(results.read_text().splitlines()) == 6  # the kept games were not played again
    assert sorted_lines(results) == sorted_lines(tmp_path / "local.jsonl")


def slow_factory(match_seed: int, marks: Path) -> AgentFactory:
    """make_agent, plus a ``slow`` agent that waits 30 s before each move in every game but
    game 0, and leaves a file in ``marks`` when that wait is cancelled (pickled by value)."""
    fast_seeds = {agent_seed(match_seed, 0, seat) for seat in range(8)}

    class SlowAgent(RandomAgent):
        def reset(self, seed: int | None = None) -> None:
            super().reset(seed)
            self.slow = seed not in fast_seeds

        async def act_async(self, observation: Any, info: Any) -> Any:
            if self.slow:
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    (marks / f"cancelled-{os.getpid()}-{id(self)}").touch()
                    raise
            return self.act(observation, info)

    return factory_with("slow", SlowAgent)


def test_a_stopped_run_on_a_kept_connection_stops_its_games_in_flight(ray_cluster, tmp_path):
    """On a Ray connection the caller keeps, a stop raises the run's stop signal: games waiting
    on their agents (an LLM's reply) are cancelled within a poll, not left to finish."""
    marks = tmp_path / "marks"
    marks.mkdir()

    def stop(index: int, record: dict[str, Any]) -> None:
        raise KeyboardInterrupt  # as game 0, the only quick one, comes back

    results = tmp_path / "ray.jsonl"
    with pytest.raises(KeyboardInterrupt):
        harness.run_match("taboo", {"attacker": "slow", "*": "random"}, make_agent=slow_factory(SEED, marks),
                          games=4, seed=SEED, results_path=results, progress=False, ray_address="local",
                          on_game=stop)
    assert [json.loads(line)["index"] for line in results.read_text().splitlines()] == [0]
    deadline = time.monotonic() + 20
    while len(list(marks.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(list(marks.iterdir())) >= 2  # the two games running on the 2 CPUs, at least


STOPPED_DRIVER = """
import sys
from cluegym.agents import run_match

def stop(index, record):
    raise KeyboardInterrupt  # Ctrl-C as the first game comes back

try:
    run_match("decrypto", {"*": "random"}, games=12, seed=7, results_path=sys.argv[1], progress=False,
              ray_address="local", on_game=stop)
except KeyboardInterrupt:
    print("stopped")
"""


def test_a_stopped_run_that_started_ray_shuts_it_down_with_games_in_flight(tmp_path):
    """The run owns its Ray connection: stopping it shuts Ray down with games still running
    (no cancel), the process exits normally, and a rerun plays the rest."""
    results = tmp_path / "games.jsonl"
    run = subprocess.run([sys.executable, "-c", STOPPED_DRIVER, str(results)], capture_output=True, text=True,
                         timeout=180)
    assert run.returncode == 0 and run.stdout.strip().endswith("stopped"), run.stderr[-3000:]
    kept = len(results.read_text().splitlines())
    assert 1 <= kept < 12
    local = tmp_path / "local.jsonl"
    run_match("decrypto", {"*": "random"}, games=12, seed=7, results_path=local, progress=False)
    run_match("decrypto", {"*": "random"}, games=12, seed=7, results_path=results, progress=False)
    assert sorted_lines(results) == sorted_lines(local)


def test_an_errored_game_is_the_same_row_on_ray(ray_cluster, tmp_path):
    factory = breaking_factory(SEED, broken_game=2, how="raise")
    seats = {"alice": "breaker", "*": "random"}
    local = harness.run_match("decrypto", seats, make_agent=factory, games=4, seed=SEED,
                           results_path=tmp_path / "local.jsonl", progress=False)
    remote = harness.run_match("decrypto", seats, make_agent=factory, games=4, seed=SEED,
                            results_path=tmp_path / "ray.jsonl", progress=False, ray_address="local")
    assert sorted_lines(tmp_path / "ray.jsonl") == sorted_lines(tmp_path / "local.jsonl")
    assert same_summary(remote) == same_summary(local)
    assert remote["errored_games"]["games"] == [{"index": 2, "error": f"RuntimeError: reset broke with seed "
                                                                       f"{agent_seed(SEED, 2, 0)}"}]


def test_a_dead_worker_errors_its_game_only(ray_cluster, tmp_path):
    factory = breaking_factory(SEED, broken_game=1, how="exit")
    summary = harness.run_match("decrypto", {"alice": "breaker", "*": "random"}, make_agent=factory, games=3,
                             seed=SEED, results_path=tmp_path / "ray.jsonl", progress=False, ray_address="local")
    assert summary["games"] == 2 and not summary["ok"]
    [errored] = summary["errored_games"]["games"]
    assert errored["index"] == 1 and errored["error"].startswith("Ray task failed: ")
    assert sorted(json.loads(line)["index"] for line in (tmp_path / "ray.jsonl").read_text().splitlines()) == [0, 1, 2]


def test_missing_ray_is_one_line_naming_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if not installed
    results = tmp_path / "games.jsonl"
    with pytest.raises(RayNotInstalledError, match=r"pip install 'cluegym\[rllib\]'"):
        run_match("decrypto", SEATS, games=2, results_path=results, progress=False, ray_address="local")
    assert not results.exists()  # failed before anything was written
    with pytest.raises(SystemExit) as exc:
        main(["run", "decrypto", "--ray-address", "auto", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "pip install 'cluegym[rllib]'" in err


@pytest.mark.slow
def test_cli_plays_on_a_ray_head_and_resumes(tmp_path):
    pytest.importorskip("ray")
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        pytest.skip(f"no ray command beside {sys.executable}")
    args = ["decrypto", "--agent", "alice=glove", "--agent", "*=random", "--games", "4", "--seed", str(SEED),
            "--no-progress", "--no-show"]
    # the reference: a local run, in this process
    assert main(["run", *args, "--results", str(tmp_path / "local.jsonl"), "--summary", str(tmp_path / "local.json")]) == 0
    local = finished_lines(tmp_path / "local.jsonl")
    partial = tmp_path / "ray.jsonl"
    partial.write_text(local[2] + "\n")  # game 2 finished earlier: the Ray run plays 0, 1 and 3

    # token mode with the session's RAY_AUTH_TOKEN (conftest.py): a driver joins a token
    # cluster only with RAY_AUTH_MODE=token set (Ray 2.60)
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token"}
    port = free_port()
    temp_dir = tempfile.mkdtemp(prefix="cg-ray-", dir="/tmp")  # short: Ray's socket paths must fit
    head = subprocess.Popen(
        [str(ray_cli), "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp_dir}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    try:
        wait_for_line(head, "Ray runtime started", timeout=60)
        run = subprocess.run(
            [sys.executable, "-m", "cluegym.cli", "run", *args, "--ray-address", f"127.0.0.1:{port}",
             "--results", str(partial), "--summary", str(tmp_path / "ray.json")],
            env=env, capture_output=True, text=True, timeout=180,
        )
        assert run.returncode == 0, run.stderr[-3000:]
    finally:
        head.send_signal(signal.SIGTERM)  # --block: the head stops every process it started
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)  # the group start_new_session made for it
            head.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert "4 of 4 games finished" in run.stdout
    assert len(partial.read_text().splitlines()) == 4  # game 2 was not played again
    assert finished_lines(partial) == local
    assert same_summary(json.loads((tmp_path / "ray.json").read_text())) == \
        same_summary(json.loads((tmp_path / "local.json").read_text()))


def test_a_tournament_on_ray_writes_the_local_reports(ray_cluster, tmp_path):
    """``cluegym tournament --ray-address`` spreads every match over Ray: same games, same ratings."""
    from cluegym.benchmarks.tournament import run_tournament

    agents = {"first": "random", "second": "random"}
    local = run_tournament("taboo", agents, games=3, seed=SEED, out_dir=tmp_path / "local", progress=False)
    on_ray = run_tournament("taboo", agents, games=3, seed=SEED, out_dir=tmp_path / "ray", progress=False,
                            ray_address="local")
    assert local["ok"] and on_ray["ok"]
    assert (tmp_path / "ray" / "games.jsonl").read_text() == (tmp_path / "local" / "games.jsonl").read_text()
    assert on_ray["ratings"] == local["ratings"]
