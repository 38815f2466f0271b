/* ``kernel[grid]`` in C: KernelBase, the native base class of JITFunction, and Bound, the
 * launcher of one grid that it returns.
 *
 * Once the JIT has given a kernel its Dispatcher, subscripting makes a Bound without running
 * Python, and calling the Bound runs the dispatcher's warm path; before that, subscripting
 * calls ``self._getitem_slow(grid)``.
 */
#include <stddef.h>

#include "pyglue.h"
#ifndef Py_T_PYSSIZET /* the member constants' names before CPython 3.12 */
#include "structmember.h"
#define Py_T_PYSSIZET T_PYSSIZET
#define Py_READONLY READONLY
#endif

typedef struct {
    PyObject_HEAD
    tl_vectorcall vectorcall; /* bound_vectorcall: calls pass arguments without a tuple/dict */
    PyObject *dispatcher;
    PyObject *grid;
} Bound;

typedef struct {
    PyObject_HEAD
    PyObject *dispatcher; /* a Dispatcher, or NULL */
} KernelBase;

static PyTypeObject *bound_type;
static PyObject *s_getitem_slow;

static PyObject *bound_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames) {
    Bound *b = (Bound *)self;
    Py_ssize_t nargs = (Py_ssize_t)(nargsf & ~PY_VECTORCALL_ARGUMENTS_OFFSET);
    return tl_dispatch(b->dispatcher, b->grid, args, nargs, kwnames);
}

PyObject *tl_bound_new(PyObject *dispatcher, PyObject *grid) {
    Bound *b = (Bound *)PyType_GenericAlloc(bound_type, 0);
    if (b == NULL) {
        return NULL;
    }
    b->vectorcall = bound_vectorcall;
    Py_INCREF(dispatcher);
    b->dispatcher = dispatcher;
    Py_INCREF(grid);
    b->grid = grid;
    return (PyObject *)b;
}

/* A call through tp_call (C code calling the slot directly): the arguments as a vector. */
static PyObject *bound_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    Py_ssize_t nargs = PyTuple_Size(args), nkw = kwargs != NULL ? PyDict_Size(kwargs) : 0;
    PyObject **vector = PyMem_Malloc((size_t)(nargs + nkw + 1) * sizeof(PyObject *));
    PyObject *kwnames = nkw > 0 ? PyTuple_New(nkw) : NULL;
    if (vector == NULL || (nkw > 0 && kwnames == NULL)) {
        PyMem_Free(vector);
        Py_XDECREF(kwnames);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        vector[i] = PyTuple_GetItem(args, i);
    }
    Py_ssize_t pos = 0, k = 0;
    PyObject *name, *value;
    while (nkw > 0 && PyDict_Next(kwargs, &pos, &name, &value)) {
        Py_INCREF(name);
        PyTuple_SetItem(kwnames, k, name);
        vector[nargs + k++] = value;
    }
    PyObject *result = bound_vectorcall(self, vector, (size_t)nargs, kwnames);
    Py_XDECREF(kwnames);
    PyMem_Free(vector);
    return result;
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
        return tl_bound_new(k->dispatcher, grid);
    }
    return PyObject_CallMethodObjArgs(self, s_getitem_slow, grid, NULL);
}

/* _set_dispatcher(dispatcher or None) */
static PyObject *kernel_base_set(PyObject *self, PyObject *dispatcher) {
    KernelBase *k = (KernelBase *)self;
    if (dispatcher != Py_None && Py_TYPE(dispatcher) != tl_dispatcher_type) {
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

static void kernel_base_dealloc(PyObject *self) { tl_py_gc_dealloc(self, kernel_base_clear); }

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

static PyMemberDef bound_members[] = {
    {"__vectorcalloffset__", Py_T_PYSSIZET, offsetof(Bound, vectorcall), Py_READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot bound_slots[] = {
    {Py_tp_call, (void *)bound_call},
    {Py_tp_members, (void *)bound_members},
    {Py_tp_dealloc, (void *)bound_dealloc},
    {Py_tp_doc, (void *)"kernel[grid]: call it with the kernel's arguments to launch."},
    {0, NULL},
};

static PyType_Spec bound_spec = {
    "tilec._launcher.Bound", sizeof(Bound), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    bound_slots,
};

int tl_kernel_base_add_types(PyObject *module) {
    if (s_getitem_slow == NULL &&
        (s_getitem_slow = PyUnicode_InternFromString("_getitem_slow")) == NULL) {
        return -1;
    }
    bound_type = (PyTypeObject *)PyType_FromSpec(&bound_spec);
    PyTypeObject *base =
        bound_type != NULL ? tl_py_add_type(module, &kernel_base_spec, "KernelBase") : NULL;
    Py_XDECREF(base); /* the module keeps it */
    return base == NULL ? -1 : 0;
}
