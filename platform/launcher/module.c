/* tilec._launcher: the thin CPython binding over the launcher's C core (limited API, abi3).
 *
 * Every entry point takes its arguments through METH_FASTCALL and packs kernel arguments into
 * stack slots straight from the Python tuple, so a launch allocates nothing. The GIL is
 * released while kernels run. Errors on the slow path import tilec.errors lazily.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tilec_launcher.h"

/* Kernel parameters one launch accepts: 4 KiB of slots, CUDA's classic parameter limit. */
#define MAX_ARGS 512

static PyObject *raise_launch_error(const char *message, int code) {
    PyObject *errors = PyImport_ImportModule("tilec.errors");
    PyObject *cls = errors ? PyObject_GetAttrString(errors, "LaunchError") : NULL;
    Py_XDECREF(errors);
    if (cls == NULL) {
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(cls, "si", message, code);
    Py_DECREF(cls);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

static int read_int64(PyObject *obj, int64_t *out) {
    long long v = PyLong_AsLongLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int read_address(PyObject *obj, void **out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (void *)(uintptr_t)v;
    return 0;
}

/* A tuple of exactly three non-negative ints below 2**31. */
static int read_dims(PyObject *obj, const char *what, uint32_t dims[3]) {
    if (!PyTuple_Check(obj) || PyTuple_Size(obj) != 3) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of 3 ints", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < 3; i++) {
        int64_t v;
        if (read_int64(PyTuple_GetItem(obj, i), &v) < 0) {
            return -1;
        }
        if (v < 0 || v > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %lld is outside 0..2**31-1", what, i,
                         (long long)v);
            return -1;
        }
        dims[i] = (uint32_t)v;
    }
    return 0;
}

static int pack_one(char code, PyObject *obj, Py_ssize_t index, uint64_t *slot) {
    int kind = tl_code_is_float(code);
    int rc;
    if (kind < 0) {
        PyErr_Format(PyExc_ValueError, "unknown argument type code %c", code);
        return -1;
    }
    if (kind == 1) {
        double v = PyFloat_AsDouble(obj);
        if (v == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        rc = tl_pack_float(code, v, slot);
    } else {
        long long v = PyLong_AsLongLong(obj);
        int is_unsigned = 0;
        if (v == -1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError) || !PyLong_Check(obj)) {
                return -1;
            }
            PyErr_Clear();
            unsigned long long u = PyLong_AsUnsignedLongLong(obj);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                u = 0, is_unsigned = -1;
            } else {
                v = (long long)u, is_unsigned = 1;
            }
        }
        rc = is_unsigned < 0 ? TL_ERR_RANGE : tl_pack_int(code, (int64_t)v, is_unsigned, slot);
    }
    if (rc == TL_ERR_RANGE) {
        PyErr_Format(PyExc_OverflowError, "argument %zd does not fit type code '%c'", index,
                     code);
        return -1;
    }
    return 0;
}

/* Packs args (a tuple) per codes (bytes) into slots; returns the argument count or -1. */
static Py_ssize_t pack_tuple(PyObject *codes, PyObject *args, uint64_t *slots) {
    char *code_chars;
    Py_ssize_t ncodes;
    if (PyBytes_AsStringAndSize(codes, &code_chars, &ncodes) < 0) {
        return -1;
    }
    if (!PyTuple_Check(args)) {
        PyErr_SetString(PyExc_TypeError, "kernel arguments must be a tuple");
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(args);
    if (n != ncodes) {
        PyErr_Format(PyExc_TypeError, "%zd type codes for %zd arguments", ncodes, n);
        return -1;
    }
    if (n > MAX_ARGS) {
        PyErr_Format(PyExc_ValueError, "at most %d kernel arguments, got %zd", MAX_ARGS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (pack_one(code_chars[i], PyTuple_GetItem(args, i), i, &slots[i]) < 0) {
            return -1;
        }
    }
    return n;
}

static int check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected) {
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, expected,
                     nargs);
        return -1;
    }
    return 0;
}

/* run_cpu_grid(fn_address, args_address, grid, num_threads, status_address) */
static PyObject *run_cpu_grid(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    void *fn, *kernel_args, *status;
    uint32_t grid[3];
    int64_t threads;
    (void)self;
    if (check_nargs("run_cpu_grid", nargs, 5) < 0 || read_address(args[0], &fn) < 0 ||
        read_address(args[1], &kernel_args) < 0 || read_dims(args[2], "grid", grid) < 0 ||
        read_int64(args[3], &threads) < 0 || read_address(args[4], &status) < 0) {
        return NULL;
    }
    if (fn == NULL || status == NULL) {
        PyErr_SetString(PyExc_ValueError, "run_cpu_grid needs a function and a status address");
        return NULL;
    }
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "num_threads must be >= 1");
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tl_run_grid((tl_entry_fn)fn, (const uint64_t *)kernel_args, (int32_t)grid[0],
                     (int32_t)grid[1], (int32_t)grid[2],
                     threads > TL_MAX_THREADS ? TL_MAX_THREADS : (int)threads,
                     (int64_t *)status);
    Py_END_ALLOW_THREADS
    if (rc != TL_OK) {
        return raise_launch_error("the CPU grid runner rejected its arguments", rc);
    }
    Py_RETURN_NONE;
}

/* launch_cuda(function, grid, block, shared, stream, codes, args) */
static PyObject *launch_cuda(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    void *function, *stream;
    uint32_t grid[3], block[3];
    int64_t shared;
    uint64_t slots[MAX_ARGS];
    void *params[MAX_ARGS];
    (void)self;
    if (check_nargs("launch_cuda", nargs, 7) < 0 || read_address(args[0], &function) < 0 ||
        read_dims(args[1], "grid", grid) < 0 || read_dims(args[2], "block", block) < 0 ||
        read_int64(args[3], &shared) < 0 || read_address(args[4], &stream) < 0) {
        return NULL;
    }
    if (shared < 0 || shared > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "shared memory size out of range");
        return NULL;
    }
    Py_ssize_t n = pack_tuple(args[5], args[6], slots);
    if (n < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        params[i] = &slots[i];
    }
    if (!tl_cuda_is_loaded()) {
        char msg[512];
        if (tl_cuda_load(NULL, msg, sizeof msg) != TL_OK) {
            return raise_launch_error(msg, -1);
        }
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tl_cuda_launch(function, grid, block, (uint32_t)shared, stream, params);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        const char *name = tl_cuda_error_name(rc);
        char msg[160];
        snprintf(msg, sizeof msg, "cuLaunchKernel failed: %s (%d)",
                 name ? name : "CUDA_ERROR_UNKNOWN", rc);
        return raise_launch_error(msg, rc);
    }
    Py_RETURN_NONE;
}

/* pack_args(codes, args, address): writes 8 * len(args) bytes of slots at address. */
static PyObject *pack_args(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    void *address;
    uint64_t slots[MAX_ARGS];
    (void)self;
    if (check_nargs("pack_args", nargs, 3) < 0 || read_address(args[2], &address) < 0) {
        return NULL;
    }
    Py_ssize_t n = pack_tuple(args[0], args[1], slots);
    if (n < 0) {
        return NULL;
    }
    if (n > 0 && address == NULL) {
        PyErr_SetString(PyExc_ValueError, "pack_args needs a destination address");
        return NULL;
    }
    memcpy(address, slots, (size_t)n * sizeof slots[0]);
    Py_RETURN_NONE;
}

/* load_cuda(path or None): loads libcuda now; raises LaunchError with the reason. */
static PyObject *load_cuda(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const char *path = NULL;
    char msg[512];
    (void)self;
    if (check_nargs("load_cuda", nargs, 1) < 0) {
        return NULL;
    }
    if (args[0] != Py_None && (path = PyUnicode_AsUTF8AndSize(args[0], NULL)) == NULL) {
        return NULL;
    }
    if (tl_cuda_load(path, msg, sizeof msg) != TL_OK) {
        return raise_launch_error(msg, -1);
    }
    Py_RETURN_NONE;
}

#define FASTCALL(fn) (PyCFunction)(void (*)(void))(fn), METH_FASTCALL

static PyMethodDef methods[] = {
    {"run_cpu_grid", FASTCALL(run_cpu_grid), "Run a CPU kernel entry over a 3-D grid."},
    {"launch_cuda", FASTCALL(launch_cuda), "Pack arguments and call cuLaunchKernel."},
    {"pack_args", FASTCALL(pack_args), "Pack arguments into 8-byte slots at an address."},
    {"load_cuda", FASTCALL(load_cuda), "Load libcuda from a path, or by its default names."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_launcher", "tilec's native launcher (see tilec.runtime.launcher).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__launcher(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "MAX_ARGS", MAX_ARGS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
