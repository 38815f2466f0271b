/* Dispatcher: the warm launch of a @jit function, ``kernel[grid](*args, **meta)``, in C.
 *
 * It does what the kernel's generated Python launch function does on a warm call (bind the
 * arguments, describe each into its specialization key part, look the compiled kernel up in
 * the JIT's table, launch it through its Plan) and builds exactly the same keys, so both share
 * one table. Whatever it does not handle itself (a missing kernel, launch options, an argument
 * type without a describer, any error) goes to that Python function, which compiles, explains
 * or raises, so the two paths behave identically.
 */
#include "dispatcher.h"

PyTypeObject *tl_dispatcher_type;
static PyObject *s_kernels, *s_cfg, *s_active, *s_plan, *s_launch;
PyObject *tl_s_data_ptr, *tl_s_dtype, *tl_s_is_cuda;

#define DISPATCHER_FIELDS(X)                                                                 \
    X(jit) X(config) X(slow) X(names) X(defaults) X(missing) X(kinds) X(np_type) X(np_keys)  \
        X(pt_type) X(pt_host) X(pt_cuda) X(pt_getters) X(pt_exchange) X(describers)          \
            X(constexpr_key) X(unspecialized) X(int_keys)
#define N_FIELDS 18

/* The __get__ of a data descriptor (which no instance attribute can shadow), or NULL. */
static tl_getter data_descriptor_getter(PyObject *descr) {
    PyTypeObject *type = Py_TYPE(descr);
    tl_getter get = (tl_getter)PyType_GetSlot(type, Py_tp_descr_get);
    return PyType_GetSlot(type, Py_tp_descr_set) != NULL ? get : NULL;
}

/* torch.Tensor's dtype and is_cuda read through their descriptors, as generic attribute
 * lookup reads them, when the type uses generic lookup; otherwise by name. */
static void resolve_torch_getters(Dispatcher *d) {
    d->pt_dtype.get = d->pt_is_cuda.get = NULL;
    if (!PyType_Check(d->pt_type) || !PyTuple_Check(d->pt_getters) ||
        PyTuple_Size(d->pt_getters) != 2 ||
        PyType_GetSlot((PyTypeObject *)d->pt_type, Py_tp_getattro) !=
            (void *)PyObject_GenericGetAttr) {
        return;
    }
    d->pt_dtype.descr = PyTuple_GetItem(d->pt_getters, 0);
    d->pt_is_cuda.descr = PyTuple_GetItem(d->pt_getters, 1);
    tl_getter dtype = data_descriptor_getter(d->pt_dtype.descr);
    tl_getter is_cuda = data_descriptor_getter(d->pt_is_cuda.descr);
    if (dtype != NULL && is_cuda != NULL) {
        d->pt_dtype.get = dtype;
        d->pt_is_cuda.get = is_cuda;
    }
}

/* torch's DLPack exchange function and dtype table, when given one of major version 1. */
static void resolve_torch_exchange(Dispatcher *d) {
    d->pt_dltensor = NULL;
    d->pt_dl_count = 0;
    if (!PyTuple_Check(d->pt_exchange) || PyTuple_Size(d->pt_exchange) != 2) {
        return;
    }
    PyObject *capsule = PyTuple_GetItem(d->pt_exchange, 0);
    PyObject *dtypes = PyTuple_GetItem(d->pt_exchange, 1);
    struct {
        uint32_t major, minor;
        void *prev, *allocator, *managed_from, *managed_to;
        tl_dltensor_from dltensor_from;
        void *current_work_stream;
    } *api = PyCapsule_GetPointer(capsule, "dlpack_exchange_api");
    if (api == NULL || api->major != 1 || api->dltensor_from == NULL || !PyDict_Check(dtypes) ||
        PyDict_Size(dtypes) > DL_DTYPES) {
        PyErr_Clear();
        return;
    }
    Py_ssize_t pos = 0;
    PyObject *packed, *dtype;
    while (PyDict_Next(dtypes, &pos, &packed, &dtype)) {
        d->pt_dl[d->pt_dl_count].packed = (uint32_t)PyLong_AsUnsignedLongMask(packed);
        d->pt_dl[d->pt_dl_count++].dtype = dtype;
    }
    d->pt_dltensor = PyErr_Occurred() ? NULL : api->dltensor_from;
    PyErr_Clear();
}

/* The parameter tables as C arrays, borrowed from the tuples the dispatcher holds. */
static int unpack_tables(Dispatcher *d) {
    PyMem_Free(d->name_at);
    PyMem_Free(d->default_at);
    d->name_at = PyMem_Calloc((size_t)d->n + 1, sizeof(PyObject *));
    d->default_at = PyMem_Calloc((size_t)d->n + 1, sizeof(PyObject *));
    if (d->name_at == NULL || d->default_at == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        d->name_at[i] = PyTuple_GetItem(d->names, i);
        d->default_at[i] = PyTuple_GetItem(d->defaults, i);
    }
    for (int i = 0; i < 4; i++) {
        d->int_key[i] = PyTuple_GetItem(d->int_keys, i);
    }
    d->kind_at = PyBytes_AsString(d->kinds);
    d->config_dict = PyModule_Check(d->config) ? PyModule_GetDict(d->config) : NULL;
    return d->kind_at != NULL && d->config_dict != NULL ? 0 : -1;
}

static int dispatcher_init(PyObject *self_obj, PyObject *args, PyObject *kwargs) {
    Dispatcher *d = (Dispatcher *)self_obj;
    PyObject *o[N_FIELDS];
    Py_ssize_t np_data, np_flags, np_descr;
    (void)kwargs;
    if (!PyArg_ParseTuple(args, "OO!OO!O!OSOnnnO!OO!O!OOO!OOO!", &o[0], &PyModule_Type, &o[1],
                          &o[2], &PyTuple_Type, &o[3], &PyTuple_Type, &o[4], &o[5], &o[6],
                          &o[7], &np_data, &np_flags, &np_descr, &PyDict_Type, &o[8], &o[9],
                          &PyDict_Type, &o[10], &PyDict_Type, &o[11], &o[12], &o[13],
                          &PyDict_Type, &o[14], &o[15], &o[16], &PyTuple_Type, &o[17])) {
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(o[3]);
    if (n > MAX_ARGS || PyTuple_Size(o[4]) != n || PyBytes_Size(o[6]) != n ||
        PyTuple_Size(o[17]) != 4) {
        PyErr_SetString(PyExc_ValueError, "Dispatcher: inconsistent parameter tables");
        return -1;
    }
    int i = 0;
#define SET(field)                                                                           \
    Py_INCREF(o[i]);                                                                         \
    Py_XSETREF_COMPAT(d->field, o[i]);                                                       \
    i++;
    DISPATCHER_FIELDS(SET)
#undef SET
    /* what an earlier __init__ remembered belongs to another table */
    Py_CLEAR(d->last_kernel);
    Py_CLEAR(d->last_plan);
    Py_CLEAR(d->last_keys);
    Py_CLEAR(d->hit_kernel);
    d->np_data = np_data;
    d->np_flags = np_flags;
    d->np_descr = np_descr;
    d->n = n;
    resolve_torch_getters(d);
    resolve_torch_exchange(d);
    if (unpack_tables(d) < 0) {
        return -1;
    }
    PyObject *table = PyObject_GetAttr(d->jit, s_kernels);
    PyObject *cfg = table ? PyObject_GetAttr(d->jit, s_cfg) : NULL;
    if (cfg == NULL || !PyDict_Check(table)) {
        Py_XDECREF(table);
        Py_XDECREF(cfg);
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "Dispatcher: the JIT's _kernels is not a dict");
        }
        return -1;
    }
    Py_XDECREF(d->table);
    Py_XDECREF(d->cfg);
    d->table = table;
    d->cfg = cfg;
    return 0;
}

#define CACHED_FIELDS(X)                                                                     \
    X(table) X(cfg) X(last_kernel) X(last_plan) X(last_keys) X(hit_kernel)                   \
        for (int j = 0; j < DTYPE_CACHE; j++) {                                              \
            X(dtypes[j].dtype) X(dtypes[j].table) X(dtypes[j].pair)                          \
        }

static int dispatcher_traverse(PyObject *self_obj, visitproc visit, void *arg) {
    Dispatcher *d = (Dispatcher *)self_obj;
#define VISIT(field) Py_VISIT(d->field);
    DISPATCHER_FIELDS(VISIT)
    CACHED_FIELDS(VISIT)
#undef VISIT
    Py_VISIT(Py_TYPE(self_obj));
    return 0;
}

static int dispatcher_clear(PyObject *self_obj) {
    Dispatcher *d = (Dispatcher *)self_obj;
#define CLEAR(field) Py_CLEAR(d->field);
    DISPATCHER_FIELDS(CLEAR)
    CACHED_FIELDS(CLEAR)
#undef CLEAR
    PyMem_Free(d->name_at);
    PyMem_Free(d->default_at);
    d->name_at = d->default_at = NULL;
    d->kind_at = NULL;
    d->n = 0;
    d->pt_dltensor = NULL;
    d->pt_dl_count = 0;
    return 0;
}

static void dispatcher_dealloc(PyObject *self) { tl_py_gc_dealloc(self, dispatcher_clear); }

/* ------------------------------------------------------------------------- dispatching */

/* The generated launch function's call, slow(grid, *args, **kwargs), from a vector call. */
static PyObject *slow_path(Dispatcher *d, PyObject *grid, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *full = PyTuple_New(nargs + 1);
    PyObject *kwargs = kwnames != NULL ? PyDict_New() : NULL;
    if (full == NULL || (kwnames != NULL && kwargs == NULL)) {
        Py_XDECREF(full);
        return NULL;
    }
    Py_INCREF(grid);
    PyTuple_SetItem(full, 0, grid);
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SetItem(full, i + 1, args[i]);
    }
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        if (PyDict_SetItem(kwargs, PyTuple_GetItem(kwnames, i), args[nargs + i]) < 0) {
            Py_DECREF(full);
            Py_DECREF(kwargs);
            return NULL;
        }
    }
    PyObject *result = PyObject_Call(d->slow, full, kwargs);
    Py_DECREF(full);
    Py_XDECREF(kwargs);
    return result;
}

static Py_ssize_t param_index(Dispatcher *d, PyObject *name) {
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (d->name_at[i] == name) {
            return i;
        }
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (PyUnicode_Compare(d->name_at[i], name) == 0) {
            return i;
        }
    }
    PyErr_Clear();
    return -1;
}

/* The arguments in parameter order (borrowed), defaults filled in; 0 when Python must bind. */
static int bind_arguments(Dispatcher *d, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, PyObject **bound) {
    if (nargs > d->n) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        bound[i] = i < nargs ? args[i] : NULL;
    }
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        Py_ssize_t i = param_index(d, PyTuple_GetItem(kwnames, k));
        if (i < 0 || bound[i] != NULL) {
            return 0; /* a launch option (num_warps=...) or a duplicate */
        }
        bound[i] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (bound[i] == NULL) {
            bound[i] = d->default_at[i];
            if (bound[i] == d->missing) {
                return 0;
            }
        }
    }
    return 1;
}

/* The grid to launch: a tuple as given, or a callable's result for the arguments by name. */
static PyObject *evaluate_grid(Dispatcher *d, PyObject *grid, PyObject *const *bound) {
    if (PyTuple_CheckExact(grid) || !PyCallable_Check(grid)) {
        Py_INCREF(grid); /* a list or an int: the kernel's launch function normalizes it */
        return grid;
    }
    PyObject *meta = PyDict_New();
    if (meta == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (PyDict_SetItem(meta, d->name_at[i], bound[i]) < 0) {
            Py_DECREF(meta);
            return NULL;
        }
    }
    PyObject *result = PyObject_CallFunctionObjArgs(grid, meta, NULL);
    Py_DECREF(meta);
    return result;
}

/* Stores two new references that belong together before releasing the old ones: releasing
 * can run Python code (and other threads), which must never see one without the other. */
static void remember_pair(PyObject **a, PyObject *a_value, PyObject **b, PyObject *b_value) {
    PyObject *old_a = *a, *old_b = *b;
    *a = a_value;
    *b = b_value;
    Py_XDECREF(old_a);
    Py_XDECREF(old_b);
}

/* The kernel's plan (new reference; None when it has none), remembered for the last kernel. */
static PyObject *plan_of(Dispatcher *d, PyObject *kernel) {
    if (kernel == d->last_kernel) {
        Py_INCREF(d->last_plan);
        return d->last_plan;
    }
    PyObject *plan = PyObject_GetAttr(kernel, s_plan);
    if (plan == NULL) {
        PyErr_Clear();
        plan = Py_None;
        Py_INCREF(plan);
    }
    Py_INCREF(kernel);
    Py_INCREF(plan);
    remember_pair(&d->last_kernel, kernel, &d->last_plan, plan);
    return plan;
}

static PyObject *launch_kernel(Dispatcher *d, PyObject *kernel, PyObject *grid,
                               const tl_value *values, Py_ssize_t n) {
    PyObject *plan = plan_of(d, kernel);
    tl_assert_info info;
    int rc = TL_PLAN_DELEGATE;
    if (Py_TYPE(plan) == tl_plan_type) {
        rc = tl_plan_run(plan, grid, values, n, &info);
    }
    Py_DECREF(plan);
    if (rc == TL_PLAN_ERROR) {
        return NULL;
    }
    if (rc == TL_PLAN_ASSERT) {
        PyObject *exc = PyObject_CallMethod(kernel, "assert_error", "LL(III)", info.index,
                                            info.pid, info.grid[0], info.grid[1], info.grid[2]);
        if (exc != NULL) {
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
            Py_DECREF(exc);
        }
        return NULL;
    }
    if (rc == TL_PLAN_DELEGATE) {
        PyObject *full = PyTuple_New(n + 1);
        if (full == NULL) {
            return NULL;
        }
        Py_INCREF(grid);
        PyTuple_SetItem(full, 0, grid);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = values[i].obj;
            if (v != NULL) {
                Py_INCREF(v);
            } else if ((v = PyLong_FromUnsignedLongLong(values[i].address)) == NULL) {
                Py_DECREF(full);
                return NULL;
            }
            PyTuple_SetItem(full, i + 1, v);
        }
        PyObject *launch = PyObject_GetAttr(kernel, s_launch);
        PyObject *result = launch ? PyObject_Call(launch, full, NULL) : NULL;
        Py_XDECREF(launch);
        Py_DECREF(full);
        if (result == NULL) {
            return NULL;
        }
        Py_DECREF(result);
    }
    Py_INCREF(kernel);
    return kernel;
}

/* The configuration in force is the one the table belongs to. */
static int config_current(Dispatcher *d) {
    PyObject *active = PyDict_GetItemWithError(d->config_dict, s_active); /* borrowed */
    PyErr_Clear();
    return active != NULL && active == d->cfg;
}

/* The compiled kernel for these keys (new reference), or NULL without an exception. */
static PyObject *lookup(Dispatcher *d, PyObject *keys) {
    PyObject *kernel = PyDict_GetItemWithError(d->table, keys);
    Py_XINCREF(kernel);
    PyErr_Clear();
    return kernel;
}

/* Whether key parts equal the last hit's keys: by identity (interned pointer keys, small
 * ints), else by value as the table's lookup would compare them. */
static int same_keys(PyObject *keys, PyObject *const *parts, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *last = PyTuple_GetItem(keys, i);
        if (last != parts[i] && PyObject_RichCompareBool(last, parts[i], Py_EQ) != 1) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* The kernel for these key parts (new reference; NULL without an exception: not compiled). */
static PyObject *find_kernel(Dispatcher *d, PyObject *const *parts) {
    if (d->last_keys != NULL) {
        /* held across the comparison, which may run Python code and let another thread
         * replace the remembered hit */
        PyObject *keys = d->last_keys, *kernel = d->hit_kernel;
        Py_INCREF(keys);
        Py_INCREF(kernel);
        int same = same_keys(keys, parts, d->n);
        Py_DECREF(keys);
        if (same) {
            return kernel;
        }
        Py_DECREF(kernel);
    }
    PyObject *keys = PyTuple_New(d->n);
    if (keys == NULL) {
        PyErr_Clear();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        Py_INCREF(parts[i]);
        PyTuple_SetItem(keys, i, parts[i]);
    }
    PyObject *kernel = lookup(d, keys);
    if (kernel != NULL) {
        Py_INCREF(kernel);
        remember_pair(&d->hit_kernel, kernel, &d->last_keys, keys);
    } else {
        Py_DECREF(keys);
    }
    return kernel;
}

PyObject *tl_dispatch(PyObject *dispatcher, PyObject *grid, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames) {
    Dispatcher *d = (Dispatcher *)dispatcher;
    PyObject *bound[MAX_ARGS], *parts[MAX_ARGS];
    tl_value values[MAX_ARGS];
    if (!bind_arguments(d, args, nargs, kwnames, bound) || !config_current(d)) {
        return slow_path(d, grid, args, nargs, kwnames);
    }
    Py_ssize_t done = 0;
    for (; done < d->n; done++) {
        if (tl_describe(d, bound[done], d->kind_at[done], &parts[done], &values[done]) < 0) {
            break;
        }
    }
    PyObject *kernel = NULL, *result = NULL;
    if (done == d->n) {
        kernel = find_kernel(d, parts);
    }
    if (kernel != NULL) {
        PyObject *g = evaluate_grid(d, grid, bound);
        result = g ? launch_kernel(d, kernel, g, values, d->n) : NULL;
        Py_XDECREF(g);
        Py_DECREF(kernel);
    }
    for (Py_ssize_t i = 0; i < done; i++) {
        Py_XDECREF(values[i].obj);
        Py_DECREF(parts[i]);
    }
    if (kernel == NULL) {
        PyErr_Clear();
        return slow_path(d, grid, args, nargs, kwnames);
    }
    return result;
}

/* ------------------------------------------------------------------------- Bound */

static PyObject *dispatcher_bind(PyObject *self, PyObject *grid) {
    return tl_bound_new(self, grid);
}

static PyMethodDef dispatcher_methods[] = {
    {"bind", dispatcher_bind, METH_O, "The launcher of one grid: bind(grid)(*args, **meta)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot dispatcher_slots[] = {
    {Py_tp_init, (void *)dispatcher_init},
    {Py_tp_dealloc, (void *)dispatcher_dealloc},
    {Py_tp_traverse, (void *)dispatcher_traverse},
    {Py_tp_clear, (void *)dispatcher_clear},
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_methods, (void *)dispatcher_methods},
    {Py_tp_doc, (void *)"The warm launch path of one @jit function."},
    {0, NULL},
};

static PyType_Spec dispatcher_spec = {
    "tilec._launcher.Dispatcher", sizeof(Dispatcher), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, dispatcher_slots,
};

static int intern_names(void) {
    struct { PyObject **slot; const char *text; } names[] = {
        {&s_kernels, "_kernels"}, {&s_cfg, "_cfg"}, {&s_active, "_active"},
        {&tl_s_data_ptr, "data_ptr"}, {&tl_s_dtype, "dtype"}, {&tl_s_is_cuda, "is_cuda"},
        {&s_plan, "_plan"}, {&s_launch, "launch"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (*names[i].slot == NULL &&
            (*names[i].slot = PyUnicode_InternFromString(names[i].text)) == NULL) {
            return -1;
        }
    }
    return 0;
}

int tl_dispatch_add_types(PyObject *module) {
    if (intern_names() < 0) {
        return -1;
    }
    tl_dispatcher_type = (PyTypeObject *)PyType_FromSpec(&dispatcher_spec);
    if (tl_dispatcher_type == NULL) {
        return -1;
    }
    Py_INCREF(tl_dispatcher_type);
    if (PyModule_AddObject(module, "Dispatcher", (PyObject *)tl_dispatcher_type) < 0) {
        Py_DECREF(tl_dispatcher_type);
        return -1;
    }
    return 0;
}
