# The compiled build's declarations for decrypto_scores.py (Cython's augmenting .pxd): the
# per-code scores as C loops over float32 values (float sums, float32 divisions, numpy's order).
cimport cython

@cython.locals(matrices=Py_ssize_t, length=Py_ssize_t, codes=Py_ssize_t, scores=float[:, ::1],
               standardized=float[:, ::1], pool=float[::1], legal_count=Py_ssize_t, count=Py_ssize_t,
               threshold=float, m=Py_ssize_t, c=Py_ssize_t, j=Py_ssize_t, total=float, used=Py_ssize_t,
               mean=float, deviation=float, spread=float, scale=float)
cpdef tuple _code_scores_loops(const float[:, :, ::1] sims, const long long[:, ::1] code_digits,
                               const unsigned char[::1] legal)

@cython.locals(total=float, i=Py_ssize_t, r0=float, r1=float, r2=float, r3=float, r4=float, r5=float, r6=float,
               r7=float, half=Py_ssize_t)
cdef float _pairwise_sum(float[::1] values, Py_ssize_t start, Py_ssize_t n)
