# The compiled build's declarations for state.py (Cython's augmenting .pxd): the State and the
# round records as extension types, their fields Python objects (Python's semantics, read as
# struct fields by the modules that declare a State type with @cython.locals).

cdef class RoundRecord:
    cdef public object round, order, descriptions, votes, eliminated, _json

cdef class UndercoverState:
    cdef public object civilian_word, undercover_word, roles, alive, order, round, phase, descriptions, votes
    cdef public object history, eliminated_round, winner, end_reason, beliefs, unreadable_beliefs
    cpdef word_of(self, player)
