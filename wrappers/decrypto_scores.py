"""Decrypto's learner arithmetic: the similarities :class:`~cluegym.wrappers.decrypto.DecryptoFeatures`
reads, the per-code scores it builds from them, its feature vectors, and the ranking scan of
:class:`~cluegym.wrappers.decrypto.HintCandidates`.

Every function here is one definition with two paths. Run as Python it makes numpy's calls
(the definition); in the compiled build (``decrypto_scores.pxd`` types it; setup.py compiles
the typed modules of ``wrappers/``) it runs C loops that make the same IEEE operations in the
same order, so both paths give the same values bit for bit (``tests/wrappers/test_featurizers.py``
and ``tests/wrappers/test_decrypto_vectors.py`` compare them):

- a **similarity** of two word vectors (unit rows of a :class:`~cluegym.wrappers.text_rows.TextRows`
  matrix) is :mod:`cluegym.wrappers.similarity`'s: their dot product in double, numpy's
  pairwise order, rounded once to float32 (no BLAS: the same on every machine); a hint's
  similarity to a keyword's hint history is its cosine with the history's centroid (the sum
  of its vectors), and its best one with a single hint of it;
- :func:`code_scores`: per matrix and code, the mean similarity of the pairs the code
  asserts, raw and standardized over the legal codes, float32 sums in numpy's order (its
  left-to-right sums below 8 values, its 8-way pairwise sums from 8 on, each mean the sum
  divided in double and rounded to float32);
- :func:`guesser_vector`, :func:`alice_vector`: the feature vectors of Bob and Eve (per code)
  and of Alice (per candidate), clipped to ``[-1, 1]`` (:func:`guesser_features`: Bob's or
  Eve's from their texts in one call);
- :func:`scan_ranking`: the next valid words of one keyword's ranking.

Example:
    >>> from cluegym.envs.decrypto.rules import all_codes
    >>> sims = np.full((1, 3, 4), 0.5, dtype=np.float32)
    >>> digits = np.array(all_codes(4, 3), dtype=np.int64) - 1
    >>> scores, standardized = code_scores(sims, digits, np.ones(24, dtype=bool))
    >>> float(scores[0, 0]), float(standardized[0, 0])
    (0.5, 0.0)
"""

from __future__ import annotations

import math

import numpy as np

try:
    import cython
except ImportError:  # no Cython at run time: the declarations do nothing
    from cluegym.envs.core import cython_fallback as cython

from cluegym.wrappers.similarity import centre_cosines_numpy, centres_numpy, dots_numpy

if not cython.compiled:  # the build cimports its C loops (decrypto_scores.pxd)
    from cluegym.wrappers.similarity import clipped, dot, pairwise_sum, widened_and_centres

__all__ = ["code_scores", "hint_matrices", "guesser_vector", "guesser_features", "alice_vector", "context_vector",
           "scan_ranking", "hint_candidates"]


def code_scores(sims: np.ndarray, code_digits: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per matrix and code, the mean similarity of the pairs the code asserts, raw and
    standardized over the legal codes (divided by 3; -1 for an illegal code; a row whose
    legal scores do not spread stays 0).

    Args:
        sims: ``matrices x code_length x keywords`` similarities (float32: the embeddings';
            another dtype takes numpy's calls, in that dtype).
        code_digits: ``codes x code_length``: each code's keyword per position (0-based).
        legal: per code, whether it is legal (all codes are the pool when none is).

    Returns:
        ``(scores, standardized)``, both ``matrices x codes`` float32. Each row is bit for
        bit what numpy's ``mean`` and ``std`` of that row alone give (the standardized score
        ``(score - mean) / (3 * std)`` with ``3 * std`` taken in double and divided in float32).

    Raises:
        ValueError: ``sims`` not 3-D, or codes that do not fit it (:func:`_checked_codes`).
    """
    if cython.compiled and sims.dtype == np.float32:  # the loops add float32 values, as numpy does here
        flags = np.ascontiguousarray(legal, dtype=bool).view(np.uint8)
        digits = _checked_codes(sims, code_digits, flags.size)
        return _code_scores_loops(np.ascontiguousarray(sims, dtype=np.float32), digits, flags)
    _checked_codes(sims, code_digits, np.size(legal))
    return _code_scores_numpy(sims, code_digits, legal)


def _checked_codes(sims: object, code_digits: object, n_legal: int) -> np.ndarray:
    """``code_digits`` as C-ordered int64 rows (no copy when they are already), after
    checking that ``sims`` is ``matrices x code_length x keywords`` and the codes fit it
    (:func:`_check_codes`): what :func:`code_scores` and :func:`guesser_vector` read."""
    if np.ndim(sims) != 3:
        raise ValueError(f"sims must be matrices x code_length x keywords, got shape {np.shape(sims)}")
    digits = np.ascontiguousarray(code_digits, dtype=np.int64)
    if digits.ndim != 2:
        raise ValueError(f"code_digits has shape {digits.shape}; expected (codes, code_length): each code's keyword "
                         "per position")
    _check_codes(digits, sims.shape[1], sims.shape[2], n_legal)
    return digits


def _no_keyword(digit: int, n_keywords: int) -> ValueError:
    """The error for a code digit that is no keyword's (0-based) index."""
    return ValueError(f"code digit {digit} is not a keyword index in 0..{n_keywords - 1} (0-based)")


def _check_codes(code_digits: np.ndarray, code_length: int, n_keywords: int, n_legal: int) -> None:
    """Raise ValueError unless ``code_digits`` is ``codes x code_length`` keyword indices in
    ``0 .. n_keywords - 1`` and the legal flags have one entry per code: the build's loops read
    the similarities at these digits and a flag per code through raw pointers (other sizes
    read past them), where numpy's calls raise or wrap around. In the build ``code_digits``
    is a typed view (int64, C order) and the check a C loop: Bob's and Eve's every decision."""
    if code_digits.ndim != 2 or code_digits.shape[1] != code_length:
        raise ValueError(f"code_digits has shape {tuple(np.shape(code_digits))}; expected (codes, {code_length}): "
                         "each code's keyword per position")
    if n_legal != code_digits.shape[0]:
        raise ValueError(f"legal has {n_legal} entries; expected one per code ({code_digits.shape[0]})")
    if cython.compiled:
        for c in range(code_digits.shape[0]):
            for j in range(code_length):
                digit = code_digits[c, j]
                if digit < 0 or digit >= n_keywords:
                    raise _no_keyword(digit, n_keywords)
    elif code_digits.size:
        low, high = int(code_digits.min()), int(code_digits.max())
        if low < 0 or high >= n_keywords:
            raise _no_keyword(low if low < 0 else high, n_keywords)


def _code_scores_numpy(sims: np.ndarray, code_digits: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`code_scores` by numpy's calls: the codes' means at once along the last axis;
    every row's mean and spread at once, each by the sums numpy's ``mean`` and ``std`` of
    that row alone make (as :func:`~cluegym.wrappers.featurizers.mean_deviations` computes
    them)."""
    pairs = sims[:, np.arange(code_digits.shape[1]), code_digits]
    scores = np.add.reduce(pairs, axis=2)  # numpy's mean: the sum, divided by the count as intp
    np.true_divide(scores, np.intp(pairs.shape[2]), out=scores, casting="unsafe")
    # C order: numpy sums each row of a C-contiguous pool as it sums the row alone
    # (pairwise); scores[:, legal] comes in Fortran order, whose rows it sums in order.
    pool = np.ascontiguousarray(scores[:, legal]) if legal.any() else scores
    # Every row's mean and spread at once, as mean_deviations computes one row's: each sum
    # divided by the count as an intp and cast back to the scores' dtype.
    dtype = scores.dtype
    count = np.intp(pool.shape[1])
    means = (np.add.reduce(pool, axis=1) / count).astype(dtype)
    deviations = pool - means[:, np.newaxis]
    spreads = np.sqrt((np.add.reduce(deviations * deviations, axis=1) / count).astype(dtype))
    standardized = np.zeros(scores.shape, dtype=np.float32)
    for m in np.flatnonzero(spreads >= 1e-6).tolist():
        # float(spread) * 3.0 in double, rounded to the scores' dtype by the division (a
        # Python float is cast to the array's dtype), as for one row
        standardized[m] = np.where(legal, (scores[m] - means[m]) / (3.0 * float(spreads[m])), -1.0)
    return scores.astype(np.float32, copy=False), standardized


def _code_scores_loops(sims: np.ndarray, code_digits: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`code_scores` as loops (the build's path: decrypto_scores.pxd makes every value
    a C float and every sum a float32 one, in numpy's order). ``legal`` as uint8."""
    matrices, length, keywords, codes = sims.shape[0], code_digits.shape[1], sims.shape[2], code_digits.shape[0]
    scores_array = np.empty((matrices, codes), dtype=np.float32)
    standardized_array = np.zeros((matrices, codes), dtype=np.float32)
    work_array = np.empty(2 * codes, dtype=np.float32)
    scores, standardized, work = scores_array, standardized_array, work_array
    for m in range(matrices):
        _score_codes(cython.address(sims[m, 0, 0]), length, keywords, code_digits, legal, cython.address(work[0]),
                     cython.address(scores[m, 0]), 1, cython.address(standardized[m, 0]), 1, False)
    return scores_array, standardized_array


@cython.boundscheck(False)
@cython.wraparound(False)
def _score_codes(sims: object, length: int, keywords: int, code_digits: np.ndarray, legal: np.ndarray, work: object,
                 scores: object, scores_step: int, standardized: object, standardized_step: int, clip: bool) -> None:
    """One similarity matrix's per-code scores and standardized scores (the build's loops, from
    raw pointers): ``sims`` is the ``length x keywords`` matrix, ``work`` room for ``2 x codes``
    floats; code ``c``'s score goes to ``scores[c * scores_step]`` and its standardized score
    to ``standardized[c * standardized_step]`` (left as it is when the legal scores do not
    spread), each clipped to ``[-1, 1]`` with ``clip``."""
    codes = code_digits.shape[0]
    legal_count = 0
    for c in range(codes):
        legal_count += legal[c] != 0
    count = legal_count if legal_count else codes
    threshold = cython.cast(cython.float, 1e-6)  # numpy compares a float32 spread with float32(1e-6)
    for c in range(codes):
        total = cython.cast(cython.float, 0.0)
        for j in range(length):
            total += sims[j * keywords + code_digits[c, j]]
        score = cython.cast(cython.float, cython.cast(cython.double, total) / length)
        work[codes + c] = score
        scores[c * scores_step] = clipped(score) if clip else score
    used = 0
    for c in range(codes):
        if legal[c] or not legal_count:
            work[used] = work[codes + c]
            used += 1
    mean = cython.cast(cython.float, cython.cast(cython.double, pairwise_sum(work, 0, count)) / count)
    for c in range(count):
        deviation = work[c] - mean
        work[c] = deviation * deviation
    spread = cython.cast(cython.float, math.sqrt(
        cython.cast(cython.float, cython.cast(cython.double, pairwise_sum(work, 0, count)) / count)))
    if spread >= threshold:
        scale = cython.cast(cython.float, 3.0 * spread)
        for c in range(codes):
            value = (work[codes + c] - mean) / scale if legal[c] else cython.cast(cython.float, -1.0)
            standardized[c * standardized_step] = clipped(value) if clip else value


# ----------------------------------------------------------------- the vectors


def _history_texts(history: object, texts: list, starts: list) -> None:
    """Append each keyword's revealed hints (the non-empty entries of its history row) to
    ``texts``, and after each keyword the count so far to ``starts``."""
    for hints in history:
        for hint in hints:
            if hint:
                texts.append(hint)
        starts.append(len(texts))


def hint_matrices(rows: object, hints: object, keywords: object, history: object, code_length: int,
                  n_keywords: int) -> np.ndarray:
    """The similarity matrices of a guesser (``matrices x code_length x n_keywords``, float32).

    In this order: with ``keywords`` (not None), each hint's similarity to each keyword; with
    ``history`` (not None), each hint's cosine with the centroid of each keyword's revealed
    hints, then its best similarity to one of them (0 for a keyword without any). The hints
    are padded with ``""`` (the zero vector: similarity 0) to ``code_length``.

    Args:
        rows: the embedding's :class:`~cluegym.wrappers.text_rows.TextRows`.
        hints, keywords: texts; history: per keyword, its hints padded with ``""``.
    """
    found, starts, with_keywords = _guesser_texts(rows, hints, keywords, history, code_length, n_keywords)
    matrix = rows.matrix
    n_matrices = (1 if with_keywords else 0) + (2 if history is not None else 0)
    out = np.zeros((n_matrices, code_length, n_keywords), dtype=np.float32)
    if n_matrices == 0:
        return out
    if cython.compiled:
        view = out
        _hint_matrices_loops(matrix, found, code_length, n_keywords, with_keywords, starts, cython.address(view[0, 0, 0]))
    else:
        _hint_matrices_numpy(matrix, found, code_length, n_keywords, with_keywords, starts, out)
    return out


def guesser_features(rows: object, hints: object, keywords: object, history: object, code_digits: np.ndarray,
                     legal: object, context: np.ndarray, code_length: int, n_keywords: int) -> np.ndarray:
    """Bob's or Eve's feature vector in one call: :func:`guesser_vector` of the
    :func:`hint_matrices` of these texts (the same vector bit for bit; in the build without
    the matrices' array: one vector made, the matrices on the C stack).

    Raises:
        ValueError: keywords (when given) or history rows other than ``n_keywords``, codes
            other than ``codes x code_length`` keyword indices, or a legal flag count other
            than the codes'.
    """
    n_matrices = (1 if keywords is not None else 0) + (2 if history is not None else 0)
    if not cython.compiled or n_matrices == 0 or n_matrices * code_length * n_keywords > _MAX_SIMS:
        return guesser_vector(hint_matrices(rows, hints, keywords, history, code_length, n_keywords), code_digits,
                              legal, context)
    found, starts, with_keywords = _guesser_texts(rows, hints, keywords, history, code_length, n_keywords)
    # sims: the matrices, a C array of _MAX_SIMS floats on the stack (decrypto_scores.pxd)
    for i in range(n_matrices * code_length * n_keywords):
        sims[i] = 0.0
    _hint_matrices_loops(rows.matrix, found, code_length, n_keywords, with_keywords, starts, cython.address(sims[0]))
    codes = code_digits.shape[0]
    per_choice = 2 * n_matrices + 1
    flags = _flags(legal)
    legal_view, digits = flags, code_digits  # typed views, acquired once (decrypto_scores.pxd)
    _check_codes(digits, code_length, n_keywords, flags.size)
    vector_array = np.zeros(codes * per_choice + len(context), dtype=np.float32)
    work_array = np.empty(2 * codes, dtype=np.float32)
    vector, work = vector_array, work_array
    block = code_length * n_keywords
    for m in range(n_matrices):
        _score_codes(cython.address(sims[m * block]), code_length, n_keywords, digits, legal_view,
                     cython.address(work[0]), cython.address(vector[2 * m]), per_choice,
                     cython.address(vector[2 * m + 1]), per_choice, True)
    _legal_and_context(legal_view, context, vector, codes, per_choice)
    return vector_array


#: The most similarities :func:`guesser_features` keeps on the C stack (3 matrices of 9 hints
#: by 9 keywords: the game's largest sizes).
_MAX_SIMS = 243


def _legal_and_context(legal: np.ndarray, context: np.ndarray, vector: np.ndarray, codes: int,
                       per_choice: int) -> None:
    """Each code's legal flag (the last of its choice block) and the context (clipped) into
    ``vector`` (the build's loop)."""
    for c in range(codes):
        vector[c * per_choice + per_choice - 1] = 1.0 if legal[c] else 0.0
    base = codes * per_choice
    for i in range(context.shape[0]):
        vector[base + i] = clipped(context[i])


def _hint_matrices_numpy(matrix: np.ndarray, found: list, code_length: int, n_keywords: int, with_keywords: bool,
                         starts: list, out: np.ndarray) -> None:
    """:func:`hint_matrices`' arithmetic by numpy's calls (the definition) into ``out``: the
    hints are rows ``found[:code_length]``, the keywords the next ``n_keywords`` (with
    ``with_keywords``), keyword ``k``'s history ``found[starts[k]:starts[k + 1]]`` (with
    more than one start)."""
    hint_vectors = matrix[found[:code_length]]
    m = 0
    if with_keywords:
        out[0] = dots_numpy(hint_vectors, matrix[found[code_length:code_length + n_keywords]])
        m = 1
    if len(starts) > 1:
        centres, norms = centres_numpy(matrix, found, starts)
        out[m] = centre_cosines_numpy(hint_vectors, centres, norms)
        for k in range(n_keywords):
            if starts[k + 1] > starts[k]:
                group = matrix[found[starts[k]:starts[k + 1]]]
                out[m + 1, :, k] = dots_numpy(hint_vectors, group).astype(np.float32).max(axis=1)


@cython.boundscheck(False)
@cython.wraparound(False)
def _hint_matrices_loops(matrix: np.ndarray, found: list, code_length: int, n_keywords: int, with_keywords: bool,
                         starts: list, out: object) -> None:
    """:func:`hint_matrices`' arithmetic as loops (the build's path) into ``out`` (a pointer
    to ``matrices x code_length x n_keywords`` floats, zeroed)."""
    dim = matrix.shape[1]
    wide_array, centres_array, norms_array = widened_and_centres(matrix, found, starts)  # rows in found's order
    wide_view = wide_array
    wide = cython.address(wide_view[0, 0])
    block = code_length * n_keywords
    m = 0
    if with_keywords:
        for i in range(code_length):
            for k in range(n_keywords):
                out[i * n_keywords + k] = cython.cast(cython.float, dot(wide, i * dim, wide, (code_length + k) * dim,
                                                                        dim))
        m = 1
    if len(starts) > 1:
        centres_view, norms_view = centres_array, norms_array
        centres, norms = cython.address(centres_view[0, 0]), cython.address(norms_view[0])
        for i in range(code_length):
            for k in range(n_keywords):
                if norms[k] > 0:
                    out[m * block + i * n_keywords + k] = cython.cast(
                        cython.float, dot(wide, i * dim, centres, k * dim, dim) / norms[k])
                best_set = False
                best = cython.cast(cython.float, 0.0)
                start, stop = starts[k], starts[k + 1]
                for g in range(start, stop):
                    value = cython.cast(cython.float, dot(wide, i * dim, wide, g * dim, dim))
                    if not best_set or value > best:
                        best = value
                        best_set = True
                out[(m + 1) * block + i * n_keywords + k] = best


def _check_history(history: object, n_keywords: int) -> None:
    """Raise unless ``history`` has one row per keyword: the loops read ``n_keywords`` of its
    groups' centres through raw pointers (another count would read past them)."""
    if len(history) != n_keywords:
        raise ValueError(f"hint history has {len(history)} rows; expected one per keyword ({n_keywords})")


def _guesser_texts(rows: object, hints: object, keywords: object, history: object, code_length: int,
                   n_keywords: int) -> tuple:
    """A guesser's texts as rows: ``(found, starts, with_keywords)``: the hints (padded with
    ``""`` to ``code_length``), then the keywords (when not None), then each keyword's
    revealed hints (``found[starts[k]:starts[k + 1]]``; one start only without a history,
    which has ``n_keywords`` rows: :func:`_check_history`)."""
    texts = [str(hint) for hint in list(hints)[:code_length]]
    while len(texts) < code_length:
        texts.append("")
    with_keywords = keywords is not None
    if with_keywords:
        if len(keywords) != n_keywords:  # the loops read n_keywords keyword rows after the hints
            raise ValueError(f"{len(keywords)} keywords given; expected n_keywords ({n_keywords})")
        texts.extend(keywords)
    starts = [len(texts)]
    if history is not None:
        _check_history(history, n_keywords)
        _history_texts(history, texts, starts)
    return rows.rows(texts), starts, with_keywords


def context_vector(history: object, turn: int, tokens: object, max_turns: int, miscommunication_limit: int,
                   interception_limit: int) -> np.ndarray:
    """Every seat's context features (float32): hints revealed per keyword and the turn over
    ``max_turns``, the tokens over their limits (each quotient taken in double, rounded once)."""
    values = []
    for hints in history:
        count = 0
        for hint in hints:
            if hint:
                count += 1
        values.append(count / max_turns)
    values.append(int(turn) / max_turns)
    values.append(int(tokens[0]) / miscommunication_limit)
    values.append(int(tokens[1]) / interception_limit)
    return np.array(values, dtype=np.float32)


def _clip_into(vector: np.ndarray, start: int, values: np.ndarray) -> None:
    """``vector[start:start + len(values)]`` = ``values`` clipped to ``[-1, 1]``."""
    vector[start:start + len(values)] = np.clip(values, -1.0, 1.0)


def _flags(legal: object) -> np.ndarray:
    """``legal`` as contiguous uint8 flags (a 1-byte mask is viewed, not copied)."""
    flags = np.asarray(legal)
    if flags.dtype.itemsize != 1 or flags.dtype.kind not in "biu" or not flags.flags.c_contiguous:
        flags = np.ascontiguousarray(flags, dtype=bool)
    return flags.view(np.uint8)


def guesser_vector(sims: np.ndarray, code_digits: np.ndarray, legal: np.ndarray, context: np.ndarray) -> np.ndarray:
    """Bob's or Eve's feature vector: per code, each matrix's score and standardized score
    (:func:`code_scores`) and whether it is legal, then ``context``; clipped to ``[-1, 1]``.

    Args:
        sims: ``matrices x code_length x keywords`` float32 (:func:`hint_matrices`).
        code_digits: ``codes x code_length`` int64, each code's keyword per position.
        legal: per code, nonzero when legal (bool or int8).
        context: :func:`context_vector`.
    """
    flags = _flags(legal)
    _checked_codes(sims, code_digits, flags.size)
    matrices, codes = sims.shape[0], code_digits.shape[0]
    per_choice = 2 * matrices + 1
    vector = np.zeros(codes * per_choice + len(context), dtype=np.float32)
    if cython.compiled:
        scores, standardized = _code_scores_loops(sims, code_digits, flags)
        _guesser_loops(scores, standardized, flags, context, vector)
    else:
        _guesser_numpy(sims, code_digits, flags, context, vector)
    return vector


def _guesser_numpy(sims: np.ndarray, code_digits: np.ndarray, flags: np.ndarray, context: np.ndarray,
                   vector: np.ndarray) -> None:
    """:func:`guesser_vector`'s layout by numpy's calls (the definition) into ``vector``."""
    matrices, codes = sims.shape[0], code_digits.shape[0]
    per_choice = 2 * matrices + 1
    scores, standardized = _code_scores_numpy(sims, code_digits, flags.astype(bool))
    block = np.zeros((codes, per_choice), dtype=np.float32)
    block[:, 0:-1:2] = scores.T
    block[:, 1:-1:2] = standardized.T
    block[:, -1] = flags != 0
    _clip_into(vector, 0, block.reshape(-1))
    _clip_into(vector, codes * per_choice, context)


def _guesser_loops(scores: np.ndarray, standardized: np.ndarray, legal: np.ndarray, context: np.ndarray,
                   vector: np.ndarray) -> None:
    """:func:`guesser_vector`'s layout as loops (the build's path)."""
    matrices, codes = scores.shape[0], scores.shape[1]
    per_choice = 2 * matrices + 1
    for c in range(codes):
        base = c * per_choice
        for m in range(matrices):
            vector[base + 2 * m] = clipped(scores[m, c])
            vector[base + 2 * m + 1] = clipped(standardized[m, c])
    _legal_and_context(legal, context, vector, codes, per_choice)


def alice_vector(rows: object, candidates: object, code: list, keywords: object, history: object, n_choices: int,
                 code_length: int, context: np.ndarray) -> np.ndarray:
    """Alice's feature vector: per candidate and digit, its word's similarity to the digit's
    keyword and its best one to another keyword (-1 with no other keyword), then the same
    against the keywords' hint histories (cosines with their centroids: 0 for a keyword
    without hints), a 1 for a candidate present; then ``context``; clipped to ``[-1, 1]``.

    Args:
        rows: the embedding's :class:`~cluegym.wrappers.text_rows.TextRows`.
        candidates: hint tuples (the first ``n_choices``); position ``j`` of one is read for
            code digit ``j`` (up to the shorter of the two).
        code: the code's digits, 0-based.
        keywords: the keywords; history: per keyword, its hints padded with ``""``.

    Raises:
        ValueError: a code digit that is no keyword's index, or history rows other than the
            keywords'.
    """
    per_choice = code_length * 4 + 1
    n_keywords = len(keywords)
    for j in range(min(len(code), code_length)):
        if not 0 <= code[j] < n_keywords:  # numpy's path would read another keyword's column, or none
            raise _no_keyword(code[j], n_keywords)
    texts = list(keywords)
    digits = []
    owners = []
    present = 0
    for triple in candidates:
        if present == n_choices:
            break
        positions = min(len(triple), len(code), code_length)
        for j in range(positions):
            texts.append(str(triple[j]))
            digits.append(int(code[j]))
            owners.append(present * per_choice + 4 * j)
        present += 1
    starts = [len(texts)]
    _check_history(history, n_keywords)
    _history_texts(history, texts, starts)
    found = rows.rows(texts)
    matrix = rows.matrix
    vector = np.zeros(n_choices * per_choice + len(context), dtype=np.float32)
    if digits:
        if cython.compiled:
            _alice_loops(matrix, found, n_keywords, digits, owners, starts, vector)
        else:
            _alice_numpy(matrix, found, n_keywords, digits, owners, starts, vector)
    for i in range(present):
        vector[i * per_choice + per_choice - 1] = 1.0
    base = n_choices * per_choice
    for i in range(len(context)):
        vector[base + i] = clipped(context[i])
    return vector


def _alice_numpy(matrix: np.ndarray, found: list, n_keywords: int, digits: list, owners: list, starts: list,
                 vector: np.ndarray) -> None:
    """:func:`alice_vector`'s similarities by numpy's calls (the definition) into ``vector``:
    the keywords are rows ``found[:n_keywords]``, then one row per candidate word (its digit
    in ``digits``, its place in the vector in ``owners``), then the history groups."""
    words = matrix[found[n_keywords:n_keywords + len(digits)]]
    centres, norms = centres_numpy(matrix, found, starts)
    for m, sims in enumerate((dots_numpy(words, matrix[found[:n_keywords]]),
                              centre_cosines_numpy(words, centres, norms))):
        sims = sims.astype(np.float32)
        for t, (digit, owner) in enumerate(zip(digits, owners)):
            others = [sims[t, k] for k in range(n_keywords) if k != digit]
            vector[owner + 2 * m] = clipped(float(sims[t, digit]))
            vector[owner + 2 * m + 1] = clipped(float(max(others))) if others else -1.0


@cython.boundscheck(False)
@cython.wraparound(False)
def _alice_loops(matrix: np.ndarray, found: list, n_keywords: int, digits: list, owners: list, starts: list,
                 vector: np.ndarray) -> None:
    """:func:`alice_vector`'s similarities as loops (the build's path), into ``vector``."""
    dim = matrix.shape[1]
    wide_array, centres_array, norms_array = widened_and_centres(matrix, found, starts)  # rows in found's order
    wide_view, centres_view, norms_view = wide_array, centres_array, norms_array
    wide = cython.address(wide_view[0, 0])
    centres, norms = cython.address(centres_view[0, 0]), cython.address(norms_view[0])
    for t in range(len(digits)):
        word = (n_keywords + t) * dim
        digit = digits[t]
        owner = owners[t]
        for m in range(2):
            best_set = False
            best = cython.cast(cython.float, 0.0)
            for k in range(n_keywords):
                if m == 0:
                    value = cython.cast(cython.float, dot(wide, word, wide, k * dim, dim))
                elif norms[k] > 0:
                    value = cython.cast(cython.float, dot(wide, word, centres, k * dim, dim) / norms[k])
                else:
                    value = cython.cast(cython.float, 0.0)
                if k == digit:
                    vector[owner + 2 * m] = clipped(value)
                elif not best_set or value > best:
                    best = value
                    best_set = True
            vector[owner + 2 * m + 1] = clipped(best) if best_set else -1.0


# ----------------------------------------------------------------- Alice's ranking scan


@cython.boundscheck(False)
@cython.wraparound(False)
def scan_ranking(sims: np.ndarray, verdicts: np.ndarray, order: np.ndarray, own: int, rivals: list, position: int,
                 count: int, words: list, resolve: object) -> int:
    """Rank keyword row ``own``'s vocabulary words from ``position`` of ``order`` (closest
    first) until ``words`` holds ``count`` of them or ``order`` ends; returns the position.

    A word is appended (its vocabulary index) when it is strictly closer to ``own``'s keyword
    than to every rival's (``sims[row, word]``) and the hint rule accepts it next to each of
    them (``verdicts[row, word]``: 1 accepts, 0 rejects, -1 not known yet: ``resolve(row,
    word)`` finds it, stores it and returns it; own keyword first, then the rivals in order).

    Args:
        sims: keywords x vocabulary float32; verdicts: keywords x vocabulary int8.
        order: vocabulary indices, closest to ``own``'s keyword first (int64).
    """
    total = order.shape[0]
    while len(words) < count and position < total:
        j = order[position]
        position += 1
        similarity = sims[own, j]
        accepted = True
        for r in rivals:
            if not similarity > sims[r, j]:
                accepted = False
                break
        if accepted:
            verdict = verdicts[own, j]
            if verdict < 0:
                verdict = resolve(own, j)
            accepted = verdict > 0
            if accepted:
                for r in rivals:
                    verdict = verdicts[r, j]
                    if verdict < 0:
                        verdict = resolve(r, j)
                    if verdict <= 0:
                        accepted = False
                        break
        if accepted:
            words.append(int(j))
    return position


def hint_candidates(sims: np.ndarray, verdicts: np.ndarray, orders: list, rankings: list, code: list, used: object,
                    vocab: list, n: int, stride: int, limit: int, resolve: object) -> object:
    """Alice's candidate hint triples of one decision (see
    :meth:`~cluegym.wrappers.decrypto.HintCandidates.__call__`), or None when a ranking has to
    read past the start of its keyword's order kept in ``orders``: the caller extends it
    (``_KeywordTable.order``) and calls again (what was ranked so far stays ranked).

    Args:
        sims, verdicts: the keyword table's arrays; orders: its orders, one per row.
        rankings: the game's rankings (``.row``, ``.rivals``, ``.position``, ``.words``), one
            per keyword; code: the code's digits, 0-based; used: the hints said this game.
        vocab: the vocabulary words; n, stride: the candidates; limit: words ranked at most.
    """
    total = len(vocab)
    # Candidates read fresh words up to rank (n - 1) * stride: rank only that far (the hint
    # checks of the ranking are the cost), or to the limit when used words eat it.
    needed = (n - 1) * stride + 1
    by_digit = {}
    columns = []
    for d in code:
        column = by_digit.get(d)
        if column is None:
            ranking = rankings[d]
            words = ranking.words
            while True:
                column = []
                for j in words:
                    word = vocab[j]
                    if word not in used:
                        column.append(word)
                if len(column) >= needed or len(words) >= limit or ranking.position >= total:
                    break
                order = orders[ranking.row]
                if ranking.position >= order.shape[0]:
                    return None
                count = min(len(words) + needed - len(column), limit)
                ranking.position = scan_ranking(sims, verdicts, order, ranking.row, ranking.rivals, ranking.position,
                                                count, words, resolve)
            by_digit[d] = column
        columns.append(column)
    depth = n * stride
    for column in columns:
        if len(column) < depth:
            depth = len(column)
    # Ranks 0, stride, 2 * stride, ... while every digit's column has that rank.
    candidates = []
    for rank in range(0, min(n * stride, depth), stride):
        triple = tuple([column[rank] for column in columns])
        if len(set(triple)) == len(triple):
            candidates.append(triple)
    return candidates
