"""The usage examples in docstrings run, and print what they show.

Each module listed runs every ``>>>`` example of its docstrings (the module's, its classes',
functions' and methods'), read from its ``.py`` source so that a compiled module's examples
run too, with the module's own globals, in an empty working folder. Every module with a
``>>>`` example is listed (:func:`test_every_module_with_examples_is_listed`): an example
that needs the network, a model server, Ray or minutes of training is marked
``# doctest: +SKIP`` in place, and the module's other examples run. Examples that had drifted from the code (an argument renamed, a similarity of
another GloVe) are why this test exists.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.util
from pathlib import Path

import pytest

MODULES = (
    "cluegym", "cluegym.agents", "cluegym.agents.base", "cluegym.agents.embedding.decrypto",
    "cluegym.agents.embedding.dixit", "cluegym.agents.embedding.speech", "cluegym.agents.embedding.taboo",
    "cluegym.agents.embedding.undercover", "cluegym.agents.encoders", "cluegym.agents.encoders.cache",
    "cluegym.agents.encoders.images", "cluegym.agents.encoders.loaders", "cluegym.agents.encoders.sentences",
    "cluegym.agents.encoders.vocabulary", "cluegym.agents.encoders.words", "cluegym.agents.hf",
    "cluegym.agents.human", "cluegym.agents.llm.adapters.decrypto_user_variants",
    "cluegym.agents.llm.adapters.decrypto_variants", "cluegym.agents.llm.adapters.generic",
    "cluegym.agents.llm.agent", "cluegym.agents.llm.backends", "cluegym.agents.llm.backends.base",
    "cluegym.agents.llm.backends.cache", "cluegym.agents.llm.backends.http11", "cluegym.agents.llm.backends.local",
    "cluegym.agents.llm.backends.messages", "cluegym.agents.llm.backends.openai_http",
    "cluegym.agents.llm.backends.registry", "cluegym.agents.llm.backends.scripted", "cluegym.agents.llm.checks",
    "cluegym.agents.llm.comet", "cluegym.agents.llm.comet.feedback", "cluegym.agents.llm.comet.pool",
    "cluegym.agents.llm.comet.prompts", "cluegym.agents.llm.comet.taboo", "cluegym.agents.llm.comet.undercover",
    "cluegym.agents.llm.deadline", "cluegym.agents.llm.fake_server", "cluegym.agents.llm.fault_server",
    "cluegym.agents.llm.parsing", "cluegym.agents.random_agent", "cluegym.benchmarks.comet_common",
    "cluegym.benchmarks.comet_figure4", "cluegym.benchmarks.comet_table2", "cluegym.benchmarks.decrypto_figure2",
    "cluegym.benchmarks.decrypto_figure3", "cluegym.benchmarks.decrypto_figure4", "cluegym.benchmarks.decrypto_tom",
    "cluegym.benchmarks.dixit_handswap", "cluegym.benchmarks.dixit_human_eval", "cluegym.benchmarks.dixit_paper",
    "cluegym.benchmarks.dixit_roundrobin", "cluegym.benchmarks.dixitbench_build",
    "cluegym.benchmarks.dixitbench_eval", "cluegym.benchmarks.host", "cluegym.benchmarks.leaderboard",
    "cluegym.benchmarks.learner_throughput", "cluegym.benchmarks.peers", "cluegym.benchmarks.pgo",
    "cluegym.benchmarks.play_server", "cluegym.benchmarks.plotting", "cluegym.benchmarks.ratings",
    "cluegym.benchmarks.replay_html", "cluegym.benchmarks.throughput", "cluegym.benchmarks.tournament",
    "cluegym.benchmarks.tournament_report", "cluegym.benchmarks.train_scripts", "cluegym.benchmarks.usage",
    "cluegym.benchmarks.vec_training", "cluegym.compiled", "cluegym.envs.core.base", "cluegym.envs.core.data",
    "cluegym.envs.core.extensions", "cluegym.envs.core.hints", "cluegym.envs.core.infos",
    "cluegym.envs.core.matching", "cluegym.envs.core.memo", "cluegym.envs.core.options",
    "cluegym.envs.core.parallel", "cluegym.envs.core.record", "cluegym.envs.core.registry",
    "cluegym.envs.core.results", "cluegym.envs.core.rng", "cluegym.envs.core.rules", "cluegym.envs.core.seats",
    "cluegym.envs.core.spaces", "cluegym.envs.core.text", "cluegym.envs.core.wrapping", "cluegym.envs.decrypto.env",
    "cluegym.envs.decrypto.rules", "cluegym.envs.dixit.config", "cluegym.envs.dixit.deck",
    "cluegym.envs.dixit.deck_options", "cluegym.envs.dixit.env", "cluegym.envs.dixit.human_eval",
    "cluegym.envs.dixit.metrics", "cluegym.envs.dixit.render", "cluegym.envs.dixit.rules",
    "cluegym.envs.dixit.scoring", "cluegym.envs.dixit.seating", "cluegym.envs.dixit.state",
    "cluegym.envs.taboo.env", "cluegym.envs.taboo.rules", "cluegym.envs.undercover.beliefs",
    "cluegym.envs.undercover.config", "cluegym.envs.undercover.env", "cluegym.envs.undercover.judge",
    "cluegym.envs.undercover.metrics", "cluegym.envs.undercover.rules", "cluegym.envs.undercover.speech_metrics",
    "cluegym.envs.undercover.state", "cluegym.envs.undercover.view", "cluegym.envs.undercover.word_pairs",
    "cluegym.harness", "cluegym.harness.agent_protocol", "cluegym.harness.arguments", "cluegym.harness.distributed",
    "cluegym.harness.match_game", "cluegym.harness.play", "cluegym.harness.results", "cluegym.harness.runner",
    "cluegym.harness.seats", "cluegym.harness.seeding", "cluegym.harness.stopping", "cluegym.training.callback",
    "cluegym.training.config", "cluegym.training.evaluation", "cluegym.training.policies",
    "cluegym.training.policy_agent", "cluegym.training.reporting", "cluegym.training.rllib_config",
    "cluegym.training.rllib_engine", "cluegym.training.rllib_env", "cluegym.training.rllib_scorer",
    "cluegym.training.schedule", "cluegym.training.train", "cluegym.wrappers.candidates",
    "cluegym.wrappers.decrypto", "cluegym.wrappers.decrypto_scores", "cluegym.wrappers.dixit",
    "cluegym.wrappers.featurizers", "cluegym.wrappers.multiseat", "cluegym.wrappers.numeric",
    "cluegym.wrappers.policy_pool", "cluegym.wrappers.registration", "cluegym.wrappers.seat_task",
    "cluegym.wrappers.selfplay", "cluegym.wrappers.shaping", "cluegym.wrappers.similarity",
    "cluegym.wrappers.taboo", "cluegym.wrappers.text_rows", "cluegym.wrappers.undercover",
    "cluegym.wrappers.vec_env",
)


def _source(name: str) -> Path:
    """The ``.py`` a module was built from (a compiled module's ``origin`` is its ``.so``)."""
    origin = Path(importlib.util.find_spec(name).origin)
    return origin if origin.suffix == ".py" else origin.with_name(origin.name.split(".")[0] + ".py")


def _docstrings(path: Path) -> list[tuple[str, str, int]]:
    """(qualified name, docstring, line) of the module and every class and function in it."""
    found: list[tuple[str, str, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        text = ast.get_docstring(node, clean=False)
        if text is not None:
            found.append((prefix or "<module>", text, node.body[0].lineno))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(child, f"{prefix}.{child.name}" if prefix else child.name)

    walk(ast.parse(path.read_text()), "")
    return found


@pytest.mark.parametrize("name", MODULES)
def test_a_modules_docstring_examples_run_as_written(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    module = importlib.import_module(name)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    examples = 0
    for where, text, line in _docstrings(_source(name)):
        test = parser.get_doctest(text, dict(module.__dict__), f"{name}:{where}", str(_source(name)), line)
        examples += len(test.examples)
        report: list[str] = []
        result = runner.run(test, out=report.append)
        if result.failed:
            failures.append("".join(report))
    assert examples, f"{name} has no docstring examples: take it off the list"
    assert not failures, "\n".join(failures)


def test_every_module_with_examples_is_listed():
    # A module whose examples are not run drifts from its code unnoticed (nearly all of the
    # 50 modules added in one pass had an example that no longer ran): a new one joins the list.
    root = Path(importlib.util.find_spec("cluegym").origin).parent.parent  # the source tree
    listed = set(MODULES)
    unlisted = []
    for folder in ("cluegym", "envs", "wrappers", "harness", "agents", "training", "benchmarks"):
        for path in sorted((root / folder).rglob("*.py")):
            if ">>>" not in path.read_text():
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join(parts if parts[0] == "cluegym" else ["cluegym", *parts])
            if name not in listed:
                unlisted.append(name)
    assert not unlisted, f"docstring examples not run (add to MODULES once they run): {unlisted}"
