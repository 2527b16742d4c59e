"""NumericFeatures: the generic learner features read every numeric field, one-hot or scaled."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from cluegym.envs.core.spaces import int_box, mask_space, text_space
from cluegym.wrappers.numeric import NumericFeatures, numeric_fields

SPACE = gymnasium.spaces.Dict({
    "prompt": text_space(100),
    "turn": gymnasium.spaces.Discrete(3, start=1),
    "scores": int_box(10, (2,)),
    "drift": gymnasium.spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32),
    "history": gymnasium.spaces.Tuple([text_space(5), gymnasium.spaces.MultiBinary(2)]),
    "action_mask": mask_space(3),
})


def test_numeric_fields_skip_text_in_the_space_order():
    paths = [path for path, _ in numeric_fields(SPACE)]  # gymnasium's Dict sorts its keys
    assert paths == [("action_mask",), ("drift",), ("history", 1), ("scores",), ("turn",)]


def test_features_are_one_hot_scaled_or_raw():
    features = NumericFeatures(SPACE)
    obs = {"prompt": "hi", "turn": 2, "scores": np.array([5, 10]), "drift": np.array([-3.5], dtype=np.float32),
           "history": ("x", np.array([1, 0], dtype=np.int8)), "action_mask": np.array([1, 0, 1], dtype=np.int8)}
    vec = features(obs)
    np.testing.assert_allclose(vec, [1, 0, 1, -3.5, 1, 0, 0.5, 1.0, 0, 1, 0])
    assert features.observation_space.contains(vec) and features.observation_space.low[3] == -np.inf


def test_an_observation_without_numbers_has_nothing_to_learn_from():
    with pytest.raises(ValueError, match="no numeric field"):
        NumericFeatures(gymnasium.spaces.Dict({"prompt": text_space(10)}))
