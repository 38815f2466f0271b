/* The Dispatcher object: the tables a @jit function's warm launch path needs, taken from Python
 * once (parameter names, defaults and kinds as C arrays; numpy's struct offsets; torch's key
 * tables, descriptors and DLPack exchange API through describe.c), its garbage-collector
 * support and its type. The launch itself is dispatch.c.
 */
#include "dispatcher.h"

PyTypeObject *tl_dispatcher_type;
PyObject *tl_s_kernels, *tl_s_cfg, *tl_s_active, *tl_s_plan, *tl_s_launch;
PyObject *tl_s_data_ptr, *tl_s_dtype, *tl_s_is_cuda, *tl_s_is_cpu;

#define DISPATCHER_FIELDS(X)                                                                 \
    X(jit) X(config) X(slow) X(names) X(defaults) X(missing) X(kinds) X(np_type) X(np_keys)  \
        X(pt_type) X(pt_host) X(pt_cuda) X(pt_getters) X(pt_exchange) X(describers)          \
            X(constexpr_key) X(unspecialized) X(int_keys) X(guards)
#define N_FIELDS 19

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
    if (!PyArg_ParseTuple(args, "OO!OO!O!OSOnnnO!OO!O!OOO!OOO!O", &o[0], &PyModule_Type, &o[1],
                          &o[2], &PyTuple_Type, &o[3], &PyTuple_Type, &o[4], &o[5], &o[6],
                          &o[7], &np_data, &np_flags, &np_descr, &PyDict_Type, &o[8], &o[9],
                          &PyDict_Type, &o[10], &PyDict_Type, &o[11], &o[12], &o[13],
                          &PyDict_Type, &o[14], &o[15], &o[16], &PyTuple_Type, &o[17],
                          &o[18])) {
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(o[3]);
    if (n > MAX_ARGS || PyTuple_Size(o[4]) != n || PyBytes_Size(o[6]) != n ||
        PyTuple_Size(o[17]) != 4 || (o[18] != Py_None && !PyList_Check(o[18]))) {
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
    tl_describe_setup(d);
    if (unpack_tables(d) < 0) {
        return -1;
    }
    PyObject *table = PyObject_GetAttr(d->jit, tl_s_kernels);
    PyObject *cfg = table ? PyObject_GetAttr(d->jit, tl_s_cfg) : NULL;
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
        {&tl_s_kernels, "_kernels"}, {&tl_s_cfg, "_cfg"}, {&tl_s_active, "_active"},
        {&tl_s_data_ptr, "data_ptr"}, {&tl_s_dtype, "dtype"}, {&tl_s_is_cuda, "is_cuda"},
        {&tl_s_is_cpu, "is_cpu"},
        {&tl_s_plan, "_plan"}, {&tl_s_launch, "launch"},
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
    tl_dispatcher_type = tl_py_add_type(module, &dispatcher_spec, "Dispatcher");
    return tl_dispatcher_type == NULL ? -1 : 0;
}
