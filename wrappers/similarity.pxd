# The compiled build's declarations for similarity.py (Cython's augmenting .pxd): the dot
# products as C loops over raw pointers (double products, numpy's pairwise order), cimported by
# the featurizers' typed modules.
cimport cython

@cython.locals(i=Py_ssize_t, r=Py_ssize_t, d=Py_ssize_t)
cdef void widen_rows(const float* vectors, Py_ssize_t dim, list found, double* out)

@cython.locals(total=double, i=Py_ssize_t, r0=double, r1=double, r2=double, r3=double, r4=double, r5=double,
               r6=double, r7=double, half=Py_ssize_t)
cdef double dot(const double* a, Py_ssize_t ai, const double* b, Py_ssize_t bi, Py_ssize_t n) noexcept nogil

@cython.locals(k=Py_ssize_t, i=Py_ssize_t, r=Py_ssize_t, d=Py_ssize_t, start=Py_ssize_t, stop=Py_ssize_t)
cdef void centres_loops(const float* vectors, Py_ssize_t dim, list found, list starts, double* centres,
                         double* norms)

@cython.locals(vectors="const float[:, ::1]", dim=Py_ssize_t, groups=Py_ssize_t, wide="double[:, ::1]",
               centres="double[:, ::1]", norms="double[::1]")
cpdef tuple widened_and_centres(object matrix, list found, list starts)

@cython.locals(i=Py_ssize_t, r=Py_ssize_t, k=Py_ssize_t, start=Py_ssize_t, previous=Py_ssize_t)
cdef void _check_rows(Py_ssize_t rows, list found, list starts) except *

cdef double clipped(double value) noexcept nogil

@cython.locals(total=float, i=Py_ssize_t, r0=float, r1=float, r2=float, r3=float, r4=float, r5=float, r6=float,
               r7=float, half=Py_ssize_t)
cdef float pairwise_sum(const float* values, Py_ssize_t start, Py_ssize_t n) noexcept nogil
