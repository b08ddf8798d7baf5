/* harness.statistics._kendall: the compiled kernel of Kendall's τ-b interval.
 *
 * harness/statistics/kendall_interval.py counts, for every item, its concordant minus
 * discordant partners from the counts below; it uses this kernel where it is built and its
 * numpy definition elsewhere (tests/test_kendall_interval.py compares the two, and both with
 * the definition, on generated sequences).
 *
 * before_counts(seq, m) -> (bytes, bytes)
 *     seq: bytes holding native int64 values, each in 0 .. m - 1 (dense ranks). For each
 *     position p, how many earlier positions hold a smaller value and how many an equal
 *     one, both as native int64 bytes. ValueError for a value out of range, or bytes whose
 *     length is not a whole number of int64 values.
 *     One pass along the positions with a Fenwick tree over the values: O(n log m) time,
 *     O(m) memory.
 *
 * Safety: the argument is an immutable bytes object, held for the call, and every value is
 * checked against m where it is read; the counting, which runs without the GIL, touches only
 * that object and memory this call allocated, and cannot raise (a value out of range is
 * reported once the GIL is held again). No module state: the module declares
 * Py_MOD_GIL_NOT_USED.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Counts every position of seq (n values); -1 at the first value outside 0 .. m - 1 (its
 * position in *bad), else 0. tree has m + 1 zeroed slots, seen m. */
static int
count_before(const int64_t *seq, Py_ssize_t n, int64_t m, int64_t *tree, int64_t *seen,
             int64_t *less, int64_t *equal, Py_ssize_t *bad)
{
    for (Py_ssize_t p = 0; p < n; p++) {
        int64_t v = seq[p];
        if (v < 0 || v >= m) {
            *bad = p;
            return -1;
        }
        int64_t below = 0;
        for (int64_t i = v; i > 0; i -= i & -i) below += tree[i];
        less[p] = below;
        equal[p] = seen[v]++;
        for (int64_t i = v + 1; i <= m; i += i & -i) tree[i]++;
    }
    return 0;
}

PyDoc_STRVAR(before_counts_doc,
             "before_counts(seq, m) -> (bytes, bytes)\n\n"
             "For each position of seq (bytes of native int64 values in 0 .. m - 1), how many\n"
             "earlier positions hold a smaller value and how many an equal one, as native\n"
             "int64 bytes.");

static PyObject *
before_counts(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *seq_obj, *less_b = NULL, *equal_b = NULL, *result = NULL;
    Py_ssize_t m;
    if (!PyArg_ParseTuple(args, "Sn", &seq_obj, &m)) return NULL;
    Py_ssize_t size = PyBytes_GET_SIZE(seq_obj);
    if (size % (Py_ssize_t)sizeof(int64_t) != 0) {
        PyErr_Format(PyExc_ValueError, "seq must hold whole int64 values, not %zd bytes", size);
        return NULL;
    }
    if (m < 0 || (size_t)m >= SIZE_MAX / sizeof(int64_t) - 1) {
        PyErr_Format(PyExc_ValueError, "m must be >= 0 and fit in memory, not %zd", m);
        return NULL;
    }
    Py_ssize_t n = size / (Py_ssize_t)sizeof(int64_t);
    int64_t *tree = PyMem_Calloc((size_t)m + 1, sizeof(int64_t));
    int64_t *seen = PyMem_Calloc((size_t)m + 1, sizeof(int64_t));
    less_b = PyBytes_FromStringAndSize(NULL, size);
    equal_b = PyBytes_FromStringAndSize(NULL, size);
    if (tree == NULL || seen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (less_b == NULL || equal_b == NULL) goto done;
    {
        const int64_t *seq = (const int64_t *)PyBytes_AS_STRING(seq_obj);
        int64_t *less = (int64_t *)PyBytes_AS_STRING(less_b);
        int64_t *equal = (int64_t *)PyBytes_AS_STRING(equal_b);
        Py_ssize_t bad = -1;
        int status;
        Py_BEGIN_ALLOW_THREADS
        status = count_before(seq, n, (int64_t)m, tree, seen, less, equal, &bad);
        Py_END_ALLOW_THREADS
        if (status < 0) {
            PyErr_Format(PyExc_ValueError, "seq[%zd] = %lld is not in 0 .. %zd", bad,
                         (long long)seq[bad], m - 1);
            goto done;
        }
    }
    result = PyTuple_Pack(2, less_b, equal_b);
done:
    PyMem_Free(tree);
    PyMem_Free(seen);
    Py_XDECREF(less_b);
    Py_XDECREF(equal_b);
    return result;
}

static PyMethodDef module_methods[] = {
    {"before_counts", before_counts, METH_VARARGS, before_counts_doc},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot module_slots[] = {
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "harness.statistics._kendall",
    .m_doc = "Compiled kernel of Kendall's tau-b interval (see "
             "harness.statistics.kendall_interval).",
    .m_size = 0,
    .m_methods = module_methods,
    .m_slots = module_slots,
};

PyMODINIT_FUNC
PyInit__kendall(void)
{
    return PyModuleDef_Init(&module_def);
}
