"""The unit vectors of one embedding's texts as rows of one ``float32`` matrix.

The learner featurizers' compiled arithmetic (e.g. :mod:`cluegym.wrappers.decrypto_vectors`)
reads vectors by row number from one matrix: a decision's few dozen texts become a list of
ints, looked up in a dict, instead of a stack of arrays built for every decision. Each row is
:meth:`~cluegym.agents.encoders.words.WordEncoder.vector`'s array, copied once, so a row is
bit for bit the encoder's vector.

Example:
    >>> from cluegym.agents.encoders.words import WordEncoder
    >>> rows = TextRows.of(WordEncoder("glove"))
    >>> r = rows.rows(["fruit", "apple", "fruit"])
    >>> r[0] == r[2], rows.matrix[r[0]].shape
    (True, (50,))
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cluegym.agents.encoders.words import WordEncoder

__all__ = ["TextRows"]


class TextRows:
    """One embedding's texts and their unit vectors, a row each, in a growing matrix.

    Use :meth:`of` for the process-wide store of an encoder's embedding (every featurizer of
    that embedding shares it). Rows are valid until the store is full (:attr:`MAX_TEXTS`):
    then every row is dropped and numbering starts again, so look the rows of a decision up
    together (:meth:`rows`) and read them from :attr:`matrix` right after.

    Attributes:
        words: the encoder the vectors come from.
        index: text -> its row.
        matrix: ``capacity x dim`` float32; rows ``0 .. len(index) - 1`` hold vectors (the
            array is replaced when it grows: read it after looking the rows up).
        generation: counts the times the store started again: rows kept from an earlier
            generation name other texts now.
    """

    #: Texts kept (the game vocabularies are a few thousand; hints and descriptions from
    #: free-text agents are open-ended, so the store starts again when full).
    MAX_TEXTS = 1 << 16

    _shared: dict[str, TextRows] = {}

    def __init__(self, words: WordEncoder) -> None:
        self.words = words
        self.index: dict[str, int] = {}
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.generation = 0

    @classmethod
    def of(cls, words: WordEncoder) -> TextRows:
        """The shared store of ``words``' embedding (one per :attr:`WordEncoder.source`)."""
        rows = cls._shared.get(words.source)
        if rows is None:
            rows = cls._shared[words.source] = cls(words)
        return rows

    def add(self, text: str) -> int:
        """The row of ``text``, encoding it on its first use (callers look ``index`` up first)."""
        row = self.index.get(text)
        if row is not None:
            return row
        vector = self.words.vector(text)
        row = len(self.index)
        if row >= self.matrix.shape[0]:
            grown = np.zeros((max(256, 2 * self.matrix.shape[0]), vector.shape[0]), dtype=np.float32)
            if row:
                grown[:row] = self.matrix[:row]
            self.matrix = grown
        self.matrix[row] = vector
        self.index[text] = row
        return row

    def make_room(self, count: int) -> None:
        """Start again (every row dropped) if ``count`` more texts might not fit: call it
        before looking up a decision's texts, so that none of them is dropped midway."""
        if len(self.index) + count > self.MAX_TEXTS:
            self.index.clear()
            self.generation += 1

    def rows(self, texts: Sequence[str]) -> list[int]:
        """The rows of ``texts``, in order (repeats share a row)."""
        self.make_room(len(texts))
        index = self.index
        return [index[text] if text in index else self.add(text) for text in texts]
