# The compiled build's declarations for undercover.py (Cython's augmenting .pxd): the voter
# features' loops over a handful of players in C doubles and C indices (the same IEEE
# operations as the Python floats they stand for, so the same features), and the vector
# written through a typed float32 view.
cimport cython
from cluegym.wrappers.similarity cimport clipped, dot, widened_and_centres

@cython.locals(gram=list, m=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, p=Py_ssize_t, row=list, square=double,
               dot=double, total=double, own=double, living_speakers=Py_ssize_t, alive=bint, inverse=list,
               towards=list, fit=list)
cpdef list _table_fit(object sums, list living)

@cython.locals(m=Py_ssize_t, p=Py_ssize_t, start=Py_ssize_t, stop=Py_ssize_t, row=Py_ssize_t, total=double,
               fit_mean=list, fit_last=list)
cpdef tuple _fits(list similarities, list spans)

@cython.locals(n=Py_ssize_t, others=list, fit_mean_z=list, fit_last_z=list, table_fit=list, table_z=list,
               alive=list, received=list, voted=list, start=Py_ssize_t, stop=Py_ssize_t, spoke=double,
               out=float[::1], k=Py_ssize_t, p=Py_ssize_t)
cpdef object _voter_vector(object table, list fit_mean, list fit_last, Py_ssize_t me, double round_share)

@cython.locals(view="const double[:, ::1]", m=Py_ssize_t, dim=Py_ssize_t, gram=list, data="const double*",
               i=Py_ssize_t, j=Py_ssize_t, row=list)
cpdef list _gram(object sums)

@cython.locals(rows="const double[:, ::1]", target="const double[::1]", dim=Py_ssize_t, data="const double*",
               word="const double*", out=list, i=Py_ssize_t)
cpdef list _similarities(object matrix, object vector)

@cython.locals(spans=list, texts=list, speakers=list, starts=list, p=Py_ssize_t, start=Py_ssize_t, found=list,
               fit=list, fits=list, i=Py_ssize_t, received=list, voted=list, target=Py_ssize_t, shares=list)
cpdef object _round_table(tuple descriptions, Py_ssize_t n, list living, list votes, object rows, Py_ssize_t dim)
