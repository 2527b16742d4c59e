# The compiled build's declarations for taboo.py (Cython's augmenting .pxd): the defender's
# vector as C loops over float32 values (numpy's float32 operations in numpy's order), its
# scratch on the C stack.
cimport cython
from libc.math cimport sqrtf
from cluegym.wrappers.similarity cimport clipped, pairwise_sum

@cython.locals(size=Py_ssize_t, k=Py_ssize_t, vector="float[::1]", rank="const float[::1]", values="float[64]",
               squares="float[64]", i=Py_ssize_t, total=float, mean=float, deviation=float, variance=float,
               spread=double, scale=float, base=Py_ssize_t, margin=double, context=Py_ssize_t)
cpdef object guess_vector(list sims, Py_ssize_t n, double turn, Py_ssize_t max_turns, object ranks)
