/* Compiled kernels of the statistics fast path (harness.bleu.fastcount).
 *
 * Two jobs that cost a Python-level operation per word or per n-gram in the numpy path:
 *
 * WordTable.ids(lines, split)
 *     Gives every whitespace-separated word of every line (str.split's whitespace:
 *     Py_UNICODE_ISSPACE) a dense id, assigned in order of first appearance, and returns the
 *     ids as int64 bytes plus the words met for the first time (as str, in id order) so that
 *     the caller tokenizes only those. No str object is made for a word already known.
 *     With split=False every item is one key as it stands (no separator is added).
 *
 * count_segments(tokens, texts, max_order, out)
 *     Clipped n-gram matches of whole segments: tokens are int64 ids, every text ended by the
 *     sentinel 0, a segment being its hypothesis then its references; texts[s] is the number
 *     of texts of segment s. Per segment the hypothesis n-grams (orders 1..max_order) go into
 *     an open-addressing table whose keys are compared token by token (the hash only chooses
 *     the slot, so a collision can never merge two n-grams); each reference then counts the
 *     hypothesis n-grams it holds (a reference n-gram whose prefix is not a hypothesis n-gram
 *     stops the scan at that position, as no longer n-gram from there can match), and
 *     min(hypothesis count, largest count in one reference) is summed per order. The GIL is
 *     released while counting.
 *
 * Both are checked against the per-segment Python reference by tests/test_fastpath.py and
 * tests/test_native.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ===================================================================== growable int64 vector */
typedef struct {
    int64_t *data;
    Py_ssize_t len, cap;
} IdVec;

static int
idvec_push(IdVec *v, int64_t x)
{
    if (v->len == v->cap) {
        Py_ssize_t cap = v->cap ? 2 * v->cap : 1024;
        int64_t *data = PyMem_Realloc(v->data, (size_t)cap * sizeof(int64_t));
        if (data == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        v->data = data;
        v->cap = cap;
    }
    v->data[v->len++] = x;
    return 0;
}

/* ===================================================================== WordTable */
/* A slot of the open-addressing table, one half cache line: the key's first 16 Latin-1 code
 * points are inline, so that finding a short word reads one slot and never its str object. */
typedef struct {
    uint32_t tag;     /* the hash's high 32 bits */
    uint32_t id1;     /* the key's id + 1; 0: an empty slot */
    int64_t len;      /* the key's length when it is Latin-1 and at most 16 long, else -1 */
    uint64_t head[2]; /* then its code points as bytes, zero-padded */
} WSlot;

typedef struct {
    PyObject_HEAD
    Py_ssize_t size;   /* keys held; the next key gets this id */
    Py_ssize_t cap;    /* slots, a power of two */
    WSlot *slots;
    PyObject **keys;   /* by id: owned references to the keys' str */
    uint64_t *hashes;  /* by id: the (masked) hash, to place the keys again on growth */
    Py_ssize_t ids_cap;
    uint64_t mask;     /* ANDed into every hash: tests set few bits to force collisions */
} WordTable;

#define INLINE 16
/* Latin-1 code points that str.split() treats as whitespace (filled at import). */
static unsigned char latin1_space[256];

#define MIX 0x9e3779b97f4a7c15ULL

static inline uint64_t
mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    return h ^ (h >> 32);
}

/* The hash of n Latin-1 code points stored as bytes, 8 at a time. */
static inline uint64_t
hash_bytes(const unsigned char *p, Py_ssize_t n)
{
    uint64_t h = (uint64_t)n * MIX, chunk;
    while (n >= 8) {
        memcpy(&chunk, p, 8);
        h = (h ^ chunk) * MIX;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) { /* built in a register: a byte-wise copy read back whole stalls */
        chunk = 0;
        for (Py_ssize_t k = 0; k < n; k++) chunk |= (uint64_t)p[k] << (8 * k);
        h = (h ^ chunk) * MIX;
    }
    return mix(h);
}

/* The first (at most INLINE) bytes of a Latin-1 span, zero-padded. */
static inline void
head_bytes(const unsigned char *p, Py_ssize_t n, uint64_t head[2])
{
    Py_ssize_t k, m = n < INLINE ? n : INLINE;
    head[0] = head[1] = 0;
    for (k = 0; k < m; k++) head[k >> 3] |= (uint64_t)p[k] << (8 * (k & 7));
}

/* A span of code points seen as a key: its Latin-1 bytes when every code point is below
 * 256 (``bytes`` set, whatever the width the line stores them in), else its code points. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t start, end;
    const unsigned char *bytes; /* NULL unless the span is Latin-1 */
    uint64_t hash;
} Span;

/* Fill span->bytes (through ``buf`` for a wide span of Latin-1 code points) and hash.
 * Returns 0, or -1 when out of memory. ``*heap`` is set to a buffer to free. */
static inline int
span_prepare(Span *sp, unsigned char *buf, Py_ssize_t bufsize, unsigned char **heap)
{
    Py_ssize_t n = sp->end - sp->start, i;
    *heap = NULL;
    if (sp->kind == PyUnicode_1BYTE_KIND) {
        sp->bytes = (const unsigned char *)sp->data + sp->start;
        sp->hash = hash_bytes(sp->bytes, n);
        return 0;
    }
    Py_UCS4 top = 0;
    for (i = sp->start; i < sp->end; i++) {
        Py_UCS4 c = PyUnicode_READ(sp->kind, sp->data, i);
        if (c > top) top = c;
    }
    if (top < 256) {
        unsigned char *b = buf;
        if (n > bufsize) {
            b = *heap = PyMem_Malloc((size_t)n);
            if (b == NULL) return -1;
        }
        for (i = 0; i < n; i++) b[i] = (unsigned char)PyUnicode_READ(sp->kind, sp->data, sp->start + i);
        sp->bytes = b;
        sp->hash = hash_bytes(b, n);
        return 0;
    }
    sp->bytes = NULL; /* code points: it can only equal a key with the same wide code points */
    uint64_t h = (uint64_t)n * MIX;
    for (i = sp->start; i < sp->end; i++)
        h = (h ^ PyUnicode_READ(sp->kind, sp->data, i)) * MIX;
    sp->hash = mix(h ^ 0x5bd1e995ULL);
    return 0;
}

/* Whether the key in slot ``s`` (its str ``key``) holds exactly the span's code points. */
static inline int
key_equals(const WSlot *s, PyObject *key, const Span *sp)
{
    Py_ssize_t n = sp->end - sp->start, i;
    if (s->len >= 0) { /* a short Latin-1 key, all in the slot */
        if (sp->bytes == NULL || s->len != n) return 0;
        uint64_t head[2];
        head_bytes(sp->bytes, n, head);
        return head[0] == s->head[0] && head[1] == s->head[1];
    }
    if (PyUnicode_GET_LENGTH(key) != n) return 0;
    int kkind = PyUnicode_KIND(key);
    const void *kdata = PyUnicode_DATA(key);
    if (kkind == sp->kind)
        return memcmp(kdata, (const char *)sp->data + sp->start * sp->kind,
                      (size_t)(n * sp->kind)) == 0;
    for (i = 0; i < n; i++)
        if (PyUnicode_READ(kkind, kdata, i) != PyUnicode_READ(sp->kind, sp->data, sp->start + i))
            return 0;
    return 1;
}

/* Double the slots (placing every key again by its hash); 0, or -1 out of memory. */
static int
table_grow(WordTable *t)
{
    Py_ssize_t cap = t->cap ? 2 * t->cap : 1 << 12, i;
    WSlot *slots = PyMem_Calloc((size_t)cap, sizeof(WSlot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < t->cap; i++) {
        const WSlot *old = &t->slots[i];
        if (old->id1 == 0) continue;
        uint64_t h = t->hashes[old->id1 - 1];
        Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(cap - 1));
        while (slots[j].id1 != 0) j = (j + 1) & (cap - 1);
        slots[j] = *old;
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* Room for one more id in the by-id arrays; 0, or -1 out of memory. */
static int
ids_room(WordTable *t)
{
    if (t->size < t->ids_cap) return 0;
    Py_ssize_t cap = t->ids_cap ? 2 * t->ids_cap : 1 << 11;
    PyObject **keys = PyMem_Realloc(t->keys, (size_t)cap * sizeof(PyObject *));
    if (keys == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->keys = keys;
    uint64_t *hashes = PyMem_Realloc(t->hashes, (size_t)cap * sizeof(uint64_t));
    if (hashes == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->hashes = hashes;
    t->ids_cap = cap;
    return 0;
}

/* The id of the span of ``line``; a new key gets the next id and is appended (as a str) to
 * ``fresh``. -1 with an exception set on failure. */
static inline int64_t
table_id(WordTable *t, const Span *sp, PyObject *line, PyObject *fresh)
{
    if (2 * (t->size + 1) > t->cap && table_grow(t) < 0) return -1;
    uint64_t hash = sp->hash & t->mask;
    Py_ssize_t mask = t->cap - 1;
    Py_ssize_t j = (Py_ssize_t)(hash & (uint64_t)mask);
    uint32_t tag = (uint32_t)(hash >> 32);
    WSlot *s;
    while ((s = &t->slots[j])->id1 != 0) {
        if (s->tag == tag && key_equals(s, t->keys[s->id1 - 1], sp)) return s->id1 - 1;
        j = (j + 1) & mask;
    }
    if (t->size >= 0xfffffffeLL) {
        PyErr_SetString(PyExc_OverflowError, "more than 2**32 - 2 distinct keys");
        return -1;
    }
    if (ids_room(t) < 0) return -1;
    PyObject *key;
    if (sp->start == 0 && sp->end == PyUnicode_GET_LENGTH(line)) {
        key = line;
        Py_INCREF(key);
    }
    else {
        key = PyUnicode_Substring(line, sp->start, sp->end);
        if (key == NULL) return -1;
    }
    if (PyList_Append(fresh, key) < 0) {
        Py_DECREF(key);
        return -1;
    }
    Py_ssize_t n = sp->end - sp->start;
    t->keys[t->size] = key; /* the table keeps the reference */
    t->hashes[t->size] = hash;
    s->tag = tag;
    s->id1 = (uint32_t)(t->size + 1);
    if (sp->bytes != NULL && n <= INLINE) {
        s->len = n;
        head_bytes(sp->bytes, n, s->head);
    }
    else {
        s->len = -1;
        s->head[0] = s->head[1] = 0;
    }
    return t->size++;
}

/* table_id of code points [start, end) of ``line``. */
static inline int64_t
span_id(WordTable *t, PyObject *line, int kind, const void *data, Py_ssize_t start,
        Py_ssize_t end, PyObject *fresh)
{
    unsigned char buf[256], *heap;
    Span sp = {kind, data, start, end, NULL, 0};
    if (span_prepare(&sp, buf, sizeof buf, &heap) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t id = table_id(t, &sp, line, fresh);
    PyMem_Free(heap);
    return id;
}

static int
WordTable_init(WordTable *t, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"hash_mask", NULL};
    unsigned long long mask = ~0ULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|K", names, &mask)) return -1;
    if (t->size > 0) {
        PyErr_SetString(PyExc_RuntimeError, "WordTable is initialised once");
        return -1;
    }
    t->mask = (uint64_t)mask;
    return 0;
}

static void
WordTable_dealloc(WordTable *t)
{
    Py_ssize_t i;
    for (i = 0; i < t->size; i++) Py_XDECREF(t->keys[i]); /* NULL: a reserved id */
    PyMem_Free(t->slots);
    PyMem_Free(t->keys);
    PyMem_Free(t->hashes);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Py_ssize_t
WordTable_len(WordTable *t)
{
    return t->size;
}

PyDoc_STRVAR(WordTable_ids_doc,
             "ids(items, split) -> (bytes, list[str])\n\n"
             "With split=True: the id of every str.split() word of every item, each item's ids\n"
             "followed by 0; with split=False: the id of every item as it stands. The bytes\n"
             "are native int64; the list holds the keys met for the first time, in id order.");

static PyObject *
WordTable_ids(WordTable *t, PyObject *args)
{
    PyObject *items, *fresh = NULL, *seq = NULL, *out = NULL;
    int split;
    IdVec v = {NULL, 0, 0};
    Py_ssize_t n, k;
    if (!PyArg_ParseTuple(args, "Op", &items, &split)) return NULL;
    seq = PySequence_Fast(items, "items must be a sequence of str");
    if (seq == NULL) return NULL;
    fresh = PyList_New(0);
    if (fresh == NULL) goto done;
    n = PySequence_Fast_GET_SIZE(seq);
    PyObject **elems = PySequence_Fast_ITEMS(seq);
    for (k = 0; k < n; k++) {
        PyObject *line = elems[k];
        if (!PyUnicode_Check(line)) {
            PyErr_Format(PyExc_TypeError, "item %zd is %.100s, not str", k, Py_TYPE(line)->tp_name);
            goto done;
        }
        int kind = PyUnicode_KIND(line);
        const void *data = PyUnicode_DATA(line);
        Py_ssize_t len = PyUnicode_GET_LENGTH(line), i = 0, start;
        int64_t id;
        if (!split) {
            id = span_id(t, line, kind, data, 0, len, fresh);
            if (id < 0 || idvec_push(&v, id) < 0) goto done;
            continue;
        }
        if (kind == PyUnicode_1BYTE_KIND) { /* the common case */
            const Py_UCS1 *p = (const Py_UCS1 *)data;
            while (1) {
                while (i < len && latin1_space[p[i]]) i++;
                if (i >= len) break;
                start = i;
                while (i < len && !latin1_space[p[i]]) i++;
                Span sp = {kind, data, start, i, p + start, hash_bytes(p + start, i - start)};
                id = table_id(t, &sp, line, fresh);
                if (id < 0 || idvec_push(&v, id) < 0) goto done;
            }
        }
        else {
            while (1) {
                while (i < len && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
                if (i >= len) break;
                start = i;
                while (i < len && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
                id = span_id(t, line, kind, data, start, i, fresh);
                if (id < 0 || idvec_push(&v, id) < 0) goto done;
            }
        }
        if (idvec_push(&v, 0) < 0) goto done;
    }
    {
        PyObject *bytes = PyBytes_FromStringAndSize((const char *)v.data,
                                                    (Py_ssize_t)(v.len * sizeof(int64_t)));
        if (bytes == NULL) goto done;
        out = PyTuple_Pack(2, bytes, fresh);
        Py_DECREF(bytes);
    }
done:
    PyMem_Free(v.data);
    Py_XDECREF(fresh);
    Py_DECREF(seq);
    return out;
}

PyDoc_STRVAR(WordTable_reserve_doc, "reserve() -> int\n\nThe next id, given to no key.");

static PyObject *
WordTable_reserve(WordTable *t, PyObject *Py_UNUSED(ignored))
{
    if (ids_room(t) < 0) return NULL;
    t->keys[t->size] = NULL;
    t->hashes[t->size] = 0;
    return PyLong_FromSsize_t(t->size++);
}

PyDoc_STRVAR(WordTable_keys_doc, "keys() -> list\n\nEvery key by id (None for a reserved id).");

static PyObject *
WordTable_keys(WordTable *t, PyObject *Py_UNUSED(ignored))
{
    PyObject *out = PyList_New(t->size);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < t->size; i++) {
        PyObject *key = t->keys[i] ? t->keys[i] : Py_None;
        Py_INCREF(key);
        PyList_SET_ITEM(out, i, key);
    }
    return out;
}

static PyMethodDef WordTable_methods[] = {
    {"ids", (PyCFunction)WordTable_ids, METH_VARARGS, WordTable_ids_doc},
    {"reserve", (PyCFunction)WordTable_reserve, METH_NOARGS, WordTable_reserve_doc},
    {"keys", (PyCFunction)WordTable_keys, METH_NOARGS, WordTable_keys_doc},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods WordTable_as_sequence = {
    .sq_length = (lenfunc)WordTable_len,
};

static PyTypeObject WordTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "harness.bleu._native.WordTable",
    .tp_doc = "WordTable(hash_mask=2**64 - 1)\n\n"
              "Dense ids of distinct strings (words or whole items), in order of first\n"
              "appearance. Keys are compared in full; hash_mask (for tests) forces collisions.",
    .tp_basicsize = sizeof(WordTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)WordTable_init,
    .tp_dealloc = (destructor)WordTable_dealloc,
    .tp_methods = WordTable_methods,
    .tp_as_sequence = &WordTable_as_sequence,
};

/* ===================================================================== n-gram counting */
typedef struct {
    uint64_t hash;
    int64_t pos;     /* where the n-gram starts in the token array (its hypothesis) */
    int32_t n;       /* its order */
    uint32_t stamp;  /* segment stamp: a slot with another stamp is empty */
    int64_t hyp;     /* count in the hypothesis */
    int64_t ref_max; /* largest count in one reference */
    int64_t cur;     /* count in reference ``last`` */
    int64_t last;    /* the reference ``cur`` belongs to */
} Slot;

typedef struct {
    Slot *slots;
    Py_ssize_t cap;
    uint32_t stamp;
    Py_ssize_t *used; /* slots filled in the current segment */
    Py_ssize_t n_used, used_cap;
} Counter;

static inline uint64_t
step(uint64_t h, int64_t token, uint64_t mask)
{
    h = (h ^ (uint64_t)token) * 0x9e3779b97f4a7c15ULL;
    return (h ^ (h >> 32)) & mask;
}

/* Make room for ``need`` n-grams in an empty table; 0 or -1 (out of memory). */
static int
counter_reserve(Counter *c, Py_ssize_t need)
{
    Py_ssize_t cap = 64;
    while (cap < 2 * need) cap <<= 1;
    if (cap > c->cap) {
        free(c->slots);
        c->slots = calloc((size_t)cap, sizeof(Slot));
        if (c->slots == NULL) return -1;
        c->cap = cap;
        c->stamp = 0;
    }
    if (need > c->used_cap) {
        free(c->used);
        c->used = malloc((size_t)need * sizeof(Py_ssize_t));
        if (c->used == NULL) return -1;
        c->used_cap = need;
    }
    c->n_used = 0;
    if (++c->stamp == 0) { /* the stamps wrapped: forget every slot */
        memset(c->slots, 0, (size_t)c->cap * sizeof(Slot));
        c->stamp = 1;
    }
    return 0;
}

/* The slot of n-gram tokens[pos .. pos+n) (hash h), or -1 when the hypothesis lacks it. */
static inline Py_ssize_t
counter_find(const Counter *c, const int64_t *tokens, uint64_t h, const int64_t *gram, int32_t n)
{
    Py_ssize_t mask = c->cap - 1, j = (Py_ssize_t)(h & (uint64_t)mask);
    while (c->slots[j].stamp == c->stamp) {
        const Slot *s = &c->slots[j];
        if (s->hash == h && s->n == n &&
            memcmp(tokens + s->pos, gram, (size_t)n * sizeof(int64_t)) == 0)
            return j;
        j = (j + 1) & mask;
    }
    return -1;
}

/* Clipped matches of one segment: texts [0, n_texts) starting at tokens[0]; returns the
 * number of positions the segment spans, or -1 when out of memory. */
static Py_ssize_t
count_one(Counter *c, const int64_t *tokens, Py_ssize_t avail, int64_t n_texts, int max_order,
          uint64_t hash_mask, int64_t *out)
{
    Py_ssize_t hyp_len = 0, p, i;
    int n;
    while (hyp_len < avail && tokens[hyp_len] != 0) hyp_len++;
    if (hyp_len >= avail) return -2;
    if (counter_reserve(c, hyp_len * max_order) < 0) return -1;
    Py_ssize_t mask = c->cap - 1;
    for (i = 0; i < hyp_len; i++) {
        uint64_t h = 0x2545f4914f6cdd1dULL;
        for (n = 1; n <= max_order && i + n <= hyp_len; n++) {
            h = step(h, tokens[i + n - 1], hash_mask);
            Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)mask);
            Slot *s;
            while (1) {
                s = &c->slots[j];
                if (s->stamp != c->stamp) {
                    s->stamp = c->stamp;
                    s->hash = h;
                    s->pos = i;
                    s->n = n;
                    s->hyp = 0;
                    s->ref_max = 0;
                    s->cur = 0;
                    s->last = -1;
                    c->used[c->n_used++] = j;
                    break;
                }
                if (s->hash == h && s->n == n &&
                    memcmp(tokens + s->pos, tokens + i, (size_t)n * sizeof(int64_t)) == 0)
                    break;
                j = (j + 1) & mask;
            }
            s->hyp++;
        }
    }
    p = hyp_len + 1;
    for (int64_t r = 1; r < n_texts; r++) {
        Py_ssize_t start = p;
        while (p < avail && tokens[p] != 0) p++;
        if (p >= avail) return -2;
        const int64_t *ref = tokens + start;
        Py_ssize_t ref_len = p - start;
        p++;
        if (hyp_len == 0) continue;
        for (i = 0; i < ref_len; i++) {
            uint64_t h = 0x2545f4914f6cdd1dULL;
            for (n = 1; n <= max_order && i + n <= ref_len; n++) {
                h = step(h, ref[i + n - 1], hash_mask);
                Py_ssize_t j = counter_find(c, tokens, h, ref + i, n);
                if (j < 0) break; /* no longer n-gram from here is in the hypothesis */
                Slot *s = &c->slots[j];
                if (s->last != r) {
                    s->last = r;
                    s->cur = 0;
                }
                if (++s->cur > s->ref_max) s->ref_max = s->cur;
            }
        }
    }
    for (n = 0; n < max_order; n++) out[n] = 0;
    for (i = 0; i < c->n_used; i++) {
        const Slot *s = &c->slots[c->used[i]];
        out[s->n - 1] += s->hyp < s->ref_max ? s->hyp : s->ref_max;
    }
    return p;
}

PyDoc_STRVAR(count_segments_doc,
             "count_segments(tokens, texts, max_order, out, hash_mask=2**64 - 1) -> None\n\n"
             "Clipped n-gram matches of whole segments into ``out`` (int64, segments x\n"
             "max_order, C order). ``tokens``: int64 ids, every text ended by 0, each segment's\n"
             "hypothesis first; ``texts``: int64, the texts of each segment. N-grams are\n"
             "compared token by token; hash_mask (for tests) forces hash collisions.");

static PyObject *
count_segments(PyObject *self, PyObject *args)
{
    PyObject *tok_obj, *texts_obj, *out_obj;
    int max_order;
    unsigned long long mask_arg = ~0ULL;
    Py_buffer tok = {0}, texts = {0}, out = {0};
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "OOiO|K", &tok_obj, &texts_obj, &max_order, &out_obj, &mask_arg))
        return NULL;
    uint64_t hash_mask = (uint64_t)mask_arg;
    if (max_order < 1) {
        PyErr_SetString(PyExc_ValueError, "max_order must be at least 1");
        return NULL;
    }
    if (PyObject_GetBuffer(tok_obj, &tok, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
    if (PyObject_GetBuffer(texts_obj, &texts, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto done;
    if (tok.itemsize != 8 || texts.itemsize != 8 || out.itemsize != 8 ||
        strchr("lq", tok.format[0]) == NULL || strchr("lq", texts.format[0]) == NULL ||
        strchr("lq", out.format[0]) == NULL) {
        PyErr_SetString(PyExc_TypeError, "tokens, texts and out must be int64 arrays");
        goto done;
    }
    Py_ssize_t n_tok = tok.len / 8, n_seg = texts.len / 8;
    if (out.len / 8 != n_seg * max_order) {
        PyErr_SetString(PyExc_ValueError, "out must hold segments x max_order values");
        goto done;
    }
    const int64_t *tokens = tok.buf, *n_texts = texts.buf;
    int64_t *dest = out.buf;
    Py_ssize_t status = 0, at = 0, s;
    Counter c = {NULL, 0, 0, NULL, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    for (s = 0; s < n_seg; s++) {
        if (n_texts[s] < 1) {
            status = -3;
            break;
        }
        status = count_one(&c, tokens + at, n_tok - at, n_texts[s], max_order, hash_mask,
                           dest + s * max_order);
        if (status < 0) break;
        at += status;
    }
    Py_END_ALLOW_THREADS
    free(c.slots);
    free(c.used);
    if (status == -1) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == -2) {
        PyErr_SetString(PyExc_ValueError, "tokens end before the segments' texts do");
        goto done;
    }
    if (status == -3) {
        PyErr_SetString(PyExc_ValueError, "every segment has at least its hypothesis");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    if (tok.obj) PyBuffer_Release(&tok);
    if (texts.obj) PyBuffer_Release(&texts);
    if (out.obj) PyBuffer_Release(&out);
    return result;
}

/* ===================================================================== token gather */
/* A C-contiguous int64 buffer of ``obj`` (named ``what`` in errors); 0 or -1. */
static int
int64_buffer(PyObject *obj, Py_buffer *view, int flags, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | flags) < 0) return -1;
    if (view->itemsize != 8 || strchr("lq", view->format[0]) == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be an int64 array", what);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(gather_doc,
             "gather(word_ids, word_start, word_len, flat) -> (bytes, bytes)\n\n"
             "The token ids of a run of words (word w's tokens are flat[word_start[w] :\n"
             "word_start[w] + word_len[w]]; word 0 ends a line and stands for the sentinel),\n"
             "and the number of tokens of every line, both as native int64 bytes.");

static PyObject *
gather(PyObject *self, PyObject *args)
{
    PyObject *objs[4], *result = NULL, *tok_bytes = NULL, *len_bytes = NULL;
    Py_buffer wids = {0}, start = {0}, lens = {0}, flat = {0};
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    if (int64_buffer(objs[0], &wids, 0, "word_ids") < 0 ||
        int64_buffer(objs[1], &start, 0, "word_start") < 0 ||
        int64_buffer(objs[2], &lens, 0, "word_len") < 0 ||
        int64_buffer(objs[3], &flat, 0, "flat") < 0)
        goto done;
    {
        const int64_t *w = wids.buf, *ws = start.buf, *wl = lens.buf, *fl = flat.buf;
        Py_ssize_t n = wids.len / 8, n_words = start.len / 8, n_flat = flat.len / 8, i;
        Py_ssize_t total = 0, lines = 0;
        if (lens.len / 8 < n_words) n_words = lens.len / 8;
        for (i = 0; i < n; i++) {
            if (w[i] < 0 || w[i] >= n_words || ws[w[i]] < 0 || wl[w[i]] < 0 ||
                ws[w[i]] + wl[w[i]] > n_flat) {
                PyErr_Format(PyExc_IndexError, "word id %lld has no tokens", (long long)w[i]);
                goto done;
            }
            total += wl[w[i]];
            lines += w[i] == 0;
        }
        tok_bytes = PyBytes_FromStringAndSize(NULL, total * 8);
        len_bytes = PyBytes_FromStringAndSize(NULL, lines * 8);
        if (tok_bytes == NULL || len_bytes == NULL) goto done;
        int64_t *out = (int64_t *)PyBytes_AS_STRING(tok_bytes);
        int64_t *line_len = (int64_t *)PyBytes_AS_STRING(len_bytes);
        Py_ssize_t at = 0, line_start = 0;
        for (i = 0; i < n; i++) {
            const int64_t *src = fl + ws[w[i]];
            int64_t k, m = wl[w[i]];
            for (k = 0; k < m; k++) out[at++] = src[k];
            if (w[i] == 0) {
                *line_len++ = at - line_start - 1;
                line_start = at;
            }
        }
        result = PyTuple_Pack(2, tok_bytes, len_bytes);
    }
done:
    Py_XDECREF(tok_bytes);
    Py_XDECREF(len_bytes);
    if (wids.obj) PyBuffer_Release(&wids);
    if (start.obj) PyBuffer_Release(&start);
    if (lens.obj) PyBuffer_Release(&lens);
    if (flat.obj) PyBuffer_Release(&flat);
    return result;
}

/* ===================================================================== content framing */
/* Append n bytes to a growable buffer; 0, or -1 out of memory. */
static int
buf_add(char **buf, Py_ssize_t *len, Py_ssize_t *cap, const char *src, Py_ssize_t n)
{
    if (*len + n > *cap) {
        Py_ssize_t c = *cap ? *cap : 1 << 16;
        while (c < *len + n) c *= 2;
        char *grown = PyMem_Realloc(*buf, (size_t)c);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *buf = grown;
        *cap = c;
    }
    memcpy(*buf + *len, src, (size_t)n);
    *len += n;
    return 0;
}

static void
put_le64(unsigned char *out, uint64_t x)
{
    for (int k = 0; k < 8; k++) out[k] = (unsigned char)(x >> (8 * k));
}

PyDoc_STRVAR(framing_doc,
             "framing(groups) -> (bytes, bytes) or None\n\n"
             "For a sequence of sequences of str: every text's length in code points\n"
             "(little-endian int64, in order) and the texts' UTF-8 concatenated. None when a\n"
             "text has a lone surrogate (the caller encodes those with surrogatepass).");

static PyObject *
framing(PyObject *self, PyObject *args)
{
    PyObject *groups, *outer = NULL, *result = NULL;
    char *lens = NULL, *text = NULL;
    Py_ssize_t lens_len = 0, lens_cap = 0, text_len = 0, text_cap = 0;
    if (!PyArg_ParseTuple(args, "O", &groups)) return NULL;
    outer = PySequence_Fast(groups, "groups must be a sequence of sequences of str");
    if (outer == NULL) return NULL;
    for (Py_ssize_t g = 0; g < PySequence_Fast_GET_SIZE(outer); g++) {
        PyObject *inner = PySequence_Fast(PySequence_Fast_GET_ITEM(outer, g),
                                          "each group must be a sequence of str");
        if (inner == NULL) goto done;
        PyObject **items = PySequence_Fast_ITEMS(inner);
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(inner); i++) {
            PyObject *t = items[i];
            unsigned char le[8];
            int failed;
            if (!PyUnicode_Check(t)) {
                PyErr_Format(PyExc_TypeError, "text %zd of group %zd is not str", i, g);
                Py_DECREF(inner);
                goto done;
            }
            put_le64(le, (uint64_t)PyUnicode_GET_LENGTH(t));
            if (buf_add(&lens, &lens_len, &lens_cap, (const char *)le, 8) < 0) {
                Py_DECREF(inner);
                goto done;
            }
            if (PyUnicode_IS_ASCII(t)) {
                failed = buf_add(&text, &text_len, &text_cap, (const char *)PyUnicode_DATA(t),
                                 PyUnicode_GET_LENGTH(t));
            }
            else {
                PyObject *utf8 = PyUnicode_AsUTF8String(t);
                if (utf8 == NULL) {
                    if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
                        Py_DECREF(inner);
                        goto done;
                    }
                    PyErr_Clear(); /* a lone surrogate: the caller's encoder decides */
                    Py_DECREF(inner);
                    result = Py_None;
                    Py_INCREF(result);
                    goto done;
                }
                failed = buf_add(&text, &text_len, &text_cap, PyBytes_AS_STRING(utf8),
                                 PyBytes_GET_SIZE(utf8));
                Py_DECREF(utf8);
            }
            if (failed < 0) {
                Py_DECREF(inner);
                goto done;
            }
        }
        Py_DECREF(inner);
    }
    {
        PyObject *a = PyBytes_FromStringAndSize(lens ? lens : "", lens_len);
        PyObject *b = a ? PyBytes_FromStringAndSize(text ? text : "", text_len) : NULL;
        if (a != NULL && b != NULL) result = PyTuple_Pack(2, a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
done:
    PyMem_Free(lens);
    PyMem_Free(text);
    Py_DECREF(outer);
    return result;
}

/* ===================================================================== module */
static PyMethodDef module_methods[] = {
    {"count_segments", count_segments, METH_VARARGS, count_segments_doc},
    {"gather", gather, METH_VARARGS, gather_doc},
    {"framing", framing, METH_VARARGS, framing_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "harness.bleu._native",
    .m_doc = "Compiled kernels of the statistics fast path (see harness.bleu.native).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    for (int c = 0; c < 256; c++) latin1_space[c] = Py_UNICODE_ISSPACE((Py_UCS4)c) ? 1 : 0;
    if (PyType_Ready(&WordTableType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&WordTableType);
    if (PyModule_AddObject(m, "WordTable", (PyObject *)&WordTableType) < 0) {
        Py_DECREF(&WordTableType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
