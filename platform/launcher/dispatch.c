/* Dispatcher: the warm launch of a @jit function, ``kernel[grid](*args, **meta)``, in C.
 *
 * It does what the kernel's generated Python launch function does on a warm call (bind the
 * arguments, describe each into its specialization key part, look the compiled kernel up in
 * the JIT's table, launch it through its Plan) and builds exactly the same keys, so both share
 * one table. Whatever it does not handle itself (a missing kernel, launch options, an argument
 * type without a describer, any error) goes to that Python function, which compiles, explains
 * or raises, so the two paths behave identically.
 */
#include "pyglue.h"

#define DTYPE_CACHE 8

typedef struct {
    PyObject_HEAD
    PyObject *jit;        /* the JITFunction */
    PyObject *table;      /* its kernel table and the configuration the table belongs to, at */
    PyObject *cfg;        /* creation (a new configuration makes the JIT create a new one) */
    PyObject *last_kernel; /* the kernel launched last and its plan */
    PyObject *last_plan;
    PyObject *last_keys;  /* the keys of the last table hit and its kernel (entries are only */
    PyObject *hit_kernel; /* ever added to a table, so a hit stays valid) */
    struct {
        PyObject *dtype, *table, *pair;
    } dtypes[DTYPE_CACHE]; /* recently seen array dtypes: their key pairs without hashing */
    int dtype_next;
    PyObject *config;     /* tilec.config: ``_active``, the configuration in force */
    PyObject *slow;       /* the generated launch function: slow(grid, *args, **kwargs) */
    PyObject *names;      /* parameter names (tuple of str) */
    PyObject *defaults;   /* defaults, ``missing`` where a parameter has none */
    PyObject *missing;
    PyObject *kinds;      /* bytes: 'c' constexpr, 'u' do_not_specialize, 'n' other, 'w' written */
    PyObject *np_type;    /* numpy.ndarray, or None */
    Py_ssize_t np_data;   /* byte offsets of its data pointer and flags (0: unknown) */
    Py_ssize_t np_flags;
    PyObject *np_keys;    /* numpy dtype -> (unaligned key, aligned key) */
    PyObject *pt_type;    /* torch.Tensor, or None */
    PyObject *pt_host;    /* torch dtype -> key pair, host and CUDA tensors */
    PyObject *pt_cuda;
    PyObject *describers; /* type -> describer(value) -> (key, value) */
    PyObject *constexpr_key;
    PyObject *unspecialized;
    PyObject *int_keys;   /* (ONE, I32, I32 divisible by 16, FP32) */
    Py_ssize_t n;
} Dispatcher;

typedef struct {
    PyObject_HEAD
    Dispatcher *dispatcher;
    PyObject *grid;
} Bound;

/* KernelBase: the base class of JITFunction, whose ``kernel[grid]`` makes a Bound in C once
 * the JIT has given it a dispatcher, and calls ``self._getitem_slow(grid)`` before. */
typedef struct {
    PyObject_HEAD
    PyObject *dispatcher; /* a Dispatcher, or NULL */
} KernelBase;

static PyTypeObject *dispatcher_type, *bound_type, *kernel_base_type;
static PyObject *s_kernels, *s_cfg, *s_active, *s_data_ptr, *s_dtype, *s_is_cuda, *s_plan,
    *s_launch, *s_getitem_slow;

#define NUMPY_WRITEABLE 0x0400

/* Replaces a reference, releasing the old one last (Py_XSETREF is not in the limited API). */
#define Py_XSETREF_COMPAT(field, value)                                                      \
    do {                                                                                     \
        PyObject *old_ = (PyObject *)(field);                                                \
        (field) = (value);                                                                   \
        Py_XDECREF(old_);                                                                    \
    } while (0)

#define DISPATCHER_FIELDS(X)                                                                 \
    X(jit) X(config) X(slow) X(names) X(defaults) X(missing) X(kinds) X(np_type) X(np_keys)  \
        X(pt_type) X(pt_host) X(pt_cuda) X(describers) X(constexpr_key) X(unspecialized)     \
            X(int_keys)

static int dispatcher_init(PyObject *self_obj, PyObject *args, PyObject *kwargs) {
    Dispatcher *d = (Dispatcher *)self_obj;
    PyObject *o[16];
    Py_ssize_t np_data, np_flags;
    (void)kwargs;
    if (!PyArg_ParseTuple(args, "OOOO!OOSOnnO!OO!O!O!OOO!", &o[0], &o[1], &o[2], &PyTuple_Type,
                          &o[3], &o[4], &o[5], &o[6], &o[7], &np_data, &np_flags, &PyDict_Type,
                          &o[8], &o[9], &PyDict_Type, &o[10], &PyDict_Type, &o[11],
                          &PyDict_Type, &o[12], &o[13], &o[14], &PyTuple_Type, &o[15])) {
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(o[3]);
    if (n > MAX_ARGS || PyTuple_Size(o[4]) != n || PyBytes_Size(o[6]) != n ||
        PyTuple_Size(o[15]) != 4) {
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
    d->n = n;
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
    return 0;
}

static void gc_dealloc(PyObject *self, inquiry clear) {
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    clear(self);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

static void dispatcher_dealloc(PyObject *self) { gc_dealloc(self, dispatcher_clear); }

/* ------------------------------------------------------------------------- describing */

/* (key, value) of an array with data pointer p: the aligned key when p is 16-byte aligned. */
static int pointer_part(PyObject *pair, uintptr_t p, PyObject **key, PyObject **value) {
    if (pair == NULL || !PyTuple_Check(pair) || PyTuple_Size(pair) != 2) {
        return -1;
    }
    *value = PyLong_FromVoidPtr((void *)p);
    if (*value == NULL) {
        return -1;
    }
    *key = PyTuple_GetItem(pair, (p & 15) == 0);
    Py_INCREF(*key);
    return 0;
}

/* The (unaligned, aligned) key pair of an array dtype from table (borrowed; NULL: unknown). */
static PyObject *dtype_pair(Dispatcher *d, PyObject *table, PyObject *dtype) {
    for (int i = 0; i < DTYPE_CACHE; i++) {
        if (d->dtypes[i].dtype == dtype && d->dtypes[i].table == table) {
            return d->dtypes[i].pair;
        }
    }
    PyObject *pair = PyDict_GetItemWithError(table, dtype);
    if (pair != NULL) {
        int i = d->dtype_next;
        d->dtype_next = (i + 1) % DTYPE_CACHE;
        Py_INCREF(dtype);
        Py_INCREF(table);
        Py_INCREF(pair);
        Py_XSETREF_COMPAT(d->dtypes[i].dtype, dtype);
        Py_XSETREF_COMPAT(d->dtypes[i].table, table);
        Py_XSETREF_COMPAT(d->dtypes[i].pair, pair);
    }
    return pair;
}

static int describe_numpy(Dispatcher *d, PyObject *a, char kind, PyObject **key,
                          PyObject **value) {
    if (d->np_data <= 0 || (kind == 'w' && d->np_flags <= 0)) {
        return -1;
    }
    if (kind == 'w' && !(*(int *)((char *)a + d->np_flags) & NUMPY_WRITEABLE)) {
        return -1; /* the Python path refuses a read-only output array */
    }
    uintptr_t p = *(uintptr_t *)((char *)a + d->np_data);
    PyObject *dtype = PyObject_GetAttr(a, s_dtype);
    PyObject *pair = dtype ? dtype_pair(d, d->np_keys, dtype) : NULL;
    Py_XDECREF(dtype);
    return pointer_part(pair, p, key, value);
}

static int describe_torch(Dispatcher *d, PyObject *a, PyObject **key, PyObject **value) {
    PyObject *ptr = PyObject_CallMethodObjArgs(a, s_data_ptr, NULL);
    if (ptr == NULL || !PyLong_CheckExact(ptr)) {
        Py_XDECREF(ptr);
        return -1;
    }
    uintptr_t p = (uintptr_t)PyLong_AsUnsignedLongLongMask(ptr); /* torch's are >= 0 */
    PyObject *is_cuda = PyObject_GetAttr(a, s_is_cuda);
    PyObject *dtype = PyObject_GetAttr(a, s_dtype);
    PyObject *pair = NULL;
    if (is_cuda != NULL && dtype != NULL && !PyErr_Occurred()) {
        pair = dtype_pair(d, is_cuda == Py_True ? d->pt_cuda : d->pt_host, dtype);
    }
    Py_XDECREF(is_cuda);
    Py_XDECREF(dtype);
    if (pair == NULL || !PyTuple_Check(pair) || PyTuple_Size(pair) != 2) {
        Py_DECREF(ptr);
        return -1;
    }
    *key = PyTuple_GetItem(pair, (p & 15) == 0);
    Py_INCREF(*key);
    *value = ptr; /* torch's own int is the launch value */
    return 0;
}

/* A describer's (key, value) result unpacked into new references. */
static int unpack_pair(PyObject *result, PyObject **key, PyObject **value) {
    if (result == NULL || !PyTuple_Check(result) || PyTuple_Size(result) != 2) {
        Py_XDECREF(result);
        return -1;
    }
    *key = PyTuple_GetItem(result, 0);
    *value = PyTuple_GetItem(result, 1);
    Py_INCREF(*key);
    Py_INCREF(*value);
    Py_DECREF(result);
    return 0;
}

/* The key part and launch value of argument a, as the generated Python code computes them;
 * -1 (an exception may be set) sends the launch to the Python path. */
static int describe(Dispatcher *d, PyObject *a, char kind, PyObject **key, PyObject **value) {
    if (kind == 'c') {
        *key = PyLong_CheckExact(a) ? (Py_INCREF(a), a)
                                    : PyObject_CallFunctionObjArgs(d->constexpr_key, a, NULL);
        if (*key == NULL) {
            return -1;
        }
        *value = a;
        Py_INCREF(a);
        return 0;
    }
    if (kind == 'u') {
        return unpack_pair(PyObject_CallFunctionObjArgs(d->unspecialized, a, NULL), key, value);
    }
    PyObject *type = (PyObject *)Py_TYPE(a);
    if (type == d->np_type) {
        return describe_numpy(d, a, kind, key, value);
    }
    if (type == d->pt_type) {
        return describe_torch(d, a, key, value);
    }
    if (PyLong_CheckExact(a)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(a, &overflow);
        if (!overflow && v >= INT32_MIN && v <= INT32_MAX) {
            *key = PyTuple_GetItem(d->int_keys, v == 1 ? 0 : ((v & 15) ? 1 : 2));
            Py_INCREF(*key);
            *value = a;
            Py_INCREF(a);
            return 0;
        }
    } else if (PyFloat_CheckExact(a)) {
        *key = PyTuple_GetItem(d->int_keys, 3);
        Py_INCREF(*key);
        *value = a;
        Py_INCREF(a);
        return 0;
    }
    PyObject *fn = PyDict_GetItemWithError(d->describers, type);
    if (fn == NULL) {
        return -1;
    }
    return unpack_pair(PyObject_CallFunctionObjArgs(fn, a, NULL), key, value);
}

/* ------------------------------------------------------------------------- dispatching */

static PyObject *slow_path(Dispatcher *d, PyObject *grid, PyObject *args, PyObject *kwargs) {
    Py_ssize_t n = PyTuple_Size(args);
    PyObject *full = PyTuple_New(n + 1);
    if (full == NULL) {
        return NULL;
    }
    Py_INCREF(grid);
    PyTuple_SetItem(full, 0, grid);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GetItem(args, i);
        Py_INCREF(item);
        PyTuple_SetItem(full, i + 1, item);
    }
    PyObject *result = PyObject_Call(d->slow, full, kwargs);
    Py_DECREF(full);
    return result;
}

static Py_ssize_t param_index(Dispatcher *d, PyObject *name) {
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (PyTuple_GetItem(d->names, i) == name) {
            return i;
        }
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (PyUnicode_Compare(PyTuple_GetItem(d->names, i), name) == 0) {
            return i;
        }
    }
    PyErr_Clear();
    return -1;
}

/* The arguments in parameter order (borrowed), defaults filled in; 0 when Python must bind. */
static int bind_arguments(Dispatcher *d, PyObject *args, PyObject *kwargs, PyObject **bound) {
    Py_ssize_t nargs = PyTuple_Size(args);
    if (nargs > d->n) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        bound[i] = i < nargs ? PyTuple_GetItem(args, i) : NULL;
    }
    if (kwargs != NULL) {
        Py_ssize_t pos = 0;
        PyObject *name, *value;
        while (PyDict_Next(kwargs, &pos, &name, &value)) {
            Py_ssize_t i = param_index(d, name);
            if (i < 0 || bound[i] != NULL) {
                return 0; /* a launch option (num_warps=...) or a duplicate */
            }
            bound[i] = value;
        }
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        if (bound[i] == NULL) {
            bound[i] = PyTuple_GetItem(d->defaults, i);
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
        if (PyDict_SetItem(meta, PyTuple_GetItem(d->names, i), bound[i]) < 0) {
            Py_DECREF(meta);
            return NULL;
        }
    }
    PyObject *result = PyObject_CallFunctionObjArgs(grid, meta, NULL);
    Py_DECREF(meta);
    return result;
}

/* The kernel's plan (new reference; None when it has none), remembered for the last kernel. */
static PyObject *plan_of(Dispatcher *d, PyObject *kernel) {
    if (kernel != d->last_kernel) {
        PyObject *plan = PyObject_GetAttr(kernel, s_plan);
        if (plan == NULL) {
            PyErr_Clear();
            plan = Py_None;
            Py_INCREF(plan);
        }
        Py_INCREF(kernel);
        Py_XSETREF_COMPAT(d->last_kernel, kernel);
        Py_XSETREF_COMPAT(d->last_plan, plan);
    }
    Py_INCREF(d->last_plan);
    return d->last_plan;
}

static PyObject *launch_kernel(Dispatcher *d, PyObject *kernel, PyObject *grid,
                               PyObject *const *values, Py_ssize_t n) {
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
            Py_INCREF(values[i]);
            PyTuple_SetItem(full, i + 1, values[i]);
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
    PyObject *active = PyObject_GetAttr(d->config, s_active);
    Py_XDECREF(active); /* only compared: the module keeps it alive */
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
static int same_as_last(Dispatcher *d, PyObject *const *parts) {
    if (d->last_keys == NULL) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        PyObject *last = PyTuple_GetItem(d->last_keys, i);
        if (last != parts[i] && PyObject_RichCompareBool(last, parts[i], Py_EQ) != 1) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* The kernel for these key parts (new reference; NULL without an exception: not compiled). */
static PyObject *find_kernel(Dispatcher *d, PyObject *const *parts) {
    if (same_as_last(d, parts)) {
        Py_INCREF(d->hit_kernel);
        return d->hit_kernel;
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
        Py_XSETREF_COMPAT(d->hit_kernel, kernel);
        Py_XSETREF_COMPAT(d->last_keys, keys);
    } else {
        Py_DECREF(keys);
    }
    return kernel;
}

static PyObject *dispatch(Dispatcher *d, PyObject *grid, PyObject *args, PyObject *kwargs) {
    PyObject *bound[MAX_ARGS], *values[MAX_ARGS], *parts[MAX_ARGS];
    const char *kinds = PyBytes_AsString(d->kinds);
    if (!bind_arguments(d, args, kwargs, bound) || !config_current(d)) {
        return slow_path(d, grid, args, kwargs);
    }
    Py_ssize_t done = 0;
    for (; done < d->n; done++) {
        if (describe(d, bound[done], kinds[done], &parts[done], &values[done]) < 0) {
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
        Py_DECREF(values[i]);
        Py_DECREF(parts[i]);
    }
    if (kernel == NULL) {
        PyErr_Clear();
        return slow_path(d, grid, args, kwargs);
    }
    return result;
}

/* ------------------------------------------------------------------------- Bound */

static PyObject *dispatcher_bind(PyObject *self, PyObject *grid) {
    Bound *b = (Bound *)PyType_GenericAlloc(bound_type, 0);
    if (b == NULL) {
        return NULL;
    }
    Py_INCREF(self);
    b->dispatcher = (Dispatcher *)self;
    Py_INCREF(grid);
    b->grid = grid;
    return (PyObject *)b;
}

static PyObject *bound_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    Bound *b = (Bound *)self;
    return dispatch(b->dispatcher, b->grid, args, kwargs);
}

/* Bound is not tracked by the garbage collector: one is made per launch, and a grid that
 * refers back to its own Bound is not a thing launches do. */
static void bound_dealloc(PyObject *self) {
    Bound *b = (Bound *)self;
    PyTypeObject *type = Py_TYPE(self);
    Py_CLEAR(b->dispatcher);
    Py_CLEAR(b->grid);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(self);
    Py_DECREF(type);
}

static PyObject *kernel_base_subscript(PyObject *self, PyObject *grid) {
    KernelBase *k = (KernelBase *)self;
    if (k->dispatcher != NULL) {
        return dispatcher_bind(k->dispatcher, grid);
    }
    return PyObject_CallMethodObjArgs(self, s_getitem_slow, grid, NULL);
}

/* _set_dispatcher(dispatcher or None) */
static PyObject *kernel_base_set(PyObject *self, PyObject *dispatcher) {
    KernelBase *k = (KernelBase *)self;
    if (dispatcher != Py_None && Py_TYPE(dispatcher) != dispatcher_type) {
        PyErr_SetString(PyExc_TypeError, "_set_dispatcher takes a Dispatcher or None");
        return NULL;
    }
    PyObject *value = dispatcher == Py_None ? NULL : dispatcher;
    Py_XINCREF(value);
    Py_XSETREF_COMPAT(k->dispatcher, value);
    Py_RETURN_NONE;
}

static int kernel_base_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((KernelBase *)self)->dispatcher);
    Py_VISIT(Py_TYPE(self)); /* instances of heap types visit their type */
    return 0;
}

static int kernel_base_clear(PyObject *self) {
    Py_CLEAR(((KernelBase *)self)->dispatcher);
    return 0;
}

static void kernel_base_dealloc(PyObject *self) { gc_dealloc(self, kernel_base_clear); }

static PyMethodDef kernel_base_methods[] = {
    {"_set_dispatcher", kernel_base_set, METH_O, "Launch kernel[grid] through this Dispatcher."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot kernel_base_slots[] = {
    {Py_mp_subscript, (void *)kernel_base_subscript},
    {Py_tp_dealloc, (void *)kernel_base_dealloc},
    {Py_tp_traverse, (void *)kernel_base_traverse},
    {Py_tp_clear, (void *)kernel_base_clear},
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_methods, (void *)kernel_base_methods},
    {Py_tp_doc, (void *)"Base class of JITFunction: kernel[grid] in C."},
    {0, NULL},
};

static PyType_Spec kernel_base_spec = {
    "tilec._launcher.KernelBase", sizeof(KernelBase), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE, kernel_base_slots,
};

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

static PyType_Slot bound_slots[] = {
    {Py_tp_call, (void *)bound_call},
    {Py_tp_dealloc, (void *)bound_dealloc},
    {Py_tp_doc, (void *)"kernel[grid]: call it with the kernel's arguments to launch."},
    {0, NULL},
};

static PyType_Spec dispatcher_spec = {
    "tilec._launcher.Dispatcher", sizeof(Dispatcher), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, dispatcher_slots,
};

static PyType_Spec bound_spec = {
    "tilec._launcher.Bound", sizeof(Bound), 0, Py_TPFLAGS_DEFAULT, bound_slots,
};

static int intern_names(void) {
    struct { PyObject **slot; const char *text; } names[] = {
        {&s_kernels, "_kernels"}, {&s_cfg, "_cfg"}, {&s_active, "_active"},
        {&s_data_ptr, "data_ptr"}, {&s_dtype, "dtype"}, {&s_is_cuda, "is_cuda"},
        {&s_plan, "_plan"}, {&s_launch, "launch"}, {&s_getitem_slow, "_getitem_slow"},
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
    dispatcher_type = (PyTypeObject *)PyType_FromSpec(&dispatcher_spec);
    bound_type = (PyTypeObject *)PyType_FromSpec(&bound_spec);
    kernel_base_type = (PyTypeObject *)PyType_FromSpec(&kernel_base_spec);
    if (dispatcher_type == NULL || bound_type == NULL || kernel_base_type == NULL) {
        return -1;
    }
    PyTypeObject *exported[] = {dispatcher_type, kernel_base_type};
    const char *names[] = {"Dispatcher", "KernelBase"};
    for (int i = 0; i < 2; i++) {
        Py_INCREF(exported[i]);
        if (PyModule_AddObject(module, names[i], (PyObject *)exported[i]) < 0) {
            Py_DECREF(exported[i]);
            return -1;
        }
    }
    return 0;
}
