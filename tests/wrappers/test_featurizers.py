"""Featurizers: cached encoders, Decrypto features (layout, bounds, meaning), shaping potentials."""

from __future__ import annotations

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent
from cluegym.envs.decrypto.env import CODES
from cluegym.agents.encoders import LRUCache, WordEncoder, unit_rows
from cluegym.wrappers.decrypto import DecryptoFeatures, potential, seat_task

KEYWORDS = ["guitar", "horse", "castle", "apple"]


@pytest.fixture(scope="module")
def words():
    return WordEncoder("glove")


def test_word_encoder_similarities_and_unknowns(words):
    sims = words.similarity(["fruit", "saddle", "qqqzzz"], ["apple", "horse"])
    assert sims.shape == (3, 2)
    assert sims[0, 0] > sims[0, 1] and sims[1, 1] > sims[1, 0]
    assert not sims[2].any()  # unknown text is the zero vector
    assert np.linalg.norm(words.vector("red apple")) == pytest.approx(1.0, abs=1e-5)
    assert words.vector("fruit") is words.vector("fruit")  # cached


def test_lru_cache_and_unit_rows():
    cache = LRUCache(2)
    for key in "abc":
        cache.put(key, np.zeros(1))
    assert len(cache) == 2 and cache.get("a") is None and cache.get("c") is not None
    rows = unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert rows.tolist() == [[0.6, 0.8], [0.0, 0.0]]
    with pytest.raises(ValueError):
        LRUCache(0)


def _decode_observation(seat, hints, history=None):
    env = cluegym.make("decrypto")
    env.reset(seed=0, options={"keywords": KEYWORDS})
    env.step(tuple(hints))  # Bob's and Eve's codes are legal (masked 1) only once the hints are in
    obs = env.observe(seat)
    obs = dict(obs, hints=tuple(hints))
    if history is not None:
        obs["hint_history"] = tuple(tuple(h) + ("",) * (8 - len(h)) for h in history)
    return obs


@pytest.mark.parametrize("seat", ["bob", "eve"])
def test_layout_and_bounds(seat):
    features = DecryptoFeatures(seat)
    obs = _decode_observation(seat, ["saddle", "fruit", "tower"], [["strings"], ["mane"], ["moat"], ["pie"]])
    vec = features(obs, {})
    assert features.observation_space.contains(vec)
    assert vec.shape == (24 * features.per_choice + features.context,)
    per_code = vec[: 24 * features.per_choice].reshape(24, features.per_choice)
    assert per_code[:, -1].tolist() == [1.0] * 24  # legal flags (nothing revealed yet)


def test_bob_code_scores_rank_the_baseline_guess_first():
    """The per-code keyword score's argmax is the code the Hungarian baseline decodes."""
    features = DecryptoFeatures("bob")
    env = cluegym.make("decrypto")
    bob = make_agent("glove", game="decrypto", seat="bob", action_space=env.action_space("bob"), seed=0)
    bob.reset(0)
    for hints in (["saddle", "fruit", "tower"], ["moat", "strings", "orchard"], ["pony", "knight", "banjo"]):
        obs = _decode_observation("bob", hints)
        per_code = features(obs, {})[: 24 * features.per_choice].reshape(24, features.per_choice)
        assert int(np.argmax(per_code[:, 0])) == bob.act(obs, {})
    # e.g. saddle->horse(2), fruit->apple(4), tower->castle(3)
    k = features.per_choice
    vec = features(_decode_observation("bob", ["saddle", "fruit", "tower"]), {})
    assert CODES[int(np.argmax(vec[: 24 * k : k]))] == (2, 4, 3)
    assert DecryptoFeatures("bob", history=True).per_choice == 7 and k == 3


def _code_scores_row_by_row(features, sims, legal):
    """What DecryptoFeatures._code_scores computes, one matrix at a time with
    mean_deviations (numpy's mean and std of each row): the reference of the batched code."""
    from cluegym.wrappers.featurizers import mean_deviations  # noqa: PLC0415

    pairs = sims[:, np.arange(features.code_length), features.code_digits]
    scores = np.add.reduce(pairs, axis=2)
    np.true_divide(scores, np.intp(pairs.shape[2]), out=scores, casting="unsafe")
    pool = scores[:, legal] if legal.any() else scores
    standardized = np.zeros(scores.shape, dtype=np.float32)
    for m, row in enumerate(pool):
        mean, _, spread = mean_deviations(row)
        if spread >= 1e-6:
            standardized[m] = np.where(legal, (scores[m] - mean) / (3.0 * spread), -1.0)
    return scores.astype(np.float32, copy=False), standardized


@pytest.mark.parametrize("seat", ["bob", "eve"])
def test_code_scores_are_the_row_by_row_means_and_spreads_bit_for_bit(seat):
    """All matrices' code scores at once give each row's numpy mean and std exactly, for any
    legal set (a boolean selection of columns comes in Fortran order: its rows are summed
    differently unless made C-contiguous), flat rows included."""
    features = DecryptoFeatures(seat, history=True)
    rng = np.random.default_rng(7)
    for trial in range(400):
        sims = (rng.random((features._n_matrices, features.code_length, features.n_keywords)) * 2 - 1).astype(np.float32)
        if trial % 50 == 0:
            sims[0] = 0.25  # a flat matrix: spread 0, its standardized row stays 0
        legal = rng.random(features.n_codes) < rng.uniform(0.05, 1.0)
        got = features._code_scores(sims, legal)
        want = _code_scores_row_by_row(features, sims, legal)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_eve_without_history_sees_no_evidence():
    features = DecryptoFeatures("eve")
    vec = features(_decode_observation("eve", ["saddle", "fruit", "tower"]), {})
    per_code = vec[: 24 * features.per_choice].reshape(24, features.per_choice)
    assert not per_code[:, :-1].any()


def test_decrypto_potential_tracks_tokens():
    env = cluegym.make("decrypto")
    env.reset(seed=0)
    raw = env.unwrapped
    assert potential(raw, "bob") == potential(raw, "alice") == -potential(raw, "eve") == 0.0
    raw.state.interceptions = 1
    assert potential(raw, "eve") == pytest.approx(0.5)


def test_task_metric_and_sizes_follow_the_game():
    raw = cluegym.env_module("decrypto").raw_env(max_turns=6)
    task = seat_task("eve", raw)
    assert task.n_actions == 24 and task.featurizer.max_turns == 6
    assert task.score({"interception_rate": 0.25}) == 0.25
    assert seat_task("bob").score({"miscommunication_rate": 0.1}) == pytest.approx(0.9)
    with pytest.raises(ValueError, match="no seat"):
        DecryptoFeatures("mallory")


@pytest.mark.slow
def test_image_and_sentence_encoders_are_cached_unit_vectors():
    import torch
    from importlib import resources

    from PIL import Image

    from cluegym.agents.encoders import ImageEncoder, SentenceEncoder

    torch.set_num_threads(1)
    deck = resources.files("cluegym.envs.dixit") / "data" / "deck"
    cards = [np.asarray(Image.open(deck / f"card_00{i}.jpg").convert("RGB").resize((96, 64))) for i in range(3)]
    images = ImageEncoder()
    feats = images.matrix(cards + [cards[0].copy()])
    assert feats.shape == (4, 1280)
    assert np.allclose(np.linalg.norm(feats, axis=1), 1.0, atol=1e-5)
    assert feats[0] @ feats[3] == pytest.approx(1.0, abs=1e-5) and images.cache.hits >= 1
    assert feats[0] @ feats[1] < 0.999

    sentences = SentenceEncoder()
    sims = sentences.similarity(["a cat sleeps on a sofa"], ["a kitten naps on a couch", "stock markets fell sharply"])
    assert sims[0, 0] > sims[0, 1] + 0.2
    assert sentences.cache.get("a cat sleeps on a sofa") is not None


def test_undercover_voter_features_are_what_a_fresh_featurizer_computes():
    """Two SB3 views played in turn (as in a DummyVecEnv): every feature vector, the games'
    final ones included (``final_features``), equals the one computed from the same
    observation with no round table kept."""
    from cluegym.wrappers import undercover
    from cluegym.wrappers.featurizers import LastResult
    from cluegym.wrappers.selfplay import SelfPlayEnv

    envs = [SelfPlayEnv("undercover", "player_1", opponents={"*": "random"}, task_options={"speaker": "random"},
                        final_features=True) for _ in range(2)]
    masks = [env.reset(seed=i)[1]["action_mask"] for i, env in enumerate(envs)]
    rng = np.random.default_rng(0)
    checked = finals = 0
    while finals < 12:
        for i, env in enumerate(envs):
            features, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(masks[i]))))
            observation, seat_info = env.raw.observe("player_1"), env.raw.infos.get("player_1", {})
            kept = undercover._LAST_TABLE, undercover._LAST_SEEN
            undercover._LAST_TABLE, undercover._LAST_SEEN = LastResult(), undercover._SeenTable()
            try:
                fresh = env.task.featurizer(observation, seat_info)
            finally:
                undercover._LAST_TABLE, undercover._LAST_SEEN = kept
            np.testing.assert_array_equal(features, fresh)
            checked += 1
            if terminated:
                finals += 1
                features, info = env.reset()
            masks[i] = info["action_mask"]
    assert checked > finals


def test_undercover_voters_reading_the_same_objects_get_a_fresh_featurizers_vectors():
    """The multi-seat view, every seat voting: the voters of a round read the env's very
    objects (the table is then taken as it was built, by identity); every vector equals the
    one computed with no table kept. A writeable array is never remembered: changed in
    place, it gives new features."""
    from cluegym.wrappers import undercover
    from cluegym.wrappers.featurizers import LastResult
    from cluegym.wrappers.multiseat import MultiSeatEnv

    env = MultiSeatEnv("undercover", "all", opponents={"*": "random"}, task_options={"speaker": "random"})
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    same_objects = checked = 0
    previous = None
    for _ in range(4):
        for seat in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            raw_observation = env._pending[seat][0]
            shown = raw_observation["descriptions"], raw_observation["alive"], raw_observation["votes"]
            same_objects += previous is not None and all(a is b for a, b in zip(shown, previous))
            previous = shown
            kept = undercover._LAST_TABLE, undercover._LAST_SEEN
            undercover._LAST_TABLE, undercover._LAST_SEEN = LastResult(), undercover._SeenTable()
            try:
                fresh = env.tasks[seat].featurizer(raw_observation, {})
            finally:
                undercover._LAST_TABLE, undercover._LAST_SEEN = kept
            np.testing.assert_array_equal(observation["observation"][: fresh.size], fresh)
            checked += 1
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        env.reset()
    assert checked > 20 and same_objects > checked // 3

    featurizer = env.tasks["player_0"].featurizer
    observation = dict(raw_observation, alive=np.array(raw_observation["alive"]),
                       votes=np.array(raw_observation["votes"]))  # writeable copies
    before = featurizer(observation, {})
    observation["alive"][:] = 0
    observation["alive"][int(observation["player"])] = 1
    after = featurizer(observation, {})
    assert not np.array_equal(before, after)
    undercover._LAST_TABLE, undercover._LAST_SEEN = LastResult(), undercover._SeenTable()
    np.testing.assert_array_equal(after, featurizer(observation, {}))


def test_undercover_table_fit_is_the_cosine_to_the_rest_of_the_living_table():
    """The vectorized table fit (sums for means, the rest as the living total less the
    speaker) equals its definition computed speaker by speaker: the cosine between the
    speaker's centroid and the mean of the other living speakers' unit centroids, 0 for a
    speaker alone among the living or with only zero vectors."""
    from cluegym.wrappers.undercover import _table_fit

    def unit(vector: np.ndarray) -> np.ndarray:
        norm = np.linalg.norm(vector)
        return vector / norm if norm > 0 else vector

    rng = np.random.default_rng(3)
    cases = 0
    for _ in range(300):
        speakers = int(rng.integers(1, 8))
        descriptions = [rng.normal(size=(int(rng.integers(1, 4)), 6)) for _ in range(speakers)]
        if rng.random() < 0.2:  # a speaker whose words are all unknown: zero vectors
            descriptions[int(rng.integers(speakers))][:] = 0.0
        living = (rng.random(speakers) < 0.7).tolist()
        sums = np.array([rows.sum(axis=0) for rows in descriptions])
        got = _table_fit(sums, living)
        for p in range(speakers):
            rest = [q for q in range(speakers) if living[q] and q != p]
            centroid = unit(descriptions[p].mean(axis=0))
            want = float(centroid @ unit(np.mean([unit(descriptions[q].mean(axis=0)) for q in rest], axis=0))) \
                if rest else 0.0
            assert got[p] == pytest.approx(want, abs=1e-9)
            cases += not rest
    assert cases > 0  # the speaker-alone case was met


@pytest.mark.parametrize("width", [1, 3, 5, 0])
def test_undercover_similarities_refuse_a_vector_of_another_width(width):
    """The round table's similarities read the matrix's width of the word's vector: a vector
    of another width is a ValueError on both paths (the build read past a narrower one, and
    numpy's path broadcast a one-wide one)."""
    from cluegym.wrappers.undercover import _similarities

    matrix = np.ones((2, 4), dtype=np.float64)
    with pytest.raises(ValueError, match="for rows of width 4"):
        _similarities(matrix, np.ones(width))
    assert _similarities(matrix, np.full(4, 0.5)) == [2.0, 2.0]


def test_standardize_list_is_standardize_bit_for_bit():
    # The list form (typed loops in the build: featurizers.pxd) gives standardize's floats
    # exactly, below 8 selected values by its own left-to-right sums, from 8 on by standardize.
    from cluegym.wrappers.featurizers import standardize, standardize_list

    rng = np.random.default_rng(8)
    sizes = set()
    for _ in range(2000):
        size = int(rng.integers(0, 13))
        values = rng.normal(size=size)
        if size and rng.random() < 0.1:
            values[:] = values[0]  # no spread
        among = rng.random(size) < 0.7
        got = standardize_list(values.tolist(), among.tolist())
        assert got == standardize(values, among).tolist()
        sizes.add(int(among.sum()))
    assert {0, 1, 2, 7, 8, 10} <= sizes
    with pytest.raises(ValueError, match="3 values but 2 selection flags"):
        standardize_list([1.0, 2.0, 3.0], [True, True])


@pytest.mark.parametrize("num_keywords,code_length", [(4, 3), (5, 4), (6, 4)])
def test_code_scores_loops_and_numpy_agree_bit_for_bit(num_keywords, code_length):
    # The build's loops (decrypto_scores.pxd: float32 sums in numpy's order, its 8-way
    # pairwise sums from 8 values and its halving above 128) against numpy's calls, the
    # definition: 24, 120 and 360 codes, legal sets from none to all, flat rows included.
    from cluegym.envs.decrypto.rules import all_codes
    from cluegym.wrappers import decrypto_scores

    digits = np.array(all_codes(num_keywords, code_length), dtype=np.int64) - 1
    rng = np.random.default_rng(num_keywords)
    pools = set()
    for trial in range(300):
        sims = (rng.random((3, code_length, num_keywords)) * 2 - 1).astype(np.float32)
        if trial % 25 == 0:
            sims[1] = 0.25  # a flat matrix: no spread
        legal = rng.random(len(digits)) < rng.choice([0.0, 0.01, 0.05, 0.3, 0.9, 1.0])
        pools.add(int(legal.sum()) if legal.any() else len(digits))
        want = decrypto_scores._code_scores_numpy(sims, digits, legal)
        got = decrypto_scores.code_scores(sims, digits, legal)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype == np.float32 and a.shape == b.shape and a.tobytes() == b.tobytes()
    assert min(pools) < 8 <= max(pools)
    if len(digits) > 128:
        assert max(pools) > 128
    # Another dtype than the embeddings' float32 takes numpy's calls in that dtype.
    sims64 = rng.random((2, code_length, num_keywords)) * 2 - 1
    legal = rng.random(len(digits)) < 0.5
    for a, b in zip(decrypto_scores.code_scores(sims64, digits, legal),
                    decrypto_scores._code_scores_numpy(sims64, digits, legal)):
        assert a.tobytes() == b.tobytes()
