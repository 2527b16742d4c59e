"""Alice's learner candidates follow the env's configured hint rule (the rules' own check)."""

from __future__ import annotations

import cluegym
from cluegym.envs.core.matching import hint_keyword
from cluegym.envs.decrypto.rules import DecryptoConfig, DecryptoRules
from cluegym.wrappers.decrypto import HintCandidates, seat_task

# keywords whose close words often contain them as letters: seal/season (sea), pencil (pen)
KEYWORDS = ("sea", "arm", "ice", "pen")


def test_candidates_are_exactly_hints_the_rules_accept():
    paper = HintCandidates(n=8).ranked(KEYWORDS)
    strict = HintCandidates(n=8, config=DecryptoConfig(hint_rule="substring")).ranked(KEYWORDS)
    paper_rules, strict_rules = DecryptoRules(DecryptoConfig()), DecryptoRules(DecryptoConfig(hint_rule="substring"))
    assert all(paper_rules.hint_error(w, KEYWORDS) is None for words in paper for w in words)
    assert all(strict_rules.hint_error(w, KEYWORDS) is None for words in strict for w in words)
    # the paper's rule keeps words that only share letters with a keyword; the substring rule drops them
    shared_letters = {w for words in paper for w in words if hint_keyword(w, KEYWORDS, "substring")}
    assert {"seal", "pencil"} <= shared_letters
    assert not any(hint_keyword(w, KEYWORDS, "substring") for words in strict for w in words)


def test_seat_task_takes_the_envs_rule():
    env = cluegym.make("decrypto", hint_rule="substring").unwrapped
    candidates = seat_task("alice", env).candidates
    assert candidates.hint_error("seal", KEYWORDS) is not None
    assert seat_task("alice", cluegym.make("decrypto").unwrapped).candidates.hint_error("seal", KEYWORDS) is None


def test_candidates_kept_across_games_equal_a_fresh_ranking():
    # A keyword's facts (similarities, rule verdicts, ranking start) are kept across games:
    # a keyword met again next to other keywords ranks exactly as a fresh ranker does.
    kept = HintCandidates(n=8)
    for keywords in [KEYWORDS, ("sea", "fire", "horse", "arm"), ("pen", "sea", "river", "ice"), KEYWORDS]:
        for code in ([1, 2, 3], [4, 1, 2]):
            observation = {"keywords": keywords, "code": code, "hint_history": [["wave"], [], [], []]}
            assert kept(observation, {}) == HintCandidates(n=8)(observation, {})
        assert kept.ranked(keywords) == HintCandidates(n=8).ranked(keywords)


def test_a_keywords_similarities_do_not_depend_on_the_games_other_keywords():
    # Each keyword's similarity column is the vocabulary's product with its own vector, built
    # once: the same array whatever keywords share its game, and the candidates of a game do
    # not depend on the games played before it.
    import numpy as np

    kept = HintCandidates(n=8)
    kept.ranked(KEYWORDS)
    table = kept.table
    row = table.index["sea"]
    column = table.sims[row].copy()
    _, matrix = kept._vocabulary()
    assert np.array_equal(column, matrix @ kept.words.vector("sea"))
    kept.ranked(("sea", "fire", "horse", "arm"))
    assert table.index["sea"] == row and np.array_equal(table.sims[row], column)
    fresh = HintCandidates(n=8)
    assert fresh.table is table  # one table per embedding, vocabulary and hint check
    assert fresh.ranked(("pen", "sea", "river", "ice")) == kept.ranked(("pen", "sea", "river", "ice"))


def test_the_candidates_pre_check_never_clears_a_hint_the_rule_rejects():
    # Alice's candidates skip the rule's check for a word that shares no form (part, lemma,
    # stem) with a keyword; the skip must be sound: every word it clears passes the env's rule.
    # (All 5,000 words x 681 keywords were checked once; this sample guards against a change
    # of the rule in envs/core/matching.py.)
    from cluegym.envs.core.data import shipped_word_list
    from cluegym.wrappers.decrypto import _HintForms, _KeywordGuard

    vocabulary = shipped_word_list("cluegym.envs.decrypto", "hint_vocab.txt")
    keywords = list(shipped_word_list("cluegym.envs.decrypto", "keywords.txt")[::17]) + list(KEYWORDS) + ["fire"]
    words = list(vocabulary[::7]) + ["seal", "season", "pencil", "fires", "firing", "fire-truck", "mice", "horseshoe"]
    forms = [_HintForms.of(word) for word in words]
    for rule in ("paper", "substring"):
        cleared = 0
        for keyword in keywords:
            guard = _KeywordGuard.of(keyword, rule)
            for word, form in zip(words, forms):
                if guard.clears(form):
                    cleared += 1
                    assert hint_keyword(word, [keyword], rule) is None, (rule, keyword, word)
        assert cleared > 0.9 * len(keywords) * len(words)  # the pre-check does clear most pairs
