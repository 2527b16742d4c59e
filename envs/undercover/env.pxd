# The types of this module's @cython.locals declarations (see state.pxd and view.pxd).
from cluegym.envs.undercover.state cimport UndercoverState
from cluegym.envs.undercover.view cimport FinishedRounds, PublicView
