/*
 * The lines a skim picks for parsing, handed to the parser already split and matched
 * (plogscan/parse/skimtext.py, plogscan/parse/chunk.py).
 *
 * skim_skipped copies the picked lines out of the chunk; the parser then used to split that
 * copy into lines again (Arrow's large_string layout), walk the CANN header of each line
 * (cannheader.c's spans) and number the distinct header prefixes and source files
 * (cannheader.c's span_ids). picked_lines does all of it in the same walk over the picked
 * lines: what it hands back equals, value for value, what split_lines, spans(derived) and
 * span_ids give on the joined text (tests/parse/test_skim.py holds them equal).
 *
 * Its buffers come from the caller's allocator (Arrow's memory pool): they are a few
 * megabytes a chunk, like the chunk's other buffers, and stay off the C heap.
 */

#include <stdlib.h>

#include "chunkscan.h"

#define ROW (2 * FIELDS) /* the groups, then the derived spans: cannheader.c's spans(derived) */

/* The distinct texts of a chunk in the order they first come: open addressing, slot ->
 * id + 1 (0: empty); by id, the text's hash, start and length in the data. */
typedef struct {
    int64_t *slots;
    Py_ssize_t mask, count, cap;
    uint64_t *hashes;
    int64_t *start, *len;
} Texts;

static void texts_free(Texts *t) {
    free(t->slots);
    free(t->hashes);
    free(t->start);
    free(t->len);
}

static int texts_grow(Texts *t) {
    if (t->count == t->cap) {
        Py_ssize_t cap = t->cap ? 2 * t->cap : 64;
        uint64_t *hashes = realloc(t->hashes, (size_t)cap * sizeof(uint64_t));
        if (hashes) t->hashes = hashes;
        int64_t *start = realloc(t->start, (size_t)cap * sizeof(int64_t));
        if (start) t->start = start;
        int64_t *len = realloc(t->len, (size_t)cap * sizeof(int64_t));
        if (len) t->len = len;
        if (!hashes || !start || !len) return -1;
        t->cap = cap;
    }
    if (2 * (t->count + 1) > t->mask) return slots_doubled(&t->slots, &t->mask, t->hashes);
    return 0;
}

/* The id of the text s[a:a + n] (added where new), -1 when out of memory. */
static int64_t text_id(Texts *t, const unsigned char *s, int64_t a, int64_t n) {
    uint64_t h = text_hash(s + a, n);
    Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)t->mask);
    for (;;) {
        int64_t slot = t->slots[j];
        if (!slot) break;
        int64_t id = slot - 1;
        if (t->hashes[id] == h && t->len[id] == n && memcmp(s + t->start[id], s + a, (size_t)n) == 0)
            return id;
        j = (j + 1) & t->mask;
    }
    if (texts_grow(t) < 0) return -1;
    int64_t id = t->count++;
    t->hashes[id] = h;
    t->start[id] = a;
    t->len[id] = n;
    j = (Py_ssize_t)(h & (uint64_t)t->mask);
    while (t->slots[j]) j = (j + 1) & t->mask;
    t->slots[j] = id + 1;
    return id;
}

/* The texts of t as a list of bytes, by id; NULL with the error set. */
static PyObject *texts_list(const Texts *t, const unsigned char *s) {
    PyObject *list = PyList_New(t->count);
    for (Py_ssize_t k = 0; list != NULL && k < t->count; k++) {
        PyObject *text = PyBytes_FromStringAndSize((const char *)s + t->start[k], t->len[k]);
        if (text == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, k, text);
    }
    return list;
}

/* A writable buffer of size bytes from allocate (called with the size): the object into *obj
 * and its memory into *view; -1 with the error set. */
static int allocated(PyObject *allocate, Py_ssize_t size, PyObject **obj, Py_buffer *view) {
    *obj = PyObject_CallFunction(allocate, "n", size);
    if (*obj == NULL) return -1;
    if (PyObject_GetBuffer(*obj, view, PyBUF_WRITABLE) < 0) {
        Py_CLEAR(*obj);
        return -1;
    }
    if (view->len < size) {
        PyBuffer_Release(view);
        Py_CLEAR(*obj);
        PyErr_SetString(PyExc_ValueError, "picked_lines: allocate gave a buffer too small");
        return -1;
    }
    return 0;
}

enum { OFFSETS, VALUES, SPANS, PREFIX_INDEX, FILE_INDEX, OUTPUTS };

/* The caller (skim_skipped) has checked that every line lies inside the data: line i is
 * s[start[i]:start[i + 1] - 1], start[lines] at most the size of the data plus one. */
PyObject *picked_lines(PyObject *allocate, const unsigned char *s,
                       const int64_t *start, const uint8_t *parse, Py_ssize_t lines) {
    Py_ssize_t picked = 0, bytes = 0;
    for (Py_ssize_t i = 0; i < lines; i++) {
        if (parse[i]) {
            picked++;
            bytes += (Py_ssize_t)(start[i + 1] - 1 - start[i]);
        }
    }
    Py_ssize_t sizes[OUTPUTS] = {(picked + 1) * 8, bytes, picked * ROW * 8, picked * 8,
                                 picked * 8};
    PyObject *obj[OUTPUTS] = {NULL};
    Py_buffer view[OUTPUTS];
    int got = 0;
    for (; got < OUTPUTS; got++)
        if (allocated(allocate, sizes[got], &obj[got], &view[got]) < 0) break;
    PyObject *result = NULL, *prefixes = NULL, *files = NULL;
    Texts prefix = {NULL, 1023, 0, 0, NULL, NULL, NULL}, file = prefix;
    if (got < OUTPUTS) goto done;
    prefix.slots = calloc((size_t)prefix.mask + 1, sizeof(int64_t));
    file.slots = calloc((size_t)file.mask + 1, sizeof(int64_t));
    if (prefix.slots == NULL || file.slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *offsets = view[OFFSETS].buf, *spans = view[SPANS].buf;
    int64_t *prefix_index = view[PREFIX_INDEX].buf, *file_index = view[FILE_INDEX].buf;
    unsigned char *values = view[VALUES].buf;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t k = 0;
    int64_t written = 0;
    for (Py_ssize_t i = 0; i < lines && !failed; i++) {
        if (!parse[i]) continue;
        int64_t a = start[i], n = start[i + 1] - 1 - a;
        int64_t *row = spans + k * ROW;
        offsets[k] = written;
        memcpy(values + written, s + a, (size_t)n);
        written += n;
        match_line(s + a, (Py_ssize_t)n, row);
        derive_fields(s + a, (Py_ssize_t)n, row, row + FIELDS);
        /* a process's lines often follow each other: the same prefix as the line before */
        if (k > 0 && row[1] == row[1 - ROW]
            && memcmp(s + a, values + offsets[k - 1], (size_t)row[1]) == 0)
            prefix_index[k] = prefix_index[k - 1];
        else
            prefix_index[k] = text_id(&prefix, s, a + row[0], row[1]);
        file_index[k] = text_id(&file, s, a + row[2], row[3]);
        failed = prefix_index[k] < 0 || file_index[k] < 0;
        k++;
    }
    offsets[k] = written;
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    prefixes = texts_list(&prefix, s);
    files = texts_list(&file, s);
    if (prefixes != NULL && files != NULL)
        result = Py_BuildValue("(OOOOOOO)", obj[OFFSETS], obj[VALUES], obj[SPANS],
                               obj[PREFIX_INDEX], prefixes, obj[FILE_INDEX], files);
done:
    for (int j = 0; j < got; j++) PyBuffer_Release(&view[j]);
    for (int j = 0; j < OUTPUTS; j++) Py_XDECREF(obj[j]);
    Py_XDECREF(prefixes);
    Py_XDECREF(files);
    texts_free(&prefix);
    texts_free(&file);
    return result;
}
