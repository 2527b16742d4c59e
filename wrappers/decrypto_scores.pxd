# The compiled build's declarations for decrypto_scores.py (Cython's augmenting .pxd): the
# per-code scores as C loops over float32 values (float sums, float32 divisions, numpy's order);
# the similarities as C loops over double products in numpy's pairwise order; the vectors
# written through typed views; Alice's ranking scan over the keyword table's arrays.
cimport cython
from cluegym.wrappers.similarity cimport clipped, dot, pairwise_sum, widened_and_centres

@cython.locals(c=Py_ssize_t, j=Py_ssize_t, digit="long long", low=object, high=object)
cdef void _check_codes(const long long[:, ::1] code_digits, Py_ssize_t code_length, Py_ssize_t n_keywords,
                       Py_ssize_t n_legal) except *

@cython.locals(matrices=Py_ssize_t, length=Py_ssize_t, keywords=Py_ssize_t, codes=Py_ssize_t, scores=float[:, ::1],
               standardized=float[:, ::1], work=float[::1], m=Py_ssize_t)
cpdef tuple _code_scores_loops(const float[:, :, ::1] sims, const long long[:, ::1] code_digits,
                               const unsigned char[::1] legal)

@cython.locals(codes=Py_ssize_t, legal_count=Py_ssize_t, count=Py_ssize_t, threshold=float, c=Py_ssize_t,
               j=Py_ssize_t, total=float, score=float, used=Py_ssize_t, mean=float, deviation=float, spread=float,
               scale=float, value=float)
cdef void _score_codes(const float* sims, Py_ssize_t length, Py_ssize_t keywords, const long long[:, ::1] code_digits,
                       const unsigned char[::1] legal, float* work, float* scores, Py_ssize_t scores_step,
                       float* standardized, Py_ssize_t standardized_step, bint clip) noexcept


@cython.locals(hints=object, hint=object)
cpdef void _history_texts(object history, list texts, list starts)

@cython.locals(starts=list, found=list, with_keywords=bint, n_matrices=Py_ssize_t, view="float[:, :, ::1]")
cpdef object hint_matrices(object rows, object hints, object keywords, object history, Py_ssize_t code_length,
                           Py_ssize_t n_keywords)

@cython.locals(dim=Py_ssize_t, wide_view="double[:, ::1]", wide="double*", block=Py_ssize_t,
               m=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, g=Py_ssize_t, start=Py_ssize_t, stop=Py_ssize_t,
               best_set=bint, best=float, value=float, centres_view="double[:, ::1]", norms_view=double[::1],
               centres="double*", norms="double*")
cdef void _hint_matrices_loops(const float[:, ::1] matrix, list found, Py_ssize_t code_length,
                               Py_ssize_t n_keywords, bint with_keywords, list starts, float* out)

@cython.locals(texts=list, starts=list, with_keywords=bint)
cdef tuple _guesser_texts(object rows, object hints, object keywords, object history, Py_ssize_t code_length,
                          Py_ssize_t n_keywords)

@cython.locals(n_matrices=Py_ssize_t, found=list, starts=list, with_keywords=bint, sims="float[243]", i=Py_ssize_t,
               codes=Py_ssize_t, per_choice=Py_ssize_t, flags=object, digits="const long long[:, ::1]",
               legal_view="const unsigned char[::1]", vector="float[::1]", work="float[::1]", block=Py_ssize_t,
               m=Py_ssize_t)
cpdef object guesser_features(object rows, object hints, object keywords, object history, object code_digits,
                              object legal, object context, Py_ssize_t code_length, Py_ssize_t n_keywords)

@cython.locals(c=Py_ssize_t, base=Py_ssize_t, i=Py_ssize_t)
cdef void _legal_and_context(const unsigned char[::1] legal, const float[::1] context, float[::1] vector,
                             Py_ssize_t codes, Py_ssize_t per_choice)

@cython.locals(values=list, hints=object, hint=object, count=Py_ssize_t)
cpdef object context_vector(object history, object turn, object tokens, Py_ssize_t max_turns,
                            Py_ssize_t miscommunication_limit, Py_ssize_t interception_limit)


@cython.locals(matrices=Py_ssize_t, codes=Py_ssize_t, per_choice=Py_ssize_t, c=Py_ssize_t, m=Py_ssize_t,
               base=Py_ssize_t)
cdef void _guesser_loops(const float[:, ::1] scores, const float[:, ::1] standardized, const unsigned char[::1] legal,
                         const float[::1] context, float[::1] vector)

@cython.locals(per_choice=Py_ssize_t, n_keywords=Py_ssize_t, texts=list, digits=list, owners=list,
               present=Py_ssize_t, positions=Py_ssize_t, j=Py_ssize_t, starts=list, found=list, i=Py_ssize_t,
               base=Py_ssize_t)
cpdef object alice_vector(object rows, object candidates, list code, object keywords, object history,
                          Py_ssize_t n_choices, Py_ssize_t code_length, object context)

@cython.locals(dim=Py_ssize_t, wide_view="double[:, ::1]", wide="double*", t=Py_ssize_t,
               word=Py_ssize_t, digit=Py_ssize_t, owner=Py_ssize_t, m=Py_ssize_t, k=Py_ssize_t, best_set=bint,
               best=float, value=float, centres_view="double[:, ::1]", norms_view=double[::1], centres="double*",
               norms="double*")
cdef void _alice_loops(const float[:, ::1] matrix, list found, Py_ssize_t n_keywords, list digits, list owners,
                       list starts, float[::1] vector)

@cython.locals(total=Py_ssize_t, j=Py_ssize_t, similarity=float, accepted=bint, r=Py_ssize_t, verdict=int)
cpdef Py_ssize_t scan_ranking(const float[:, ::1] sims, signed char[:, ::1] verdicts, const long long[::1] order,
                              Py_ssize_t own, list rivals, Py_ssize_t position, Py_ssize_t count, list words,
                              object resolve)

@cython.locals(total=Py_ssize_t, needed=Py_ssize_t, by_digit=dict, columns=list, column=list, words=list,
               j=Py_ssize_t, count=Py_ssize_t, depth=Py_ssize_t, candidates=list, rank=Py_ssize_t)
cpdef object hint_candidates(object sims, object verdicts, list orders, list rankings, list code, object used,
                             list vocab, Py_ssize_t n, Py_ssize_t stride, Py_ssize_t limit, object resolve)
