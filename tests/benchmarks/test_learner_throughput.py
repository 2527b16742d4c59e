"""The learning-view throughput benchmark: every view plays whole games and counts both units."""

from __future__ import annotations

import re

import pytest

import cluegym
from cluegym.benchmarks.learner_throughput import (
    BREAKDOWN_PARTS, SETUPS, main, measure_multiseat, measure_raw_random, measure_selfplay, selfplay_breakdown,
)


@pytest.mark.parametrize("game", ["taboo", "undercover"])
def test_views_count_env_steps_and_decisions(game):
    setup = SETUPS[game]
    for measure in (measure_selfplay, measure_multiseat):
        rate = measure(game, setup, 0.3, seed=0)
        assert rate.games_s > 0 and rate.decisions_s > 0
        # Every learner decision is one game step, and the other seats step too.
        assert rate.env_steps_s > rate.decisions_s
        assert 0 < rate.cpu_share <= 2.5
    raw = measure_raw_random(game, setup, 0.3)
    assert raw.env_steps_s > 0 and raw.games_s > 0


def test_main_prints_every_view_and_rejects_unknown_games(capsys):
    assert main(["--games", "taboo", "--seconds", "0.2", "--rounds", "2", "--cpu-time"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("taboo")]
    assert [row[1] for row in rows] == ["raw", "raw-rnd", "sb3", "multi"]
    assert float(rows[0][3]) > 0 and rows[0][4] == "1.00" and rows[1][5] == "1.00"
    # The views' rows say whether they meet issue 15's floor (x raw >= 0.5); the raw rows do not.
    assert [len(row) for row in rows[:2]] == [9, 9]
    assert all(row[9] == ("ok" if float(row[4]) >= 0.5 else "BELOW") for row in rows[2:])
    with pytest.raises(SystemExit):
        main(["--games", "chess"])
    with pytest.raises(SystemExit):
        main(["--seconds", "0"])
    with pytest.raises(SystemExit):
        main(["--rounds", "0"])


def test_rows_are_the_median_of_interleaved_rounds(monkeypatch, capsys):
    import cluegym.benchmarks.learner_throughput as lt

    calls: list[str] = []

    def fake(view: str, rates: list[float]):
        def measure(*args, **kwargs):
            calls.append(view)
            return lt.ViewRate(rates[calls.count(view) - 1], 1.0, 1.0, 1.0)
        return measure

    # raw rounds 100, 300, 200 (median 200); sb3 rounds 50, 90, 150 (median 90: 0.45x raw)
    monkeypatch.setattr(lt, "measure_raw", fake("raw", [100.0, 300.0, 200.0]))
    monkeypatch.setattr(lt, "measure_raw_random", fake("raw-rnd", [100.0, 100.0, 100.0]))
    monkeypatch.setattr(lt, "measure_selfplay", fake("sb3", [50.0, 90.0, 150.0]))
    monkeypatch.setattr(lt, "measure_multiseat", fake("multi", [400.0, 100.0, 100.0]))
    assert main(["--games", "taboo", "--rounds", "3", "--no-progress"]) == 0
    assert calls == ["raw", "raw-rnd", "sb3", "multi"] * 3  # interleaved
    rows = {row[1]: row for row in (line.split() for line in capsys.readouterr().out.splitlines())
            if row and row[0] == "taboo"}
    assert rows["raw"][3] == "200" and rows["sb3"][3] == "90" and rows["sb3"][4] == "0.45"
    assert rows["sb3"][9] == "BELOW" and rows["multi"][3] == "100" and rows["multi"][9] == "ok"


def test_own_work_is_the_floor_per_env_step(capsys):
    """A view meets the floor exactly when its own work per env step (the view row less the
    raw-rnd row) is within the allowance (2g - g'), and the benchmark prints both."""
    import cluegym.benchmarks.learner_throughput as lt

    raw, raw_random = lt.ViewRate(50_000.0, 1.0, 1.0), lt.ViewRate(40_000.0, 1.0, 1.0)
    assert lt.own_work(raw, raw_random, lt.ViewRate(20_000.0, 1.0, 1.0)) == pytest.approx((25.0, 15.0))
    for view_rate in (10_000.0, 24_000.0, 25_000.0, 26_000.0, 60_000.0):
        own, allowed = lt.own_work(raw, raw_random, lt.ViewRate(view_rate, 1.0, 1.0))
        assert (own <= allowed + 1e-9) == (view_rate / raw.env_steps_s >= lt.VIEW_FLOOR)
    assert main(["--games", "taboo", "--seconds", "0.1", "--rounds", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {row[1]: float(row[3]) for row in (line.split() for line in out) if row and row[0] == "taboo"}
    line = next(line for line in out if "own work per env step" in line)
    printed = {name: float(value) for name, value in re.findall(r"(sb3|multi|allows) (-?[0-9.]+) us", line)}
    rates = {view: lt.ViewRate(rows[view], 1.0, 1.0) for view in rows}  # as printed: whole steps/s
    for view in ("sb3", "multi"):
        own, allowed = lt.own_work(rates["raw"], rates["raw-rnd"], rates[view])
        assert printed[view] == pytest.approx(own, abs=0.11)
    assert printed["allows"] == pytest.approx(allowed, abs=0.11)


def test_threads_and_cold_options(capsys):
    assert main(["--games", "taboo", "--seconds", "0.1", "--rounds", "1", "--threads", "1", "--cold"]) == 0
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("taboo")] == [
        "raw", "raw-rnd", "sb3", "multi"]
    with pytest.raises(SystemExit):
        main(["--threads", "0"])


def test_breakdown_times_every_part_of_a_decision(capsys):
    total, parts, steps = selfplay_breakdown("undercover", SETUPS["undercover"], 0.3, seed=0)
    assert list(parts) == list(BREAKDOWN_PARTS)
    # A voter's decision comes every round: the descriptions, the votes and the dead steps
    # of the eliminated in between are several env steps.
    assert 3.0 < steps < 60.0, steps
    # Every timed part is met in an Undercover decision (the delegate speaks, the others act).
    assert all(parts[part] > 0 for part in BREAKDOWN_PARTS), parts
    # The parts do not overlap: what is left for the view itself stays positive.
    assert parts["view (rest)"] < total
    assert sum(parts.values()) == pytest.approx(total)
    assert main(["--games", "taboo", "--seconds", "0.1", "--rounds", "1", "--breakdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(line for line in lines if "sb3 view, us per decision" in line)
    assert line.startswith("taboo") and all(part in line for part in BREAKDOWN_PARTS)
    budget = next(line for line in lines if "sb3 view, us per env step" in line)
    assert "the game env and its players" in budget and "it leaves the view" in budget


def test_the_timer_overhead_is_what_a_timed_call_adds():
    from cluegym.benchmarks import learner_throughput as lt

    in_part, in_run = lt.timer_overhead(repeats=2000)
    # A clock read or two and a call: well under a microsecond each, and never nothing.
    assert 0.0 < in_part < 5e-6 and 0.0 < in_run < 5e-6


def test_view_budget_is_the_floor_less_the_game_and_its_players():
    from cluegym.benchmarks import learner_throughput as lt

    parts = {"features": 50.0, "game step": 30.0, "game observe": 4.0, "game reset": 2.0, "agents act": 3.0,
             "agents reset": 1.0, "view (rest)": 60.0}
    # 40 us of game and players a decision, 2 env steps a decision: 20 us an env step; the
    # raw env at 50,000 steps/s gives a floor of 40 us an env step (2g), 20 of it left.
    assert lt.view_budget(lt.ViewRate(50_000.0, 1.0, 1.0), parts, 2.0) == pytest.approx((20.0, 20.0))
    # A raw env twice as fast halves the floor's 2g: nothing is left for any view.
    assert lt.view_budget(lt.ViewRate(100_000.0, 1.0, 1.0), parts, 2.0) == pytest.approx((20.0, 0.0))
    assert set(lt.GAME_PARTS) < set(lt.BREAKDOWN_PARTS)


def test_ppo_share_splits_a_training_run_between_envs_and_sb3(capsys):
    from cluegym.benchmarks.learner_throughput import ppo_env_share

    share = ppo_env_share("taboo", SETUPS["taboo"], 1000)
    # Whole rollouts (256 steps x 4 envs) after the warm-up one: 1000 rounds up to 1024.
    assert share.decisions == 1024
    assert share.env_us > 0 and share.learner_us > 0
    assert 0 < share.env_share < 1
    assert share.decisions_per_cpu_s == pytest.approx(1e6 / (share.env_us + share.learner_us))
    with pytest.raises(SystemExit):
        main(["--ppo", "-1"])


def test_decrypto_warm_up_encodes_the_random_hints_vocabulary():
    """Decrypto's warm-up leaves every word the random players can hint encoded (the steady
    state its views are timed in): a vector lookup of one of them is a cache hit."""
    from cluegym.agents.encoders.words import WORD_CACHE, WordEncoder
    from cluegym.envs.decrypto.env import random_vocabulary

    vocabulary = random_vocabulary()
    source = WordEncoder("glove").source
    WORD_CACHE.clear()
    assert (source, vocabulary[-1]) not in WORD_CACHE
    SETUPS["decrypto"].warm()
    assert all((source, word) in WORD_CACHE for word in vocabulary)


def test_undercover_defaults_warm_up_ranks_every_pair_word():
    """Undercover's default-opponents warm-up leaves the baselines' ranking of every word of
    the shipped pairs kept, at the depth a description asks (the steady state of a training
    run, which meets every pair in its first games): asking for one again is a cache hit."""
    from cluegym.agents import make_agent
    from cluegym.envs.undercover.word_pairs import load_word_pairs

    env = cluegym.make("undercover")
    player = make_agent("glove", game="undercover", seat="player_2", action_space=env.action_space("player_2"))
    words = sorted({word for pair in load_word_pairs() for word in pair})
    depth = 4 * player.k + 64  # Vocabulary.neighbours' first depth
    player.vocab._rankings.clear()
    SETUPS["undercover"].warm_defaults()
    known = [word for word in words if player.encoder.word(word).any()]
    assert len(known) > 300
    misses = player.vocab._rankings.misses
    for word in known:
        player.vocab.neighbours(player.encoder.word(word), player.k)
    assert player.vocab._rankings.misses == misses
    vector = player.encoder.word(known[0])
    assert player.vocab._rankings.get((vector.tobytes(), vector.dtype.str, depth)) is not None


def test_default_opponents_row_times_the_view_against_the_baselines(capsys):
    assert main(["--games", "taboo", "--seconds", "0.2", "--rounds", "1", "--default-opponents"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("taboo")]
    assert [row[1] for row in rows] == ["raw", "raw-rnd", "sb3", "multi", "sb3-def"]
    assert float(rows[4][3]) > 0 and len(rows[4]) == 9  # env steps/s, no floor verdict
