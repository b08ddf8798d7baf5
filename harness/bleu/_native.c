/* harness.bleu._native: the compiled kernels of the statistics fast path.
 *
 * harness/bleu/fastcount.py counts n-gram statistics with these where they are built
 * (harness/bleu/native.py loads them and says why not when they are missing), and
 * harness/session/cache.py frames a corpus for its content hash with ``framing``. Each kernel
 * replaces a Python-level operation per word, token or n-gram; each has a definition in
 * Python that tests/test_native.py compares it with on generated input.
 *
 * WordTable(hash_mask=2**64 - 1)
 *     Dense ids of distinct str keys, in order of first appearance, starting at 0.
 *     ids(items, split) -> (bytes, list[str])
 *         items: an iterable of str. split=True: every str.split() word of every item
 *         (whitespace as str.split() knows it: Py_UNICODE_ISSPACE), each item's word ids
 *         followed by id 0 (the caller gives id 0 to a key no item can hold); split=False:
 *         one id per item, the item as it stands. Returns the ids as native int64 bytes and
 *         the keys met for the first time, in id order. No str object is made for a key
 *         already known. On error the table may keep the new keys of the items before it.
 *     reserve() -> int: the next id, given to no key (a sentinel).
 *     keys() -> list: every key by id, None for a reserved id.  len(): ids given.
 *     Invariants: ids are 0 .. len() - 1 with no gap; a key is an exact str (a str subclass
 *     item is copied) that the table owns, so the table holds no reference cycle and needs
 *     no GC support; keys are compared code point by code point (the hash, 64 bits masked
 *     by hash_mask, only picks the slot, so masking it to few bits makes every probe collide
 *     and tests the comparison); at most 2**32 - 2 ids.
 *
 * count_segments(tokens, texts, max_order, out, hash_mask=2**64 - 1) -> None
 *     tokens: 1-D int64, every text ended by the sentinel 0 and no other 0, a segment's
 *     hypothesis first, then its references; texts: 1-D int64, texts[s] >= 1 the number of
 *     texts of segment s; out: writable C-contiguous int64 of shape (len(texts), max_order),
 *     not overlapping tokens or texts. Writes out[s][n - 1] = the clipped n-gram matches of
 *     segment s: the sum over the hypothesis's distinct n-grams g of
 *     min(count of g in the hypothesis, largest count of g in one reference), n = 1 ..
 *     max_order. tokens must end exactly with the last segment's last text. The GIL is
 *     released while counting; the counting reads only the buffers and its own table.
 *     Per segment, the hypothesis n-grams go into an open-addressing table whose keys are
 *     compared token by token (hash_mask only forces collisions in tests); each reference
 *     then counts the hypothesis n-grams it holds, stopping at a position as soon as an
 *     n-gram there is not a hypothesis n-gram (no longer one from there can be).
 *
 * gather(word_ids, word_start, word_len, flat) -> (bytes, bytes)
 *     All 1-D int64; word_start and word_len of equal length. Word w's tokens are
 *     flat[word_start[w] : word_start[w] + word_len[w]]; word 0 ends a line (its one token is
 *     the sentinel). Returns every listed word's tokens concatenated, and every line's number
 *     of tokens (those before its word 0), both as native int64 bytes. IndexError for a word
 *     id out of range or a span outside flat.
 *
 * framing(groups) -> (bytes, bytes) or None
 *     groups: an iterable of iterables of str. Returns every text's length in code points as
 *     little-endian int64, in order, and the texts' UTF-8 concatenated; None when a text holds
 *     a lone surrogate (the caller then encodes with surrogatepass).
 *
 * fnv_ngrams(ids, lens, max_order) -> tuple[bytes, ...] or None
 *     ids, lens: 1-D int64; lens[l] >= 0 the ids of line l, adding up to len(ids) (else
 *     ValueError). Entry n - 1 of the tuple holds, line after line, the hash of every n-gram
 *     inside the line, then 0, as native int64 bytes: fairseq's FNV-1a (64-bit) over the
 *     n ids' int32 little-endian bytes (an id's low 32 bits), each byte sign-extended as a
 *     signed char is before the XOR (harness/bleu/hashed.py's fnv1a_hash). None when an
 *     n-gram hashes to 0, which count_segments would read as a text's end.
 *
 * _int64_format(format) -> bool
 *     Whether a buffer format string is accepted as int64 (the check every array argument
 *     passes, with 8-byte items): one signed 8-byte integer in the host's byte order as the
 *     struct module reads it, e.g. numpy's "l" and "q", ctypes' "<q"; not "", "<l" (4 bytes),
 *     ">q" on a little-endian host, "Q", "2i", "8x". For tests, which cannot make every
 *     format through a real exporter.
 *
 * Safety rules the code keeps, so that the module can declare Py_MOD_GIL_NOT_USED:
 * - No mutable static or module state: the whitespace table is a constant and the WordTable
 *   type is created per module object.
 * - No borrowed pointer into a caller's container outlives the next call that can run
 *   Python code: argument parsing (__bool__, __index__) and then the snapshot of the items
 *   into a tuple (PySequence_Tuple: __iter__; the tuple holds strong references and cannot
 *   change) are the only steps that run user code, and nothing is read from the items
 *   before the snapshot; str data is immutable. (A collection triggered by an allocation
 *   can run finalizers: keys() bounds its loop by the list it allocated.)
 * - An array argument is held as a Py_buffer from the check to the last read, so its
 *   memory stays put; every value read from one is bounds-checked where it is used (gather
 *   measures, then copies within what it measured), so even data another thread rewrites
 *   meanwhile cannot send a read or write out of bounds.
 * - A WordTable's state changes only inside a critical section on it (a no-op where the GIL
 *   exists), so two threads sharing one table take turns.
 * - Code that runs without the GIL cannot raise: it returns a Status, which the caller turns
 *   into an exception once it holds the GIL again.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Critical sections exist from 3.13 (and are no-ops in builds with a GIL); before, the GIL
 * alone serialises the methods, none of which releases it. */
#ifdef Py_BEGIN_CRITICAL_SECTION
#define LOCK_OBJECT(obj) Py_BEGIN_CRITICAL_SECTION(obj)
#define UNLOCK_OBJECT() Py_END_CRITICAL_SECTION()
#else
#define LOCK_OBJECT(obj) {
#define UNLOCK_OBJECT() }
#endif

#ifndef Py_TPFLAGS_IMMUTABLETYPE
#define Py_TPFLAGS_IMMUTABLETYPE 0
#endif

/* ===================================================================== status codes */
/* What a kernel that runs without the GIL reports; status_raise sets the exception. */
typedef enum {
    STATUS_OK = 0,
    STATUS_NO_MEMORY,         /* an allocation failed */
    STATUS_TOKENS_END_EARLY,  /* a segment's texts run past the end of tokens */
    STATUS_NO_HYPOTHESIS,     /* texts[s] < 1 */
    STATUS_TRAILING_TOKENS,   /* tokens go on after the last segment's last text */
} Status;

/* Set the exception of a failed status; returns NULL for ``return status_raise(s);``. */
static PyObject *
status_raise(Status status)
{
    switch (status) {
    case STATUS_OK:
        break;
    case STATUS_NO_MEMORY:
        return PyErr_NoMemory();
    case STATUS_TOKENS_END_EARLY:
        PyErr_SetString(PyExc_ValueError, "tokens end before the segments' texts do");
        return NULL;
    case STATUS_NO_HYPOTHESIS:
        PyErr_SetString(PyExc_ValueError, "every segment has at least its hypothesis");
        return NULL;
    case STATUS_TRAILING_TOKENS:
        PyErr_SetString(PyExc_ValueError, "tokens go on after the last segment's texts");
        return NULL;
    }
    PyErr_SetString(PyExc_SystemError, "_native: unknown status");
    return NULL;
}

/* ===================================================================== array arguments */
/* Whether ``fmt`` describes, as the struct module reads it, one signed 8-byte integer in
 * the host's byte order: native sizes (no prefix or "@") "q", and "l" and "n" where those are
 * 8 bytes (numpy presents int64 as "l" or "q"); standard sizes ("=", or the host's own "<"
 * or ">"/"!") only "q" — there "l" is 4 bytes. The item size is checked apart. */
static int
int64_format(const char *fmt)
{
    if (fmt == NULL) return 0; /* a NULL format means unsigned bytes ("B") */
    int native_sizes = 1;
    if (fmt[0] == '@')
        fmt++;
#if PY_LITTLE_ENDIAN
    else if (fmt[0] == '=' || fmt[0] == '<') {
#else
    else if (fmt[0] == '=' || fmt[0] == '>' || fmt[0] == '!') {
#endif
        native_sizes = 0;
        fmt++;
    }
    if (fmt[0] == '\0' || fmt[1] != '\0') return 0; /* exactly one code, no count */
    switch (fmt[0]) {
    case 'q':
        return 1;
    case 'l':
        return native_sizes && sizeof(long) == 8;
    case 'n':
        return native_sizes && sizeof(Py_ssize_t) == 8;
    default:
        return 0;
    }
}

/* Take a buffer of ``obj`` (named ``what`` in errors) that is a C-contiguous int64 array of
 * ``ndim`` dimensions; writable if asked. 0, or -1 with an exception set and nothing held. */
static int
int64_array(PyObject *obj, Py_buffer *view, int writable, int ndim, const char *what)
{
    int flags = PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0);
    view->obj = NULL;
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (view->itemsize != 8 || !int64_format(view->format)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be an int64 array (8-byte signed integers in native byte order, "
                     "buffer format such as 'l' or 'q'), not format '%.20s' with %zd-byte "
                     "items",
                     what, view->format ? view->format : "B", view->itemsize);
        goto fail;
    }
    if (view->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "%s must have %d dimension%s, not %d", what, ndim,
                     ndim == 1 ? "" : "s", view->ndim);
        goto fail;
    }
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError, "%s must be C-contiguous", what);
        goto fail;
    }
    return 0;
fail:
    PyBuffer_Release(view);
    view->obj = NULL;
    return -1;
}

static void
release(Py_buffer *view)
{
    if (view->obj != NULL) PyBuffer_Release(view);
}

/* Whether two buffers share a byte. */
static int
overlap(const Py_buffer *a, const Py_buffer *b)
{
    uintptr_t a0 = (uintptr_t)a->buf, b0 = (uintptr_t)b->buf;
    return a->len > 0 && b->len > 0 && a0 < b0 + (uintptr_t)b->len &&
           b0 < a0 + (uintptr_t)a->len;
}

PyDoc_STRVAR(int64_format_doc,
             "_int64_format(format) -> bool\n\n"
             "Whether array arguments with this buffer format (and 8-byte items) are taken as\n"
             "int64. For tests.");

static PyObject *
int64_format_py(PyObject *Py_UNUSED(module), PyObject *arg)
{
    const char *fmt = PyUnicode_AsUTF8(arg);
    if (fmt == NULL) return NULL;
    if (strlen(fmt) != (size_t)PyUnicode_GET_LENGTH(arg)) return Py_NewRef(Py_False); /* NUL */
    return PyBool_FromLong(int64_format(fmt));
}

/* ===================================================================== growable int64 vector */
typedef struct {
    int64_t *data;
    Py_ssize_t len, cap;
} IdVec;

/* Room for ``extra`` more values; 0, or -1 with MemoryError set. */
static int
idvec_room(IdVec *v, Py_ssize_t extra)
{
    if (extra <= v->cap - v->len) return 0;
    const Py_ssize_t most = PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t);
    if (extra > most - v->len) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t cap = v->cap ? v->cap : 1024;
    while (cap < v->len + extra) cap = cap > most / 2 ? most : 2 * cap;
    int64_t *data = PyMem_Realloc(v->data, (size_t)cap * sizeof(int64_t));
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    v->data = data;
    v->cap = cap;
    return 0;
}

static inline int
idvec_push(IdVec *v, int64_t x)
{
    if (v->len == v->cap && idvec_room(v, 1) < 0) return -1;
    v->data[v->len++] = x;
    return 0;
}

/* The vector's values as bytes. */
static PyObject *
idvec_bytes(const IdVec *v)
{
    return PyBytes_FromStringAndSize(v->data ? (const char *)v->data : "",
                                     v->len * (Py_ssize_t)sizeof(int64_t));
}

/* ===================================================================== WordTable */
/* A slot of the open-addressing table, half a cache line: the key's first 16 Latin-1 code
 * points are inline, so that finding a short word reads one slot and never its str object. */
typedef struct {
    uint32_t tag;     /* the hash's high 32 bits */
    uint32_t id1;     /* the key's id + 1; 0: an empty slot */
    int64_t len;      /* the key's length when it is Latin-1 and at most 16 long, else -1 */
    uint64_t head[2]; /* then its code points as bytes, zero-padded */
} WSlot;

typedef struct {
    PyObject_HEAD
    Py_ssize_t size;   /* ids given; the next key gets this id */
    Py_ssize_t cap;    /* slots, a power of two (0 before the first key) */
    WSlot *slots;
    PyObject **keys;   /* by id: owned references to exact str keys; NULL for a reserved id */
    uint64_t *hashes;  /* by id: the (masked) hash, to place the keys again on growth */
    Py_ssize_t ids_cap;
    uint64_t mask;     /* ANDed into every hash: tests set few bits to force collisions */
} WordTable;

#define INLINE 16
#define MAX_IDS 0xfffffffeLL /* id + 1 is stored in 32 bits, and 0 marks an empty slot */

/* The Latin-1 code points that str.split() treats as whitespace (Py_UNICODE_ISSPACE);
 * module_exec checks it against Py_UNICODE_ISSPACE. */
static const unsigned char latin1_space[256] = {
    [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x1c] = 1,
    [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, [0x20] = 1, [0x85] = 1, [0xa0] = 1,
};

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

/* Room for one more id in the by-id arrays; 0, or -1 with an exception set. */
static int
ids_room(WordTable *t)
{
    if (t->size >= MAX_IDS) {
        PyErr_SetString(PyExc_OverflowError, "more than 2**32 - 2 ids");
        return -1;
    }
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

/* The id of the span of ``line``; a new key gets the next id and is appended (as an exact
 * str) to ``fresh``. -1 with an exception set on failure. */
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
    if (ids_room(t) < 0) return -1;
    /* An exact str: the line itself when the span is all of it and it is exact, else a copy
     * (PyUnicode_Substring returns an exact str for a str subclass too). */
    PyObject *key = PyUnicode_Substring(line, sp->start, sp->end);
    if (key == NULL) return -1;
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
WordTable_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    WordTable *t = (WordTable *)self;
    static char *names[] = {"hash_mask", NULL};
    unsigned long long mask = ~0ULL;
    int status = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|K", names, &mask)) return -1;
    LOCK_OBJECT(self);
    if (t->size > 0) {
        PyErr_SetString(PyExc_RuntimeError, "WordTable is initialised once");
        status = -1;
    }
    else
        t->mask = (uint64_t)mask;
    UNLOCK_OBJECT();
    return status;
}

static PyObject *
WordTable_new(PyTypeObject *type, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kwds))
{
    WordTable *t = (WordTable *)type->tp_alloc(type, 0); /* zeroed */
    if (t != NULL) t->mask = ~0ULL;
    return (PyObject *)t;
}

static void
WordTable_dealloc(PyObject *self)
{
    WordTable *t = (WordTable *)self;
    PyTypeObject *type = Py_TYPE(self);
    for (Py_ssize_t i = 0; i < t->size; i++) Py_XDECREF(t->keys[i]); /* NULL: a reserved id */
    PyMem_Free(t->slots);
    PyMem_Free(t->keys);
    PyMem_Free(t->hashes);
    type->tp_free(self);
    Py_DECREF(type); /* instances of a heap type own a reference to it */
}

static Py_ssize_t
WordTable_len(PyObject *self)
{
    Py_ssize_t size;
    LOCK_OBJECT(self);
    size = ((WordTable *)self)->size;
    UNLOCK_OBJECT();
    return size;
}

/* ids() on the snapshot ``items`` (a tuple), with the table locked. */
static PyObject *
ids_locked(WordTable *t, PyObject *items, int split)
{
    PyObject *fresh = NULL, *out = NULL, *bytes = NULL;
    IdVec v = {NULL, 0, 0};
    Py_ssize_t n = PyTuple_GET_SIZE(items), k;
    fresh = PyList_New(0);
    if (fresh == NULL) goto done;
    for (k = 0; k < n; k++) {
        PyObject *line = PyTuple_GET_ITEM(items, k);
        if (!PyUnicode_Check(line)) {
            PyErr_Format(PyExc_TypeError, "item %zd is %.100s, not str", k, Py_TYPE(line)->tp_name);
            goto done;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(line) < 0) goto done; /* a legacy string of the old C API */
#endif
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
    bytes = idvec_bytes(&v);
    if (bytes != NULL) out = PyTuple_Pack(2, bytes, fresh);
done:
    PyMem_Free(v.data);
    Py_XDECREF(bytes);
    Py_XDECREF(fresh);
    return out;
}

PyDoc_STRVAR(WordTable_ids_doc,
             "ids(items, split) -> (bytes, list[str])\n\n"
             "With split=True: the id of every str.split() word of every item, each item's ids\n"
             "followed by 0; with split=False: the id of every item as it stands. The bytes\n"
             "are native int64; the list holds the keys met for the first time, in id order.");

static PyObject *
WordTable_ids(PyObject *self, PyObject *args)
{
    PyObject *items, *snapshot, *out;
    int split;
    /* Parsing may run user code (split's __bool__); the items are read after it, from a
     * tuple that no code can change. */
    if (!PyArg_ParseTuple(args, "Op", &items, &split)) return NULL;
    snapshot = PySequence_Tuple(items);
    if (snapshot == NULL) return NULL;
    LOCK_OBJECT(self);
    out = ids_locked((WordTable *)self, snapshot, split);
    UNLOCK_OBJECT();
    Py_DECREF(snapshot);
    return out;
}

PyDoc_STRVAR(WordTable_reserve_doc, "reserve() -> int\n\nThe next id, given to no key.");

static PyObject *
WordTable_reserve(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    WordTable *t = (WordTable *)self;
    Py_ssize_t id = -1;
    LOCK_OBJECT(self);
    if (ids_room(t) == 0) {
        t->keys[t->size] = NULL;
        t->hashes[t->size] = 0;
        id = t->size++;
    }
    UNLOCK_OBJECT();
    return id < 0 ? NULL : PyLong_FromSsize_t(id);
}

PyDoc_STRVAR(WordTable_keys_doc, "keys() -> list\n\nEvery key by id (None for a reserved id).");

static PyObject *
WordTable_keys(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    WordTable *t = (WordTable *)self;
    PyObject *out;
    LOCK_OBJECT(self);
    out = PyList_New(t->size);
    /* the list's length, not t->size, bounds the loop: allocating it may run a collection
     * whose finalizers use this table */
    for (Py_ssize_t i = 0; out != NULL && i < PyList_GET_SIZE(out); i++) {
        PyObject *key = t->keys[i] ? t->keys[i] : Py_None;
        PyList_SET_ITEM(out, i, Py_NewRef(key));
    }
    UNLOCK_OBJECT();
    return out;
}

static PyMethodDef WordTable_methods[] = {
    {"ids", WordTable_ids, METH_VARARGS, WordTable_ids_doc},
    {"reserve", WordTable_reserve, METH_NOARGS, WordTable_reserve_doc},
    {"keys", WordTable_keys, METH_NOARGS, WordTable_keys_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(WordTable_doc,
             "WordTable(hash_mask=2**64 - 1)\n\n"
             "Dense ids of distinct strings (words or whole items), in order of first\n"
             "appearance. Keys are compared in full; hash_mask (for tests) forces collisions.");

static PyType_Slot WordTable_slots[] = {
    {Py_tp_doc, (void *)WordTable_doc},
    {Py_tp_new, WordTable_new},
    {Py_tp_init, WordTable_init},
    {Py_tp_dealloc, WordTable_dealloc},
    {Py_tp_methods, WordTable_methods},
    {Py_sq_length, WordTable_len},
    {0, NULL},
};

static PyType_Spec WordTable_spec = {
    .name = "harness.bleu._native.WordTable",
    .basicsize = sizeof(WordTable),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = WordTable_slots,
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

/* One call's table, reused segment after segment (raw malloc: it runs without the GIL). */
typedef struct {
    Slot *slots;
    Py_ssize_t cap;   /* a power of two, at least twice the n-grams of the segment */
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

/* Make room for ``need`` n-grams in an empty table. */
static Status
counter_reserve(Counter *c, Py_ssize_t need)
{
    if (need > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(Slot)) return STATUS_NO_MEMORY;
    Py_ssize_t cap = 64;
    while (cap < 2 * need) cap <<= 1;
    if (cap > c->cap) {
        free(c->slots);
        c->cap = 0;
        c->slots = calloc((size_t)cap, sizeof(Slot));
        if (c->slots == NULL) return STATUS_NO_MEMORY;
        c->cap = cap;
        c->stamp = 0;
    }
    if (need > c->used_cap) {
        free(c->used);
        c->used_cap = 0;
        c->used = malloc((size_t)need * sizeof(Py_ssize_t));
        if (c->used == NULL) return STATUS_NO_MEMORY;
        c->used_cap = need;
    }
    c->n_used = 0;
    if (++c->stamp == 0) { /* the stamps wrapped: forget every slot */
        memset(c->slots, 0, (size_t)c->cap * sizeof(Slot));
        c->stamp = 1;
    }
    return STATUS_OK;
}

/* The slot of the n-gram ``gram`` (hash h), or -1 when the hypothesis lacks it. */
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

/* Clipped matches of one segment: texts [0, n_texts) starting at tokens[0], of which
 * ``avail`` are readable; sets *consumed to the positions the segment spans. Every read is
 * bounded by ``avail`` and the table holds at most hyp_len * order n-grams, whatever the
 * token values (another thread may rewrite them). */
static Status
count_one(Counter *c, const int64_t *tokens, Py_ssize_t avail, int64_t n_texts, int max_order,
          uint64_t hash_mask, int64_t *out, Py_ssize_t *consumed)
{
    Py_ssize_t hyp_len = 0, p, i;
    int n;
    while (hyp_len < avail && tokens[hyp_len] != 0) hyp_len++;
    if (hyp_len >= avail) return STATUS_TOKENS_END_EARLY;
    Py_ssize_t orders = hyp_len < max_order ? hyp_len : max_order;
    if (orders > 0 && hyp_len > PY_SSIZE_T_MAX / orders) return STATUS_NO_MEMORY;
    Status status = counter_reserve(c, hyp_len * orders);
    if (status != STATUS_OK) return status;
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
        if (p >= avail) return STATUS_TOKENS_END_EARLY;
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
    *consumed = p;
    return STATUS_OK;
}

/* Every segment, in order; runs without the GIL. */
static Status
count_all(const int64_t *tokens, Py_ssize_t n_tok, const int64_t *n_texts, Py_ssize_t n_seg,
          int max_order, uint64_t hash_mask, int64_t *dest)
{
    Counter c = {NULL, 0, 0, NULL, 0, 0};
    Status status = STATUS_OK;
    Py_ssize_t at = 0, consumed = 0;
    for (Py_ssize_t s = 0; s < n_seg; s++) {
        int64_t texts = n_texts[s]; /* read once */
        if (texts < 1) {
            status = STATUS_NO_HYPOTHESIS;
            break;
        }
        status = count_one(&c, tokens + at, n_tok - at, texts, max_order, hash_mask,
                           dest + s * max_order, &consumed);
        if (status != STATUS_OK) break;
        at += consumed;
    }
    if (status == STATUS_OK && at != n_tok) status = STATUS_TRAILING_TOKENS;
    free(c.slots);
    free(c.used);
    return status;
}

PyDoc_STRVAR(count_segments_doc,
             "count_segments(tokens, texts, max_order, out, hash_mask=2**64 - 1) -> None\n\n"
             "Clipped n-gram matches of whole segments into ``out`` (int64, segments x\n"
             "max_order, C order). ``tokens``: int64 ids, every text ended by 0, each segment's\n"
             "hypothesis first, nothing after the last segment; ``texts``: int64, the texts of\n"
             "each segment. N-grams are compared token by token; hash_mask (for tests) forces\n"
             "hash collisions.");

static PyObject *
count_segments(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *tok_obj, *texts_obj, *out_obj;
    int max_order;
    unsigned long long mask_arg = ~0ULL;
    Py_buffer tok = {0}, texts = {0}, out = {0};
    PyObject *result = NULL;
    /* Parsing may run user code (__index__); the buffers are taken after it. */
    if (!PyArg_ParseTuple(args, "OOiO|K", &tok_obj, &texts_obj, &max_order, &out_obj, &mask_arg))
        return NULL;
    if (max_order < 1) {
        PyErr_SetString(PyExc_ValueError, "max_order must be at least 1");
        return NULL;
    }
    if (int64_array(tok_obj, &tok, 0, 1, "tokens") < 0 ||
        int64_array(texts_obj, &texts, 0, 1, "texts") < 0 ||
        int64_array(out_obj, &out, 1, 2, "out") < 0)
        goto done;
    Py_ssize_t n_tok = tok.shape[0], n_seg = texts.shape[0];
    if (out.shape[0] != n_seg || out.shape[1] != max_order) {
        PyErr_Format(PyExc_ValueError,
                     "out must hold segments x max_order values (%zd x %d), not %zd x %zd",
                     n_seg, max_order, out.shape[0], out.shape[1]);
        goto done;
    }
    if (overlap(&out, &tok) || overlap(&out, &texts)) {
        PyErr_SetString(PyExc_ValueError, "out must not share memory with tokens or texts");
        goto done;
    }
    Status status;
    Py_BEGIN_ALLOW_THREADS
    status = count_all(tok.buf, n_tok, texts.buf, n_seg, max_order, (uint64_t)mask_arg, out.buf);
    Py_END_ALLOW_THREADS
    if (status != STATUS_OK) {
        status_raise(status);
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    release(&tok);
    release(&texts);
    release(&out);
    return result;
}

/* ===================================================================== token gather */
/* Word w's span of flat, [*first, *first + *count), read once from the arrays; 0, or -1 when
 * w is not a word or its span is not inside flat. */
static inline int
word_span(int64_t w, const int64_t *ws, const int64_t *wl, Py_ssize_t n_words,
          Py_ssize_t n_flat, int64_t *first, int64_t *count)
{
    if (w < 0 || w >= n_words) return -1;
    *first = ws[w];
    *count = wl[w];
    return *first < 0 || *first > n_flat || *count < 0 || *count > n_flat - *first ? -1 : 0;
}

PyDoc_STRVAR(gather_doc,
             "gather(word_ids, word_start, word_len, flat) -> (bytes, bytes)\n\n"
             "The token ids of a run of words (word w's tokens are flat[word_start[w] :\n"
             "word_start[w] + word_len[w]]; word 0 ends a line and stands for the sentinel),\n"
             "and the number of tokens of every line, both as native int64 bytes.");

static PyObject *
gather(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *objs[4], *result = NULL, *tok_bytes = NULL, *len_bytes = NULL;
    Py_buffer wids = {0}, start = {0}, lens = {0}, flat = {0};
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    if (int64_array(objs[0], &wids, 0, 1, "word_ids") < 0 ||
        int64_array(objs[1], &start, 0, 1, "word_start") < 0 ||
        int64_array(objs[2], &lens, 0, 1, "word_len") < 0 ||
        int64_array(objs[3], &flat, 0, 1, "flat") < 0)
        goto done;
    const int64_t *w = wids.buf, *ws = start.buf, *wl = lens.buf, *fl = flat.buf;
    Py_ssize_t n = wids.shape[0], n_words = start.shape[0], n_flat = flat.shape[0], i;
    int64_t first, count;
    if (lens.shape[0] != n_words) {
        PyErr_Format(PyExc_ValueError,
                     "word_start and word_len must have one value per word, not %zd and %zd",
                     n_words, lens.shape[0]);
        goto done;
    }
    /* Two passes: the sizes, then the copy straight into the result. Both bound every read
     * and write by what the first pass measured, so that arrays changed in between (by
     * another thread, where there is no GIL) give an error, never an overflow. */
    const Py_ssize_t most = PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t total = 0, lines = 0;
    for (i = 0; i < n; i++) {
        if (word_span(w[i], ws, wl, n_words, n_flat, &first, &count) < 0) {
            PyErr_Format(PyExc_IndexError, "word id %lld has no tokens", (long long)w[i]);
            goto done;
        }
        if (count > most - total) {
            PyErr_NoMemory();
            goto done;
        }
        total += (Py_ssize_t)count;
        lines += w[i] == 0;
    }
    tok_bytes = PyBytes_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(int64_t));
    len_bytes = PyBytes_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(int64_t));
    if (tok_bytes == NULL || len_bytes == NULL) goto done;
    int64_t *out = (int64_t *)PyBytes_AS_STRING(tok_bytes);
    int64_t *line_len = (int64_t *)PyBytes_AS_STRING(len_bytes);
    Py_ssize_t at = 0, line = 0, line_start = 0;
    for (i = 0; i < n; i++) {
        int64_t word = w[i];
        if (word_span(word, ws, wl, n_words, n_flat, &first, &count) < 0 ||
            count > total - at || (word == 0 && line == lines))
            break;
        for (int64_t k = 0; k < count; k++) out[at++] = fl[first + k];
        if (word == 0) {
            line_len[line++] = at - line_start - 1;
            line_start = at;
        }
    }
    if (i < n || at != total || line != lines) {
        PyErr_SetString(PyExc_RuntimeError, "gather: the arrays changed during the call");
        goto done;
    }
    result = PyTuple_Pack(2, tok_bytes, len_bytes);
done:
    Py_XDECREF(tok_bytes);
    Py_XDECREF(len_bytes);
    release(&wids);
    release(&start);
    release(&lens);
    release(&flat);
    return result;
}

/* ===================================================================== content framing */
/* Append n bytes to a growable buffer; 0, or -1 out of memory. */
static int
buf_add(char **buf, Py_ssize_t *len, Py_ssize_t *cap, const char *src, Py_ssize_t n)
{
    if (n == 0) return 0; /* nothing to copy, and *buf may still be NULL */
    if (n > *cap - *len) {
        if (n > PY_SSIZE_T_MAX / 2 - *len) {
            PyErr_NoMemory();
            return -1;
        }
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

/* The growing outputs of framing. */
typedef struct {
    char *lens, *text;
    Py_ssize_t lens_len, lens_cap, text_len, text_cap;
} Framed;

/* Add the texts of one group (a tuple snapshot). 0; 1 for a lone surrogate; -1 on error. */
static int
frame_group(Framed *f, PyObject *group, Py_ssize_t g)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(group); i++) {
        PyObject *t = PyTuple_GET_ITEM(group, i);
        unsigned char le[8];
        int failed;
        if (!PyUnicode_Check(t)) {
            PyErr_Format(PyExc_TypeError, "text %zd of group %zd is %.100s, not str", i, g,
                         Py_TYPE(t)->tp_name);
            return -1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(t) < 0) return -1;
#endif
        put_le64(le, (uint64_t)PyUnicode_GET_LENGTH(t));
        if (buf_add(&f->lens, &f->lens_len, &f->lens_cap, (const char *)le, 8) < 0) return -1;
        if (PyUnicode_IS_ASCII(t)) {
            failed = buf_add(&f->text, &f->text_len, &f->text_cap,
                             (const char *)PyUnicode_DATA(t), PyUnicode_GET_LENGTH(t));
        }
        else {
            PyObject *utf8 = PyUnicode_AsUTF8String(t);
            if (utf8 == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
                PyErr_Clear(); /* a lone surrogate: the caller's encoder decides */
                return 1;
            }
            failed = buf_add(&f->text, &f->text_len, &f->text_cap, PyBytes_AS_STRING(utf8),
                             PyBytes_GET_SIZE(utf8));
            Py_DECREF(utf8);
        }
        if (failed < 0) return -1;
    }
    return 0;
}

PyDoc_STRVAR(framing_doc,
             "framing(groups) -> (bytes, bytes) or None\n\n"
             "For a sequence of sequences of str: every text's length in code points\n"
             "(little-endian int64, in order) and the texts' UTF-8 concatenated. None when a\n"
             "text has a lone surrogate (the caller encodes those with surrogatepass).");

static PyObject *
framing(PyObject *Py_UNUSED(module), PyObject *groups)
{
    PyObject *outer, *result = NULL;
    Framed f = {NULL, NULL, 0, 0, 0, 0};
    int found = 0;
    outer = PySequence_Tuple(groups);
    if (outer == NULL) return NULL;
    for (Py_ssize_t g = 0; g < PyTuple_GET_SIZE(outer) && found == 0; g++) {
        PyObject *group = PyTuple_GET_ITEM(outer, g);
        PyObject *inner = PySequence_Tuple(group);
        if (inner == NULL) goto done;
        found = frame_group(&f, inner, g);
        Py_DECREF(inner);
        if (found < 0) goto done;
    }
    if (found == 1) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    {
        PyObject *a = PyBytes_FromStringAndSize(f.lens ? f.lens : "", f.lens_len);
        PyObject *b = a ? PyBytes_FromStringAndSize(f.text ? f.text : "", f.text_len) : NULL;
        if (a != NULL && b != NULL) result = PyTuple_Pack(2, a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
done:
    PyMem_Free(f.lens);
    PyMem_Free(f.text);
    Py_DECREF(outer);
    return result;
}

/* ===================================================================== fairseq hashes */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 0x100000001b3ULL

/* FNV-1a continued over the 4 little-endian bytes of the id's low 32 bits (its int32 form),
 * each byte read as a signed char and sign-extended before the XOR. */
static inline uint64_t
fnv_id(uint64_t h, int64_t id)
{
    uint32_t v = (uint32_t)(uint64_t)id;
    for (int k = 0; k < 4; k++) {
        int64_t b = (int64_t)((v >> (8 * k)) & 0xffu);
        if (b >= 0x80) b -= 0x100;
        h = (h ^ (uint64_t)b) * FNV_PRIME;
    }
    return h;
}

PyDoc_STRVAR(fnv_ngrams_doc,
             "fnv_ngrams(ids, lens, max_order) -> tuple[bytes, ...] or None\n\n"
             "fairseq's n-gram hashes by line: ``ids`` (int64, read as int32) holds the lines'\n"
             "ids concatenated, ``lens`` (int64) each line's count. Entry n - 1 holds, line by\n"
             "line, the FNV-1a hash of each n-gram inside the line followed by 0, as native\n"
             "int64 bytes. None when an n-gram hashes to 0.");

static PyObject *
fnv_ngrams(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *ids_obj, *lens_obj, *result = NULL, *parts = NULL;
    int max_order;
    Py_buffer ids = {0}, lens = {0};
    int64_t **out = NULL;
    Py_ssize_t *size = NULL, *at = NULL;
    if (!PyArg_ParseTuple(args, "OOi", &ids_obj, &lens_obj, &max_order)) return NULL;
    if (max_order < 1) {
        PyErr_SetString(PyExc_ValueError, "max_order must be at least 1");
        return NULL;
    }
    if (int64_array(ids_obj, &ids, 0, 1, "ids") < 0 ||
        int64_array(lens_obj, &lens, 0, 1, "lens") < 0)
        goto done;
    const int64_t *id = ids.buf, *len = lens.buf;
    Py_ssize_t n_ids = ids.shape[0], n_lines = lens.shape[0], line, i;
    int n;
    out = PyMem_Calloc((size_t)max_order, sizeof(int64_t *));
    size = PyMem_Calloc((size_t)max_order, sizeof(Py_ssize_t));
    at = PyMem_Calloc((size_t)max_order, sizeof(Py_ssize_t));
    parts = PyTuple_New(max_order);
    if (out == NULL || size == NULL || at == NULL || parts == NULL) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    /* Two passes: the sizes, then the hashes written within what the first pass measured,
     * so that arrays changed in between give an error, never an overflow. */
    Py_ssize_t pos = 0;
    for (line = 0; line < n_lines; line++) {
        int64_t l = len[line];
        if (l < 0 || l > n_ids - pos) {
            PyErr_SetString(PyExc_ValueError, "lens must be counts that add up to len(ids)");
            goto done;
        }
        pos += (Py_ssize_t)l;
        for (n = 1; n <= max_order; n++) size[n - 1] += (l >= n ? (Py_ssize_t)l - n + 1 : 0) + 1;
    }
    if (pos != n_ids) {
        PyErr_SetString(PyExc_ValueError, "lens must be counts that add up to len(ids)");
        goto done;
    }
    for (n = 0; n < max_order; n++) {
        PyObject *b = PyBytes_FromStringAndSize(NULL, size[n] * (Py_ssize_t)sizeof(int64_t));
        if (b == NULL) goto done;
        PyTuple_SET_ITEM(parts, n, b);
        out[n] = (int64_t *)PyBytes_AS_STRING(b);
    }
    int zero = 0;
    pos = 0;
    for (line = 0; line < n_lines; line++) {
        int64_t l = len[line];
        if (l < 0 || l > n_ids - pos) break;
        for (i = 0; i < (Py_ssize_t)l; i++) {
            uint64_t h = FNV_OFFSET;
            for (n = 1; n <= max_order && i + n <= (Py_ssize_t)l; n++) {
                if (at[n - 1] >= size[n - 1]) goto changed;
                h = fnv_id(h, id[pos + i + n - 1]);
                zero |= h == 0;
                out[n - 1][at[n - 1]++] = (int64_t)h;
            }
        }
        for (n = 0; n < max_order; n++) {
            if (at[n] >= size[n]) goto changed;
            out[n][at[n]++] = 0;
        }
        pos += (Py_ssize_t)l;
    }
    for (n = 0; n < max_order; n++)
        if (line < n_lines || at[n] != size[n]) goto changed;
    result = zero ? Py_NewRef(Py_None) : Py_NewRef(parts);
    goto done;
changed:
    PyErr_SetString(PyExc_RuntimeError, "fnv_ngrams: the arrays changed during the call");
done:
    Py_XDECREF(parts);
    PyMem_Free(out);
    PyMem_Free(size);
    PyMem_Free(at);
    release(&ids);
    release(&lens);
    return result;
}

/* ===================================================================== module */
static PyMethodDef module_methods[] = {
    {"count_segments", count_segments, METH_VARARGS, count_segments_doc},
    {"gather", gather, METH_VARARGS, gather_doc},
    {"framing", framing, METH_O, framing_doc},
    {"fnv_ngrams", fnv_ngrams, METH_VARARGS, fnv_ngrams_doc},
    {"_int64_format", int64_format_py, METH_O, int64_format_doc},
    {NULL, NULL, 0, NULL},
};

/* Runs for every module object made from the definition (each import in each interpreter);
 * it writes no state shared between them. */
static int
module_exec(PyObject *module)
{
    for (int c = 0; c < 256; c++) {
        if (latin1_space[c] != (Py_UNICODE_ISSPACE((Py_UCS4)c) ? 1 : 0)) {
            PyErr_Format(PyExc_SystemError,
                         "_native's whitespace table disagrees with this Python at U+%04X", c);
            return -1;
        }
    }
    PyObject *type = PyType_FromModuleAndSpec(module, &WordTable_spec, NULL);
    if (type == NULL) return -1;
    int added = PyModule_AddType(module, (PyTypeObject *)type);
    Py_DECREF(type);
    return added;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_gil
    /* No shared mutable state, and no borrowed pointer kept across user code (see the
     * header): a free-threaded CPython need not re-enable the GIL for this module. */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "harness.bleu._native",
    .m_doc = "Compiled kernels of the statistics fast path (see harness.bleu.native).",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__native(void)
{
    return PyModuleDef_Init(&module_def);
}
