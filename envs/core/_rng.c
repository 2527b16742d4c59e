/* numpy's random calls that every game makes, in C, with numpy's results.
 *
 * pcg64_words: SeedSequence(seed).generate_state(4, numpy.uint64) for an integer seed.
 * Every game's reset and every agent's reset makes np.random.default_rng(seed): a
 * SeedSequence hashes the seed into a pool of four 32-bit words (numpy's port of O'Neill's
 * seed_seq_fe, written with numpy scalars under np.errstate), then PCG64 draws its 128-bit
 * state and increment from the pool. That is ~9 us, as much as a short game's step; these
 * words take well under a microsecond here, and cluegym.envs.core.rng hands them to
 * numpy's own PCG64, so the generator (state, draws, spawn) is numpy's.
 *
 * integers / choice / permutation: Generator.integers(n), Generator.choice(n, size,
 * replace=False) (Floyd's algorithm and its shuffle) and Generator.permutation(n), drawn
 * from the generator's own bit generator (its C interface, the `capsule`) with numpy's
 * algorithms (Lemire's bounded draws and the masked interval of its shuffle, as numpy's
 * distributions.c): the same values, and the generator left in the same state. A scalar draw through numpy's
 * Python interface costs ~1-3 us of argument handling; a game draws a few per game and the
 * random agent one per move.
 *
 * Built by setup.py as an optional extension; without it cluegym.envs.core.rng calls numpy.
 * tests/games/test_rng.py compares every function with numpy's, draw for draw.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* numpy.random.bit_generator's constants (SeedSequence) */
#define INIT_A 0x43b0d7e5u
#define MULT_A 0x931e8875u
#define INIT_B 0x8b51f9ddu
#define MULT_B 0x58f38dedu
#define MIX_MULT_L 0xca01f9ddu
#define MIX_MULT_R 0x4973f715u
#define XSHIFT 16
#define POOL_SIZE 4

static uint32_t hashmix(uint32_t value, uint32_t *hash_const) {
    value ^= *hash_const;
    *hash_const *= MULT_A;
    value *= *hash_const;
    value ^= value >> XSHIFT;
    return value;
}

static uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t result = MIX_MULT_L * x - MIX_MULT_R * y;
    result ^= result >> XSHIFT;
    return result;
}

/* pcg64_words(seed) -> 32 bytes (four native uint64 words), or None for a seed outside
 * 0 <= seed < 2**64 (numpy's own SeedSequence handles it). */
static PyObject *pcg64_words(PyObject *module, PyObject *seed) {
    (void)module;
    if (!PyLong_CheckExact(seed)) {
        Py_RETURN_NONE;
    }
    unsigned long long value = PyLong_AsUnsignedLongLong(seed);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear(); /* negative or too large */
        Py_RETURN_NONE;
    }
    /* SeedSequence's entropy as 32-bit words, least significant first ([0] for 0) */
    uint32_t entropy[2] = {(uint32_t)value, (uint32_t)(value >> 32)};
    int n_entropy = (value >> 32) ? 2 : 1;

    /* mix_entropy */
    uint32_t pool[POOL_SIZE];
    uint32_t hash_const = INIT_A;
    for (int i = 0; i < POOL_SIZE; i++) {
        pool[i] = hashmix(i < n_entropy ? entropy[i] : 0u, &hash_const);
    }
    for (int src = 0; src < POOL_SIZE; src++) {
        for (int dst = 0; dst < POOL_SIZE; dst++) {
            if (src != dst) {
                pool[dst] = mix(pool[dst], hashmix(pool[src], &hash_const));
            }
        }
    }
    /* (entropy words past the pool's size: none for a seed below 2**64) */

    /* generate_state(4, uint64): eight 32-bit words, paired low word first */
    uint32_t words[8];
    hash_const = INIT_B;
    for (int i = 0; i < 8; i++) {
        uint32_t data = pool[i % POOL_SIZE];
        data ^= hash_const;
        hash_const *= MULT_B;
        data *= hash_const;
        data ^= data >> XSHIFT;
        words[i] = data;
    }
    uint64_t state[4];
    for (int i = 0; i < 4; i++) {
        state[i] = (uint64_t)words[2 * i] | ((uint64_t)words[2 * i + 1] << 32);
    }
    return PyBytes_FromStringAndSize((const char *)state, sizeof state);
}

/* numpy/random/bitgen.h: the C interface every numpy bit generator exports in its capsule */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

/* The 128-bit product a * b as (high, low) words. */
static inline uint64_t mul_high_low(uint64_t a, uint64_t b, uint64_t *low) {
#ifdef __SIZEOF_INT128__
    unsigned __int128 m = (unsigned __int128)a * b;
    *low = (uint64_t)m;
    return (uint64_t)(m >> 64);
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    uint64_t cross = (lo_lo >> 32) + (uint32_t)hi_lo + lo_hi;
    *low = (cross << 32) | (uint32_t)lo_lo;
    return (hi_lo >> 32) + (cross >> 32) + hi_hi;
#endif
}

/* numpy's random_bounded_uint64(bitgen, 0, rng, 0, use_masked=false): uniform in 0..rng */
static uint64_t bounded(bitgen_t *bitgen, uint64_t rng) {
    if (rng == 0) {
        return 0;
    }
    if (rng <= 0xFFFFFFFFULL) {
        if (rng == 0xFFFFFFFFULL) {
            return bitgen->next_uint32(bitgen->state);
        }
        /* buffered_bounded_lemire_uint32 */
        const uint32_t rng_excl = (uint32_t)rng + 1;
        uint64_t m = (uint64_t)bitgen->next_uint32(bitgen->state) * rng_excl;
        uint32_t leftover = (uint32_t)m;
        if (leftover < rng_excl) {
            const uint32_t threshold = (uint32_t)(UINT32_MAX - (uint32_t)rng) % rng_excl;
            while (leftover < threshold) {
                m = (uint64_t)bitgen->next_uint32(bitgen->state) * rng_excl;
                leftover = (uint32_t)m;
            }
        }
        return m >> 32;
    }
    if (rng == 0xFFFFFFFFFFFFFFFFULL) {
        return bitgen->next_uint64(bitgen->state);
    }
    /* bounded_lemire_uint64 */
    const uint64_t rng_excl = rng + 1;
    uint64_t leftover;
    uint64_t high = mul_high_low(bitgen->next_uint64(bitgen->state), rng_excl, &leftover);
    if (leftover < rng_excl) {
        const uint64_t threshold = (UINT64_MAX - rng) % rng_excl;
        while (leftover < threshold) {
            high = mul_high_low(bitgen->next_uint64(bitgen->state), rng_excl, &leftover);
        }
    }
    return high;
}

/* The last generators seen, each with its bit generator's C interface and lock (held, so that
 * the pointer names it while kept). A game draws from one generator again and again, but a
 * learning view alternates several (the game's, each agent's, its own seeds'): finding their
 * interfaces again at every switch (three attribute lookups) cost more than the draw. A few
 * slots, refilled in turn. */
#define KEPT_GENERATORS 8
static PyObject *kept_generator[KEPT_GENERATORS];
static bitgen_t *kept_bitgen[KEPT_GENERATORS];
static PyObject *kept_lock[KEPT_GENERATORS];
static int kept_next = 0;
static PyObject *name_acquire = NULL, *name_release = NULL;

/* The bit generator of a numpy Generator, with its lock taken without waiting: NULL (no
 * error set) when the lock is held elsewhere (a thread drawing with the GIL released), and
 * the caller takes numpy's own path. *lock gets the lock to release (a new reference). */
static bitgen_t *take_bitgen(PyObject *generator, PyObject **lock) {
    *lock = NULL;
    int slot = -1;
    for (int i = 0; i < KEPT_GENERATORS; i++) {
        if (kept_generator[i] == generator) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        PyObject *bit_generator = PyObject_GetAttrString(generator, "bit_generator");
        if (bit_generator == NULL) {
            return NULL;
        }
        PyObject *capsule = PyObject_GetAttrString(bit_generator, "capsule");
        PyObject *held = PyObject_GetAttrString(bit_generator, "lock");
        Py_DECREF(bit_generator);
        bitgen_t *bitgen = capsule == NULL ? NULL : PyCapsule_GetPointer(capsule, "BitGenerator");
        Py_XDECREF(capsule); /* the bit generator keeps its capsule, and the generator it */
        if (bitgen == NULL || held == NULL) {
            Py_XDECREF(held);
            return NULL;
        }
        slot = kept_next;
        kept_next = (kept_next + 1) % KEPT_GENERATORS;
        Py_INCREF(generator);
        Py_XSETREF(kept_generator[slot], generator);
        Py_XSETREF(kept_lock[slot], held);
        kept_bitgen[slot] = bitgen;
    }
    PyObject *got = PyObject_CallMethodOneArg(kept_lock[slot], name_acquire, Py_False);
    int taken = got != NULL && PyObject_IsTrue(got) == 1;
    Py_XDECREF(got);
    if (!taken) {
        return NULL;
    }
    *lock = Py_NewRef(kept_lock[slot]);
    return kept_bitgen[slot];
}

/* What a draw returns when take_bitgen gave no bit generator: None (numpy's own call draws),
 * or NULL for an error. */
static PyObject *left_to_numpy(void) {
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static int give_back(PyObject *lock) {
    PyObject *done = PyObject_CallMethodNoArgs(lock, name_release);
    Py_DECREF(lock);
    if (done == NULL) {
        return -1;
    }
    Py_DECREF(done);
    return 0;
}

/* integers(generator, high) -> int: generator.integers(high) for 1 <= high <= 2**63, or None
 * when numpy's own call must make it (another argument, or the lock held elsewhere). */
static PyObject *integers(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *generator, *high_obj;
    if (!PyArg_ParseTuple(args, "OO!:integers", &generator, &PyLong_Type, &high_obj)) {
        return NULL;
    }
    unsigned long long high = PyLong_AsUnsignedLongLong(high_obj);
    if ((high == (unsigned long long)-1 && PyErr_Occurred()) || high == 0 || high > (1ULL << 63)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *lock;
    bitgen_t *bitgen = take_bitgen(generator, &lock);
    if (bitgen == NULL) {
        return left_to_numpy();
    }
    uint64_t value = bounded(bitgen, high - 1);
    if (give_back(lock) < 0) {
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(value);
}

/* A Python list of n ints */
static PyObject *int_list(const int64_t *values, Py_ssize_t n) {
    PyObject *result = PyList_New(n);
    for (Py_ssize_t i = 0; result != NULL && i < n; i++) {
        PyObject *item = PyLong_FromLongLong(values[i]);
        if (item == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, i, item);
    }
    return result;
}

/* numpy's _gen_mask: the smallest 2**k - 1 >= value */
static uint64_t gen_mask(uint64_t value) {
    uint64_t mask = value;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    return mask;
}

/* choice(generator, n, size) -> list of ints: generator.choice(n, size, replace=False)
 * .tolist() where numpy takes Floyd's algorithm (n <= 10000, or size <= n // 50), or None
 * where it does not (or the lock is held elsewhere). */
static PyObject *choice(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *generator;
    Py_ssize_t n, size;
    if (!PyArg_ParseTuple(args, "Onn:choice", &generator, &n, &size)) {
        return NULL;
    }
    if (n <= 0 || size <= 0 || size > n || (n > 10000 && size > n / 50) || size > 4096) {
        Py_RETURN_NONE;
    }
    uint64_t mask = gen_mask((uint64_t)(1.2 * (double)size));
    uint64_t set_size = mask + 1;
    uint64_t *hash_set = PyMem_Malloc(sizeof(uint64_t) * set_size);
    int64_t *picks = PyMem_Malloc(sizeof(int64_t) * (size_t)size);
    if (hash_set == NULL || picks == NULL) {
        PyMem_Free(hash_set);
        PyMem_Free(picks);
        return PyErr_NoMemory();
    }
    PyObject *lock;
    bitgen_t *bitgen = take_bitgen(generator, &lock);
    if (bitgen == NULL) {
        PyMem_Free(hash_set);
        PyMem_Free(picks);
        return left_to_numpy();
    }
    const uint64_t empty = (uint64_t)-1;
    for (uint64_t i = 0; i < set_size; i++) {
        hash_set[i] = empty;
    }
    for (Py_ssize_t j = n - size; j < n; j++) {
        uint64_t val = bounded(bitgen, (uint64_t)j);
        uint64_t loc = val & mask;
        while (hash_set[loc] != empty && hash_set[loc] != val) {
            loc = (loc + 1) & mask;
        }
        if (hash_set[loc] == empty) { /* val not in the set */
            hash_set[loc] = val;
            picks[j - n + size] = (int64_t)val;
        } else { /* j instead */
            loc = (uint64_t)j & mask;
            while (hash_set[loc] != empty) {
                loc = (loc + 1) & mask;
            }
            hash_set[loc] = (uint64_t)j;
            picks[j - n + size] = j;
        }
    }
    /* numpy's _shuffle_int(bitgen, size, 1, picks) */
    for (Py_ssize_t i = size - 1; i >= 1; i--) {
        uint64_t j = bounded(bitgen, (uint64_t)i);
        int64_t temp = picks[j];
        picks[j] = picks[i];
        picks[i] = temp;
    }
    PyMem_Free(hash_set);
    if (give_back(lock) < 0) {
        PyMem_Free(picks);
        return NULL;
    }
    PyObject *result = int_list(picks, size);
    PyMem_Free(picks);
    return result;
}

/* numpy's random_interval(bitgen, max): uniform in 0..max by masked rejection (what its
 * shuffle draws with) */
static uint64_t interval(bitgen_t *bitgen, uint64_t max) {
    if (max == 0) {
        return 0;
    }
    uint64_t mask = gen_mask(max), value;
    if (max <= 0xFFFFFFFFULL) {
        while ((value = (bitgen->next_uint32(bitgen->state) & mask)) > max) {
        }
    } else {
        while ((value = (bitgen->next_uint64(bitgen->state) & mask)) > max) {
        }
    }
    return value;
}

/* permutation(generator, n) -> list of ints: generator.permutation(n).tolist() for
 * 1 <= n <= 4096 (numpy shuffles arange(n) in place), or None where numpy must draw it. */
static PyObject *permutation(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *generator;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "On:permutation", &generator, &n)) {
        return NULL;
    }
    if (n < 1 || n > 4096) {
        Py_RETURN_NONE;
    }
    int64_t order[4096];
    for (Py_ssize_t i = 0; i < n; i++) {
        order[i] = i;
    }
    PyObject *lock;
    bitgen_t *bitgen = take_bitgen(generator, &lock);
    if (bitgen == NULL) {
        return left_to_numpy();
    }
    for (Py_ssize_t i = n - 1; i >= 1; i--) { /* numpy's _shuffle_raw, first = 1 */
        uint64_t j = interval(bitgen, (uint64_t)i);
        int64_t temp = order[j];
        order[j] = order[i];
        order[i] = temp;
    }
    if (give_back(lock) < 0) {
        return NULL;
    }
    return int_list(order, n);
}

static PyMethodDef methods[] = {
    {"pcg64_words", pcg64_words, METH_O,
     "pcg64_words(seed) -> bytes: SeedSequence(seed).generate_state(4, uint64) as four native "
     "uint64 words, or None for a seed outside 0..2**64-1."},
    {"integers", integers, METH_VARARGS,
     "integers(generator, high) -> int: generator.integers(high), or None where numpy must draw it."},
    {"choice", choice, METH_VARARGS,
     "choice(generator, n, size) -> list: generator.choice(n, size, replace=False).tolist(), or "
     "None where numpy must draw it."},
    {"permutation", permutation, METH_VARARGS,
     "permutation(generator, n) -> list: generator.permutation(n).tolist(), or None where numpy "
     "must draw it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_rng",
    "numpy's seed words and bounded draws, in C (see cluegym.envs.core.rng).", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* The version of this module's interface (its functions and their arguments): rng.py takes
 * numpy's calls, with a warning, when a stale build says another. */
#define RNG_API 1

PyMODINIT_FUNC PyInit__rng(void) {
    name_acquire = PyUnicode_InternFromString("acquire");
    name_release = PyUnicode_InternFromString("release");
    if (name_acquire == NULL || name_release == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module != NULL && PyModule_AddIntConstant(module, "API", RNG_API) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
