"""Every game's ``metrics`` checks what it is given (cluegym.envs.core.results): the results
users pass by mistake get an error that says what to pass, not a TypeError inside a mean."""

from __future__ import annotations

import pytest

import cluegym
from cluegym.envs.core.results import checked_results, game_metrics

GAMES = ("decrypto", "dixit", "taboo", "undercover")


def _metrics(game: str):
    return cluegym.env_module(game).metrics


def _finished(game: str) -> tuple[dict, dict]:
    """A random game of ``game`` played to its end: its record and its result."""
    env = cluegym.make(game)
    env.reset(seed=5)
    for agent in env.agent_iter():
        *_, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = env.action_mask(agent)
        space = env.action_space(agent)
        env.step(space.sample(mask) if mask is not None and not isinstance(mask, dict) else space.sample())
    return env.unwrapped.game_record(), env.unwrapped.game_result()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("given, error, message", [
    ([None], ValueError, "results[0] is None: that game had not finished"),
    (None, TypeError, "metrics take a list of finished games' results (record['result']), got None"),
    ({"winner": "alice"}, TypeError, "metrics take a list of finished games' results (record['result']), got a dict"),
    ("results.json", TypeError, "metrics take a list of finished games' results (record['result']), got 'results.json'"),
    ([3], TypeError, "results[0] must be a game's result (a dict), got 3"),
    ([{"steps": [], "result": {}}], TypeError, "results[0] is a whole game record; metrics read its result"),
])
def test_metrics_refuse_what_is_no_list_of_results(game, given, error, message):
    with pytest.raises(error) as raised:
        _metrics(game)(given)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize("game", GAMES)
def test_another_games_results_name_the_missing_key(game):
    other = {"score": 1}
    with pytest.raises(ValueError, match=f"a result lacks '.*': {game}'s metrics read finished {game} games' results"):
        _metrics(game)([other])


@pytest.mark.parametrize("game", ["decrypto", "taboo", "undercover"])
def test_metrics_take_any_iterable_of_results(game):
    record, result = _finished(game)
    assert result is not None and record["result"] == result
    listed = _metrics(game)([result, result])
    assert _metrics(game)(r for r in [result, result]) == listed
    assert _metrics(game)((result, result)) == listed and listed["games"] == 2
    assert _metrics(game)([]) == {"games": 0}


def test_a_key_error_of_the_metrics_own_is_raised_as_it_is():
    @game_metrics("coin")
    def metrics(results):
        return {"x": {}["won"]}  # a lookup of its own, of a key every result has

    with pytest.raises(KeyError, match="won"):
        metrics([{"won": True}])
    assert checked_results(iter([{"won": True}])) == [{"won": True}]
