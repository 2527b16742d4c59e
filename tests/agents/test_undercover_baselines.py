"""Undercover embedding baselines: valid related descriptions, other-word and role inference,
camouflage, voting, belief reports, full matches, and baseline vs random."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cluegym
from cluegym.agents import make_agent, run_match
from cluegym.envs.core.matching import says_word


@pytest.fixture(scope="module")
def env():
    e = cluegym.make("undercover")
    e.reset(seed=0, options={"words": ["bee", "butterfly"], "undercover": [3, 4]})
    return e


def player(env, spec="glove", seat="player_0", seed=0):
    agent = make_agent(spec, game="undercover", seat=seat, action_space=env.action_space(seat), seed=seed)
    agent.reset(seed)
    return agent


def observation(word: str, me: int, said: dict[int, list[str]], phase: int = 0, rounds: int = 10,
                alive: tuple[int, ...] = (1, 1, 1, 1, 1)) -> dict:
    """A hand-made observation: ``said`` maps player -> descriptions, one per round."""
    n = len(alive)
    descriptions = [[""] * n for _ in range(rounds)]
    for p, texts in said.items():
        for r, text in enumerate(texts):
            descriptions[r][p] = text
    mask = np.array(alive, dtype=np.int8)
    mask[me] = 0
    played = max((len(t) for t in said.values()), default=0)
    return {"word": word, "player": me, "phase": phase, "round": played, "team_sizes": np.array([3, 2]),
            "alive": np.array(alive, dtype=np.int8), "descriptions": tuple(tuple(r) for r in descriptions),
            "vote_mask": mask}


BEE_TALK = ["honey", "hive", "sting"]
BUTTERFLY_TALK = ["caterpillar", "wings", "moth"]


def test_descriptions_are_valid_related_and_never_repeated(env):
    agent = player(env, "glove:k=1")
    obs = observation("bee", 0, {})
    first = agent.act(obs, {})["description"]
    assert first and not says_word(first, "bee")
    vectors = agent.vectors
    assert float(vectors.vector(first) @ vectors.vector("bee")) > float(vectors.vector(first) @ vectors.vector("car"))
    # k=1 is deterministic; once that word has been said by anyone it is not said again
    assert agent.act(obs, {})["description"] == first
    again = agent.act(observation("bee", 0, {1: [first]}), {})["description"]
    assert again != first and not says_word(again, "bee")
    wide = {player(env, "glove:k=20", seed=s).act(obs, {})["description"] for s in range(12)}
    assert len(wide) > 4 and not any(says_word(w, "bee") for w in wide)


def test_infers_teammates_other_word_and_own_role(env):
    agent = player(env)
    # I have "bee"; players 1, 2 talk bee, players 3, 4 talk butterfly: I am a civilian.
    said = {1: BEE_TALK[:2], 2: ["pollen", "wasp"], 3: BUTTERFLY_TALK[:2], 4: ["cocoon", "colorful"]}
    belief = agent.beliefs(observation("bee", 0, said))
    assert belief["self"] == "civilian"
    assert belief["others"] == {"1": "teammate", "2": "teammate", "3": "opponent", "4": "opponent"}
    assert not says_word(belief["other_word"], "bee")
    # I have "butterfly" and three players talk bee: I am undercover, the civilians' word is bee-like.
    said = {0: BEE_TALK[:2], 1: ["pollen", "wasp"], 2: ["beekeeper", "nectar"], 4: BUTTERFLY_TALK[:2]}
    belief = agent.beliefs(observation("butterfly", 3, said))
    assert belief["self"] == "undercover" and belief["others"]["4"] == "teammate"
    vec = agent.vectors
    bee_talk = vec.vector("honey hive pollen wasp nectar")
    assert float(vec.vector(belief["other_word"]) @ bee_talk) > float(vec.vector("butterfly") @ bee_talk)
    assert agent.beliefs(observation("bee", 0, {})) is None


def test_undercover_camouflages_from_round_two(env):
    said = {0: ["honey", "pollen"], 1: ["hive", "wasp"], 2: ["beekeeper", "nectar"], 4: ["caterpillar", "moth"]}
    obs = observation("butterfly", 3, said)
    vec = player(env).vectors
    bee_talk = vec.vector("honey pollen hive wasp beekeeper nectar")

    def closer_to_bee_talk(text: str) -> bool:
        return float(vec.vector(text) @ bee_talk) > float(vec.vector(text) @ vec.vector("butterfly"))

    camouflaged = [player(env, "glove:k=5", seed=seed).act(obs, {})["description"] for seed in range(8)]
    assert not any(says_word(text, "butterfly") for text in camouflaged)
    assert sum(map(closer_to_bee_talk, camouflaged)) >= 6
    honest = [player(env, "glove:k=5,camouflage_round=0", seed=seed).act(obs, {})["description"] for seed in range(8)]
    assert sum(map(closer_to_bee_talk, honest)) <= 2


def test_votes_for_the_worst_fit_among_living_others(env):
    said = {0: ["honey"], 1: ["hive"], 2: ["wasp"], 3: ["caterpillar"], 4: ["pollen"]}
    agent = player(env)
    action = agent.act(observation("bee", 0, said, phase=1), {})
    assert action["vote"] == 3
    beliefs = json.loads(action["beliefs"])
    assert beliefs["self"] == "civilian" and beliefs["others"]["3"] == "opponent"
    # player 3 eliminated: vote among the living others only
    action = agent.act(observation("bee", 0, said, phase=1, alive=(1, 1, 1, 0, 1)), {})
    assert action["vote"] in (1, 2, 4)
    quiet = player(env, "glove:report_beliefs=false").act(observation("bee", 0, said, phase=1), {})
    assert quiet["beliefs"] == ""


def test_full_games_are_valid_and_report_beliefs():
    summary = run_match("undercover", {"*": "glove"}, games=4, seed=1, progress=False)
    m = summary["metrics"]
    assert m["games"] == 4 and m["invalid_actions"] == 0 and m["fallbacks"] == 0
    assert m["belief_reports"] > 0 and 0 <= m["civilian"]["SIAA"] <= 1
    assert m["civilian"]["FER"] is None and m["undercover"]["FER"] is None  # no features reported: n/a, never 0


@pytest.mark.slow
@pytest.mark.parametrize("embedding", ["word2vec", "minilm"])
def test_other_embeddings_play_full_games(embedding):
    summary = run_match("undercover", {"*": embedding}, games=2, seed=2, progress=False)
    assert summary["metrics"]["invalid_actions"] == 0


@pytest.mark.slow
def test_baseline_civilians_beat_random_undercover():
    env_kwargs = {"undercover_seats": [3, 4]}
    vs_random = run_match("undercover", {"*": "glove", "player_3": "random", "player_4": "random"},
                          games=20, seed=0, env_kwargs=env_kwargs, progress=False)["metrics"]
    all_random = run_match("undercover", {"*": "random"}, games=20, seed=0, env_kwargs=env_kwargs,
                           progress=False)["metrics"]
    assert vs_random["civilian_win_rate"] >= 0.8
    assert vs_random["civilian_win_rate"] > all_random["civilian_win_rate"] + 0.2


def _random_game(seed: int) -> tuple[list[dict], str]:
    """The actions of a seeded all-random game, and its record as JSON."""
    env = cluegym.make("undercover")
    env.reset(seed=seed)
    agents = {seat: player(env, "random", seat, seed + i) for i, seat in enumerate(env.possible_agents)}
    actions = []
    for seat in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        action = None if term or trunc else agents[seat].act(obs, info)
        if action is not None:
            actions.append(action)
        env.step(action)
    return actions, json.dumps(env.unwrapped.game_record())


def test_the_random_agent_leaves_beliefs_empty_and_plays_the_same_games(monkeypatch):
    from cluegym.envs.core.registry import env_module

    undercover_env = env_module("undercover")
    for seed in range(3):
        actions, record = _random_game(seed)
        assert actions and all(action["beliefs"] == "" for action in actions)
        assert "beliefs are not JSON" not in record  # no unreadable report at every move
        with monkeypatch.context() as patch:  # the entry filled with a word, as before
            patch.setattr(undercover_env, "RANDOM_AGENT_EMPTY_ENTRIES", ())
            filled, filled_record = _random_game(seed)
        assert "beliefs are not JSON" in filled_record
        # the same draws: every description and vote is the one the filled entry gave
        assert [{**action, "beliefs": None} for action in actions] == [{**action, "beliefs": None} for action in filled]


def _records(path):
    run_match("undercover", {"*": "glove"}, games=3, seed=4, progress=False, results_path=path)
    return [json.loads(line)["record"] for line in path.read_text().splitlines()]


def test_kept_neighbour_rankings_are_fresh_ones_and_change_no_game(env, monkeypatch, tmp_path):
    """The vocabulary keeps each query's ranking (the same word's neighbours are asked at
    every turn): a kept ranking is the one a fresh search gives, and games played with
    nothing kept are the same games."""

    baseline = player(env)
    vocab = baseline.vocab
    rng = np.random.default_rng(0)
    for vector in [baseline.encoder.word("bee"), baseline.encoder.word("garden"),
                   rng.normal(size=vocab.matrix.shape[1]).astype(np.float32)]:
        for depth in (10, 200, len(vocab.words)):
            scores = vocab.matrix @ vector
            top = (np.argpartition(-scores, depth - 1)[:depth] if depth < len(vocab.words)
                   else np.arange(len(vocab.words)))
            fresh = top[np.argsort(-scores[top], kind="stable")]
            kept = vocab._ranked(vector, depth)
            np.testing.assert_array_equal(kept, fresh)
            assert vocab._ranked(vector.copy(), depth) is kept and not kept.flags.writeable
    kept_scores = vocab._scores.get((baseline.encoder.word("bee").tobytes(), "<f4"))
    np.testing.assert_array_equal(kept_scores, vocab.matrix @ baseline.encoder.word("bee"))
    assert not kept_scores.flags.writeable  # shared by the rankings of every depth
    expected = _records(tmp_path / "kept.jsonl")
    # every ranking searched afresh, from similarities computed afresh
    monkeypatch.setattr(vocab._rankings, "put", lambda key, value: None)
    monkeypatch.setattr(vocab._scores, "put", lambda key, value: None)
    vocab._rankings.clear()
    vocab._scores.clear()
    assert _records(tmp_path / "fresh.jsonl") == expected
    assert not vocab._rankings and not vocab._scores


def test_kept_fits_are_fresh_ones_and_change_no_game(env, monkeypatch, tmp_path):
    """A speaker's fit to a word is kept per descriptions and word (the civilians vote on the
    same descriptions with the same word): each is the mean similarity computed afresh, a
    fit kept for one word is not read for another, and games with nothing kept are the same."""
    from cluegym.agents.embedding import undercover as module

    baseline = player(env)
    said = {1: ["honey", "hive"], 2: ["wings"], 3: ["caterpillar"]}
    for word in ("bee", "butterfly", "bee"):
        vector = baseline.encoder.word(word)
        fresh = {p: float(np.mean(baseline.encoder.texts(texts) @ vector)) for p, texts in said.items()}
        assert baseline._fits(said, 0, word) == fresh
    assert baseline._fits(said, 1, "bee").keys() == {2, 3}  # its own descriptions are not read
    expected = _records(tmp_path / "kept.jsonl")
    monkeypatch.setattr(module._FITS, "put", lambda key, value: None)
    module._FITS.clear()
    assert _records(tmp_path / "fresh.jsonl") == expected
    assert not module._FITS


def test_kept_descriptions_table_and_unit_vectors_are_fresh_ones(env, monkeypatch, tmp_path):
    """The players read one descriptions table at a step (beliefs, then vote): the last one
    read is kept while it is immutable (tuples), never a list table that may change in place;
    a unit vector is np.linalg.norm's, bit for bit; games with nothing kept are the same."""
    from cluegym.agents.embedding import undercover as module

    baseline = player(env)
    obs = observation("bee", 0, {1: ["honey", "silence"], 2: ["wings"], 3: ["hive"]})
    first = baseline._said_by(obs)
    assert first == {1: ["honey", "silence"], 2: ["wings"], 3: ["hive"]}
    assert baseline._said_by(dict(obs)) is first  # the same table: read once
    listed = [list(row) for row in obs["descriptions"]]
    assert baseline._said_by({"descriptions": listed}) == first
    listed[1][4] = "pollen"  # changed in place: read again, not the kept reading
    assert baseline._said_by({"descriptions": listed})[4] == ["pollen"]
    assert module._SAID_BY[0] == obs["descriptions"]  # lists are never the kept table
    as_array = np.array(obs["descriptions"])  # an array table: read, compared with nothing
    assert baseline._said_by({"descriptions": as_array}) == first
    assert baseline._said_by({"descriptions": tuple(map(list, obs["descriptions"]))}) == first
    assert module._SAID_BY[0] == obs["descriptions"]
    rng = np.random.default_rng(5)
    for v in [baseline.encoder.word("bee"), rng.normal(size=50).astype(np.float32),
              rng.normal(size=(2, 50)).astype(np.float32)[:, 7], np.zeros(50, dtype=np.float32)]:
        n = float(np.linalg.norm(v))
        want = v / n if n > 0 else v
        assert baseline._unit(v).tobytes() == want.tobytes()
    expected = _records(tmp_path / "kept.jsonl")
    monkeypatch.setattr(module, "_SAID_BY", _NeverKept())
    assert _records(tmp_path / "fresh.jsonl") == expected


class _NeverKept(list):
    """A stand-in for the kept table that holds nothing (every reading is made afresh)."""

    def __init__(self) -> None:
        super().__init__([None, None])

    def __setitem__(self, index, value) -> None:
        pass


def test_unsaid_neighbours_are_the_general_search(env):
    """The other-word candidates kept per own word and read on lazily are the words the
    general neighbour search with the same exclusions gives: with little said, with more
    said later (the kept start is read on), and with the kept depth eaten (the general
    search goes deeper)."""
    from cluegym.agents.embedding.speech import SaidFilter, says

    vocab = player(env).vocab
    own = player(env).encoder.word("bee")
    ranked = [vocab.words[i] for i in vocab._ranked(own, len(vocab.words))[:2000].tolist()]
    vocab._unsaid.clear()
    for k, said_texts in [(300, ["honey"]), (300, ["honey", "hive", *ranked[:250]]), (8, ranked[:60]),
                          (300, ranked[:1500])]:
        said = SaidFilter(["bee", *said_texts])
        general = vocab.neighbours(own, k, exclude=lambda w: said(w) or says(w, "bee"))
        assert [vocab.words[i] for i in vocab.unsaid_neighbours(own, k, "bee", said)] == general
        assert len(general) == k


def test_said_filter_forms_are_each_words_stems_and_lemmas():
    """A filter's forms are the union of its texts' forms (kept per text): the stems and
    lemmas of every word part but the stopwords, whatever order the texts come in."""
    from cluegym.agents.embedding.speech import SaidFilter, text_forms, word_forms
    from cluegym.agents.encoders.vocabulary import STOPWORDS
    from cluegym.envs.core.text import tokens

    texts = ["It is a honey-bee's hive.", "Flowers, flowering", "the of and", "", "bee"]
    for text in texts:
        parts = [p for tok in tokens(text) for p in tok.replace("'", "-").split("-") if p and p not in STOPWORDS]
        assert text_forms(text) == frozenset().union(*(word_forms(p) for p in parts))
    assert text_forms("the of and") == frozenset()
    said = SaidFilter(texts)
    assert {"honey", "bee", "hive", "flower"} <= said.forms
    assert said.forms == SaidFilter(reversed(texts)).forms == set().union(*(text_forms(t) for t in texts))
    assert said("bees") and said("flower") and not said("tractor")


def test_split_scores_are_the_masked_norms_bit_for_bit():
    """The team split's scores, computed for every split at once, are the per-split
    ``norm(points[mask].sum(0)) + norm(points[~mask].sum(0))`` bit for bit (a near-tie
    decides the split, so a last-bit difference could change a belief), in the order of
    ``itertools.combinations``."""
    import itertools

    from cluegym.agents.embedding.undercover import _split_scores

    rng = np.random.default_rng(3)
    for n in range(2, 9):
        for dtype in (np.float32, np.float64):
            points = rng.normal(size=(n, 300)).astype(dtype)
            points /= np.linalg.norm(points, axis=1, keepdims=True)
            for size in range(1, n):
                splits, scores = _split_scores(points, size)
                assert splits == list(itertools.combinations(range(n), size))
                for split, score in zip(splits, scores):
                    mask = np.zeros(n, dtype=bool)
                    mask[list(split)] = True
                    expected = float(np.linalg.norm(points[mask].sum(axis=0)) + np.linalg.norm(points[~mask].sum(axis=0)))
                    assert score == expected


def test_rankings_with_tied_scores_are_the_partition_ones():
    """A ranking is found by top_order's bounded partition when its scores are all distinct,
    and by the whole partition, as it always was, when two of them tie (duplicate vectors):
    either way the ranking the partition and a stable sort give."""
    from cluegym.agents.embedding.speech import Vocabulary

    rng = np.random.default_rng(5)
    base = rng.normal(size=(600, 8)).astype(np.float32)
    matrix = np.concatenate([base, base[:300:7], base[10:20]])  # duplicated rows: tied scores
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    vocab = Vocabulary([f"w{i}" for i in range(len(matrix))], matrix)
    for vector in [matrix[3], matrix[15], rng.normal(size=8).astype(np.float32)]:
        scores = matrix @ vector
        for depth in (1, 5, 40, 97, 300, len(matrix)):
            top = (np.argpartition(-scores, depth - 1)[:depth] if depth < len(matrix) else np.arange(len(matrix)))
            np.testing.assert_array_equal(vocab._ranked(vector, depth), top[np.argsort(-scores[top], kind="stable")])
