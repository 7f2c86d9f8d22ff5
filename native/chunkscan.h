/*
 * What native/cannheader.c, native/skim.c and native/pickedlines.c share: byte classes, the
 * CANN header's prefix and timestamp shape, the level tags of a glued record, a hash of short
 * texts and a table of the distinct ones, the CANN timestamp as microseconds, and the
 * functions skim.c and pickedlines.c add to the module.
 */
#ifndef PLOGSCAN_CHUNKSCAN_H
#define PLOGSCAN_CHUNKSCAN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static inline int is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static inline int is_alpha_(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static inline int is_word(unsigned char c) { return is_digit(c) || is_alpha_(c); }
static inline int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Digits from *p (at least one): the position after them, or -1. */
static inline Py_ssize_t digits(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    Py_ssize_t q = p;
    while (q < n && is_digit(s[q])) q++;
    return q > p ? q : -1;
}

/* Whether the 8 bytes at s are what the template says, a byte at a time: where add is 0x76,
 * a digit (the template holds '0'); where 0x7F, the template's byte itself; where 0, any
 * ASCII byte. Each byte x = s ^ template is tested for x < 0x80 - add without a carry into
 * the next byte (x & 0x7F plus at most 0x7F stays in its byte). */
static inline int shaped_word(const unsigned char *s, const char *tmpl, const unsigned char *add) {
    uint64_t w, t, a;
    memcpy(&w, s, 8);
    memcpy(&t, tmpl, 8);
    memcpy(&a, add, 8);
    uint64_t x = w ^ t;
    return ((((x & UINT64_C(0x7F7F7F7F7F7F7F7F)) + a) | x) & UINT64_C(0x8080808080808080)) == 0;
}

/* The 27 bytes of YYYY-MM-DD-hh:mm:ss.mmm.uuu (a space may stand for the third dash), as
 * four overlapping words: bytes 0-7, 8-15, 16-23 and 19-26. */
static inline int timestamp_at(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    static const char tmpl[4][8] = {{'0', '0', '0', '0', '-', '0', '0', '-'},
                                    {'0', '0', 0, '0', '0', ':', '0', '0'},
                                    {':', '0', '0', '.', '0', '0', '0', '.'},
                                    {'.', '0', '0', '0', '.', '0', '0', '0'}};
    static const unsigned char add[4][8] = {
        {0x76, 0x76, 0x76, 0x76, 0x7F, 0x76, 0x76, 0x7F},
        {0x76, 0x76, 0, 0x76, 0x76, 0x7F, 0x76, 0x76},
        {0x7F, 0x76, 0x76, 0x7F, 0x76, 0x76, 0x76, 0x7F},
        {0x7F, 0x76, 0x76, 0x76, 0x7F, 0x76, 0x76, 0x76}};
    if (n - p < 27) return 0;
    s += p;
    return (s[10] == '-' || s[10] == ' ') && shaped_word(s, tmpl[0], add[0])
           && shaped_word(s + 8, tmpl[1], add[1]) && shaped_word(s + 16, tmpl[2], add[2])
           && shaped_word(s + 19, tmpl[3], add[3]);
}

/* Where the timestamp of a CANN header starts in the line s of n bytes, when the line opens
 * with the header's prefix and a timestamp of the fixed shape; 0 when it does not:
 *   \[(?:[A-Z]+|\d+)\] ?\w+\(-?\d+,[^)]*\): ?  then  \d{4}-\d\d-\d\d[- ]\d\d:\d\d:\d\d\.\d{3}\.\d{3} */
static inline Py_ssize_t header_stamp(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t p = 0, q;
    if (p >= n || s[p] != '[') return 0;
    p++;
    if (p < n && is_upper(s[p])) {
        while (p < n && is_upper(s[p])) p++;
    } else if ((q = digits(s, p, n)) >= 0) {
        p = q;
    } else {
        return 0;
    }
    if (p >= n || s[p] != ']') return 0;
    p++;
    if (p < n && s[p] == ' ') p++;
    q = p;
    while (p < n && is_word(s[p])) p++;
    if (p == q || p >= n || s[p] != '(') return 0;
    p++;
    if (p < n && s[p] == '-') p++;
    if ((p = digits(s, p, n)) < 0 || p >= n || s[p] != ',') return 0;
    p++;
    while (p < n && s[p] != ')') p++;
    if (p + 1 >= n || s[p + 1] != ':') return 0; /* s[p] is ')' when p < n */
    p += 2;
    if (p < n && s[p] == ' ') p++;
    return timestamp_at(s, p, n) ? p : 0;
}

/* Whether the '[' at s[p] (of a buffer of n bytes) opens a level tag a glued record starts
 * with (glue.py's _GLUE_TAGS). */
static inline int tag_at(const unsigned char *s, Py_ssize_t p, Py_ssize_t n) {
    static const char *const tags[] = {"[ERROR]", "[WARNING]", "[INFO]", "[DEBUG]", "[EVENT]",
                                       "[TRACE]"};
    if (n - p < 6) return 0;
    switch (s[p + 1]) { /* most '[' of a log open no tag: one byte rules them out */
    case 'E': case 'W': case 'I': case 'D': case 'T': break;
    default: return 0;
    }
    for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++) {
        size_t len = strlen(tags[t]);
        if ((size_t)(n - p) >= len && memcmp(s + p, tags[t], len) == 0) return 1;
    }
    return 0;
}

/* A hash of n bytes, eight at a time (the texts are short: distinct ones are few). */
static inline uint64_t text_hash(const unsigned char *p, int64_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    for (; k < n; k++) h = (h ^ p[k]) * 0x100000001B3ULL;
    return h ^ (h >> 29);
}

/* An open-addressing table of texts (slot -> id + 1, 0 empty; mask + 1 slots, a power of two)
 * doubled in size, each id placed again by the hash of its text (hashes[id]); -1 when out of
 * memory (the table is left as it was). */
static inline int slots_doubled(int64_t **slots, Py_ssize_t *mask, const uint64_t *hashes) {
    Py_ssize_t size = 2 * (*mask + 1);
    int64_t *grown = calloc((size_t)size, sizeof(int64_t));
    if (grown == NULL) return -1;
    for (Py_ssize_t i = 0; i <= *mask; i++) {
        int64_t slot = (*slots)[i];
        if (!slot) continue;
        Py_ssize_t j = (Py_ssize_t)(hashes[slot - 1] & (uint64_t)(size - 1));
        while (grown[j]) j = (j + 1) & (size - 1);
        grown[j] = slot;
    }
    free(*slots);
    *slots = grown;
    *mask = size - 1;
    return 0;
}

/* The distinct texts of a buffer in the order they first come: open addressing, slot ->
 * id + 1 (0: empty); by id, the text's hash, start and length in the buffer. Start it with
 * texts_open and let it go with texts_free. */
typedef struct {
    int64_t *slots;
    Py_ssize_t mask, count, cap;
    uint64_t *hashes;
    int64_t *start, *len;
} Texts;

static inline int texts_open(Texts *t) {
    *t = (Texts){NULL, 1023, 0, 0, NULL, NULL, NULL};
    t->slots = calloc((size_t)t->mask + 1, sizeof(int64_t));
    return t->slots == NULL ? -1 : 0;
}

static inline void texts_free(Texts *t) {
    free(t->slots);
    free(t->hashes);
    free(t->start);
    free(t->len);
}

static inline int texts_grow(Texts *t) {
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
static inline int64_t text_id(Texts *t, const unsigned char *s, int64_t a, int64_t n) {
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

/* The texts of t (in the buffer s) as a list of bytes, by id; NULL with the error set. */
static inline PyObject *texts_list(const Texts *t, const unsigned char *s) {
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

static inline int64_t floor_div(int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
static inline int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm), in the same
 * floor arithmetic as plogscan/parse/timestamps.py's numpy version. */
static inline int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t mp = floor_mod(m + 9, 12);
    int64_t doy = floor_div(153 * mp + 2, 5) + d - 1;
    int64_t doe = yoe * 365 + floor_div(yoe, 4) - floor_div(yoe, 100) + doy;
    return era * 146097 + doe - 719468;
}

/* The CANN timestamp YYYY-MM-DD-hh:mm:ss.mmm.uuu at s[start:] (a buffer of size bytes) as
 * microseconds since 1970, as timestamps.parse_cann_bytes reads it: each of the 20 digit
 * places is taken as (byte - '0') without a check, bytes past the end read as 0; *good is 0
 * where the date is not a real one (month 13, 30 February, hour 24, year 0, a second of year
 * 10000 or later). */
static inline int64_t cann_micros(const unsigned char *s, Py_ssize_t size, Py_ssize_t start,
                                  int *good) {
    static const int DAYS[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    static const int PLACES[20] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22,
                                   24, 25, 26};
    int64_t v[20];
    for (int k = 0; k < 20; k++) {
        Py_ssize_t at = start + PLACES[k];
        v[k] = (at < size ? (int64_t)s[at] : 0) - '0';
    }
    int64_t y = ((v[0] * 10 + v[1]) * 10 + v[2]) * 10 + v[3], m = v[4] * 10 + v[5];
    int64_t d = v[6] * 10 + v[7], hh = v[8] * 10 + v[9], mm = v[10] * 10 + v[11];
    int64_t ss = v[12] * 10 + v[13];
    int64_t us = ((((v[14] * 10 + v[15]) * 10 + v[16]) * 10 + v[17]) * 10 + v[18]) * 10 + v[19];
    int leap = (floor_mod(y, 4) == 0 && floor_mod(y, 100) != 0) || floor_mod(y, 400) == 0;
    int64_t mi = m < 0 ? 0 : (m > 12 ? 12 : m);
    int64_t dim = DAYS[mi] - (mi == 2 && !leap);
    int ok = m >= 1 && m <= 12 && d >= 1 && d <= dim && hh < 24 && mm < 60 && ss < 61;
    int64_t days = days_from_civil(y, ok ? m : 1, ok ? d : 1);
    int64_t second = (days * 86400 + hh * 3600 + mm * 60 + ss) * 1000000;
    *good = ok && y >= 1 && second < INT64_C(253402300800000000);
    return second + us;
}

/* native/cannheader.c: the CANN header's groups of one line (FIELDS values: start and length of
 * the prefix, src_file, src_line and tid groups; 0 and 0 for a group that took no part, all 0
 * when the line does not match), and the FIELDS spans derived from them (ts start, src_file
 * start and length, src_line start and length, the thread id digits' start and length, the
 * message start). */
#define FIELDS 8
void match_line(const unsigned char *s, Py_ssize_t n, int64_t *out);
void derive_fields(const unsigned char *s, Py_ssize_t n, const int64_t *g, int64_t *out);

/* native/skim.c: the skim's keep-or-drop decision and the skipped records' facts. */
PyObject *skim_lines(PyObject *self, PyObject *args);
PyObject *skim_segments(PyObject *self, PyObject *args);
PyObject *skim_skipped(PyObject *self, PyObject *args);
PyObject *holds(PyObject *self, PyObject *args);

/* native/pickedlines.c: the lines parse[i] marks, split and matched for the parser: (offsets,
 * values, spans, prefix index, prefixes, src_file index, src_files). */
PyObject *picked_lines(PyObject *allocate, const unsigned char *s,
                       const int64_t *start, const uint8_t *parse, Py_ssize_t lines);

#endif
