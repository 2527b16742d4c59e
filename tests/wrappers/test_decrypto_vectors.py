"""Decrypto's learner arithmetic (wrappers/decrypto_scores.py): the build's loops against numpy's
calls bit for bit, the similarities against their definition, the vectors' bounds, and Alice's
keyword table (rankings read past their kept start, a table that starts again)."""

from __future__ import annotations

import numpy as np
import pytest

import cluegym
from cluegym.agents.encoders.words import WordEncoder
from cluegym.envs.decrypto.rules import all_codes
from cluegym.wrappers import decrypto_scores as arithmetic
from cluegym.wrappers.decrypto import DecryptoFeatures, HintCandidates, _KeywordTable
from cluegym.wrappers.similarity import dots_numpy
from cluegym.wrappers.text_rows import TextRows


def _random_observations(games: int, seed: int = 0):
    """(seat, observation, candidates) of every decision of seeded games with random moves."""
    env = cluegym.make("decrypto")
    candidates = HintCandidates(8)
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=seed * 1000 + game)
        for seat in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            cands = candidates(obs, info) if seat == "alice" else None
            yield seat, obs, cands
            if seat == "alice":
                env.step(tuple(cands[int(rng.integers(len(cands)))]))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def _pairwise(values: list[float]) -> float:
    """numpy's pairwise sum, written out (the order the build's dot products follow)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for value in values:
            total += value
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for value in values[i:]:
            total += value
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(values[:half]) + _pairwise(values[half:])


@pytest.mark.parametrize("dim", [3, 8, 50, 129, 384])
def test_a_similarity_is_the_pairwise_double_sum_of_the_products(dim):
    # The definition numpy's path computes (and the build's loops follow): every product in
    # double, summed in np.add.reduce's pairwise order, 50-d GloVe and 384-d MiniLM alike.
    rng = np.random.default_rng(dim)
    left = rng.normal(size=(4, dim)).astype(np.float32)
    right = rng.normal(size=(5, dim)).astype(np.float32)
    got = dots_numpy(left, right)
    for i in range(4):
        for j in range(5):
            assert got[i, j] == _pairwise([float(a) * float(b) for a, b in zip(left[i], right[j])])


def test_guesser_and_alice_vectors_are_what_their_definitions_say():
    """On real games: Bob's keyword block is each hint's cosine with each keyword, Eve's
    history blocks its cosine with the centroid of the keyword's hints and with its closest
    hint, and Alice's per-candidate features the same for her candidates' words (to float32
    rounding: the reference sums by BLAS)."""
    words = WordEncoder("glove")
    bob, eve, alice = DecryptoFeatures("bob", history=True), DecryptoFeatures("eve"), DecryptoFeatures("alice")
    checked = set()
    for seat, obs, cands in _random_observations(12, seed=1):
        history = [[h for h in hints if h] for hints in obs["hint_history"]]
        centre = [np.sum([words.vector(h).astype(np.float64) for h in hs], axis=0) if hs else np.zeros(50)
                  for hs in history]

        def centre_cosine(vector, k):
            norm = np.linalg.norm(centre[k])
            return float(vector @ centre[k] / norm) if norm > 0 else 0.0

        if seat == "alice":
            vec = alice(obs, {}, cands)
            code = [int(d) - 1 for d in obs["code"]]
            keywords = [words.vector(k).astype(np.float64) for k in obs["keywords"]]
            per = vec[: 8 * alice.per_choice].reshape(8, alice.per_choice)
            for i, triple in enumerate(cands):
                for j, word in enumerate(triple):
                    v = words.vector(word).astype(np.float64)
                    kw = [v @ k for k in keywords]
                    hs = [centre_cosine(v, k) for k in range(4)]
                    others = [k for k in range(4) if k != code[j]]
                    want = [kw[code[j]], max(kw[k] for k in others), hs[code[j]], max(hs[k] for k in others)]
                    np.testing.assert_allclose(per[i, 4 * j:4 * j + 4], want, atol=1e-6)
                assert per[i, -1] == 1.0
            assert not per[len(cands):].any()
        elif obs["hints"][0]:
            hints = [words.vector(h).astype(np.float64) for h in obs["hints"]]
            keywords = obs.get("keywords")  # Bob's: Eve has none
            sims = arithmetic.hint_matrices(bob.rows, obs["hints"], keywords, obs["hint_history"], 3, 4)
            m = 0
            for i, h in enumerate(hints):
                for k in range(4):
                    if keywords is not None:
                        assert sims[0, i, k] == pytest.approx(h @ words.vector(keywords[k]).astype(np.float64), abs=1e-6)
                        m = 1
                    assert sims[m, i, k] == pytest.approx(centre_cosine(h, k), abs=1e-6)
                    best = max((h @ words.vector(g).astype(np.float64) for g in history[k]), default=0.0)
                    assert sims[m + 1, i, k] == pytest.approx(best, abs=1e-6)
            featurizer = bob if seat == "bob" else eve
            vec = featurizer(obs, {})
            assert vec.dtype == np.float32 and featurizer.observation_space.contains(vec)
        checked.add((seat, min(int(obs["turn"]), 2)))
    assert {("alice", 2), ("bob", 2), ("eve", 2)} <= checked


def test_the_builds_loops_and_numpy_give_the_same_vectors_bit_for_bit():
    """Each vector function's two paths on the same rows: the loops the compiled build runs
    (where it is built) and numpy's calls; with histories of every length and unknown words."""
    rows = TextRows.of(WordEncoder("glove"))
    rng = np.random.default_rng(5)
    digits = np.array(all_codes(4, 3), dtype=np.int64) - 1
    vocabulary = ["saddle", "fruit", "tower", "moat", "qqqqx", "", "banjo", "orchard", "pony", "knight", "mane",
                  "strings", "pie", "castle", "horse", "apple"]
    for trial in range(200):
        hints = [vocabulary[i] for i in rng.integers(len(vocabulary), size=3)]
        keywords = [vocabulary[i] for i in rng.integers(len(vocabulary), size=4)]
        history = [tuple(vocabulary[i] for i in rng.integers(len(vocabulary), size=rng.integers(0, 9)))
                   for _ in range(4)]
        history = [h + ("",) * (8 - len(h)) for h in history]
        texts = hints + keywords
        starts = [len(texts)]
        arithmetic._history_texts(history, texts, starts)
        found = rows.rows(texts)
        for with_keywords in (True, False):
            n_matrices = (1 if with_keywords else 0) + 2
            numpy_out = np.zeros((n_matrices, 3, 4), dtype=np.float32)
            arithmetic._hint_matrices_numpy(rows.matrix, found, 3, 4, with_keywords, starts, numpy_out)
            public = arithmetic.hint_matrices(rows, hints, keywords if with_keywords else None, history, 3, 4)
            assert public.tobytes() == numpy_out.tobytes()
        legal = (rng.random(24) < 0.6).astype(np.int8)
        context = rng.random(7).astype(np.float32)
        for sims in (public, numpy_out[:1]):  # Eve's two matrices; one alone
            want = np.zeros(24 * (2 * len(sims) + 1) + 7, dtype=np.float32)
            arithmetic._guesser_numpy(sims, digits, legal.view(np.uint8), context, want)
            assert arithmetic.guesser_vector(sims, digits, legal, context).tobytes() == want.tobytes()
        candidates = [tuple(vocabulary[i] for i in rng.integers(len(vocabulary), size=3)) for _ in range(8)]
        code = [int(d) for d in rng.permutation(4)[:3]]
        got = arithmetic.alice_vector(rows, candidates, code, keywords, history, 8, 3, context)
        texts = list(keywords) + [w for c in candidates for w in c]
        starts = [len(texts)]
        arithmetic._history_texts(history, texts, starts)
        found = rows.rows(texts)
        want = np.zeros(8 * 13 + 7, dtype=np.float32)
        owners = [i * 13 + 4 * j for i in range(8) for j in range(3)]
        arithmetic._alice_numpy(rows.matrix, found, 4, code * 8, owners, starts, want)
        want[12:8 * 13:13] = 1.0
        want[8 * 13:] = np.clip(context, -1.0, 1.0)
        assert got.tobytes() == want.tobytes()


def test_a_seats_vector_is_a_function_of_its_observation():
    """Over seeded games every seat's vector is the one a new featurizer makes (nothing a
    featurizer shares with another, the row store or Alice's table, changes a feature), the
    same again when asked twice, and the same from an observation with list (unhashable) parts."""
    kept = {seat: DecryptoFeatures(seat, history=True) for seat in ("alice", "bob", "eve")}
    checked = set()
    for seat, obs, cands in _random_observations(12, seed=1):
        got = kept[seat](obs, {}, cands)
        again = kept[seat](obs, {}, cands)
        fresh = DecryptoFeatures(seat, history=True)(obs, {}, cands)
        listed = dict(obs, hint_history=[list(h) for h in obs["hint_history"]], tokens=list(obs["tokens"]))
        from_lists = DecryptoFeatures(seat, history=True)(listed, {}, cands)
        assert got.tobytes() == again.tobytes() == fresh.tobytes() == from_lists.tobytes()
        checked.add((seat, int(obs["turn"])))
    assert {"alice", "bob", "eve"} == {seat for seat, _ in checked} and max(turn for _, turn in checked) >= 2


def test_every_seats_vector_is_in_its_box():
    features = {seat: DecryptoFeatures(seat, history=True) for seat in ("alice", "bob", "eve")}
    for seat, obs, cands in _random_observations(20, seed=2):
        vec = features[seat](obs, {}, cands)
        assert vec.dtype == np.float32 and vec.shape == features[seat].observation_space.shape
        assert features[seat].observation_space.contains(vec)


def test_text_rows_are_the_encoders_vectors_and_start_again_when_full(monkeypatch):
    words = WordEncoder("glove")
    rows = TextRows(words)
    texts = ["sea", "river", "qqqqx", "sea", "fire truck"]
    found = rows.rows(texts)
    assert found[0] == found[3] and len(set(found)) == 4
    for text, row in zip(texts, found):
        assert rows.matrix[row].tobytes() == words.vector(text).tobytes()
    many = [f"word{i}" for i in range(300)]  # grows past its first 256 rows
    assert rows.rows(many)[-1] == 303 and rows.matrix.shape[0] >= 304
    assert rows.matrix[rows.index["river"]].tobytes() == words.vector("river").tobytes()
    monkeypatch.setattr(TextRows, "MAX_TEXTS", 310)
    again = rows.rows(["lake"] * 3 + ["sea"] * 5)  # would not fit: every row dropped first
    assert again == [0, 0, 0, 1, 1, 1, 1, 1] and len(rows.index) == 2
    assert rows.matrix[1].tobytes() == words.vector("sea").tobytes()


def test_rankings_read_past_their_kept_start_and_a_full_table_starts_again(monkeypatch):
    """Keywords with close neighbours of each other rank many words before finding enough of
    their own: the rankings read past the start each keyword keeps (the whole order is then
    made) and give what the full order gives. A table that fills starts again (a new
    generation): a game's rankings from the old one are made again, with the same candidates."""
    close = ("sea", "ocean", "lake", "river")
    base = HintCandidates(2)
    shared = base.table
    # A table of this test's own, whose rows keep the first 4 words of each order only.
    table = base._table = _KeywordTable(base.words, shared.vocab, shared.matrix, base.hint_error, base.hint_rule)
    for keyword in close:
        table.row(keyword, 1)
    limit = base.limit
    ranked = base.ranked(close)
    assert all(len(table.orders[table.index[k]]) == len(table.vocab) for k in close)  # read past their start
    # The reference: every word of the full order, with the rule's own check (no kept verdicts).
    for k, keyword in enumerate(close):
        sims = {other: table.matrix @ base.words.vector(other) for other in close}
        order = np.argsort(-sims[keyword], kind="stable")
        want = []
        for j in order.tolist():
            if len(want) == limit:
                break
            if all(sims[keyword][j] > sims[o][j] for o in close if o != keyword) \
                    and base.hint_error(table.vocab[j], close) is None:
                want.append(table.vocab[j])
        assert ranked[k] == want
    observation = {"keywords": close, "code": [1, 2, 3], "hint_history": [["wave"], [], [], []]}
    before = base(observation, {})
    monkeypatch.setattr(_KeywordTable, "MAX_KEYWORDS", len(table.keywords))
    other = HintCandidates(2)
    other._table = table
    other(dict(observation, keywords=("horse", "fire", "pen", "ice")), {})  # fills the table: it starts again
    assert table.generation >= 1 and "sea" not in table.index
    assert base(observation, {}) == before


@pytest.mark.parametrize("starts", [[0, 2, 2, 5], [3], [0, 0]])
def test_widened_rows_and_centres_are_their_definition_bit_for_bit(starts):
    """The double rows and group centres every featurizer's loops start from (one helper, the
    build's loops) are numpy's: the rows widened, each group summed left to right, its norm;
    an empty group's centre and norm are 0, one start has no group."""
    from cluegym.wrappers.similarity import centres_numpy, widened_and_centres

    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((9, 50)).astype(np.float32)
    found = [4, 0, 7, 7, 2] if starts[-1] else []
    wide, centres, norms = widened_and_centres(matrix, found, starts)
    want_centres, want_norms = centres_numpy(matrix, found, starts)
    assert wide.dtype == np.float64 and wide.shape == (len(found), 50)
    assert np.array_equal(wide, matrix[found].astype(np.float64).reshape(len(found), 50))
    assert centres.shape == (max(len(starts) - 1, 0), 50)
    assert np.array_equal(centres, want_centres) and np.array_equal(norms, want_norms)


@pytest.mark.parametrize("found, starts", [([0, 9], [0, 2]), ([-1, 2], [0, 2]), ([0, 1], [0, 3]),
                                           ([0, 1], [-1, 2]), ([0, 1, 2], [0, 2, 1])])
def test_widened_rows_and_centres_refuse_rows_and_starts_outside_their_arrays(found, starts):
    """The build's loops read rows and groups through raw pointers: an index past the matrix,
    a negative one (numpy would wrap it), or starts past ``found`` or going back are a
    ValueError on both paths (before the check, the build read garbage or crashed)."""
    from cluegym.wrappers.similarity import widened_and_centres

    matrix = np.arange(27, dtype=np.float32).reshape(9, 3)
    with pytest.raises(ValueError, match="row index|starts must be"):
        widened_and_centres(matrix, found, starts)


def test_the_similarity_modules_public_names_exist_in_either_build():
    """``__all__`` names only what the module exports compiled too (its C helpers are cdef
    functions there): ``from ... import *`` works in both builds."""
    from cluegym.wrappers import similarity

    assert all(hasattr(similarity, name) for name in similarity.__all__)


@pytest.mark.parametrize("rows_given", [3, 5])
def test_a_history_without_one_row_per_keyword_is_refused_before_the_loops(rows_given):
    """The loops read one history centre per keyword through raw pointers: a history of
    another length is a clear ValueError from every entry point, on either path."""
    rows = TextRows.of(WordEncoder("glove"))
    keywords = ["horse", "apple", "tower", "pie"]
    history = [("saddle",) + ("",) * 7] * rows_given
    digits = np.array(all_codes(4, 3), dtype=np.int64) - 1
    context = np.zeros(7, dtype=np.float32)
    with pytest.raises(ValueError, match="one per keyword"):
        arithmetic.hint_matrices(rows, ["mane", "pony", "moat"], keywords, history, 3, 4)
    with pytest.raises(ValueError, match="one per keyword"):
        arithmetic.guesser_features(rows, ["mane", "pony", "moat"], None, history, digits, np.ones(24, np.int8),
                                    context, 3, 4)
    with pytest.raises(ValueError, match="one per keyword"):
        arithmetic.alice_vector(rows, [("mane", "pony", "moat")], [0, 1, 2], keywords, history, 8, 3, context)


@pytest.mark.parametrize("case", ["digit above", "negative digit", "code too long", "legal short", "keywords short"])
def test_codes_legal_flags_and_keywords_of_other_sizes_are_refused_before_the_loops(case):
    """The build's loops read the similarities at each code's digits, a legal flag per code
    and ``n_keywords`` keyword rows through raw pointers: another size is a clear ValueError
    from every entry point (before the check, the build read past its arrays: scores of 2.4e22)."""
    rows = TextRows.of(WordEncoder("glove"))
    keywords = ["horse", "apple", "tower", "pie"]
    digits = np.array(all_codes(4, 3), dtype=np.int64) - 1
    legal = np.ones(24, dtype=np.int8)
    sims = np.random.default_rng(0).random((1, 3, 4), dtype=np.float32)
    if case == "digit above":
        digits[5, 2] = 4
    elif case == "negative digit":
        digits[0, 0] = -1
    elif case == "code too long":
        digits = np.concatenate([digits, digits[:, :1]], axis=1)
    elif case == "legal short":
        legal = legal[:23]
    else:
        keywords = keywords[:3]
    message = {"keywords short": "keywords given", "legal short": "one per code",
               "code too long": r"expected \(codes, 3\)"}.get(case, "not a keyword index")
    context = np.zeros(7, dtype=np.float32)
    if case != "keywords short":
        with pytest.raises(ValueError, match=message):
            arithmetic.code_scores(sims, digits, legal.astype(bool))
        with pytest.raises(ValueError, match=message):
            arithmetic.guesser_vector(sims, digits, legal, context)
    with pytest.raises(ValueError, match=message):
        arithmetic.guesser_features(rows, ["mane", "pony", "moat"], keywords, None, digits, legal, context, 3, 4)


def test_alice_vector_refuses_a_code_digit_that_is_no_keyword():
    rows = TextRows.of(WordEncoder("glove"))
    context = np.zeros(7, dtype=np.float32)
    history = [("",) * 8] * 4
    with pytest.raises(ValueError, match="keyword index"):
        arithmetic.alice_vector(rows, [("mane", "pony", "moat")], [0, 1, 4], ["horse", "apple", "tower", "pie"],
                                history, 8, 3, context)


@pytest.mark.parametrize("form", ["float64", "strided", "list"])
def test_widened_rows_and_centres_read_any_matrix_as_float32_on_both_paths(form):
    """A matrix other than float32 C-contiguous (double, a strided view, nested lists) is read
    as float32, as numpy's path reads it: the same rows and centres as its float32 copy (the
    build took only float32 C-contiguous memory and raised ValueError for the rest)."""
    from cluegym.wrappers.similarity import widened_and_centres

    rng = np.random.default_rng(5)
    wide64 = rng.standard_normal((9, 100))
    matrix = {"float64": wide64[:, :50], "strided": wide64[:, ::2].astype(np.float32),
              "list": wide64[:, :50].tolist()}[form]
    if form == "float64":
        matrix = np.ascontiguousarray(matrix)
    found, starts = [4, 0, 7, 2], [0, 1, 4]
    want = widened_and_centres(np.ascontiguousarray(np.asarray(matrix, dtype=np.float32)), found, starts)
    got = widened_and_centres(matrix, found, starts)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
