"""The game registry: built-in games discovered from their folders, every declared part loads."""

from __future__ import annotations

import importlib
import importlib.resources
import inspect
import subprocess
import sys

import pytest

import cluegym
from cluegym.envs.core.registry import GameSpec, load_reference

BUILT_IN = cluegym.registered_specs()


def test_built_in_games_are_discovered_from_their_folders():
    assert {"decrypto", "dixit", "taboo", "undercover"} <= {s.name for s in BUILT_IN}
    for spec in BUILT_IN:
        assert importlib.import_module(f"cluegym.envs.{spec.name}").GAME is spec
        assert cluegym.env_class(spec.name).game_id == spec.id


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda s: s.id)
def test_every_declared_part_loads(spec):
    if spec.baselines:
        assert callable(load_reference(spec.baselines).agent_class)
    if spec.llm_adapter:
        adapter = load_reference(spec.llm_adapter)
        assert all(callable(getattr(adapter, name)) for name in ("generalist_messages", "parse_action",
                                                                  "specialist_class"))
    if spec.learner_task:
        assert list(inspect.signature(load_reference(spec.learner_task)).parameters)[:2] == ["seat", "env"]
    if spec.potential:
        assert list(inspect.signature(load_reference(spec.potential)).parameters) == ["raw_env", "seat"]
    if spec.data:
        assert (importlib.resources.files(spec.data) / "data").is_dir()
    module = cluegym.env_module(spec.name)
    assert all(hasattr(module, name) for name in ("env", "raw_env", "metrics", "DEFAULT_AGENTS"))


def test_the_built_in_games_declare_every_part():
    for spec in BUILT_IN:
        assert None not in (spec.baselines, spec.llm_adapter, spec.learner_task, spec.potential, spec.data), spec


def test_malformed_specs_and_lookups_fail_clearly():
    with pytest.raises(ValueError, match="ends in a version"):
        GameSpec(name="chess_v1", env="chess.env")
    with pytest.raises(ValueError, match="learner_task of 'chess' must be 'module:function'"):
        GameSpec(name="chess", env="chess.env", learner_task="chess.tasks")
    with pytest.raises(ValueError, match="learner_env of 'chess' must map game option names"):
        GameSpec(name="chess", env="chess.env", learner_env={"no such": True})
    with pytest.raises(ValueError, match="learner_env of 'chess' must map game option names"):
        GameSpec(name="chess", env="chess.env", learner_env=[("clock", 5)])
    assert GameSpec(name="chess", env="chess.env").learner_env == {}
    with pytest.raises(TypeError, match="takes a GameSpec"):
        cluegym.register_game({"name": "chess"})
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        cluegym.unregister_game("chess")
    assert cluegym.game_spec("decrypto") is cluegym.game_spec("decrypto_v0")


def test_a_bare_name_resolves_to_the_highest_version():
    newer = GameSpec(name="taboo", version=1, env="cluegym.envs.taboo.env")
    cluegym.register_game(newer)
    try:
        assert cluegym.game_spec("taboo") is newer and cluegym.game_spec("taboo_v0").version == 0
        assert cluegym.registered_games().count("taboo") == 1 and "taboo_v1" in cluegym.game_ids()
    finally:
        cluegym.unregister_game("taboo_v1")
    assert cluegym.game_spec("taboo").version == 0


def test_import_and_discovery_stay_light():
    code = ("import sys, cluegym; cluegym.registered_games(); cluegym.game_spec('dixit'); "
            "heavy = sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo', 'torch') if m in sys.modules); "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)
