"""The agent registry: register_agent, and agents that installed packages declare as entry points.

The trained-policy agents (``ppo``, ``task-random``) live above the agents layer and come in
through the ``cluegym.agents`` entry-point group of this package. Plug-ins are faked with a
``*.dist-info`` folder on ``PYTHONPATH`` in a fresh interpreter (the group is read once per
process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import cluegym
import cluegym.agents
from cluegym.agents import AgentSpecError, check_agent_spec, make_agent, register_agent, registered_agents
from cluegym.agents.random_agent import RandomAgent
from cluegym.harness import own_seed_of


@pytest.fixture
def registry(monkeypatch):
    """A copy of the registry for one test (the module's functions read AGENTS at call time)."""
    registered_agents()
    monkeypatch.setattr(cluegym.agents, "AGENTS", dict(cluegym.agents.AGENTS))
    return cluegym.agents.AGENTS


class SteadyAgent(RandomAgent):
    """A random player with a parameter, to check presets."""

    def __init__(self, game, seat, action_space, *, steadiness: int = 0, seed: int | None = None) -> None:
        super().__init__(game, seat, action_space, seed=seed)
        self.steadiness = steadiness


def test_trained_policy_agents_come_from_this_package_entry_points():
    declared = {entry.name: entry.value for entry in entry_points(group=cluegym.agents.ENTRY_POINT_GROUP)}
    assert declared["ppo"] == "cluegym.training.policy_agent:PolicyAgent"
    assert declared["task-random"] == "cluegym.training.policy_agent:TaskRandomAgent"
    assert {"ppo", "task-random", "random", "glove", "llm"} <= set(registered_agents())


def test_consulting_the_registry_imports_no_learning_code():
    code = ("import sys, cluegym.agents as a\n"
            "assert 'ppo' not in a.AGENTS\n"
            "names = a.registered_agents()\n"
            "assert 'ppo' in names and 'task-random' in names, names\n"
            "assert not [m for m in sys.modules if m.startswith(('cluegym.training', 'cluegym.wrappers'))]\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_register_agent_with_presets_object_or_reference(registry):
    env = cluegym.make("decrypto")
    register_agent("steady", SteadyAgent, steadiness=3)
    register_agent("steady-ref", f"{__name__}:SteadyAgent")
    agent = make_agent("steady", game="decrypto", seat="eve", action_space=env.action_space("eve"))
    assert isinstance(agent, SteadyAgent) and agent.steadiness == 3
    assert make_agent("steady:steadiness=5", game="decrypto", seat="eve",
                      action_space=env.action_space("eve")).steadiness == 5
    assert make_agent("steady-ref", game="decrypto", seat="eve", action_space=env.action_space("eve")).steadiness == 0
    assert {"steady", "steady-ref"} <= set(registered_agents())


def test_the_seed_a_match_mixes_in_is_the_spec_or_preset_seed(registry):
    space = cluegym.make("decrypto").action_space("eve")

    def built(spec: str, **default: int) -> int | None:
        return own_seed_of(make_agent(spec, game="decrypto", seat="eve", action_space=space, **default))

    register_agent("steady-7", SteadyAgent, seed=7)
    assert built("random:seed=5") == 5 and built("random:seed=5", seed=9) == 5  # the spec wins
    assert built("random") is None and built("steady-7") == 7 and built("steady-7:seed=0") == 0


def test_register_agent_rejects_clashes_and_malformed_input(registry):
    with pytest.raises(AgentSpecError, match="'random' is already registered; pass replace=True"):
        register_agent("random", SteadyAgent)
    register_agent("random", SteadyAgent, replace=True)
    assert registry["random"] is SteadyAgent
    with pytest.raises(AgentSpecError, match="agent name must be"):
        register_agent("bad:name", SteadyAgent)
    with pytest.raises(AgentSpecError, match="target must be 'module:attr'"):
        register_agent("nocolon", "cluegym.agents.random_agent")
    with pytest.raises(AgentSpecError, match="target must be an Agent class"):
        register_agent("number", 3)


def fake_plugin(tmp_path: Path, entries: str) -> dict[str, str]:
    """A distribution ``fakeplug`` declaring ``entries`` in the cluegym.agents group, with a
    module ``fakeplug`` defining ``EchoAgent``; returns the env of a process that sees it."""
    (tmp_path / "fakeplug.py").write_text(
        "from cluegym.agents.random_agent import RandomAgent\n\n\nclass EchoAgent(RandomAgent):\n    pass\n")
    info = tmp_path / "fakeplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[cluegym.agents]\n{textwrap.dedent(entries)}")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_plugin_agents_register_and_a_broken_one_names_its_entry_point(tmp_path):
    env = fake_plugin(tmp_path, """\
        echo = fakeplug:EchoAgent
        broken = fakeplug_missing:Nope
    """)
    code = ("import cluegym\n"
            "from cluegym.agents import AgentSpecError, make_agent, registered_agents\n"
            "space = cluegym.make('decrypto').action_space('eve')\n"
            "assert {'echo', 'broken', 'ppo'} <= set(registered_agents())\n"
            "print(type(make_agent('echo', game='decrypto', seat='eve', action_space=space)).__name__)\n"
            "try:\n"
            "    make_agent('broken', game='decrypto', seat='eve', action_space=space)\n"
            "except AgentSpecError as exc:\n"
            "    print(exc)\n")
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr
    echo, error = done.stdout.splitlines()
    assert echo == "EchoAgent"
    assert "agent 'broken' from entry point 'broken = fakeplug_missing:Nope' (group cluegym.agents, " \
           "distribution fakeplug) cannot be loaded: ModuleNotFoundError" in error


@pytest.mark.parametrize(("entries", "message"), [
    ("random = fakeplug:EchoAgent\n",
     "entry point 'random = fakeplug:EchoAgent' (group cluegym.agents, distribution fakeplug): "
     "agent 'random' is already registered by a built-in agent"),
    ("echo = fakeplug\n", "entry point 'echo = fakeplug' (group cluegym.agents, distribution fakeplug): "
                          "the value must be 'module:attr'"),
])
def test_a_malformed_or_clashing_entry_point_fails_loudly(tmp_path, entries, message):
    env = fake_plugin(tmp_path, entries)
    done = run_python("from cluegym.agents import registered_agents\nregistered_agents()\n", env)
    assert done.returncode != 0 and message in done.stderr, done.stderr
    listed = subprocess.run([sys.executable, "-m", "cluegym.cli", "list"], env=env, capture_output=True, text=True)
    assert listed.returncode == 2 and listed.stderr.startswith("cluegym: error: entry point"), listed.stderr


def test_check_agent_spec_checks_what_make_agent_would_build_without_building_it():
    cls, params = check_agent_spec("random:seed=4", game="decrypto", seat="eve")
    assert cls is RandomAgent and params == {"seed": 4}
    for spec, message in [("nobody", "unknown agent 'nobody'"), ("random:colour=red", "colour"),
                          ("random:seed", "is not key=value"), (7, "an agent spec must be a str")]:
        with pytest.raises(AgentSpecError, match=message):
            check_agent_spec(spec, game="decrypto", seat="eve")


def test_a_versioned_game_id_builds_agents_as_its_game_name_does():
    from cluegym.agents import game_name, run_match
    from cluegym.wrappers.multiseat import MultiSeatEnv
    from cluegym.wrappers.selfplay import SelfPlayEnv
    assert game_name("decrypto_v0") == "decrypto" and game_name("nosuch") == "nosuch"
    space = cluegym.make("decrypto_v0").action_space("alice")
    assert make_agent("glove", game="decrypto_v0", seat="alice", action_space=space).game == "decrypto"
    versioned = run_match("decrypto_v0", {"*": "glove"}, games=2, seed=0, progress=False)
    assert versioned["ok"] and versioned["metrics"] == run_match("decrypto", {"*": "glove"}, games=2, seed=0,
                                                                   progress=False)["metrics"]
    MultiSeatEnv("decrypto_v0", ["bob"]).reset(seed=0)  # default opponents: glove
    SelfPlayEnv("decrypto_v0", "bob").reset(seed=0)
