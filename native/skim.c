/*
 * The skim of a chunk of CANN log text (plogscan/parse/skim.py), in C: which lines to parse,
 * and the facts of the records left unparsed, without a Python object a line.
 *
 * skim.py decides with numpy and Arrow over whole-chunk masks (a dozen passes over the lines
 * and about twenty Arrow calls); here one walk over the bytes splits the lines and decides each
 * line's part, a second walk over the per-line marks closes the records, and a third reads the
 * skipped records' timestamps and sums them by header prefix. skim.py's numpy version stays
 * the fallback (and the definition): tests/parse/test_skim.py holds the two to the same marks,
 * rows, timestamps and facts.
 *
 * skim_lines(data, ends, start_mask, unknown, quiet, truncation)
 *     Splits data on newlines and marks each line: its start, whether it carries a CANN header
 *     the skim can read (the prefix and timestamp shape of header_stamp, a pid of at most 18
 *     characters, a proc without '['), the id of its header prefix among the chunk's distinct
 *     prefixes, where its timestamp starts, and whether it must be parsed (1), may be skipped
 *     (0) or is for the caller to decide (2: no known first byte rules it in and unknown
 *     patterns may start it). A line must be parsed when a hit ends in it (ends: int64 end
 *     offsets in data), when it is blank (Arrow's ASCII white space), not ASCII, at least
 *     truncation bytes long, holds a level tag after its first byte (glue.suspects), is a
 *     header at a level not in quiet, or is no header and its first byte is in start_mask.
 * skim_segments(header, parse_line)
 *     Whether each record (the lines before the first header, then each header and the lines
 *     after it) holds a line to parse; the first and last always do.
 * skim_skipped(data, starts, header, parse_segment, prefix, ts_start, prefixes, allocate=None)
 *     The parse mask of every line, the skipped records (header lines), their prefix ids,
 *     timestamps (microseconds, and whether each is a real date), by prefix how many, how
 *     many real dates, the first and last time, row and the records with a 1970 clock; the
 *     lines to parse joined by newlines (a copy a run of them); and with allocate (a function
 *     that gives a writable buffer of n bytes), those lines as the parser reads them
 *     (native/pickedlines.c), else None.
 */

#include <stdlib.h>

#include "chunkscan.h"

#define MAX_QUIET 16
#define QUIET_BYTES 32
#define PID_CHARS 18 /* fieldvalues._digit_limit(int64): a longer pid reads as null */
#define EPOCH_1971_US INT64_C(31536000000000)

/* Arrow's utf8_is_space for ASCII: \t \n \v \f \r, 0x1C-0x1F and the space. */
static int arrow_space(unsigned char c) { return (c >= 9 && c <= 13) || (c >= 28 && c <= 32); }

static int all_ascii(const unsigned char *s, Py_ssize_t n) {
    uint64_t acc = 0;
    Py_ssize_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, s + k, 8);
        acc |= w;
    }
    for (; k < n; k++) acc |= s[k];
    return (acc & UINT64_C(0x8080808080808080)) == 0;
}

static int blank_line(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (!arrow_space(s[k])) return 0;
    return 1;
}

/* Whether a level tag opens at a '[' of the line after its first byte (s is the whole
 * buffer of size bytes, the line is s[a:e]). */
static int glued_in(const unsigned char *s, Py_ssize_t size, Py_ssize_t a, Py_ssize_t e) {
    const unsigned char *q = a + 1 < e ? memchr(s + a + 1, '[', (size_t)(e - a - 1)) : NULL;
    while (q != NULL) {
        Py_ssize_t p = q - s;
        if (tag_at(s, p, size)) return 1;
        q = p + 1 < e ? memchr(s + p + 1, '[', (size_t)(e - p - 1)) : NULL;
    }
    return 0;
}

/* The distinct header prefixes of a chunk (texts, by id where each first comes) and, by id,
 * whether the skim can read its header and whether its level is quiet (cap of them). */
typedef struct {
    Texts texts;
    uint8_t *readable, *quiet;
    Py_ssize_t cap;
} Prefixes;

typedef struct {
    char text[MAX_QUIET][QUIET_BYTES];
    Py_ssize_t len[MAX_QUIET], count;
} QuietLevels;

/* Whether the header prefix s[0:n] (which header_stamp took) has a pid the skim reads and a
 * proc without '['; *quiet: whether its level is one of q. */
static int readable_prefix(const unsigned char *s, Py_ssize_t n, const QuietLevels *q,
                           uint8_t *quiet) {
    Py_ssize_t close = 1;
    while (s[close] != ']') close++;
    *quiet = 0;
    for (Py_ssize_t k = 0; k < q->count; k++)
        if (q->len[k] == close - 1 && memcmp(s + 1, q->text[k], (size_t)(close - 1)) == 0)
            *quiet = 1;
    Py_ssize_t p = close + 1;
    while (s[p] != '(') p++;
    Py_ssize_t pid = ++p;
    while (s[p] != ',') p++;
    if (p - pid > PID_CHARS) return 0;
    for (p++; p < n && s[p] != ')'; p++)
        if (s[p] == '[') return 0;
    return 1;
}

/* The id of the prefix s[a:a + n] (added where new), -1 when out of memory. */
static int64_t prefix_id(Prefixes *t, const unsigned char *s, Py_ssize_t a, Py_ssize_t n,
                         const QuietLevels *q) {
    Py_ssize_t known = t->texts.count;
    int64_t id = text_id(&t->texts, s, a, n);
    if (id < known) return id; /* known already, or -1 */
    if (t->cap < t->texts.cap) {
        uint8_t *readable = realloc(t->readable, (size_t)t->texts.cap);
        if (readable) t->readable = readable;
        uint8_t *quiet = realloc(t->quiet, (size_t)t->texts.cap);
        if (quiet) t->quiet = quiet;
        if (!readable || !quiet) return -1;
        t->cap = t->texts.cap;
    }
    t->readable[id] = (uint8_t)readable_prefix(s + a, n, q, &t->quiet[id]);
    return id;
}

static void prefixes_free(Prefixes *t) {
    texts_free(&t->texts);
    free(t->readable);
    free(t->quiet);
}

/* A new bytearray of size bytes (its contents unset), or NULL with the error set. */
static PyObject *buffer_of(Py_ssize_t size, void **at) {
    PyObject *out = PyByteArray_FromStringAndSize(NULL, size);
    if (out != NULL) *at = PyByteArray_AS_STRING(out);
    return out;
}

static int read_quiet(PyObject *levels, QuietLevels *q) {
    if (!PyTuple_Check(levels) || PyTuple_GET_SIZE(levels) > MAX_QUIET) {
        PyErr_SetString(PyExc_ValueError, "quiet must be a tuple of at most 16 bytes values");
        return -1;
    }
    q->count = PyTuple_GET_SIZE(levels);
    for (Py_ssize_t k = 0; k < q->count; k++) {
        PyObject *level = PyTuple_GET_ITEM(levels, k);
        if (!PyBytes_Check(level) || PyBytes_GET_SIZE(level) > QUIET_BYTES) {
            PyErr_SetString(PyExc_ValueError, "quiet levels must be bytes of at most 32");
            return -1;
        }
        q->len[k] = PyBytes_GET_SIZE(level);
        memcpy(q->text[k], PyBytes_AS_STRING(level), (size_t)q->len[k]);
    }
    return 0;
}

/* The per-line marks of skim_lines while it walks: grown as lines come (a chunk's line count
 * is not known before the walk, and counting first would be one more pass over its bytes). */
typedef struct {
    int64_t *starts, *prefix, *stamp;
    uint8_t *header, *parse;
    Py_ssize_t cap;
} Marks;

static int marks_grow(Marks *m, Py_ssize_t need) {
    if (need <= m->cap) return 0;
    Py_ssize_t cap = m->cap;
    while (cap < need) cap *= 2;
    int64_t *starts = realloc(m->starts, (size_t)cap * 8);
    if (starts) m->starts = starts;
    int64_t *prefix = realloc(m->prefix, (size_t)cap * 8);
    if (prefix) m->prefix = prefix;
    int64_t *stamp = realloc(m->stamp, (size_t)cap * 8);
    if (stamp) m->stamp = stamp;
    uint8_t *header = realloc(m->header, (size_t)cap);
    if (header) m->header = header;
    uint8_t *parse = realloc(m->parse, (size_t)cap);
    if (parse) m->parse = parse;
    if (!starts || !prefix || !stamp || !header || !parse) return -1;
    m->cap = cap;
    return 0;
}

/* A bytearray holding a copy of size bytes at src, or NULL with the error set. */
static PyObject *copied(const void *src, Py_ssize_t size) {
    return PyByteArray_FromStringAndSize((const char *)src, size);
}

PyObject *skim_lines(PyObject *self, PyObject *args) {
    Py_buffer data, ends, start_mask;
    PyObject *levels, *result = NULL;
    int unknown;
    Py_ssize_t truncation;
    if (!PyArg_ParseTuple(args, "y*y*y*pO!n", &data, &ends, &start_mask, &unknown,
                          &PyTuple_Type, &levels, &truncation))
        return NULL;
    QuietLevels quiet;
    Prefixes t = {{0}, NULL, NULL, 0};
    Marks m = {NULL, NULL, NULL, NULL, NULL, 1};
    PyObject *distinct = NULL;
    Py_ssize_t lines = 0;
    if (start_mask.len != 256 || ends.len % (Py_ssize_t)sizeof(int64_t) != 0) {
        PyErr_SetString(PyExc_ValueError, "start_mask must be 256 bytes, ends int64 values");
        goto done;
    }
    if (read_quiet(levels, &quiet) < 0) goto done;
    const unsigned char *s = (const unsigned char *)data.buf;
    Py_ssize_t size = data.len;
    if (texts_open(&t.texts) < 0 || marks_grow(&m, size / 64 + 16) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *mask = start_mask.buf;
    const int64_t *hit = ends.buf;
    Py_ssize_t hits = ends.len / (Py_ssize_t)sizeof(int64_t);
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t a = 0, last_at = 0, last_start = 0;
    int64_t last_id = -1;
    for (;;) {
        if (marks_grow(&m, lines + 2) < 0) {
            failed = 1;
            break;
        }
        const unsigned char *nl = memchr(s + a, '\n', (size_t)(size - a));
        Py_ssize_t e = nl != NULL ? nl - s : size, n = e - a;
        const unsigned char *line = s + a;
        Py_ssize_t at = header_stamp(line, n);
        uint8_t is_header = 0, pl = n >= truncation;
        m.starts[lines] = a;
        m.prefix[lines] = -1;
        m.stamp[lines] = at;
        if (at > 0) {
            int64_t id = last_id; /* a process's lines often follow each other */
            if (at != last_at || memcmp(line, s + last_start, (size_t)at) != 0)
                id = prefix_id(&t, s, a, at, &quiet);
            if (id < 0) {
                failed = 1;
                break;
            }
            last_id = id;
            last_at = at;
            last_start = a;
            m.prefix[lines] = id;
            is_header = t.readable[id];
            pl |= is_header && !t.quiet[id];
        }
        if (!pl) /* a readable header holds no '[' before its timestamp's end but the first */
            pl = n == 0 || !all_ascii(line, n) || (arrow_space(line[0]) && blank_line(line, n))
                 || glued_in(s, size, is_header ? a + at + 26 : a, e);
        if (!pl && !is_header) pl = mask[line[0]] ? 1 : (unknown ? 2 : 0);
        m.header[lines] = is_header;
        m.parse[lines++] = pl;
        if (nl == NULL) break;
        a = e + 1;
    }
    if (!failed) m.starts[lines] = size + 1;
    for (Py_ssize_t k = 0; !failed && k < hits; k++) {
        /* the line that holds byte hit[k] - 1 (numpy's searchsorted; before the data: the
         * last line, as a numpy index of -1 is) */
        int64_t b = hit[k] - 1;
        Py_ssize_t lo = 0, hi = lines; /* the first line starting after b */
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (m.starts[mid] <= b) lo = mid + 1;
            else hi = mid;
        }
        m.parse[lo > 0 ? lo - 1 : lines - 1] = 1;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    distinct = texts_list(&t.texts, s);
    if (distinct != NULL)
        result = Py_BuildValue("(NNNNNO)", copied(m.starts, (lines + 1) * 8),
                               copied(m.header, lines), copied(m.parse, lines),
                               copied(m.prefix, lines * 8), copied(m.stamp, lines * 8), distinct);
done:
    Py_XDECREF(distinct);
    free(m.starts);
    free(m.prefix);
    free(m.stamp);
    free(m.header);
    free(m.parse);
    prefixes_free(&t);
    PyBuffer_Release(&data);
    PyBuffer_Release(&ends);
    PyBuffer_Release(&start_mask);
    return result;
}

PyObject *skim_segments(PyObject *self, PyObject *args) {
    Py_buffer header, parse;
    if (!PyArg_ParseTuple(args, "y*y*", &header, &parse)) return NULL;
    PyObject *result = NULL;
    if (header.len != parse.len) {
        PyErr_SetString(PyExc_ValueError, "header and parse_line must hold one byte a line");
    } else {
        const uint8_t *h = header.buf, *pl = parse.buf;
        Py_ssize_t count = 1;
        for (Py_ssize_t i = 0; i < header.len; i++) count += h[i] != 0;
        uint8_t *seg;
        result = buffer_of(count, (void **)&seg);
        if (result != NULL) {
            Py_ssize_t k = 0;
            seg[0] = 0;
            for (Py_ssize_t i = 0; i < header.len; i++) {
                if (h[i]) seg[++k] = 0;
                seg[k] |= pl[i] != 0;
            }
            seg[0] = seg[count - 1] = 1;
        }
    }
    PyBuffer_Release(&header);
    PyBuffer_Release(&parse);
    return result;
}

/* Per prefix: records, real dates, first and last time, first and last row, 1970 clocks. */
enum { RECORDS, DATED, FIRST_TS, LAST_TS, FIRST_ROW, LAST_ROW, EPOCH, SUMS };

PyObject *skim_skipped(PyObject *self, PyObject *args) {
    Py_buffer data, starts, header, segments, prefix, stamp;
    Py_ssize_t prefixes;
    PyObject *allocate = Py_None;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*n|O", &data, &starts, &header, &segments, &prefix,
                          &stamp, &prefixes, &allocate))
        return NULL;
    PyObject *result = NULL, *parse_obj = NULL, *rows_obj = NULL, *ids_obj = NULL,
             *micros_obj = NULL, *valid_obj = NULL, *sums_obj = NULL, *text_obj = NULL,
             *lines_obj = NULL;
    Py_ssize_t lines = header.len;
    const int64_t *start = starts.buf, *pid = prefix.buf, *ts0 = stamp.buf;
    const uint8_t *h = header.buf, *seg = segments.buf;
    Py_ssize_t count = 1;
    for (Py_ssize_t i = 0; i < lines; i++) count += h[i] != 0;
    if (starts.len != (lines + 1) * 8 || prefix.len != lines * 8 || stamp.len != lines * 8
        || segments.len != count || prefixes < 0) {
        PyErr_SetString(PyExc_ValueError, "skim_skipped: the marks of skim_lines and the "
                        "records of skim_segments must come from one chunk");
        goto done;
    }
    for (Py_ssize_t i = 0; i < lines; i++) {
        if (start[i] < 0 || start[i + 1] <= start[i] || start[i + 1] > data.len + 1) {
            PyErr_Format(PyExc_ValueError, "skim_skipped: line %zd lies outside the data", i);
            goto done;
        }
        if (h[i] && (pid[i] < 0 || pid[i] >= prefixes || ts0[i] < 0 || start[i] < 0
                     || start[i] + ts0[i] > data.len)) {
            PyErr_Format(PyExc_ValueError, "skim_skipped: header line %zd lies outside", i);
            goto done;
        }
    }
    uint8_t *parse = NULL, *valid = NULL;
    int64_t *rows = NULL, *ids = NULL, *micros = NULL, *sums = NULL;
    Py_ssize_t skipped = 0;
    parse_obj = buffer_of(lines, (void **)&parse);
    rows_obj = buffer_of((count - 1) * 8, (void **)&rows);
    ids_obj = buffer_of((count - 1) * 8, (void **)&ids);
    micros_obj = buffer_of((count - 1) * 8, (void **)&micros);
    valid_obj = buffer_of(count - 1, (void **)&valid);
    sums_obj = buffer_of(SUMS * prefixes * 8, (void **)&sums);
    if (!parse_obj || !rows_obj || !ids_obj || !micros_obj || !valid_obj || !sums_obj) goto done;
    const unsigned char *s = (const unsigned char *)data.buf;
    Py_ssize_t picked = -1; /* the bytes of the lines to parse, joined by newlines */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < prefixes; k++) {
        int64_t *sum = sums + k;
        sum[RECORDS * prefixes] = sum[DATED * prefixes] = sum[EPOCH * prefixes] = 0;
        sum[FIRST_TS * prefixes] = INT64_MAX;
        sum[LAST_TS * prefixes] = INT64_MIN;
        sum[FIRST_ROW * prefixes] = sum[LAST_ROW * prefixes] = -1;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < lines; i++) {
        k += h[i] != 0;
        parse[i] = seg[k];
        if (!h[i] || seg[k]) continue;
        int good;
        int64_t us = cann_micros(s, data.len, (Py_ssize_t)(start[i] + ts0[i]), &good);
        int64_t *sum = sums + pid[i];
        rows[skipped] = i;
        ids[skipped] = pid[i];
        micros[skipped] = good ? us : 0;
        valid[skipped++] = (uint8_t)good;
        if (sum[RECORDS * prefixes]++ == 0) sum[FIRST_ROW * prefixes] = i;
        sum[LAST_ROW * prefixes] = i;
        if (good) {
            sum[DATED * prefixes]++;
            if (us < sum[FIRST_TS * prefixes]) sum[FIRST_TS * prefixes] = us;
            if (us > sum[LAST_TS * prefixes]) sum[LAST_TS * prefixes] = us;
            sum[EPOCH * prefixes] += us < EPOCH_1971_US;
        }
    }
    for (Py_ssize_t i = 0; i < lines; i++)
        if (parse[i]) picked += start[i + 1] - start[i];
    Py_END_ALLOW_THREADS
    text_obj = PyBytes_FromStringAndSize(NULL, picked > 0 ? picked : 0);
    if (text_obj == NULL) goto done;
    Py_BEGIN_ALLOW_THREADS
    char *to = PyBytes_AS_STRING(text_obj);
    int after_run = 0; /* a run was copied: a newline before the next (a run may be one empty line) */
    for (Py_ssize_t i = 0; i < lines;) { /* each run of lines to parse, one copy */
        if (!parse[i]) {
            i++;
            continue;
        }
        Py_ssize_t first = i;
        while (i < lines && parse[i]) i++;
        if (after_run) *to++ = '\n';
        after_run = 1;
        Py_ssize_t n = (Py_ssize_t)(start[i] - 1 - start[first]);
        memcpy(to, s + start[first], (size_t)n);
        to += n;
    }
    Py_END_ALLOW_THREADS
    if (allocate != Py_None) {
        lines_obj = picked_lines(allocate, s, start, parse, lines);
        if (lines_obj == NULL) goto done;
    } else {
        lines_obj = Py_None;
        Py_INCREF(lines_obj);
    }
    if (PyByteArray_Resize(rows_obj, skipped * 8) == 0
        && PyByteArray_Resize(ids_obj, skipped * 8) == 0
        && PyByteArray_Resize(micros_obj, skipped * 8) == 0
        && PyByteArray_Resize(valid_obj, skipped) == 0)
        result = Py_BuildValue("(OOOOOOOO)", parse_obj, rows_obj, ids_obj, micros_obj,
                               valid_obj, sums_obj, text_obj, lines_obj);
done:
    Py_XDECREF(parse_obj);
    Py_XDECREF(rows_obj);
    Py_XDECREF(ids_obj);
    Py_XDECREF(micros_obj);
    Py_XDECREF(valid_obj);
    Py_XDECREF(sums_obj);
    Py_XDECREF(text_obj);
    Py_XDECREF(lines_obj);
    PyBuffer_Release(&data);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&header);
    PyBuffer_Release(&segments);
    PyBuffer_Release(&prefix);
    PyBuffer_Release(&stamp);
    return result;
}

PyObject *holds(PyObject *self, PyObject *args) {
    Py_buffer data, needle;
    Py_ssize_t anchor;
    if (!PyArg_ParseTuple(args, "y*y*n", &data, &needle, &anchor)) return NULL;
    int found = 0;
    if (anchor < 0 || anchor >= needle.len) {
        PyErr_SetString(PyExc_ValueError, "holds: the anchor must index the needle");
    } else {
        const unsigned char *s = data.buf, *w = needle.buf;
        Py_ssize_t n = data.len, m = needle.len;
        Py_BEGIN_ALLOW_THREADS
        const unsigned char *q = n > anchor ? memchr(s + anchor, w[anchor], (size_t)(n - anchor)) : NULL;
        while (q != NULL) {
            Py_ssize_t p = q - s - anchor; /* where the needle would start */
            if (p + m <= n && memcmp(s + p, w, (size_t)m) == 0) {
                found = 1;
                break;
            }
            Py_ssize_t next = q - s + 1;
            q = next < n ? memchr(s + next, w[anchor], (size_t)(n - next)) : NULL;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&needle);
    if (PyErr_Occurred()) return NULL;
    return PyBool_FromLong(found);
}
