/* numpy's SeedSequence(seed).generate_state(4, numpy.uint64) for an integer seed, in C.
 *
 * Every game's reset and every agent's reset makes np.random.default_rng(seed): a
 * SeedSequence hashes the seed into a pool of four 32-bit words (numpy's port of O'Neill's
 * seed_seq_fe, written with numpy scalars under np.errstate), then PCG64 draws its 128-bit
 * state and increment from the pool. That is ~9 us, as much as a short game's step; these
 * words take well under a microsecond here, and cluegym.envs.core.seeding hands them to
 * numpy's own PCG64, so the generator (state, draws, spawn) is numpy's.
 *
 * Built by setup.py as an optional extension; without it seeding.default_rng is numpy's.
 * tests/games/test_seeding.py compares the words and the generators with numpy's.
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

static PyMethodDef methods[] = {
    {"pcg64_words", pcg64_words, METH_O,
     "pcg64_words(seed) -> bytes: SeedSequence(seed).generate_state(4, uint64) as four native "
     "uint64 words, or None for a seed outside 0..2**64-1."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_seeding",
    "numpy's SeedSequence words for PCG64, in C (see cluegym.envs.core.seeding).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__seeding(void) { return PyModule_Create(&module_def); }
