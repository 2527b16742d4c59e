# The compiled build's declarations for featurizers.py (Cython's augmenting .pxd): C doubles
# for standardize_list's loops (the same IEEE operations as the Python floats they stand for).
cimport cython

@cython.locals(count=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t, seen=Py_ssize_t, total=double, value=double,
               mean=double, squares=double, deviation=double, spread=double, scale=double, out=list)
cpdef list standardize_list(object values, object among)
