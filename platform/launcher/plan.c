/* Plan: how one compiled kernel launches without returning to Python.
 *
 * A plan holds what the kernel's Python launch function keeps in closure variables (the CUDA
 * function or CPU entry, block, shared memory, argument type codes, which parameters are
 * passed at run time, where the stream comes from), so the dispatcher launches a warm kernel
 * in C. Anything unusual (a grid that is not a tuple of ints, a value that does not pack, torch
 * on another device) is handed back to the Python launch function, which explains it.
 */
#include <math.h>
#include <string.h>

#include "pyglue.h"

#define PARAM_BUFFER 4096 /* CUDA's classic kernel parameter limit, in bytes */

typedef struct {
    PyObject_HEAD
    int cpu;                 /* 1: a CPU entry run over the grid; 0: a CUDA function */
    void *function;
    uint32_t block[3];
    uint32_t shared;
    int threads;
    Py_ssize_t npick;        /* runtime parameters */
    Py_ssize_t pick[MAX_ARGS];
    char codes[MAX_ARGS];
    PyObject *get_device;    /* torch._C._cuda_getDevice, or NULL */
    PyObject *get_stream;    /* torch._C._cuda_getCurrentRawStream, or NULL */
    PyObject *device;        /* the device the module was loaded on (int), or NULL */
    PyObject *stream_fn;     /* otherwise: a callable returning the stream, or NULL (CPU) */
    void *context;           /* the CUDA context current when the plan was made (the module's) */
    const tl_dlpack_api *exchange; /* torch's DLPack exchange API (its current_work_stream) */
    int device_id;
    size_t buffer_size;      /* > 0: launch from one buffer, parameter i at offset[i] */
    uint16_t offset[MAX_ARGS];
    uint8_t size[MAX_ARGS];
} Plan;

/* The kernel's parameter layout from the driver, so a launch hands it one buffer; left unset
 * (parameter pointers instead) when the driver cannot tell or the layout is not the packer's. */
static void read_layout(Plan *p) {
    size_t end = 0, offset, size;
    p->buffer_size = 0;
    for (Py_ssize_t i = 0; i < p->npick; i++) {
        if (tl_cuda_param_info(p->function, (size_t)i, &offset, &size) != 0 || size == 0 ||
            size > 8 || offset + size > PARAM_BUFFER) {
            return;
        }
        p->offset[i] = (uint16_t)offset;
        p->size[i] = (uint8_t)size;
        end = offset + size > end ? offset + size : end;
    }
    if (p->npick > 0 && tl_cuda_param_info(p->function, (size_t)p->npick, &offset, &size) != 0) {
        p->buffer_size = end; /* exactly npick parameters */
    }
}

PyTypeObject *tl_plan_type;

static PyObject *none_to_null(PyObject *obj) { return obj == Py_None ? NULL : obj; }

/* Plan(cpu, function, block, shared, threads, codes, pick, get_device, get_stream, device,
 *      stream_fn, exchange) */
static int plan_init(PyObject *self_obj, PyObject *args, PyObject *kwargs) {
    Plan *self = (Plan *)self_obj;
    int cpu, threads;
    unsigned long long function;
    unsigned int shared;
    PyObject *codes, *pick, *get_device, *get_stream, *device, *stream_fn, *exchange;
    (void)kwargs;
    if (!PyArg_ParseTuple(args, "pK(III)IiSOOOOOO", &cpu, &function, &self->block[0],
                          &self->block[1], &self->block[2], &shared, &threads, &codes, &pick,
                          &get_device, &get_stream, &device, &stream_fn, &exchange)) {
        return -1;
    }
    Py_ssize_t n = PyBytes_Size(codes);
    if (!PyTuple_Check(pick) || PyTuple_Size(pick) != n || n > MAX_ARGS || threads < 1) {
        PyErr_SetString(PyExc_ValueError, "Plan: one pick index per type code, threads >= 1");
        return -1;
    }
    const char *chars = PyBytes_AsString(codes);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t index = PyLong_AsSsize_t(PyTuple_GetItem(pick, i));
        if (index < 0 || tl_code_is_float(chars[i]) < 0) {
            PyErr_SetString(PyExc_ValueError, "Plan: bad pick index or type code");
            return -1;
        }
        self->pick[i] = index;
        self->codes[i] = chars[i];
    }
    self->cpu = cpu;
    self->function = (void *)(uintptr_t)function;
    self->shared = shared;
    self->threads = threads > TL_MAX_THREADS ? TL_MAX_THREADS : threads;
    self->npick = n;
    self->context = cpu ? NULL : tl_cuda_current_context();
    if (!cpu) {
        read_layout(self);
    }
    self->exchange = NULL;
    if (device != Py_None) {
        long id = PyLong_AsLong(device);
        if (id < 0 || id > INT32_MAX) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "Plan: device must be a CUDA device index");
            return -1;
        }
        self->device_id = (int)id;
        self->exchange = tl_dlpack_api_of(exchange);
    }
    PyObject *refs[4] = {get_device, get_stream, device, stream_fn};
    PyObject **slots[4] = {&self->get_device, &self->get_stream, &self->device,
                           &self->stream_fn};
    for (int i = 0; i < 4; i++) {
        PyObject *old = *slots[i];
        *slots[i] = none_to_null(refs[i]);
        Py_XINCREF(*slots[i]);
        Py_XDECREF(old);
    }
    return 0;
}

static void plan_dealloc(PyObject *self_obj) {
    Plan *self = (Plan *)self_obj;
    PyTypeObject *type = Py_TYPE(self_obj);
    Py_XDECREF(self->get_device);
    Py_XDECREF(self->get_stream);
    Py_XDECREF(self->device);
    Py_XDECREF(self->stream_fn);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self_obj);
    Py_DECREF(type);
}

/* Packs one value; 0 when it does not pack, or when a finite float rounds to infinity in a
 * narrower parameter type (the Python path refuses that, naming the argument). */
static int pack(char code, const tl_value *value, Py_ssize_t index, uint64_t *slot) {
    PyObject *obj = value->obj;
    if (obj == NULL) { /* an array's address */
        *slot = value->address;
        return code == TL_CODE_POINTER;
    }
    if (tl_py_pack_one(code, obj, index, slot) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (code != TL_CODE_F32 && code != TL_CODE_F16 && code != TL_CODE_BF16) {
        return 1;
    }
    uint64_t inf = code == TL_CODE_F32 ? 0x7f800000u : code == TL_CODE_F16 ? 0x7c00u : 0x7f80u;
    uint64_t magnitude = *slot & (code == TL_CODE_F32 ? 0x7fffffffu : 0x7fffu);
    return magnitude != inf || isinf(PyFloat_AsDouble(obj));
}

/* One grid dimension: an int in 0..2**31-1; 0 when it is anything else. */
static int read_dim(PyObject *item, uint32_t *dim) {
    int overflow = 0;
    long long v = PyLong_CheckExact(item) ? PyLong_AsLongLongAndOverflow(item, &overflow) : -1;
    if (overflow || v < 0 || v > INT32_MAX) {
        PyErr_Clear();
        return 0;
    }
    *dim = (uint32_t)v;
    return 1;
}

/* A grid as three dims: an int, or a tuple or list of 1 to 3 ints; 0 when it is anything
 * else (the Python launch function normalizes or rejects it). */
static int read_grid(PyObject *grid, uint32_t dims[3]) {
    dims[1] = dims[2] = 1;
    if (PyLong_CheckExact(grid)) {
        return read_dim(grid, &dims[0]);
    }
    int tuple = PyTuple_CheckExact(grid);
    if (!tuple && !PyList_CheckExact(grid)) {
        return 0;
    }
    Py_ssize_t n = tuple ? PyTuple_Size(grid) : PyList_Size(grid);
    if (n < 1 || n > 3) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!read_dim(tuple ? PyTuple_GetItem(grid, i) : PyList_GetItem(grid, i), &dims[i])) {
            return 0;
        }
    }
    return 1;
}

/* The stream to launch on: torch's current one on the plan's device (delegating when torch's
 * current device is another, which the Python path reports), or the stream function's. While
 * the module's context is current, torch's current device is the plan's: torch selects devices
 * by making their primary context current, so asking torch for the device is skipped. */
static int current_stream(Plan *p, void **stream) {
    PyObject *s;
    if (p->get_device != NULL && p->context != NULL && tl_cuda_current_context() == p->context) {
        if (p->exchange != NULL && p->exchange->current_work_stream != NULL) {
            /* the same answer as get_stream, without a Python call */
            if (p->exchange->current_work_stream(DL_CUDA, p->device_id, stream) == 0) {
                return TL_PLAN_DONE;
            }
            PyErr_Clear(); /* torch's error is raised again by the Python call */
        }
        s = PyObject_CallFunctionObjArgs(p->get_stream, p->device, NULL);
    } else if (p->get_device != NULL) {
        PyObject *current = PyObject_CallNoArgs(p->get_device);
        if (current == NULL) {
            return TL_PLAN_ERROR;
        }
        int same = PyObject_RichCompareBool(current, p->device, Py_EQ);
        if (same != 1) {
            Py_DECREF(current);
            return same < 0 ? TL_PLAN_ERROR : TL_PLAN_DELEGATE;
        }
        s = PyObject_CallFunctionObjArgs(p->get_stream, current, NULL);
        Py_DECREF(current);
    } else {
        s = PyObject_CallNoArgs(p->stream_fn);
    }
    if (s == NULL) {
        return TL_PLAN_ERROR;
    }
    *stream = PyLong_AsVoidPtr(s);
    Py_DECREF(s);
    return PyErr_Occurred() ? TL_PLAN_ERROR : TL_PLAN_DONE;
}

static int run_cpu(Plan *p, const uint64_t *slots, const uint32_t dims[3],
                   tl_assert_info *info) {
    int64_t status[4] = {0, 0, 0, 0};
    if (tl_py_run_grid(p->function, slots, dims, p->threads, status) < 0) {
        return TL_PLAN_ERROR;
    }
    if (status[0] != 0) {
        info->index = status[0] - 1;
        info->pid = status[1];
        return TL_PLAN_ASSERT;
    }
    return TL_PLAN_DONE;
}

int tl_plan_run(PyObject *plan, PyObject *grid, const tl_value *values, Py_ssize_t nvalues,
                tl_assert_info *info) {
    Plan *p = (Plan *)plan;
    uint64_t slots[MAX_ARGS];
    void *params[MAX_ARGS];
    uint32_t *dims = info->grid;
    if (!read_grid(grid, dims)) {
        return TL_PLAN_DELEGATE;
    }
    for (Py_ssize_t i = 0; i < p->npick; i++) {
        if (p->pick[i] >= nvalues || !pack(p->codes[i], &values[p->pick[i]], i, &slots[i])) {
            return TL_PLAN_DELEGATE; /* the Python launch function names the argument */
        }
        params[i] = &slots[i];
    }
    if (dims[0] == 0 || dims[1] == 0 || dims[2] == 0) {
        return TL_PLAN_DONE;
    }
    if (p->cpu) {
        return run_cpu(p, slots, dims, info);
    }
    if (!tl_cuda_is_loaded()) {
        return TL_PLAN_DELEGATE;
    }
    void *stream = NULL;
    int rc = current_stream(p, &stream);
    if (rc != TL_PLAN_DONE) {
        return rc;
    }
    /* The GIL stays held, as in torch's launches: cuLaunchKernel only queues the kernel. */
    if (p->buffer_size > 0) {
        _Alignas(8) unsigned char buffer[PARAM_BUFFER];
        for (Py_ssize_t i = 0; i < p->npick; i++) {
            memcpy(buffer + p->offset[i], &slots[i], p->size[i]); /* little-endian slots */
        }
        rc = tl_cuda_launch_buffer(p->function, dims, p->block, p->shared, stream, buffer,
                                   p->buffer_size);
    } else {
        rc = tl_cuda_launch(p->function, dims, p->block, p->shared, stream, params);
    }
    if (rc != 0) {
        tl_py_cuda_failure(rc);
        return TL_PLAN_ERROR;
    }
    return TL_PLAN_DONE;
}

static PyType_Slot plan_slots[] = {
    {Py_tp_init, (void *)plan_init},
    {Py_tp_dealloc, (void *)plan_dealloc},
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_doc, (void *)"How one compiled kernel launches natively (used by Dispatcher)."},
    {0, NULL},
};

static PyType_Spec plan_spec = {
    "tilec._launcher.Plan", sizeof(Plan), 0, Py_TPFLAGS_DEFAULT, plan_slots,
};

int tl_plan_add_type(PyObject *module) {
    tl_plan_type = tl_py_add_type(module, &plan_spec, "Plan");
    return tl_plan_type == NULL ? -1 : 0;
}
