/*
 * plogscan.parse._cannheader: the group spans of the CANN header pattern, one line at a time.
 *
 * plogscan/parse/cannheader.py matches every line of a chunk with one RE2 pattern (ONE_PASS)
 * and reads four groups: the prefix before the timestamp, src_file, src_line and the
 * thread-id part. RE2 takes about 0.8 us a line for it, half the parse of a DEBUG-heavy
 * chunk. This module walks the same grammar by hand, which is unambiguous at every byte (that
 * is what makes ONE_PASS one-pass), and writes where each group starts and how long it is;
 * cannheader.py cuts the texts and derives everything else as it does from RE2's groups. Python's fallback (the
 * RE2 pattern) is used where this module is not built; tests/test_cannheader.py holds
 * the two to the same groups on generated lines.
 *
 * glued_tags() finds, for plogscan/parse/glue.py, the level tags that do not open a line (a
 * record glued to the end of another after a lost newline): one memchr walk over the '['
 * bytes of a chunk instead of numpy's several passes over every byte; the same test file holds
 * it to glue.py's numpy version.
 *
 * The pattern, for reference (RE2 syntax: \d is [0-9], \w is [0-9A-Za-z_], \s is
 * [\t\n\f\r ]; a negated class takes every byte of a multi-byte UTF-8 character):
 *
 *   ^(?P<prefix>\[(?:[A-Z]+|\d+)\] ?\w+\(-?\d+,[^)]*\): ?)
 *   \d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3}
 *    ?(?:\[(?P<src_file>[^\]\s:]+)[: ](?P<src_line>\d+)\]
 *   (?: ?(?P<tid>\d+ |\[(?:\d+\]|[A-Za-z_]\w*\]\[[Tt]id:\d+\])|\(tid:\d+\)))?)?
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Per line: start and length of the prefix, src_file, src_line and tid groups (0 and 0 for a
 * group that took no part; all 0 when the line does not match). */
#define FIELDS 8

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static int is_alpha_(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static int is_word(unsigned char c) { return is_digit(c) || is_alpha_(c); }
static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Digits from *p (at least one): the position after them, or -1. */
static Py_ssize_t digits(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    Py_ssize_t q = p;
    while (q < n && is_digit(s[q])) q++;
    return q > p ? q : -1;
}

/* The 27 bytes of YYYY-MM-DD-hh:mm:ss.mmm.uuu (a space may stand for the third dash). */
static int timestamp_at(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    static const char shape[] = "dddd-dd-dd-dd:dd:dd.ddd.ddd";
    if (n - p < 27) return 0;
    for (int k = 0; k < 27; k++) {
        unsigned char c = s[p + k];
        char want = shape[k];
        if (want == 'd') {
            if (!is_digit(c)) return 0;
        } else if (k == 10) {
            if (c != '-' && c != ' ') return 0;
        } else if (c != (unsigned char)want) {
            return 0;
        }
    }
    return 1;
}

/* The groups of one line into out[0..7] (start, length of each). */
static void match_line(const unsigned char *s, Py_ssize_t n, int64_t *out) {
    Py_ssize_t p = 0, q;
    memset(out, 0, FIELDS * sizeof(int64_t));
    /* prefix: \[(?:[A-Z]+|\d+)\] ?\w+\(-?\d+,[^)]*\): ? */
    if (p >= n || s[p] != '[') return;
    p++;
    if (p < n && is_upper(s[p])) {
        while (p < n && is_upper(s[p])) p++;
    } else if ((q = digits(s, p, n)) >= 0) {
        p = q;
    } else {
        return;
    }
    if (p >= n || s[p] != ']') return;
    p++;
    if (p < n && s[p] == ' ') p++;
    q = p;
    while (p < n && is_word(s[p])) p++;
    if (p == q || p >= n || s[p] != '(') return;
    p++;
    if (p < n && s[p] == '-') p++;
    if ((p = digits(s, p, n)) < 0 || p >= n || s[p] != ',') return;
    p++;
    while (p < n && s[p] != ')') p++;
    if (p + 1 >= n || s[p + 1] != ':') return; /* s[p] is ')' when p < n */
    p += 2;
    if (p < n && s[p] == ' ') p++;
    if (!timestamp_at(s, p, n)) return;
    out[1] = p;
    p += 27;
    /* " ?(?:\[src_file[: ]src_line\](?: ?tid)?)?" */
    if (p < n && s[p] == ' ') p++;
    if (p >= n || s[p] != '[') return;
    q = ++p;
    while (p < n && s[p] != ']' && s[p] != ':' && !is_space(s[p])) p++;
    if (p == q || p >= n || (s[p] != ':' && s[p] != ' ')) return;
    Py_ssize_t file_start = q, file_len = p - q;
    q = ++p;
    if ((p = digits(s, p, n)) < 0 || p >= n || s[p] != ']') return;
    out[2] = file_start;
    out[3] = file_len;
    out[4] = q;
    out[5] = p - q;
    p++;
    if (p < n && s[p] == ' ') p++;
    q = p;
    if (p >= n) return;
    Py_ssize_t tid_len = 0;
    if (is_digit(s[p])) { /* \d+ followed by its space */
        p = digits(s, p, n);
        if (p < n && s[p] == ' ') tid_len = p + 1 - q;
    } else if (s[p] == '[') { /* \[\d+\] or \[Func\]\[tid:N\] */
        p++;
        if (p < n && is_digit(s[p])) {
            p = digits(s, p, n);
            if (p < n && s[p] == ']') tid_len = p + 1 - q;
        } else if (p < n && is_alpha_(s[p])) {
            while (p < n && is_word(s[p])) p++;
            if (n - p >= 6 && s[p] == ']' && s[p + 1] == '[' && (s[p + 2] == 'T' || s[p + 2] == 't')
                && memcmp(s + p + 3, "id:", 3) == 0) {
                p = digits(s, p + 6, n);
                if (p >= 0 && p < n && s[p] == ']') tid_len = p + 1 - q;
            }
        }
    } else if (s[p] == '(' && n - p >= 5 && memcmp(s + p, "(tid:", 5) == 0) {
        p = digits(s, p + 5, n);
        if (p >= 0 && p < n && s[p] == ')') tid_len = p + 1 - q;
    }
    if (tid_len) {
        out[6] = q;
        out[7] = tid_len;
    }
}

static PyObject *spans(PyObject *self, PyObject *args) {
    Py_buffer data, offsets, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &data, &offsets, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t lines = offsets.len / (Py_ssize_t)sizeof(int64_t) - 1;
    if (offsets.len % (Py_ssize_t)sizeof(int64_t) != 0 || lines < 0) {
        PyErr_SetString(PyExc_ValueError, "offsets must hold n + 1 int64 values");
    } else if (out.len < lines * FIELDS * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "out must hold 8 int64 values a line");
    } else {
        const unsigned char *s = (const unsigned char *)data.buf;
        const int64_t *off = (const int64_t *)offsets.buf;
        int64_t *dst = (int64_t *)out.buf;
        Py_ssize_t bad = -1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < lines; i++) {
            int64_t a = off[i], b = off[i + 1];
            if (a < 0 || b < a || b > data.len) {
                bad = i;
                break;
            }
            match_line(s + a, (Py_ssize_t)(b - a), dst + i * FIELDS);
        }
        Py_END_ALLOW_THREADS
        if (bad >= 0) {
            PyErr_Format(PyExc_ValueError, "line %zd lies outside the data", bad);
        } else {
            result = Py_None;
            Py_INCREF(result);
        }
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&out);
    return result;
}

/* The level tags a glued record starts with (glue.py's _GLUE_TAGS). */
static const char *const TAGS[] = {"[ERROR]", "[WARNING]", "[INFO]", "[DEBUG]", "[EVENT]", "[TRACE]"};

static int tag_at(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    if (n - p < 6) return 0;
    switch (s[p + 1]) { /* most '[' of a log open no tag: one byte rules them out */
    case 'E': case 'W': case 'I': case 'D': case 'T': break;
    default: return 0;
    }
    for (size_t t = 0; t < sizeof(TAGS) / sizeof(TAGS[0]); t++) {
        size_t len = strlen(TAGS[t]);
        if ((size_t)(n - p) >= len && memcmp(s + p, TAGS[t], len) == 0) return 1;
    }
    return 0;
}

static PyObject *glued_tags(PyObject *self, PyObject *args) {
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    const unsigned char *s = (const unsigned char *)data.buf;
    Py_ssize_t n = data.len, found = 0, cap = 0;
    Py_ssize_t *at = NULL;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *q = n > 1 ? memchr(s + 1, '[', (size_t)(n - 1)) : NULL;
    while (q != NULL) {
        Py_ssize_t p = q - s;
        if (s[p - 1] != '\n' && tag_at(s, p, n)) {
            if (found == cap) {
                Py_ssize_t grown = cap ? 2 * cap : 16;
                Py_ssize_t *more = realloc(at, (size_t)grown * sizeof(Py_ssize_t));
                if (more == NULL) {
                    failed = 1;
                    break;
                }
                at = more;
                cap = grown;
            }
            at[found++] = p;
        }
        q = p + 1 < n ? memchr(s + p + 1, '[', (size_t)(n - p - 1)) : NULL;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (failed) {
        free(at);
        return PyErr_NoMemory();
    }
    PyObject *result = PyList_New(found);
    for (Py_ssize_t i = 0; result != NULL && i < found; i++) {
        PyObject *value = PyLong_FromSsize_t(at[i]);
        if (value == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, i, value);
    }
    free(at);
    return result;
}

static PyMethodDef methods[] = {
    {"glued_tags", glued_tags, METH_VARARGS,
     "glued_tags(data): offsets of each '[' in data, not at its start nor after a newline, "
     "that opens a level tag ([ERROR], [WARNING], [INFO], [DEBUG], [EVENT] or [TRACE]): where "
     "a record may be glued to the end of a line."},
    {"spans", spans, METH_VARARGS,
     "spans(data, offsets, out): for line i (data[offsets[i]:offsets[i + 1]]) write the start "
     "(in the line) and length of the prefix, src_file, src_line and tid groups of the CANN "
     "header pattern to out[8 * i:8 * i + 8] (int64; 0 and 0 for a group that took no part, "
     "all 0 where the line does not match)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cannheader",
                                    "The CANN header pattern's group lengths, in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__cannheader(void) { return PyModule_Create(&module); }
