"""Test-wide settings: offline model loading, a headless plotting backend.

Heavy models (GloVe, word2vec, MiniLM, SmolLM2) are cached per process by their loaders in
``cluegym.agents.encoders`` / ``cluegym.agents.llm``, so every test shares one load.
"""

from __future__ import annotations

import os

# Nothing in the test suite may reach a model hub: models come from installed packages.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")
