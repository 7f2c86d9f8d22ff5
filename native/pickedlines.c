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

/* The number -?[0-9]+ of n bytes at p into *value (fieldvalues.integers: no more than limit
 * bytes, else none); whether there is one. */
static uint8_t integer_at(const unsigned char *p, int64_t n, int64_t limit, int64_t *value) {
    *value = 0;
    if (n <= 0 || n > limit) return 0;
    int negative = p[0] == '-';
    int64_t k = negative, v = 0;
    if (k == n) return 0;
    for (; k < n; k++) {
        if (!is_digit(p[k])) return 0;
        v = v * 10 + (p[k] - '0');
    }
    *value = negative ? -v : v;
    return 1;
}

/* Whether a span (start -1: none) lies inside a line of n bytes. */
static int inside(int64_t start, int64_t len, int64_t n) {
    return start >= 0 && len >= 0 && start <= n && len <= n - start;
}

#define PID_DIGITS 18 /* fieldvalues._digit_limit(int64) */
#define LINE_DIGITS 9 /* fieldvalues._digit_limit(int32) */

/* Where level, module, pid and proc lie in a header prefix p of n bytes (cannheader.PREFIX:
 * \[(level)\] ?(module)\((pid),(proc)\): ?), start and length of each into out[0..7]; -1
 * and 0 for each when n is 0 (a line without a header). A prefix the header walk took always
 * has that shape (header_stamp's grammar), so the walk only finds the delimiters. */
static void prefix_parts(const unsigned char *p, int64_t n, int64_t *out) {
    if (n == 0) {
        for (int k = 0; k < 8; k += 2) {
            out[k] = -1;
            out[k + 1] = 0;
        }
        return;
    }
    int64_t q = 1;
    while (q < n && p[q] != ']') q++;
    out[0] = 1;
    out[1] = q - 1;
    q++;
    if (q < n && p[q] == ' ') q++;
    out[2] = q;
    while (q < n && p[q] != '(') q++;
    out[3] = q - out[2];
    out[4] = ++q;
    while (q < n && p[q] != ',') q++;
    out[5] = q - out[4];
    out[6] = ++q;
    while (q < n && p[q] != ')') q++;
    out[7] = q - out[6];
}

/* Per distinct prefix: its parts' spans (8 int64 a prefix, prefix_parts) and the level,
 * module, pid and proc values as lists (None for the empty prefix; a pid of more than 18
 * characters None too); NULL with the error set. */
static PyObject *prefix_values(const Texts *t, const unsigned char *s) {
    PyObject *spans = PyBytes_FromStringAndSize(NULL, t->count * 8 * 8);
    PyObject *lists[4] = {PyList_New(t->count), PyList_New(t->count), PyList_New(t->count),
                          PyList_New(t->count)};
    PyObject *result = NULL;
    if (spans == NULL || !lists[0] || !lists[1] || !lists[2] || !lists[3]) goto done;
    int64_t *out = (int64_t *)PyBytes_AS_STRING(spans);
    for (Py_ssize_t k = 0; k < t->count; k++) {
        const unsigned char *p = s + t->start[k];
        int64_t *part = out + 8 * k;
        prefix_parts(p, t->len[k], part);
        for (int f = 0; f < 4; f++) {
            PyObject *value;
            int64_t pid;
            if (part[2 * f] < 0) {
                value = Py_None;
                Py_INCREF(value);
            } else if (f == 2) {
                if (integer_at(p + part[4], part[5], PID_DIGITS, &pid)) {
                    value = PyLong_FromLongLong(pid);
                } else {
                    value = Py_None;
                    Py_INCREF(value);
                }
            } else {
                value = PyBytes_FromStringAndSize((const char *)p + part[2 * f], part[2 * f + 1]);
            }
            if (value == NULL) goto done;
            PyList_SET_ITEM(lists[f], k, value);
        }
    }
    result = Py_BuildValue("(OOOOO)", spans, lists[0], lists[1], lists[2], lists[3]);
done:
    Py_XDECREF(spans);
    for (int f = 0; f < 4; f++) Py_XDECREF(lists[f]);
    return result;
}

enum { OFFSETS, VALUES, SPANS, PREFIX_INDEX, FILE_INDEX, SRC_LINE, SRC_LINE_VALID, TID, TID_VALID,
       OUTPUTS };

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
                                 picked * 8, picked * 8, picked, picked * 8, picked};
    PyObject *obj[OUTPUTS] = {NULL};
    Py_buffer view[OUTPUTS];
    int got = 0;
    for (; got < OUTPUTS; got++)
        if (allocated(allocate, sizes[got], &obj[got], &view[got]) < 0) break;
    PyObject *result = NULL, *prefixes = NULL, *files = NULL, *parts = NULL;
    Texts prefix = {0}, file = {0};
    if (got < OUTPUTS) goto done;
    if (texts_open(&prefix) < 0 || texts_open(&file) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *offsets = view[OFFSETS].buf, *spans = view[SPANS].buf;
    int64_t *prefix_index = view[PREFIX_INDEX].buf, *file_index = view[FILE_INDEX].buf;
    int64_t *src_line = view[SRC_LINE].buf, *tid = view[TID].buf;
    uint8_t *src_line_valid = view[SRC_LINE_VALID].buf, *tid_valid = view[TID_VALID].buf;
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
        /* the same source file as the line before (its groups at row - ROW) */
        if (k > 0 && row[3] == row[3 - ROW]
            && memcmp(s + a + row[2], values + offsets[k - 1] + row[2 - ROW], (size_t)row[3]) == 0)
            file_index[k] = file_index[k - 1];
        else
            file_index[k] = text_id(&file, s, a + row[2], row[3]);
        /* the derived spans: src_line at FIELDS + 3, the thread id's digits at FIELDS + 5 */
        src_line_valid[k] = inside(row[FIELDS + 3], row[FIELDS + 4], n) && integer_at(
            s + a + row[FIELDS + 3], row[FIELDS + 4], LINE_DIGITS, &src_line[k]);
        tid_valid[k] = inside(row[FIELDS + 5], row[FIELDS + 6], n) && integer_at(
            s + a + row[FIELDS + 5], row[FIELDS + 6], PID_DIGITS, &tid[k]);
        if (!src_line_valid[k]) src_line[k] = 0;
        if (!tid_valid[k]) tid[k] = 0;
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
    parts = prefix_values(&prefix, s);
    if (prefixes != NULL && files != NULL && parts != NULL)
        result = Py_BuildValue("(OOOOOOOOOOOO)", obj[OFFSETS], obj[VALUES], obj[SPANS],
                               obj[PREFIX_INDEX], prefixes, parts, obj[FILE_INDEX], files,
                               obj[SRC_LINE], obj[SRC_LINE_VALID], obj[TID], obj[TID_VALID]);
done:
    for (int j = 0; j < got; j++) PyBuffer_Release(&view[j]);
    for (int j = 0; j < OUTPUTS; j++) Py_XDECREF(obj[j]);
    Py_XDECREF(prefixes);
    Py_XDECREF(files);
    Py_XDECREF(parts);
    texts_free(&prefix);
    texts_free(&file);
    return result;
}
