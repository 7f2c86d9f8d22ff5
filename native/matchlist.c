/*
 * plogscan.parse._cannheader.MatchList: a Hyperscan match callback that costs no Python frame.
 *
 * The ``hyperscan`` package calls the callable it is given once per match, with (expression
 * id, start, end, flags, context). plogscan/parse/literals.py only keeps the id and the end of
 * each match; a Python function that appends them to two lists added 85% to the scan of a
 * chunk where a literal is found on every other line (this handler adds 60%: the rest is the
 * package's own work per match, taking the GIL and building the arguments). A MatchList is
 * called the same way but its tp_call appends the two numbers to growable int64 buffers in
 * C; once the scan is over, ``arrays()`` hands them back as two bytearrays (numpy reads them
 * with frombuffer) and empties the list.
 *
 * Any argument that is not what Hyperscan passes (too few, not integers, negative) raises
 * TypeError or ValueError, which makes Hyperscan stop the scan and the scan raise it.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    int64_t *ids;
    int64_t *ends;
    Py_ssize_t size;
    Py_ssize_t capacity;
} MatchList;

static void match_list_clear(MatchList *self) {
    PyMem_Free(self->ids);
    PyMem_Free(self->ends);
    self->ids = self->ends = NULL;
    self->size = self->capacity = 0;
}

static void match_list_dealloc(MatchList *self) {
    match_list_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Room for one more match: both buffers doubled when full (0 on success). */
static int match_list_grow(MatchList *self) {
    if (self->size < self->capacity) return 0;
    if (self->capacity > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(int64_t)) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t capacity = self->capacity ? 2 * self->capacity : 1024;
    int64_t *ids = PyMem_Realloc(self->ids, (size_t)capacity * sizeof(int64_t));
    if (ids == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->ids = ids; /* kept even if the next fails: freed by clear or dealloc */
    int64_t *ends = PyMem_Realloc(self->ends, (size_t)capacity * sizeof(int64_t));
    if (ends == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->ends = ends;
    self->capacity = capacity;
    return 0;
}

/* A non-negative integer argument, or -1 with an error set. */
static long long natural(PyObject *value) {
    if (!PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "MatchList: expected integer arguments");
        return -1;
    }
    long long out = PyLong_AsLongLong(value);
    if (out < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "MatchList: expected non-negative integers");
    return out;
}

/* Called as Hyperscan calls a match handler: (id, start, end, flags, context). */
static PyObject *match_list_call(MatchList *self, PyObject *args, PyObject *kwargs) {
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "MatchList takes no keyword arguments");
        return NULL;
    }
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 3) {
        PyErr_SetString(PyExc_TypeError, "MatchList: expected (id, start, end, ...)");
        return NULL;
    }
    long long id = natural(PyTuple_GET_ITEM(args, 0));
    if (id < 0) return NULL;
    long long end = natural(PyTuple_GET_ITEM(args, 2));
    if (end < 0) return NULL;
    if (match_list_grow(self) < 0) return NULL;
    self->ids[self->size] = (int64_t)id;
    self->ends[self->size] = (int64_t)end;
    self->size++;
    Py_RETURN_NONE; /* None: Hyperscan goes on scanning */
}

static PyObject *match_list_arrays(MatchList *self, PyObject *Py_UNUSED(ignored)) {
    Py_ssize_t bytes = self->size * (Py_ssize_t)sizeof(int64_t);
    PyObject *ids = PyByteArray_FromStringAndSize((const char *)self->ids, bytes);
    if (ids == NULL) return NULL;
    PyObject *ends = PyByteArray_FromStringAndSize((const char *)self->ends, bytes);
    if (ends == NULL) {
        Py_DECREF(ids);
        return NULL;
    }
    match_list_clear(self);
    PyObject *out = PyTuple_Pack(2, ids, ends);
    Py_DECREF(ids);
    Py_DECREF(ends);
    return out;
}

static Py_ssize_t match_list_len(MatchList *self) { return self->size; }

static PyMethodDef match_list_methods[] = {
    {"arrays", (PyCFunction)match_list_arrays, METH_NOARGS,
     "arrays(): (ids, ends) of the matches so far, each a bytearray of native int64, in the "
     "order they were reported; the list is emptied."},
    {NULL, NULL, 0, NULL}};

static PySequenceMethods match_list_sequence = {.sq_length = (lenfunc)match_list_len};

static PyTypeObject MatchListType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "plogscan.parse._cannheader.MatchList",
    .tp_basicsize = sizeof(MatchList),
    .tp_dealloc = (destructor)match_list_dealloc,
    .tp_call = (ternaryfunc)match_list_call,
    .tp_as_sequence = &match_list_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "MatchList(): a Hyperscan match handler that keeps each match's id and end "
              "offset in C (see arrays()).",
    .tp_methods = match_list_methods,
    .tp_new = PyType_GenericNew,
};

/* Add the MatchList type to the module (called from its init); 0 on success. */
int add_match_list(PyObject *module) {
    if (PyType_Ready(&MatchListType) < 0) return -1;
    Py_INCREF(&MatchListType);
    if (PyModule_AddObject(module, "MatchList", (PyObject *)&MatchListType) < 0) {
        Py_DECREF(&MatchListType);
        return -1;
    }
    return 0;
}
