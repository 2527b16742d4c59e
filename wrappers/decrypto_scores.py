"""Decrypto's per-code scores: the mean similarity of the hint-keyword pairs each code asserts,
raw and standardized over the legal codes, for a stack of similarity matrices.

:func:`code_scores` is the one entry point. Run as Python it makes numpy's calls (the
definition); in the compiled build (``decrypto_scores.pxd`` types it; setup.py compiles the
typed modules of ``wrappers/``) it runs :func:`_code_scores_loops`, C loops over the codes
that make the same float32 operations in numpy's order (its left-to-right sums below 8
values, its 8-way pairwise sums from 8 on, each mean the sum divided in double and rounded
to float32), so the same scores bit for bit: ``tests/wrappers/test_featurizers.py`` compares
both paths.

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

__all__ = ["code_scores"]


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
    """
    if cython.compiled and sims.dtype == np.float32:  # the loops add float32 values, as numpy does here
        return _code_scores_loops(np.ascontiguousarray(sims, dtype=np.float32),
                                  np.ascontiguousarray(code_digits, dtype=np.int64),
                                  np.ascontiguousarray(legal, dtype=bool).view(np.uint8))
    return _code_scores_numpy(sims, code_digits, legal)


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
    matrices, length, codes = sims.shape[0], code_digits.shape[1], code_digits.shape[0]
    scores_array = np.empty((matrices, codes), dtype=np.float32)
    standardized_array = np.zeros((matrices, codes), dtype=np.float32)
    pool_array = np.empty(codes, dtype=np.float32)
    scores, standardized, pool = scores_array, standardized_array, pool_array
    legal_count = 0
    for c in range(codes):
        legal_count += legal[c] != 0
    count = legal_count if legal_count else codes
    threshold = cython.cast(cython.float, 1e-6)  # numpy compares a float32 spread with float32(1e-6)
    for m in range(matrices):
        for c in range(codes):
            total = cython.cast(cython.float, 0.0)
            for j in range(length):
                total += sims[m, j, code_digits[c, j]]
            scores[m, c] = cython.cast(cython.float, cython.cast(cython.double, total) / length)
        used = 0
        for c in range(codes):
            if legal[c] or not legal_count:
                pool[used] = scores[m, c]
                used += 1
        mean = cython.cast(cython.float, cython.cast(cython.double, _pairwise_sum(pool, 0, count)) / count)
        for c in range(count):
            deviation = pool[c] - mean
            pool[c] = deviation * deviation
        spread = cython.cast(cython.float, math.sqrt(
            cython.cast(cython.float, cython.cast(cython.double, _pairwise_sum(pool, 0, count)) / count)))
        if spread >= threshold:
            scale = cython.cast(cython.float, 3.0 * spread)
            for c in range(codes):
                standardized[m, c] = (scores[m, c] - mean) / scale if legal[c] else -1.0
    return scores_array, standardized_array


def _pairwise_sum(values: np.ndarray, start: int, n: int) -> float:
    """numpy's pairwise sum of ``values[start:start + n]`` (float32): left to right below 8
    values, 8 accumulators up to 128, halves (at a multiple of 8) above."""
    if n < 8:
        total = cython.cast(cython.float, 0.0)
        for i in range(start, start + n):
            total += values[i]
        return total
    if n <= 128:
        r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
        r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
        i = 8
        while i < n - n % 8:
            r0 += values[start + i]
            r1 += values[start + i + 1]
            r2 += values[start + i + 2]
            r3 += values[start + i + 3]
            r4 += values[start + i + 4]
            r5 += values[start + i + 5]
            r6 += values[start + i + 6]
            r7 += values[start + i + 7]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            total += values[start + i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, n - half)
