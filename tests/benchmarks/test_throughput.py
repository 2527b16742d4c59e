"""The throughput benchmark: its table, the peers beside cluegym's games, the floors."""

import json
import subprocess
import sys

import pytest

from cluegym.benchmarks import throughput
from cluegym.benchmarks.peers import PEERS, REFERENCE_PEER, available_peers


def test_every_peer_of_the_extra_is_installed_and_plays():
    # scripts/setup.sh --test installs the cluegym[peers] extra: every peer must run here.
    assert {peer.name for peer in available_peers()} == set(PEERS)
    for peer in PEERS.values():
        assert peer.play_game(1) > 1


def test_table_has_peers_ratios_and_floors(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert throughput.main(["--games", "taboo", "--seconds", "0.2", "--rounds", "2", "--peers",
                            "--no-progress", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "x Taboo-v0" in text and REFERENCE_PEER in text and "taboo (no digests)" in text
    assert text.startswith("host: ") and text.splitlines()[1].startswith("build: ")  # what the figures ran on
    written = json.loads(out.read_text())
    assert written["host"]["cores"] >= 1 and written["dixit_floors_scaled"] is None  # no dixit row
    assert written["host"]["build"] == text.splitlines()[1]
    rows = {(r["env"], r["digests"]): r for r in written["rows"]}
    reference = rows[(REFERENCE_PEER, None)]
    assert reference["ratio_to_textarena_taboo"] == pytest.approx(1.0)
    for digests, ratio in ((True, throughput.FLOOR_RATIO_DIGESTS), (False, throughput.FLOOR_RATIO_NO_DIGESTS)):
        row = rows[("taboo", digests)]
        assert len(row["steps_s_rounds"]) == 2 and row["steps_s"] > 0
        assert row["floor_steps_s"] == pytest.approx(ratio * reference["steps_s"])
        assert row["ratio_to_textarena_taboo"] == pytest.approx(row["steps_s"] / reference["steps_s"])
        assert row["meets_floor"] == (row["steps_s"] >= row["floor_steps_s"])


def test_dixit_floor_without_peers_and_bad_arguments(capsys):
    assert throughput.Row("dixit", True, lambda seed, step0: 1).floor(1e9) == throughput.DIXIT_FLOOR_STEPS_S
    assert throughput.Row("dixit", False, lambda seed, step0: 1).floor(None) == 1.5 * throughput.DIXIT_FLOOR_STEPS_S
    assert throughput.Row("taboo", True, lambda seed, step0: 1).floor(None) is None
    for argv in (["--games", "chess"], ["--rounds", "0"]):
        with pytest.raises(SystemExit):
            throughput.main(argv)
    assert "unknown game" in capsys.readouterr().err


def test_dixit_floors_scale_by_the_reference_peer():
    rows = [{"env": REFERENCE_PEER, "digests": None, "steps_s": throughput.ISSUE_REFERENCE_STEPS_S / 4},
            {"env": "dixit", "digests": True, "steps_s": 3000.0}, {"env": "dixit", "digests": False, "steps_s": 4000.0}]
    line, floors = throughput.dixit_floors_scaled(rows)
    assert floors == {"scale": 0.25, "digests": 2500.0, "no_digests": 3750.0}
    assert "2,500 / 3,750" in line and "dixit here: 3000 / 4000" in line
    assert throughput.dixit_floors_scaled(rows[1:]) is None  # no peer: nothing to scale by
    assert throughput.dixit_floors_scaled(rows[:1]) is None  # no dixit row


def test_profile_env_profiles_the_env_it_names():
    # In a process of its own: a profiler is best kept out of the test process.
    def run(*args):
        done = subprocess.run([sys.executable, "-m", "cluegym.benchmarks.profile_env", *args],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    # 200 games (a tenth of a second): with 5, the record's share of the own time is within
    # timer noise of the other top rows since recording got cheaper, and record.py came and went.
    out = run("taboo", "--games", "200", "--top", "8")
    assert out.startswith("taboo: 200 games, ") and "function calls" in out and "env.py" in out
    out = run("decrypto", "--games", "2", "--top", "5", "--no-digests", "--cumulative")
    assert out.startswith("decrypto: 2 games, ") and "Ordered by: cumulative time" in out


def test_scripted_choices_of_kept_and_writable_masks_agree():
    """The scripted policy keeps a read-only mask's legal choices; a writable mask is read
    afresh each time (it may change in place), and both give the same choices."""
    import gymnasium  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    space = gymnasium.spaces.Discrete(5)
    frozen = np.array([0, 1, 1, 0, 1], dtype=np.int8)
    frozen.setflags(write=False)
    writable = frozen.copy()
    for step in range(7):
        want = [1, 2, 4][step % 3]
        assert throughput.scripted_action(space, {"action_mask": frozen}, {}, step) == want
        assert throughput.scripted_action(space, {"action_mask": writable}, {}, step) == want
        assert throughput.scripted_action(space, {}, {"action_mask": [0, 1, 1, 0, 1]}, step) == want
    writable[:] = [1, 0, 0, 0, 0]
    assert throughput.scripted_action(space, {"action_mask": writable}, {}, 2) == 0


def test_scripted_dict_action_rotates_words_and_reads_each_entrys_mask():
    """A Dict action: every Text entry the step's word, every Discrete entry its own mask's
    rotated legal choice, the entries in the space's order, and a new dict each call."""
    import gymnasium  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    space = gymnasium.spaces.Dict({
        "description": gymnasium.spaces.Text(20), "vote": gymnasium.spaces.Discrete(4),
        "beliefs": gymnasium.spaces.Text(20), "card": gymnasium.spaces.Discrete(3),
    })
    masks = {"vote": np.array([0, 1, 0, 1], dtype=np.int8), "card": np.array([1, 1, 1], dtype=np.int8)}
    for step in range(10):
        word = throughput._WORDS[step % len(throughput._WORDS)]
        action = throughput.scripted_action(space, {"action_mask": masks}, {}, step)
        assert list(action) == list(space.spaces)  # (Gymnasium sorts the keys of a plain dict)
        assert action == {"description": word, "vote": [1, 3][step % 2], "beliefs": word, "card": step % 3}
        action["vote"] = -1  # the caller's own dict
    assert throughput.scripted_action(space, {}, {}, 0)["vote"] == 0  # no mask: the step's index


def test_scripted_tuple_action_rotates_each_part_by_its_position():
    """A Tuple action (Decrypto's hints): part ``i`` is the choice for step + i."""
    import gymnasium  # noqa: PLC0415

    space = gymnasium.spaces.Tuple([gymnasium.spaces.Text(20)] * 3 + [gymnasium.spaces.Discrete(2)])
    words = throughput._WORDS
    for step in range(10):
        action = throughput.scripted_action(space, {}, {}, step)
        assert action == tuple(words[(step + i) % len(words)] for i in range(3)) + ((step + 3) % 2,)
