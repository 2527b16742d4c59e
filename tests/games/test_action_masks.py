"""obs["action_mask"] is what the rules say at every step: the adapter's kept masks (reused
while the rules return the same legal mask) and the rules' ``acts_now`` never go stale."""

import numpy as np
import pytest

import cluegym
from cluegym.envs.core.spaces import action_mask_value
from random_play import random_agents, start_game


def _same(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("game", cluegym.registered_games())
def test_every_seats_action_mask_is_built_afresh_from_the_rules(game):
    env = cluegym.make(game, **({"num_rounds": 3} if game == "dixit" else {}))
    game_env = env.unwrapped
    agents = random_agents(env, game)
    checked = acts = 0
    for seed in range(4):
        start_game(env, agents, seed)
        for seat in env.agent_iter():
            rules, state = game_env.rules, game_env.state
            block = rules.simultaneous(state)
            for other in env.possible_agents:
                assert rules.acts_now(state, other) == (other in block), (game, seed, other)
                acts += 1
                if other not in env.agents or other not in game_env._mask_seats:
                    continue
                fresh = action_mask_value(env.action_space(other), rules.legal_mask(state, other), other in block)
                assert _same(env.observe(other)["action_mask"], fresh), (game, seed, other)
                checked += 1
            obs, _, term, trunc, info = env.last()
            env.step(None if term or trunc else agents[seat].act(obs, info))
    assert acts > 20 and (checked > 50 or not game_env._mask_seats)  # Taboo: text actions only


def test_a_replaced_action_space_gets_its_own_mask():
    env = cluegym.make("undercover")
    env.reset(seed=0)
    game_env = env.unwrapped
    seat = game_env.agent_selection
    before = game_env.action_mask(seat)
    game_env._state_changed()
    again = game_env.action_mask(seat)
    assert again is before  # the same legal mask and space: the kept mask
    import gymnasium  # noqa: PLC0415

    space = game_env.action_spaces[seat]
    game_env.action_spaces[seat] = gymnasium.spaces.Dict(dict(space.spaces))  # an equal, new space
    game_env._state_changed()
    rebuilt = game_env.action_mask(seat)
    assert rebuilt is not before and _same(rebuilt, before)


def test_a_kept_mask_is_kept_for_acting_and_waiting_apart():
    """The adapter keeps built masks per legal mask and per "acting": the same legal mask
    shown to a seat outside the block is all zeros, not the block's kept mask."""
    env = cluegym.make("decrypto")
    env.reset(seed=0)
    game_env = env.unwrapped
    env.step(("river", "stone", "lantern"))  # Alice's hints: Bob and Eve guess now
    acting = game_env.action_mask("bob")
    assert acting.any()
    game_env._rules.acts_now = lambda state, seat: False  # the same legal mask, not acting
    waiting = game_env.action_mask("bob")
    assert game_env._legal_mask("bob").any() and not waiting.any()


def test_dixit_gives_the_same_legal_mask_for_the_same_card_mask():
    """Dixit's rules answer one dict per (shared, read-only) card mask, so the adapter's kept
    action mask is reused from State to State instead of being rebuilt at every step."""
    env = cluegym.make("dixit", num_rounds=3)
    env.reset(seed=0)
    game_env = env.unwrapped
    rules, state = game_env.rules, game_env.state
    teller = env.agent_selection
    listener = next(seat for seat in env.possible_agents if seat != teller)
    legal = rules.legal_mask(state, teller)
    assert rules.legal_mask(state, teller) is legal
    assert legal["card"] is rules.card_mask(state, rules.seat_index(teller)) and legal["card"].any()
    waiting = rules.legal_mask(state, listener)
    assert waiting is not legal and not waiting["card"].any()
    built = game_env.action_mask(teller)
    game_env._state_changed()  # a new State of the same masks: the kept action mask
    assert game_env.action_mask(teller) is built
    assert not rules.acts_now(state, "nobody") and not rules.acts_now(state, 3)
