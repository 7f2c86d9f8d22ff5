/*
 * plogscan.parse._cannheader: the group spans of the CANN header pattern, one line at a time.
 *
 * plogscan/parse/cannheader.py matches every line of a chunk with one RE2 pattern (ONE_PASS)
 * and reads four groups: the prefix before the timestamp, src_file, src_line and the
 * thread-id part. RE2 takes about 0.8 us a line for it, half the parse of a DEBUG-heavy
 * chunk. This module walks the same grammar by hand, which is unambiguous at every byte (that
 * is what makes ONE_PASS one-pass), and writes where each group starts and how long it is;
 * cannheader.py cuts the texts and derives everything else as it does from RE2's groups. Python's fallback (the
 * RE2 pattern) is used where this module is not built; tests/parse/test_cannheader.py holds
 * the two to the same groups on generated lines.
 *
 * glued_tags() finds, for plogscan/parse/glue.py, the level tags that do not open a line (a
 * record glued to the end of another after a lost newline): one memchr walk over the '['
 * bytes of a chunk instead of numpy's several passes over every byte; the same test file holds
 * it to glue.py's numpy version.
 *
 * span_ids() numbers the distinct header prefixes of a chunk where they lie (a hash table over
 * the spans), for cannheader.distinct_texts: Arrow's dictionary_encode needs every prefix cut
 * out as a string first, about three times the time; the tests hold the two to the same
 * numbers.
 *
 * The pattern, for reference (RE2 syntax: \d is [0-9], \w is [0-9A-Za-z_], \s is
 * [\t\n\f\r ]; a negated class takes every byte of a multi-byte UTF-8 character):
 *
 *   ^(?P<prefix>\[(?:[A-Z]+|\d+)\] ?\w+\(-?\d+,[^)]*\): ?)
 *   \d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3}
 *    ?(?:\[(?P<src_file>[^\]\s:]+)[: ](?P<src_line>\d+)\]
 *   (?: ?(?P<tid>\d+ |\[(?:\d+\]|[A-Za-z_]\w*\]\[[Tt]id:\d+\])|\(tid:\d+\)))?)?
 */

#include <stdlib.h>

#include "chunkscan.h"

/* The groups of one line into out[0..7] (start, length of each). */
void match_line(const unsigned char *s, Py_ssize_t n, int64_t *out) {
    Py_ssize_t p, q;
    memset(out, 0, FIELDS * sizeof(int64_t));
    if ((p = header_stamp(s, n)) == 0) return;
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


/* The byte at p of a line of n bytes, 0 past its end (arrowtext.byte_at). */
static unsigned char byte_in(const unsigned char *s, int64_t p, Py_ssize_t n) {
    return p >= 0 && p < n ? s[p] : 0;
}

/* Where the fields after the prefix lie, from the groups of match_line (g[0..7]) into
 * out[0..7]: ts start, src_file start and length, src_line start and length, tid digits'
 * start and length, message start; starts -1 (message 0) where the field is absent. The
 * arithmetic is cannheader.match's numpy derivation, line by line, so the two agree. */
void derive_fields(const unsigned char *s, Py_ssize_t n, const int64_t *g, int64_t *out) {
    int64_t ts0 = g[1], file_len = g[3], line_len = g[5], tid_len = g[7];
    if (ts0 <= 0) {
        out[0] = out[1] = out[3] = out[5] = -1;
        out[2] = out[4] = out[6] = out[7] = 0;
        return;
    }
    int has_block = file_len > 0, has_tid = tid_len > 0;
    int64_t after = ts0 + 27 + (byte_in(s, ts0 + 27, n) == ' ');
    int64_t line0 = after + 1 + file_len + 1;
    int64_t close_end = line0 + line_len + 1;
    int64_t t0 = close_end + (byte_in(s, close_end, n) == ' ');
    unsigned char first = byte_in(s, t0, n);
    int plain = has_tid && first != '[' && first != '(';
    int bracketed = has_tid && first == '[' && is_digit(byte_in(s, t0 + 1, n));
    int tagged = has_tid && !plain && !bracketed;
    out[0] = ts0;
    out[1] = has_block ? after + 1 : -1;
    out[2] = file_len;
    out[3] = has_block ? line0 : -1;
    out[4] = line_len;
    if (plain) {
        out[5] = t0;
        out[6] = tid_len - 1;
    } else if (bracketed) {
        out[5] = t0 + 1;
        out[6] = tid_len - 2;
    } else if (tagged) { /* the digits after the part's first ':' (find_substring: -1 if none) */
        int64_t colon = -1;
        for (int64_t k = 0; k < tid_len && g[6] + k < n; k++) {
            if (s[g[6] + k] == ':') {
                colon = k;
                break;
            }
        }
        out[5] = t0 + colon + 1;
        out[6] = tid_len - colon - 2;
    } else {
        out[5] = -1;
        out[6] = 0;
    }
    int64_t part_end = has_tid ? t0 + tid_len : (has_block ? close_end : after);
    out[7] = part_end + (byte_in(s, part_end, n) == ' ');
}

static PyObject *spans(PyObject *self, PyObject *args) {
    Py_buffer data, offsets, out;
    int derived = 0;
    if (!PyArg_ParseTuple(args, "y*y*w*|p", &data, &offsets, &out, &derived)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t width = derived ? 2 * FIELDS : FIELDS;
    Py_ssize_t lines = offsets.len / (Py_ssize_t)sizeof(int64_t) - 1;
    if (offsets.len % (Py_ssize_t)sizeof(int64_t) != 0 || lines < 0) {
        PyErr_SetString(PyExc_ValueError, "offsets must hold n + 1 int64 values");
    } else if (out.len < lines * width * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "out must hold 8 int64 values a line (16 derived)");
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
            int64_t *row = dst + i * width;
            match_line(s + a, (Py_ssize_t)(b - a), row);
            if (derived) derive_fields(s + a, (Py_ssize_t)(b - a), row, row + FIELDS);
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

static PyObject *span_ids(PyObject *self, PyObject *args) {
    Py_buffer data, starts, lengths, out;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &data, &starts, &lengths, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = starts.len / (Py_ssize_t)sizeof(int64_t);
    const unsigned char *s = (const unsigned char *)data.buf;
    const int64_t *start = starts.buf, *len = lengths.buf;
    Texts t = {0};
    if (starts.len != lengths.len || starts.len % (Py_ssize_t)sizeof(int64_t) != 0
        || out.len < starts.len) {
        PyErr_SetString(PyExc_ValueError, "starts, lengths and out must hold one int64 a row");
        goto done;
    }
    for (Py_ssize_t i = 0; i < rows; i++) {
        if (start[i] < 0 || len[i] < 0 || start[i] + len[i] > data.len) {
            PyErr_Format(PyExc_ValueError, "span %zd lies outside the data", i);
            goto done;
        }
    }
    if (texts_open(&t) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *ids = (int64_t *)out.buf;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < rows && !failed; i++) {
        if (i > 0 && len[i - 1] == len[i]
            && memcmp(s + start[i - 1], s + start[i], (size_t)len[i]) == 0) {
            ids[i] = ids[i - 1]; /* lines of one process often follow each other */
            continue;
        }
        ids[i] = text_id(&t, s, start[i], len[i]);
        failed = ids[i] < 0;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = texts_list(&t, s);
done:
    texts_free(&t);
    PyBuffer_Release(&data);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&out);
    return result;
}

/* The number of lines of data: its newlines plus one (data holds whole lines without the last
 * newline, so an empty buffer is one empty line). */
static Py_ssize_t count_newlines(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t count = 0;
    const unsigned char *p = s, *end = s + n;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        count++;
        p++;
    }
    return count;
}

static PyObject *line_count(PyObject *self, PyObject *args) {
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    Py_ssize_t count;
    Py_BEGIN_ALLOW_THREADS
    count = count_newlines((const unsigned char *)data.buf, data.len) + 1;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(count);
}

/* Arrow's large_string layout of the lines of data: offsets (n + 1 int64) and the text without
 * the newlines. The caller sizes both from line_count; a buffer too small is an error, never a
 * write past its end. */
static PyObject *split_lines(PyObject *self, PyObject *args) {
    Py_buffer data, offsets, text;
    if (!PyArg_ParseTuple(args, "y*w*w*", &data, &offsets, &text)) return NULL;
    const unsigned char *s = (const unsigned char *)data.buf, *end = s + data.len;
    int64_t *off = (int64_t *)offsets.buf;
    unsigned char *dst = (unsigned char *)text.buf;
    Py_ssize_t slots = offsets.len / (Py_ssize_t)sizeof(int64_t), lines = 0;
    int64_t written = 0;
    int fits = 1;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *p = s;
    if (slots < 1) fits = 0;
    else off[0] = 0;
    while (fits) {
        const unsigned char *q = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *stop = q != NULL ? q : end;
        Py_ssize_t len = stop - p;
        if (lines + 2 > slots || written + len > text.len) {
            fits = 0;
            break;
        }
        memcpy(dst + written, p, (size_t)len);
        written += len;
        off[++lines] = written;
        if (q == NULL) break;
        p = q + 1;
    }
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (!fits) {
        PyErr_SetString(PyExc_ValueError, "offsets or text too small for the lines of data");
    } else {
        result = PyLong_FromSsize_t(lines);
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&text);
    return result;
}

/* Whether the rows of the int64 buffers starts and lengths all lie inside data (a start of -1
 * marks a row without a value and is not checked). */
static int spans_inside(const int64_t *start, const int64_t *len, Py_ssize_t rows, Py_ssize_t size) {
    for (Py_ssize_t i = 0; i < rows; i++) {
        if (start[i] < 0) continue;
        if (len[i] < 0 || start[i] > size || len[i] > size - start[i]) return 0;
    }
    return 1;
}

/* integers(data, starts, lengths, limit, values, valid): the number -?[0-9]+ written at
 * data[starts[i]:starts[i] + lengths[i]] into values[i] (int64) and 1 into valid[i] (uint8);
 * 0 where starts[i] is -1, the text is longer than limit bytes (limit <= 18: no overflow) or
 * it is not such a number. */
static PyObject *integers(PyObject *self, PyObject *args) {
    Py_buffer data, starts, lengths, values, valid;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "y*y*y*nw*w*", &data, &starts, &lengths, &limit, &values, &valid))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = starts.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *start = starts.buf, *len = lengths.buf;
    if (starts.len != lengths.len || starts.len % (Py_ssize_t)sizeof(int64_t) != 0
        || values.len < starts.len || valid.len < rows || limit < 0 || limit > 18) {
        PyErr_SetString(PyExc_ValueError, "integers: starts, lengths, values (int64) and valid "
                        "(uint8) must hold one value a row; limit at most 18");
    } else if (!spans_inside(start, len, rows, data.len)) {
        PyErr_SetString(PyExc_ValueError, "integers: a span lies outside the data");
    } else {
        const unsigned char *s = (const unsigned char *)data.buf;
        int64_t *out = values.buf;
        uint8_t *ok = valid.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < rows; i++) {
            out[i] = 0;
            ok[i] = 0;
            int64_t n = len[i];
            if (start[i] < 0 || n > limit || n == 0) continue;
            const unsigned char *p = s + start[i];
            int negative = p[0] == '-';
            int64_t k = negative, value = 0;
            if (k == n) continue;
            for (; k < n && is_digit(p[k]); k++) value = value * 10 + (p[k] - '0');
            if (k < n) continue;
            out[i] = negative ? -value : value;
            ok[i] = 1;
        }
        Py_END_ALLOW_THREADS
        result = Py_None;
        Py_INCREF(result);
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&values);
    PyBuffer_Release(&valid);
    return result;
}

/* cann_times(data, starts, micros, valid): the CANN timestamp YYYY-MM-DD-hh:mm:ss.mmm.uuu at
 * data[starts[i]:] as microseconds since 1970 (valid[i] = 1), as timestamps.parse_cann_bytes
 * reads it: each of the 20 digit places is taken as (byte - '0') without a check (the header
 * grammar put digits there), bytes past the end of data read as 0; valid[i] = 0 where
 * starts[i] is -1 or the date is not a real one (month 13, 30 February, hour 24, year 0,
 * a second of year 10000 or later). */
static PyObject *cann_times(PyObject *self, PyObject *args) {
    Py_buffer data, starts, micros, valid;
    if (!PyArg_ParseTuple(args, "y*y*w*w*", &data, &starts, &micros, &valid)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = starts.len / (Py_ssize_t)sizeof(int64_t);
    if (starts.len % (Py_ssize_t)sizeof(int64_t) != 0 || micros.len < starts.len || valid.len < rows) {
        PyErr_SetString(PyExc_ValueError, "cann_times: starts, micros (int64) and valid (uint8) "
                        "must hold one value a row");
        goto done;
    }
    const int64_t *start = starts.buf;
    for (Py_ssize_t i = 0; i < rows; i++) {
        if (start[i] > data.len) {
            PyErr_SetString(PyExc_ValueError, "cann_times: a start lies outside the data");
            goto done;
        }
    }
    {
        const unsigned char *s = (const unsigned char *)data.buf;
        int64_t *out = micros.buf;
        uint8_t *ok = valid.buf;
        Py_ssize_t size = data.len;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < rows; i++) {
            out[i] = 0;
            ok[i] = 0;
            if (start[i] < 0) continue;
            int good;
            out[i] = cann_micros(s, size, (Py_ssize_t)start[i], &good);
            ok[i] = (uint8_t)good;
        }
        Py_END_ALLOW_THREADS
        result = Py_None;
        Py_INCREF(result);
    }
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&micros);
    PyBuffer_Release(&valid);
    return result;
}

static PyMethodDef methods[] = {
    {"skim_lines", skim_lines, METH_VARARGS,
     "skim_lines(data, ends, start_mask, unknown, quiet, truncation): split data into lines "
     "and mark each for the skim (native/skim.c): (starts, header, parse_line, prefix, "
     "ts_start, distinct prefixes)."},
    {"skim_segments", skim_segments, METH_VARARGS,
     "skim_segments(header, parse_line): whether each record holds a line to parse."},
    {"skim_skipped", skim_skipped, METH_VARARGS,
     "skim_skipped(data, starts, header, parse_segment, prefix, ts_start, prefixes, "
     "allocate=None): the parse mask, the skipped records with their prefix ids and "
     "timestamps, sums by prefix, the lines to parse joined by newlines and, with allocate, "
     "those lines split and matched (offsets, values, header spans, prefix index, prefixes, "
     "src_file index, src_files)."},
    {"holds", holds, METH_VARARGS,
     "holds(data, needle, anchor): whether needle occurs in data (found by memchr on "
     "needle[anchor], a byte rare in the data)."},
    {"integers", integers, METH_VARARGS,
     "integers(data, starts, lengths, limit, values, valid): the number -?[0-9]+ at each "
     "span of data (int64 starts, -1 for none, and lengths) into values (int64), 1 into valid "
     "(uint8) where there is one of at most limit (<= 18) bytes."},
    {"cann_times", cann_times, METH_VARARGS,
     "cann_times(data, starts, micros, valid): the CANN timestamp at each start of data "
     "(int64, -1 for none) as microseconds since 1970 into micros (int64), 1 into valid "
     "(uint8) where it is a real date."},
    {"line_count", line_count, METH_VARARGS,
     "line_count(data): the lines of data (its newlines plus one)."},
    {"split_lines", split_lines, METH_VARARGS,
     "split_lines(data, offsets, text): the lines of data (split on newlines) in Arrow's "
     "large_string layout: offsets (int64, line_count(data) + 1 of them) and text (the bytes "
     "without the newlines); returns the number of lines."},
    {"span_ids", span_ids, METH_VARARGS,
     "span_ids(data, starts, lengths, out): number the distinct byte strings "
     "data[starts[i]:starts[i] + lengths[i]] (int64 arrays) in the order they first come: "
     "out[i] (int64) gets the number of row i's string; returns the distinct strings, as "
     "bytes, in that order (what Arrow's dictionary_encode gives, without cutting every "
     "string out first)."},
    {"glued_tags", glued_tags, METH_VARARGS,
     "glued_tags(data): offsets of each '[' in data, not at its start nor after a newline, "
     "that opens a level tag ([ERROR], [WARNING], [INFO], [DEBUG], [EVENT] or [TRACE]): where "
     "a record may be glued to the end of a line."},
    {"spans", spans, METH_VARARGS,
     "spans(data, offsets, out, derived=False): for line i (data[offsets[i]:offsets[i + 1]]) "
     "write the start (in the line) and length of the prefix, src_file, src_line and tid "
     "groups of the CANN header pattern to out[8 * i:8 * i + 8] (int64; 0 and 0 for a group "
     "that took no part, all 0 where the line does not match). With derived, rows are 16 "
     "values: the 8 groups, then the ts start, src_file start and length, src_line start and "
     "length, thread id digits' start and length and the message start (starts -1 and the "
     "message 0 where absent)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cannheader",
                                    "The CANN header pattern's group lengths, in C.", -1,
                                    methods};

int add_match_list(PyObject *module); /* native/matchlist.c */

PyMODINIT_FUNC PyInit__cannheader(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && add_match_list(m) < 0) Py_CLEAR(m);
    return m;
}
