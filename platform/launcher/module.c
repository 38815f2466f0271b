/* tilec._launcher: the thin CPython binding over the launcher's C core (limited API, abi3).
 *
 * Every entry point takes its arguments through METH_FASTCALL and packs kernel arguments into
 * stack slots straight from the Python tuple, so a launch allocates nothing. The GIL is
 * released while kernels run. Errors on the slow path import tilec.errors lazily.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pyglue.h"

/* Raises tilec.errors.LaunchError(message, code): every rejected argument and every failed
 * launch is a LaunchError, whatever Python error the conversion hit first. */
PyObject *tl_py_launch_error(int code, const char *format, ...) {
    va_list vargs;
    va_start(vargs, format);
    PyObject *message = PyUnicode_FromFormatV(format, vargs);
    va_end(vargs);
    PyErr_Clear();
    PyObject *errors = message ? PyImport_ImportModule("tilec.errors") : NULL;
    PyObject *cls = errors ? PyObject_GetAttrString(errors, "LaunchError") : NULL;
    Py_XDECREF(errors);
    PyObject *exc = cls ? PyObject_CallFunction(cls, "Oi", message, code) : NULL;
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    }
    Py_XDECREF(exc);
    Py_XDECREF(cls);
    Py_XDECREF(message);
    return NULL;
}

PyTypeObject *tl_py_add_type(PyObject *module, PyType_Spec *spec, const char *name) {
    PyObject *type = PyType_FromSpec(spec);
    if (type == NULL) {
        return NULL;
    }
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, type) < 0) {
        Py_DECREF(type);
        Py_DECREF(type);
        return NULL;
    }
    return (PyTypeObject *)type;
}

const tl_dlpack_api *tl_dlpack_api_of(PyObject *capsule) {
    const tl_dlpack_api *api = PyCapsule_IsValid(capsule, "dlpack_exchange_api")
                                   ? PyCapsule_GetPointer(capsule, "dlpack_exchange_api")
                                   : NULL;
    PyErr_Clear();
    return api != NULL && api->major == 1 ? api : NULL;
}

/* PyLong_AsLongLongAndOverflow reads multi-digit ints (pointers) without the byte-array
 * conversion PyLong_AsLongLong uses on some versions. */
static int read_int64(PyObject *obj, int64_t *out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError, "int does not fit in 64 bits");
        return -1;
    }
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

static int read_address(PyObject *obj, const char *what, void **out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        tl_py_launch_error(-1, "%s must be an address (a non-negative int), got %R", what, obj);
        return -1;
    }
    *out = (void *)(uintptr_t)v;
    return 0;
}

/* A tuple of exactly three ints in 0..2**31-1. */
static int read_dims(PyObject *obj, const char *what, uint32_t dims[3]) {
    if (!PyTuple_Check(obj) || PyTuple_Size(obj) != 3) {
        tl_py_launch_error(-1, "%s must be a tuple of 3 ints, got %R", what, obj);
        return -1;
    }
    for (Py_ssize_t i = 0; i < 3; i++) {
        int64_t v;
        if (read_int64(PyTuple_GetItem(obj, i), &v) < 0 || v < 0 || v > INT32_MAX) {
            tl_py_launch_error(-1, "%s must hold 3 ints in 0..2**31-1, got %R", what, obj);
            return -1;
        }
        dims[i] = (uint32_t)v;
    }
    return 0;
}

/* An int argument: int64, or a uint64 above INT64_MAX (flagged by *is_unsigned = 1). */
static int read_integer(PyObject *obj, int64_t *out, int *is_unsigned) {
    *is_unsigned = 0;
    if (read_int64(obj, out) == 0) {
        return 0;
    }
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
        return -1;
    }
    PyErr_Clear();
    /* Only ints above INT64_MAX get here (rare), so the temporary int is affordable. */
    PyObject *index = PyNumber_Index(obj);
    unsigned long long u = index ? PyLong_AsUnsignedLongLong(index) : (unsigned long long)-1;
    Py_XDECREF(index);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (int64_t)u;
    *is_unsigned = 1;
    return 0;
}

int tl_py_pack_one(char code, PyObject *obj, Py_ssize_t index, uint64_t *slot) {
    int kind = tl_code_is_float(code);
    int rc = TL_ERR_RANGE;
    if (kind == 1) {
        double v = PyFloat_AsDouble(obj);
        if (!(v == -1.0 && PyErr_Occurred())) {
            rc = tl_pack_float(code, v, slot);
        }
    } else if (kind == 0) {
        int64_t v;
        int is_unsigned;
        if (read_integer(obj, &v, &is_unsigned) == 0) {
            rc = tl_pack_int(code, v, is_unsigned, slot);
        }
    } else {
        tl_py_launch_error(-1, "argument %zd has an unknown type code '%c'", index, (int)code);
        return -1;
    }
    if (rc != TL_OK) {
        tl_py_launch_error(-1, "argument %zd (%R) does not fit its parameter type (code '%c')", index,
                     obj, (int)code);
        return -1;
    }
    return 0;
}

/* Packs args (a tuple) per codes (bytes) into slots; returns the argument count or -1. */
static Py_ssize_t pack_tuple(PyObject *codes, PyObject *args, uint64_t *slots) {
    char *code_chars;
    Py_ssize_t ncodes;
    if (!PyBytes_Check(codes) || PyBytes_AsStringAndSize(codes, &code_chars, &ncodes) < 0) {
        tl_py_launch_error(-1, "type codes must be bytes, got %R", codes);
        return -1;
    }
    if (!PyTuple_Check(args)) {
        tl_py_launch_error(-1, "kernel arguments must be a tuple, got %R", args);
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(args);
    if (n != ncodes || n > MAX_ARGS) {
        tl_py_launch_error(-1, "%zd arguments for %zd type codes (at most %d)", n, ncodes, MAX_ARGS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (tl_py_pack_one(code_chars[i], PyTuple_GetItem(args, i), i, &slots[i]) < 0) {
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

/* LaunchError for a grid stopped by a fault in kernel code (the CPU's illegal memory access). */
PyObject *tl_py_fault_error(const tl_fault *f, const uint32_t grid[3]) {
    char where[160], what[160];
    int64_t id = f->begin;
    if (f->end - f->begin == 1) {
        snprintf(where, sizeof where, "in program (%lld, %lld, %lld)",
                 (long long)(id % grid[0]), (long long)(id / grid[0] % grid[1]),
                 (long long)(id / ((int64_t)grid[0] * grid[1])));
    } else {
        snprintf(where, sizeof where, "in one of the programs with linear ids %lld..%lld",
                 (long long)f->begin, (long long)(f->end - 1));
    }
    if (f->kind == TL_FAULT_MEMORY && f->address == TL_FAULT_ADDRESS_UNKNOWN) {
        snprintf(what, sizeof what, "accessed memory outside its arguments (address unknown)");
    } else if (f->kind == TL_FAULT_MEMORY) {
        snprintf(what, sizeof what, "accessed memory outside its arguments: address 0x%llx",
                 (unsigned long long)f->address);
    } else if (f->kind == TL_FAULT_ARITHMETIC) {
        snprintf(what, sizeof what, "raised an arithmetic fault (integer division by zero)");
    } else {
        snprintf(what, sizeof what, "executed an illegal instruction");
    }
    return tl_py_launch_error(-1,
                        "the kernel %s, %s of grid (%u, %u, %u); like CUDA's illegal memory "
                        "access, the grid was stopped: the process state is intact but the "
                        "outputs are undefined",
                        what, where, grid[0], grid[1], grid[2]);
}

/* Whether this is the thread Python runs signal handlers in (threading's main thread, which a
 * fork makes the forking thread); yes when that cannot be told. */
static int is_main_thread(void) {
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
    unsigned long id = ident ? PyLong_AsUnsignedLong(ident) : 0;
    int yes = ident == NULL || PyErr_Occurred() || id == PyThread_get_thread_ident();
    PyErr_Clear();
    Py_XDECREF(ident);
    Py_XDECREF(main);
    Py_XDECREF(threading);
    return yes;
}

/* The launching thread's state while a grid runs without the GIL. */
typedef struct {
    PyThreadState *saved;
    int main_thread; /* -1: not asked yet */
} grid_wait;

/* The grid runner's poll: takes the GIL back for a moment and runs Python's signal handlers;
 * nonzero when one raised (KeyboardInterrupt for Ctrl-C), its exception left set. Only the
 * main thread runs handlers, so other threads do not take the GIL for nothing. */
static int poll_signals(void *ctx) {
    grid_wait *w = (grid_wait *)ctx;
    if (w->main_thread == 0) {
        return 0;
    }
    PyEval_RestoreThread(w->saved);
    if (w->main_thread < 0) {
        w->main_thread = is_main_thread();
    }
    int raised = w->main_thread && PyErr_CheckSignals() < 0;
    w->saved = PyEval_SaveThread();
    return raised;
}

int tl_py_run_grid(void *fn, const uint64_t *args, const uint32_t grid[3], int threads,
                   int64_t *status) {
    grid_wait w = {NULL, -1};
    tl_poll poll = {poll_signals, &w};
    tl_fault fault;
    w.saved = PyEval_SaveThread();
    int rc = tl_run_grid((tl_entry_fn)fn, args, (int32_t)grid[0], (int32_t)grid[1],
                         (int32_t)grid[2], threads, status, &fault, &poll);
    PyEval_RestoreThread(w.saved);
    if (rc == TL_ERR_FAULT) {
        tl_py_fault_error(&fault, grid);
        return -1;
    }
    if (rc == TL_ERR_INTERRUPTED) {
        if (!PyErr_Occurred()) {
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        }
        return -1;
    }
    if (rc != TL_OK) {
        tl_py_launch_error(rc, "the CPU grid runner rejected its arguments (code %d)", rc);
        return -1;
    }
    return 0;
}

/* run_cpu_grid(fn_address, args_address, grid, num_threads, status_address) */
static PyObject *run_cpu_grid(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    void *fn, *kernel_args, *status;
    uint32_t grid[3];
    int64_t threads = 0;
    (void)self;
    if (check_nargs("run_cpu_grid", nargs, 5) < 0 || read_address(args[0], "fn", &fn) < 0 ||
        read_address(args[1], "args", &kernel_args) < 0 || read_dims(args[2], "grid", grid) < 0 ||
        read_address(args[4], "status", &status) < 0) {
        return NULL;
    }
    if (read_int64(args[3], &threads) < 0 || threads < 1) {
        return tl_py_launch_error(-1, "num_threads must be an int >= 1, got %R", args[3]);
    }
    if (fn == NULL || status == NULL) {
        return tl_py_launch_error(-1, "run_cpu_grid needs a function and a status address");
    }
    if (tl_py_run_grid(fn, (const uint64_t *)kernel_args, grid,
                       threads > TL_MAX_THREADS ? TL_MAX_THREADS : (int)threads,
                       (int64_t *)status) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

void tl_py_gc_dealloc(PyObject *self, inquiry clear) {
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    clear(self);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

PyObject *tl_py_cuda_failure(int rc) {
    const char *name = tl_cuda_error_name(rc);
    return tl_py_launch_error(rc, "cuLaunchKernel failed: %s (%d)",
                              name ? name : "CUDA_ERROR_UNKNOWN", rc);
}

static int ensure_cuda(void) {
    char msg[512];
    if (tl_cuda_is_loaded() || tl_cuda_load(NULL, msg, sizeof msg) == TL_OK) {
        return 0;
    }
    tl_py_launch_error(-1, "cannot load the CUDA driver: %s", msg);
    return -1;
}

/* launch_cuda(function, grid, block, shared, stream, codes, args) */
static PyObject *launch_cuda(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    void *function, *stream;
    uint32_t grid[3], block[3];
    int64_t shared = 0;
    uint64_t slots[MAX_ARGS];
    void *params[MAX_ARGS];
    (void)self;
    if (check_nargs("launch_cuda", nargs, 7) < 0 ||
        read_address(args[0], "function", &function) < 0 ||
        read_dims(args[1], "grid", grid) < 0 || read_dims(args[2], "block", block) < 0 ||
        read_address(args[4], "stream", &stream) < 0) {
        return NULL;
    }
    if (read_int64(args[3], &shared) < 0 || shared < 0 || shared > UINT32_MAX) {
        return tl_py_launch_error(-1, "shared memory must be an int in 0..2**32-1, got %R", args[3]);
    }
    Py_ssize_t n = pack_tuple(args[5], args[6], slots);
    if (n < 0 || ensure_cuda() < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        params[i] = &slots[i];
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tl_cuda_launch(function, grid, block, (uint32_t)shared, stream, params);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        return tl_py_cuda_failure(rc);
    }
    Py_RETURN_NONE;
}

/* pack_args(codes, args, address): writes 8 * len(args) bytes of slots at address. */
static PyObject *pack_args(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    void *address;
    uint64_t slots[MAX_ARGS];
    (void)self;
    if (check_nargs("pack_args", nargs, 3) < 0 ||
        read_address(args[2], "address", &address) < 0) {
        return NULL;
    }
    Py_ssize_t n = pack_tuple(args[0], args[1], slots);
    if (n < 0) {
        return NULL;
    }
    if (n > 0 && address == NULL) {
        return tl_py_launch_error(-1, "pack_args needs a destination address");
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
        return tl_py_launch_error(-1, "cannot load the CUDA driver: %s", msg);
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
    if (m != NULL && (PyModule_AddIntConstant(m, "MAX_ARGS", MAX_ARGS) < 0 ||
                      tl_plan_add_type(m) < 0 || tl_dispatch_add_types(m) < 0 ||
                      tl_kernel_base_add_types(m) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
