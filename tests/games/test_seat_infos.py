"""env.infos builds a seat's entry when it is read, and reads like the plain dict it replaces."""

import copy
import json
import pickle

import pytest

import cluegym
from cluegym.envs.core.infos import SeatInfos


def _counting():
    built = []

    def build(seat):
        built.append(seat)
        return {"seat": seat}

    infos = SeatInfos(build)
    infos.reset(["a", "b", "c"])
    return infos, built


def test_entries_are_built_once_when_read():
    infos, built = _counting()
    assert isinstance(infos, dict) and len(infos) == 3 and set(infos.keys()) == {"a", "b", "c"} and "b" in infos
    assert built == []
    assert infos["b"] == {"seat": "b"} and infos.get("b") is infos["b"] and built == ["b"]
    assert infos.get("zzz", 7) == 7 and built == ["b"]
    infos.reset(["a", "b"])  # a move: entries start again
    assert built == ["b"] and len(infos) == 2
    assert infos["b"] == {"seat": "b"} and built == ["b", "b"]


@pytest.mark.parametrize("read", [
    lambda i: dict(i), lambda i: {**i}, lambda i: i.copy(), lambda i: dict(i.items()), lambda i: list(i.values()),
    lambda i: json.loads(json.dumps(i)), lambda i: pickle.loads(pickle.dumps(i)), lambda i: copy.deepcopy(i),
    lambda i: copy.copy(i), lambda i: eval(repr(i)), lambda i: i | {}, lambda i: {} | i,
])
def test_every_way_of_reading_all_entries_builds_them(read):
    infos, built = _counting()
    value = read(infos)
    expected = {s: {"seat": s} for s in "abc"}
    assert value == expected or value == list(expected.values())
    assert sorted(built) == ["a", "b", "c"] and infos == expected and not (infos != expected)


def test_writes_replace_entries_without_building_them():
    infos, built = _counting()
    infos["a"] = {"x": 1}
    infos.update(b={"y": 2})
    del infos["c"]
    assert infos == {"a": {"x": 1}, "b": {"y": 2}} and built == []
    assert infos.pop("a") == {"x": 1} and infos.setdefault("d", {}) == {} and built == []


def test_env_infos_match_the_state_they_were_made_for():
    env = cluegym.make("undercover")
    env.reset(seed=3)
    unwrapped = env.unwrapped
    # A seat's info read after a move reflects that move; last() and infos[agent] agree.
    for seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        assert info is env.infos[seat]
        if term or trunc:
            env.step(None)
            continue
        everyone = dict(env.infos)
        assert set(everyone) == set(env.agents)
        for other, other_info in everyone.items():
            assert other_info == unwrapped._seat_info(other)
        mask = obs["action_mask"]
        action = env.action_space(seat).sample(mask=mask)
        env.step(action)
    assert pickle.loads(pickle.dumps(env.unwrapped)).infos == {}


def test_reset_to_other_seats_after_the_same_seats_again():
    """A reset to the same seats reuses what it kept; one to other seats (a seat left, the
    list changed in place, not a list at all) starts from those seats."""
    infos, built = _counting()
    seats = ["a", "b", "c"]
    infos.reset(seats)
    assert infos["a"] == {"seat": "a"}
    infos.reset(seats)
    assert list(infos) == ["a", "b", "c"] and infos._pending.keys() == {"a", "b", "c"}
    seats.remove("b")  # PettingZoo's agents list shrinks in place
    infos.reset(seats)
    assert list(infos) == ["a", "c"] and infos["c"] == {"seat": "c"}
    infos.reset(("c", "d"))
    assert list(infos) == ["c", "d"] and infos["d"] == {"seat": "d"}
    infos["c"] = {"set": True}
    infos.reset(("c", "d"))
    assert infos["c"] == {"seat": "c"}  # rebuilt: a move starts every entry again
