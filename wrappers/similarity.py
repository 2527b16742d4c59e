"""Similarities of word vectors as the learner featurizers compute them, the same on every machine.

A **similarity** of two vectors (float32 rows of a :class:`~cluegym.wrappers.text_rows.TextRows`
matrix, unit vectors for the encoders' words) is their dot product with every product and sum
in double (a float32 product is exact in double), summed in numpy's pairwise order (the order
``np.add.reduce`` sums a contiguous row in: left to right below 8 values, 8 accumulators up to
128, halves at a multiple of 8 above), rounded once to float32 by the caller. No BLAS takes
part, so no machine's kernel changes a feature; a group of vectors (a hint history, a
player's descriptions) enters as its **centre**, the sum of its rows in double, left to right.

Two paths, one definition: :func:`dots_numpy`, :func:`centres_numpy` and
:func:`centre_cosines_numpy` are numpy's calls (what a module runs as Python); :func:`widen_rows`,
:func:`dot` and :func:`centres_loops` are the compiled build's C loops over
raw pointers (``similarity.pxd``; the featurizers' typed modules cimport them), the same IEEE
operations in the same order, so both paths give the same values bit for bit
(``tests/wrappers/test_decrypto_vectors.py``); :func:`widened_and_centres` hands the loops
their double rows and centres (either path). :func:`clipped` clips a feature to ``[-1, 1]``;
:func:`pairwise_sum` is numpy's pairwise sum of float32 values in float32 (the build's loop:
the per-code and per-candidate means and spreads).

Example:
    >>> left = np.array([[0.6, 0.8]], dtype=np.float32)
    >>> float(dots_numpy(left, left)[0, 0].astype(np.float32))
    1.0
"""

from __future__ import annotations

import math

import numpy as np

try:
    import cython
except ImportError:  # no Cython at run time: the declarations do nothing
    from cluegym.envs.core import cython_fallback as cython

# The C helpers (widen_rows, dot, centres_loops, clipped, pairwise_sum) are not listed: the
# build makes them cdef functions, which the compiled module does not export (the typed
# modules cimport them; as Python they are imported by name).
__all__ = ["dots_numpy", "centres_numpy", "centre_cosines_numpy", "widened_and_centres"]


def dots_numpy(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Every pair's dot product (``len(left) x len(right)``, float64): products in double,
    each row of them summed by ``np.add.reduce`` (pairwise: numpy's order, which the build's
    :func:`dot` follows)."""
    return np.add.reduce(left.astype(np.float64)[:, np.newaxis, :] * right.astype(np.float64)[np.newaxis, :, :],
                         axis=-1)


def centres_numpy(matrix: np.ndarray, rows: list[int], starts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Per group ``rows[starts[k]:starts[k + 1]]``: the sum of its rows in double, left to
    right, and its norm (0 for an empty group)."""
    groups = len(starts) - 1
    centres = np.zeros((groups, matrix.shape[1]), dtype=np.float64)
    norms = np.zeros(groups, dtype=np.float64)
    for k in range(groups):
        for r in rows[starts[k]:starts[k + 1]]:
            centres[k] += matrix[r]  # float32 row added in double: each sum rounded once, in order
        norms[k] = math.sqrt(float(np.add.reduce(centres[k] * centres[k])))
    return centres, norms


def centre_cosines_numpy(vectors: np.ndarray, centres: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Each vector's cosine with each centre (``len(vectors) x groups`` float64; 0 for a zero centre)."""
    out = np.zeros((len(vectors), len(centres)), dtype=np.float64)
    as64 = vectors.astype(np.float64)
    for k in range(len(centres)):
        if norms[k] > 0:
            out[:, k] = np.add.reduce(as64 * centres[k], axis=-1) / norms[k]
    return out


# The build's loops (compiled only: they read raw pointers, which the .pxd declares; no bounds
# checks: their callers pass rows and offsets that exist). A dot
# product sums its double products in numpy's pairwise order, as np.add.reduce sums a row:
# left to right below 8, 8 accumulators up to 128, halves (at a multiple of 8) above. The
# default x86-64 target has no FMA, so GCC does not fuse a product into its sum.


@cython.boundscheck(False)
@cython.wraparound(False)
def widen_rows(vectors: object, dim: int, found: list, out: object) -> None:
    """Rows ``found`` of ``vectors`` (float32, ``dim`` wide) into ``out`` (double), one after
    the other: a float32 value is exact in double, so a product of widened values is the
    product :func:`dot` of the float32 rows would take."""
    for i in range(len(found)):
        r = found[i]
        for d in range(dim):
            out[i * dim + d] = vectors[r * dim + d]


@cython.boundscheck(False)
@cython.wraparound(False)
def dot(a: object, ai: int, b: object, bi: int, n: int) -> float:
    """The dot product of ``a[ai:ai + n]`` and ``b[bi:bi + n]`` (double; float32 rows widened
    by :func:`widen_rows`), numpy's pairwise order: a norm's square with ``a`` as ``b``."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += a[ai + i] * b[bi + i]
        return total
    if n <= 128:
        r0, r1, r2, r3 = a[ai] * b[bi], a[ai + 1] * b[bi + 1], a[ai + 2] * b[bi + 2], a[ai + 3] * b[bi + 3]
        r4, r5, r6, r7 = a[ai + 4] * b[bi + 4], a[ai + 5] * b[bi + 5], a[ai + 6] * b[bi + 6], a[ai + 7] * b[bi + 7]
        i = 8
        while i < n - n % 8:
            r0 += a[ai + i] * b[bi + i]
            r1 += a[ai + i + 1] * b[bi + i + 1]
            r2 += a[ai + i + 2] * b[bi + i + 2]
            r3 += a[ai + i + 3] * b[bi + i + 3]
            r4 += a[ai + i + 4] * b[bi + i + 4]
            r5 += a[ai + i + 5] * b[bi + i + 5]
            r6 += a[ai + i + 6] * b[bi + i + 6]
            r7 += a[ai + i + 7] * b[bi + i + 7]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            total += a[ai + i] * b[bi + i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return dot(a, ai, b, bi, half) + dot(a, ai + half, b, bi + half, n - half)


@cython.boundscheck(False)
@cython.wraparound(False)
def centres_loops(vectors: object, dim: int, found: list, starts: list, centres: object, norms: object) -> None:
    """:func:`centres_numpy` as loops: each group's sum (``centres``, row-major groups x
    ``dim``, zeroed by the caller) and norm, from the rows ``found[starts[k]:starts[k + 1]]``
    of ``vectors`` (the row matrix's data)."""
    for k in range(len(starts) - 1):
        start, stop = starts[k], starts[k + 1]
        for i in range(start, stop):
            r = found[i]
            for d in range(dim):
                centres[k * dim + d] += vectors[r * dim + d]
        norms[k] = math.sqrt(dot(centres, k * dim, centres, k * dim, dim))


@cython.boundscheck(False)
@cython.wraparound(False)
def widened_and_centres(matrix: np.ndarray, found: list, starts: list) -> tuple:
    """Rows ``found`` of ``matrix`` (read as float32: the featurizers' matrices are float32 and
    C-contiguous already, any other array is converted first) widened to double (``len(found)
    x dim``; exact), and each group ``found[starts[k]:starts[k + 1]]``'s sum in double
    (``groups x dim``) and its norm, as :func:`centres_numpy` defines them (no group for one
    start).

    The one place the featurizers' loops get their double rows and centres from: by
    :func:`widen_rows` and :func:`centres_loops` in the build, by numpy's calls as Python (the
    same values bit for bit); fresh arrays, for the caller's pointers.

    Raises:
        ValueError: a row index outside the matrix, or starts that are not non-decreasing
            offsets into ``found`` (the build's loops read through raw pointers: another
            index would read past the matrix, where numpy's path raises or wraps around).
    """
    if not cython.compiled:  # numpy's calls, as Python
        vectors = np.asarray(matrix, dtype=np.float32)
        _check_rows(vectors.shape[0], found, starts)
        centres_array, norms_array = centres_numpy(vectors, found, starts)
        return vectors[found].astype(np.float64).reshape(len(found), vectors.shape[1]), centres_array, norms_array
    try:  # the featurizers' float32 C-contiguous matrices: read in place
        vectors = matrix
    except (ValueError, TypeError):  # another dtype or layout: converted, as numpy's path does
        vectors = np.ascontiguousarray(matrix, dtype=np.float32)
    _check_rows(vectors.shape[0], found, starts)
    dim = vectors.shape[1]
    groups = len(starts) - 1 if len(starts) > 1 else 0
    wide_array = np.empty((len(found), dim), dtype=np.float64)
    centres_array = np.zeros((groups, dim), dtype=np.float64)
    norms_array = np.zeros(groups, dtype=np.float64)
    if len(found) and dim:  # no row to read (an empty group's sum and norm stay 0)
        wide, centres, norms = wide_array, centres_array, norms_array
        widen_rows(cython.address(vectors[0, 0]), dim, found, cython.address(wide[0, 0]))
        if groups:
            centres_loops(cython.address(vectors[0, 0]), dim, found, starts, cython.address(centres[0, 0]),
                          cython.address(norms[0]))
    return wide_array, centres_array, norms_array


def _check_rows(rows: int, found: list, starts: list) -> None:
    """Raise ValueError unless every index of ``found`` is a row (``0 .. rows - 1``) and
    ``starts`` are non-decreasing offsets in ``0 .. len(found)`` (C loops in the build)."""
    for i in range(len(found)):
        r = found[i]
        if r < 0 or r >= rows:
            raise ValueError(f"row index {r} is outside the matrix's {rows} rows")
    previous = 0
    for k in range(len(starts)):
        start = starts[k]
        if start < previous or start > len(found):
            raise ValueError(f"starts must be non-decreasing offsets in 0..{len(found)} (len(found)), got {starts}")
        previous = start


def clipped(value: float) -> float:
    """``value`` clipped to ``[-1, 1]`` (NaN kept, as ``np.clip`` keeps it)."""
    if value > 1.0:
        return 1.0
    if value < -1.0:
        return -1.0
    return value


def pairwise_sum(values: np.ndarray, start: int, n: int) -> float:
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
    return pairwise_sum(values, start, half) + pairwise_sum(values, start + half, n - half)
