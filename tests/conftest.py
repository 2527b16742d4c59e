"""Test-wide settings: offline model loading, a headless plotting backend.

Heavy models (GloVe, word2vec, MiniLM, SmolLM2) are cached per process by their loaders in
``cluegym.agents.encoders`` / ``cluegym.agents.llm``, so every test shares one load.
"""

from __future__ import annotations

import os
import secrets

import pytest

# Nothing in the test suite may reach a model hub: models come from installed packages.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")
# Ray (RLlib, distributed evaluation) in tests: no usage reports, nothing but this machine.
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# One Ray token for the test session, set before any test starts a cluster (a process reads it
# once): Ray's servers listen on this machine's address, and the token keeps others out of
# every cluster a test starts (in process or `ray start`), with no token file written in ~.
os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))


@pytest.fixture(autouse=True, scope="session")
def _sb3_log_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """SB3's default logger makes an empty folder ``$TMPDIR/SB3-<time>`` at every ``learn()``
    without a logger of its own (tests that train a model directly): put them under pytest's
    temporary folder, which pytest prunes, instead of leaving them in the machine's /tmp."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
