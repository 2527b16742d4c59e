# The State type of this module's @cython.locals declarations (see state.pxd).
from cluegym.envs.undercover.state cimport UndercoverState
