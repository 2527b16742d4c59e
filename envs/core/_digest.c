/* The byte stream that cluegym.envs.core.record.digest hashes, built in C.
 *
 * record.digest(observation) hashes the bytes its Python walk (_feed) makes of an
 * observation: every key and value of a dict (keys sorted), texts, numbers, tuples and
 * arrays. The walk is a few dozen Python operations per observation, a fifth to a third of a
 * game step with digests; this module builds the same bytes in one C call.
 *
 * It is an accelerator, not a second definition: the common cases (an exact dict, str, int,
 * float, tuple, list, or a C-contiguous numpy array) are written here; everything else
 * (numpy scalars, bools, subclasses, other objects) is handed to the Python walk, and so are
 * the caches' misses (a dict's key order, an array's dtype-and-shape head, a large array's
 * own hash), through the functions and dicts record.py passes to init().
 * The bytes are the Python walk's, byte for byte: tests/games/test_record_digest.py compares
 * both on every shipped game's observations and on odd values.
 *
 * Built by setup.py as an optional extension: without a C compiler, record.py runs the
 * Python walk alone (same digests, slower).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* What record.py hands over at import (see init()): its walk and its caches. */
static PyObject *py_feed = NULL;         /* _feed(value, parts): the Python walk */
static PyObject *py_key_order = NULL;    /* _key_order(dict) -> [(key, key_bytes), ...] */
static PyObject *key_orders = NULL;      /* _KEY_ORDERS: tuple(keys) -> that list */
static PyObject *py_array_head = NULL;   /* _array_head(array) -> bytes */
static PyObject *py_array_digest = NULL; /* array_digest(array) -> 16 bytes */
static PyObject *array_digests = NULL;   /* _ARRAY_DIGESTS: id -> (weakref, bytes) */
static PyObject *ndarray_type = NULL;    /* numpy.ndarray */
static Py_ssize_t inline_array_bytes = 256; /* _INLINE_ARRAY_BYTES */

/* _array_head's bytes (dtype.str and shape) by the array's dtype object and shape: an
 * observation shows a handful of kinds of arrays, so a few slots, looked up without a Python
 * call, hold them all. (Not by the buffer's format: numpy builds an array's format string
 * the first time it is asked for, and most arrays are new at every step.) */
#define HEAD_SLOTS 64
#define HEAD_NDIM_MAX 8
typedef struct {
    PyObject *dtype; /* held, so that the pointer names it while the slot lives */
    int ndim;
    Py_ssize_t shape[HEAD_NDIM_MAX];
    PyObject *head; /* bytes, or NULL for an empty slot */
} HeadSlot;
static HeadSlot head_slots[HEAD_SLOTS];
static PyObject *dtype_name = NULL; /* "dtype", interned */
static int head_next = 0; /* the slot a new kind of array takes (round robin) */

typedef struct {
    char *data;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Buffer;

static int buffer_reserve(Buffer *buf, Py_ssize_t more) {
    if (buf->size + more <= buf->capacity) {
        return 0;
    }
    Py_ssize_t capacity = buf->capacity * 2;
    if (capacity < buf->size + more) {
        capacity = buf->size + more;
    }
    char *data = PyMem_Realloc(buf->data, (size_t)capacity);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buf->data = data;
    buf->capacity = capacity;
    return 0;
}

static inline int buffer_put(Buffer *buf, const char *bytes, Py_ssize_t n) {
    if (buffer_reserve(buf, n) < 0) {
        return -1;
    }
    memcpy(buf->data + buf->size, bytes, (size_t)n);
    buf->size += n;
    return 0;
}

static int buffer_put_bytes(Buffer *buf, PyObject *bytes) {
    if (!PyBytes_Check(bytes)) {
        PyErr_SetString(PyExc_TypeError, "digest: a part is not bytes");
        return -1;
    }
    return buffer_put(buf, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
}

/* b"s" + text.encode() + b"\0" */
static int put_text(Buffer *buf, PyObject *text) {
    Py_ssize_t n;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &n);
    if (utf8 == NULL) {
        return -1;
    }
    if (buffer_reserve(buf, n + 2) < 0) {
        return -1;
    }
    buf->data[buf->size++] = 's';
    memcpy(buf->data + buf->size, utf8, (size_t)n);
    buf->size += n;
    buf->data[buf->size++] = '\0';
    return 0;
}

/* repr(value).encode() of an int or a float */
static int put_repr(Buffer *buf, PyObject *value) {
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long number = PyLong_AsLongAndOverflow(value, &overflow);
        if (!overflow && !(number == -1 && PyErr_Occurred())) {
            char digits[24]; /* written backwards from the end */
            char *end = digits + sizeof digits, *p = end;
            unsigned long magnitude = number < 0 ? 0UL - (unsigned long)number : (unsigned long)number;
            do {
                *--p = (char)('0' + magnitude % 10);
                magnitude /= 10;
            } while (magnitude);
            if (number < 0) {
                *--p = '-';
            }
            return buffer_put(buf, p, end - p);
        }
        PyErr_Clear();
    }
    PyObject *text = PyObject_Repr(value);
    if (text == NULL) {
        return -1;
    }
    Py_ssize_t n;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &n);
    int rc = utf8 == NULL ? -1 : buffer_put(buf, utf8, n);
    Py_DECREF(text);
    return rc;
}

/* Whatever the Python walk makes of value: _feed(value, parts), the parts joined. */
static int put_python(Buffer *buf, PyObject *value) {
    PyObject *parts = PyList_New(0);
    if (parts == NULL) {
        return -1;
    }
    PyObject *done = PyObject_CallFunctionObjArgs(py_feed, value, parts, NULL);
    int rc = done == NULL ? -1 : 0;
    Py_XDECREF(done);
    for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(parts); i++) {
        rc = buffer_put_bytes(buf, PyList_GET_ITEM(parts, i));
    }
    Py_DECREF(parts);
    return rc;
}

/* The hash record._ARRAY_DIGESTS keeps for `array` (an entry (weakref, bytes) by id, when
 * the weak reference still names it), or NULL (an error set only if one occurred). */
static PyObject *kept_array_digest(PyObject *array) {
    PyObject *key = PyLong_FromVoidPtr(array);
    if (key == NULL) {
        return NULL;
    }
    PyObject *entry = PyDict_GetItemWithError(array_digests, key); /* borrowed */
    Py_DECREF(key);
    if (entry == NULL || !PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
        return NULL;
    }
    PyObject *ref = PyTuple_GET_ITEM(entry, 0);
    if (!PyWeakref_Check(ref)) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *referent = NULL;
    if (PyWeakref_GetRef(ref, &referent) < 0) {
        return NULL;
    }
    Py_XDECREF(referent); /* only its identity is compared; the caller holds the array */
#else
    PyObject *referent = PyWeakref_GetObject(ref);
#endif
    return referent == array ? PyTuple_GET_ITEM(entry, 1) : NULL;
}

/* _array_head(array) (a new reference), kept per dtype object and shape. */
static PyObject *array_head(PyObject *array, Py_buffer *view) {
    PyObject *dtype = PyObject_GetAttr(array, dtype_name);
    if (dtype == NULL) {
        return NULL;
    }
    int keep = view->ndim <= HEAD_NDIM_MAX && view->shape != NULL;
    if (keep) {
        for (int i = 0; i < HEAD_SLOTS; i++) {
            HeadSlot *slot = &head_slots[i];
            if (slot->head != NULL && slot->dtype == dtype && slot->ndim == view->ndim &&
                (view->ndim == 0 || memcmp(slot->shape, view->shape, sizeof(Py_ssize_t) * (size_t)view->ndim) == 0)) {
                Py_DECREF(dtype);
                return Py_NewRef(slot->head);
            }
        }
    }
    PyObject *head = PyObject_CallOneArg(py_array_head, array);
    if (head == NULL || !keep || !PyBytes_Check(head)) {
        Py_DECREF(dtype);
        return head;
    }
    HeadSlot *slot = &head_slots[head_next];
    head_next = (head_next + 1) % HEAD_SLOTS;
    Py_XSETREF(slot->head, Py_NewRef(head));
    Py_XSETREF(slot->dtype, dtype); /* the reference GetAttr gave */
    slot->ndim = view->ndim;
    if (view->ndim > 0) {
        memcpy(slot->shape, view->shape, sizeof(Py_ssize_t) * (size_t)view->ndim);
    }
    return head;
}

/* record._array_part: a small array's head and bytes, a larger one's own hash (kept by id
 * for an immutable one, in record._ARRAY_DIGESTS: card images shown step after step). */
static int put_array(Buffer *buf, PyObject *array) {
    Py_buffer view;
    /* Its bytes in C order as they lie (no format asked for: numpy would build one for every
     * new array); an array that cannot give them so (not C-contiguous) takes Python's walk,
     * which copies them out (tobytes). */
    if (PyObject_GetBuffer(array, &view, PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return put_python(buf, array);
    }
    Py_ssize_t nbytes = view.len;
    int rc;
    if (nbytes > inline_array_bytes) {
        PyBuffer_Release(&view);
        PyObject *kept = kept_array_digest(array);
        if (kept != NULL) {
            return buffer_put_bytes(buf, kept);
        }
        if (PyErr_Occurred()) {
            return -1;
        }
        PyObject *hash = PyObject_CallOneArg(py_array_digest, array);
        if (hash == NULL) {
            return -1;
        }
        rc = buffer_put_bytes(buf, hash);
        Py_DECREF(hash);
        return rc;
    }
    PyObject *head = array_head(array, &view);
    if (head == NULL) {
        PyBuffer_Release(&view);
        return -1;
    }
    rc = buffer_put_bytes(buf, head);
    Py_DECREF(head);
    if (rc == 0) {
        rc = buffer_put(buf, (const char *)view.buf, nbytes);
    }
    PyBuffer_Release(&view);
    return rc;
}

static int put_value(Buffer *buf, PyObject *value);
static int put_ordered(Buffer *buf, PyObject *dict, PyObject *order);

/* "[" + each item's bytes + "]" of a tuple or a list (a list read item by item, as Python's
 * loop reads it: the walk of an item may run Python code) */
static int put_items(Buffer *buf, PyObject *sequence) {
    int is_list = PyList_CheckExact(sequence);
    if (buffer_put(buf, "[", 1) < 0) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < (is_list ? PyList_GET_SIZE(sequence) : PyTuple_GET_SIZE(sequence)); i++) {
        PyObject *item = is_list ? PyList_GET_ITEM(sequence, i) : PyTuple_GET_ITEM(sequence, i);
        Py_INCREF(item);
        int rc = put_value(buf, item);
        Py_DECREF(item);
        if (rc < 0) {
            return -1;
        }
    }
    return buffer_put(buf, "]", 1);
}

/* The key orders of the last few kinds of dict, by their keys (the same key objects in the
 * same insertion order: an observation's dict is built by the same code at every step), so
 * that most dicts find theirs without building a tuple of keys. */
#define ORDER_SLOTS 16
typedef struct {
    PyObject *keys;  /* tuple of the dict's keys in insertion order, or NULL */
    PyObject *order; /* _key_order's list */
} OrderSlot;
static OrderSlot order_slots[ORDER_SLOTS];
static int order_next = 0;

static PyObject *kept_order(PyObject *dict) {
    Py_ssize_t n = PyDict_GET_SIZE(dict);
    for (int i = 0; i < ORDER_SLOTS; i++) {
        PyObject *keys = order_slots[i].keys;
        if (keys == NULL || PyTuple_GET_SIZE(keys) != n) {
            continue;
        }
        Py_ssize_t pos = 0, j = 0;
        PyObject *key, *item;
        while (PyDict_Next(dict, &pos, &key, &item) && PyTuple_GET_ITEM(keys, j) == key) {
            j++;
        }
        if (j == n) {
            return order_slots[i].order;
        }
    }
    return NULL;
}

static void keep_order(PyObject *keys, PyObject *order) {
    OrderSlot *slot = &order_slots[order_next];
    order_next = (order_next + 1) % ORDER_SLOTS;
    Py_XSETREF(slot->keys, Py_NewRef(keys));
    Py_XSETREF(slot->order, Py_NewRef(order));
}

/* record._feed of a dict: its keys in digest order, each key's bytes then its value's. */
static int put_dict(Buffer *buf, PyObject *dict) {
    Py_ssize_t n = PyDict_GET_SIZE(dict), pos = 0, i = 0;
    PyObject *key, *item;
    PyObject *order = kept_order(dict);
    if (order != NULL) {
        Py_INCREF(order);
        return put_ordered(buf, dict, order);
    }
    PyObject *keys = PyTuple_New(n);
    if (keys == NULL) {
        return -1;
    }
    while (PyDict_Next(dict, &pos, &key, &item)) {
        Py_INCREF(key);
        PyTuple_SET_ITEM(keys, i++, key);
    }
    order = PyDict_GetItemWithError(key_orders, keys); /* borrowed */
    if (order != NULL) {
        Py_INCREF(order);
    } else {
        PyErr_Clear(); /* a miss, or unhashable keys: _key_order decides */
        order = PyObject_CallOneArg(py_key_order, dict);
        if (order == NULL) {
            Py_DECREF(keys);
            return -1;
        }
    }
    if (PyList_Check(order)) {
        keep_order(keys, order);
    }
    Py_DECREF(keys);
    return put_ordered(buf, dict, order);
}

/* Each key's bytes then its value's, in ``order`` (a reference this call releases). */
static int put_ordered(Buffer *buf, PyObject *dict, PyObject *order) {
    PyObject *item;
    int rc = 0;
    if (!PyList_Check(order)) {
        PyErr_SetString(PyExc_TypeError, "digest: a key order is not a list");
        rc = -1;
    }
    for (Py_ssize_t j = 0; rc == 0 && j < PyList_GET_SIZE(order); j++) {
        PyObject *entry = PyList_GET_ITEM(order, j);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            PyErr_SetString(PyExc_TypeError, "digest: a key order entry is not a pair");
            rc = -1;
            break;
        }
        item = PyDict_GetItemWithError(dict, PyTuple_GET_ITEM(entry, 0)); /* borrowed */
        if (item == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(entry, 0));
            }
            rc = -1;
            break;
        }
        Py_INCREF(item); /* a hostile __eq__ of a key could drop it from the dict */
        rc = buffer_put_bytes(buf, PyTuple_GET_ITEM(entry, 1));
        if (rc == 0) {
            rc = put_value(buf, item);
        }
        Py_DECREF(item);
    }
    Py_DECREF(order);
    return rc;
}

static int put_value(Buffer *buf, PyObject *value) {
    PyTypeObject *kind = Py_TYPE(value);
    int rc;
    if (kind == &PyUnicode_Type) {
        return put_text(buf, value);
    }
    if (kind == &PyLong_Type || kind == &PyFloat_Type) {
        return put_repr(buf, value);
    }
    if (Py_EnterRecursiveCall(" while digesting an observation")) {
        return -1;
    }
    if (kind == &PyDict_Type) {
        rc = put_dict(buf, value);
    } else if (kind == &PyTuple_Type || kind == &PyList_Type) {
        /* record._feed_tuple keeps an immutable tuple's bytes by id; written afresh here
         * (cheaper in C than keeping them: most tables are new at every step, and each
         * kept entry is garbage for the collector to walk) */
        rc = put_items(buf, value);
    } else if ((PyObject *)kind == ndarray_type) {
        rc = put_array(buf, value);
    } else {
        rc = put_python(buf, value); /* bools, numpy scalars, subclasses, other objects */
    }
    Py_LeaveRecursiveCall();
    return rc;
}

static PyObject *serialize(PyObject *module, PyObject *value) {
    (void)module;
    if (py_feed == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "cluegym.envs.core._digest: init() was not called");
        return NULL;
    }
    /* One buffer kept between calls (grown as needed); a call made while it is in use (a
     * Python callback that digests) gets a buffer of its own. */
    static Buffer kept = {NULL, 0, 0};
    static int in_use = 0;
    Buffer own = {NULL, 0, 0};
    Buffer *buf = in_use ? &own : &kept;
    buf->size = 0;
    if (buffer_reserve(buf, 8192) < 0) {
        return NULL;
    }
    int outer = !in_use;
    in_use = 1;
    PyObject *result = NULL;
    if (put_value(buf, value) == 0) {
        result = PyBytes_FromStringAndSize(buf->data, buf->size);
    }
    if (outer) {
        in_use = 0;
        if (kept.capacity > (1 << 20)) { /* a huge observation: do not hold its buffer */
            PyMem_Free(kept.data);
            kept.data = NULL;
            kept.capacity = 0;
        }
    } else {
        PyMem_Free(own.data);
    }
    return result;
}

static PyObject *init(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *values[7];
    Py_ssize_t inline_bytes;
    if (!PyArg_ParseTuple(args, "OOO!OOO!On:init", &values[0], &values[1], &PyDict_Type, &values[2],
                          &values[3], &values[4], &PyDict_Type, &values[5], &values[6], &inline_bytes)) {
        return NULL;
    }
    PyObject **slots[7] = {&py_feed, &py_key_order, &key_orders, &py_array_head, &py_array_digest,
                           &array_digests, &ndarray_type};
    for (int i = 0; i < 7; i++) {
        Py_INCREF(values[i]);
        Py_XSETREF(*slots[i], values[i]);
    }
    inline_array_bytes = inline_bytes;
    if (dtype_name == NULL && (dtype_name = PyUnicode_InternFromString("dtype")) == NULL) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"serialize", serialize, METH_O,
     "serialize(observation) -> bytes: what record.digest hashes (the Python walk's bytes)."},
    {"init", init, METH_VARARGS,
     "init(feed, key_order, key_orders, array_head, array_digest, array_digests, ndarray, "
     "inline_array_bytes): record.py's walk and caches."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_digest",
    "The bytes of cluegym's observation digest, built in C (see record.digest).", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* The version of this module's interface (init's arguments, serialize): record.py falls
 * back to its Python walk, with a warning, when a stale build says another. */
#define DIGEST_API 1

PyMODINIT_FUNC PyInit__digest(void) {
    PyObject *module = PyModule_Create(&module_def);
    if (module != NULL && PyModule_AddIntConstant(module, "API", DIGEST_API) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
