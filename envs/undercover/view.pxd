# The compiled build's declarations for view.py (Cython's augmenting .pxd): the two views as
# extension types (their fields Python objects, read as struct fields by their own methods and
# by the env's observation, which declares them with @cython.locals).
from cluegym.envs.undercover.state cimport UndercoverState

cdef class FinishedRounds:
    cdef public object state, num_players, length, last, text, descriptions, votes, last_round, memo

cdef class PublicView:
    cdef public object state, finished, length, key_phase, key_round, key_order, key_descriptions, key_alive
    cdef public object key_eliminated, transcript, round_text, living, descriptions, order, alive, eliminated
    cdef public object in_order
