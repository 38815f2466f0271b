/* Describing one launch argument as its specialization key part and launch value, exactly as
 * the generated Python launch function does: numpy arrays through their struct (data pointer,
 * flags, dtype); torch tensors through torch's DLPack exchange API (pointer, device and dtype
 * in one C call), else through data_ptr(), dtype and is_cuda (the last two through the type's
 * own descriptors); small ints and floats inline; other types through the runtime's per-type
 * describers. -1 sends the launch to the Python path.
 */
#include "dispatcher.h"

#define NUMPY_WRITEABLE 0x0400

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
    const tl_dlpack_api *api = tl_dlpack_api_of(PyTuple_GetItem(d->pt_exchange, 0));
    PyObject *dtypes = PyTuple_GetItem(d->pt_exchange, 1);
    if (api == NULL || api->dltensor_from == NULL || !PyDict_Check(dtypes) ||
        PyDict_Size(dtypes) > DL_DTYPES) {
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

void tl_describe_setup(Dispatcher *d) {
    resolve_torch_getters(d);
    resolve_torch_exchange(d);
}

/* (key, value) of an array with data pointer p: the key from the dtype's pair, its aligned
 * one when p is 16-byte aligned; the value is the address itself. */
static int pointer_part(PyObject *pair, uintptr_t p, PyObject **key, tl_value *value) {
    if (pair == NULL || !PyTuple_Check(pair) || PyTuple_Size(pair) != 2) {
        return -1;
    }
    *key = PyTuple_GetItem(pair, (p & 15) == 0);
    Py_INCREF(*key);
    value->obj = NULL;
    value->address = p;
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
        /* all three set before any old one is released (which may run Python code) */
        PyObject *old[3] = {d->dtypes[i].dtype, d->dtypes[i].table, d->dtypes[i].pair};
        Py_INCREF(dtype);
        Py_INCREF(table);
        Py_INCREF(pair);
        d->dtypes[i].dtype = dtype;
        d->dtypes[i].table = table;
        d->dtypes[i].pair = pair;
        for (int j = 0; j < 3; j++) {
            Py_XDECREF(old[j]);
        }
    }
    return pair;
}

static int describe_numpy(Dispatcher *d, PyObject *a, char kind, PyObject **key,
                          tl_value *value) {
    if (d->np_data <= 0 || (kind == 'w' && d->np_flags <= 0)) {
        return -1;
    }
    if (kind == 'w' && !(*(int *)((char *)a + d->np_flags) & NUMPY_WRITEABLE)) {
        return -1; /* the Python path refuses a read-only output array */
    }
    uintptr_t p = *(uintptr_t *)((char *)a + d->np_data);
    PyObject *pair;
    if (d->np_descr > 0) { /* the array's own dtype object, which ``a.dtype`` returns */
        pair = dtype_pair(d, d->np_keys, *(PyObject **)((char *)a + d->np_descr));
    } else {
        PyObject *dtype = PyObject_GetAttr(a, tl_s_dtype);
        pair = dtype ? dtype_pair(d, d->np_keys, dtype) : NULL;
        Py_XDECREF(dtype);
    }
    return pointer_part(pair, p, key, value);
}

/* A torch tensor's dtype by name or through torch.Tensor's descriptor (a new reference). */
static PyObject *torch_dtype(Dispatcher *d, PyObject *a) {
    if (d->pt_dtype.get != NULL) {
        return d->pt_dtype.get(d->pt_dtype.descr, a, (PyObject *)Py_TYPE(a));
    }
    return PyObject_GetAttr(a, tl_s_dtype);
}

/* Through torch's DLPack exchange function: pointer, device and dtype in one C call. 1 when
 * torch declines (a meta tensor...): describe it the usual way; -1 for a tensor on another
 * device than the CPU or a CUDA GPU, which the Python path refuses by name. */
static int describe_torch_dlpack(Dispatcher *d, PyObject *a, PyObject **key, tl_value *value) {
    tl_dltensor t;
    if (d->pt_dltensor(a, &t) != 0) {
        PyErr_Clear(); /* the usual way raises it again where it belongs */
        return 1;
    }
    if (t.device_type != DL_CPU && t.device_type != DL_CUDA) {
        return -1;
    }
    uint32_t packed = (uint32_t)t.code | (uint32_t)t.bits << 8 | (uint32_t)t.lanes << 16;
    PyObject *dtype = NULL;
    for (int i = 0; i < d->pt_dl_count; i++) {
        if (d->pt_dl[i].packed == packed) {
            dtype = d->pt_dl[i].dtype;
            Py_INCREF(dtype);
            break;
        }
    }
    if (dtype == Py_None) { /* a code several dtypes share: ask the tensor */
        Py_DECREF(dtype);
        dtype = torch_dtype(d, a);
    }
    if (dtype == NULL) {
        PyErr_Clear();
        return 1;
    }
    PyObject *pair = dtype_pair(d, t.device_type == DL_CUDA ? d->pt_cuda : d->pt_host, dtype);
    Py_DECREF(dtype);
    return pointer_part(pair, (uintptr_t)t.data + (uintptr_t)t.byte_offset, key, value);
}

static int describe_torch(Dispatcher *d, PyObject *a, PyObject **key, tl_value *value) {
    if (d->pt_dltensor != NULL) {
        int rc = describe_torch_dlpack(d, a, key, value);
        if (rc <= 0) {
            return rc;
        }
    }
    PyObject *ptr = PyObject_CallMethodObjArgs(a, tl_s_data_ptr, NULL);
    if (ptr == NULL || !PyLong_CheckExact(ptr)) {
        Py_XDECREF(ptr);
        return -1;
    }
    uintptr_t p = (uintptr_t)PyLong_AsUnsignedLongLongMask(ptr); /* torch's are >= 0 */
    PyObject *is_cuda = d->pt_is_cuda.get != NULL
                            ? d->pt_is_cuda.get(d->pt_is_cuda.descr, a, (PyObject *)Py_TYPE(a))
                            : PyObject_GetAttr(a, tl_s_is_cuda);
    if (is_cuda == Py_False) {
        /* not a CUDA tensor, yet maybe not a host one either (meta, mps...): the Python path
         * refuses those by name rather than letting a kernel read a bogus address */
        PyObject *is_cpu = PyObject_GetAttr(a, tl_s_is_cpu);
        int host = is_cpu == Py_True;
        Py_XDECREF(is_cpu);
        if (!host) {
            Py_CLEAR(is_cuda);
        }
    }
    PyObject *dtype = is_cuda ? torch_dtype(d, a) : NULL;
    PyObject *pair = NULL;
    if (is_cuda != NULL && dtype != NULL && !PyErr_Occurred()) {
        pair = dtype_pair(d, is_cuda == Py_True ? d->pt_cuda : d->pt_host, dtype);
    }
    Py_XDECREF(is_cuda);
    Py_XDECREF(dtype);
    Py_DECREF(ptr);
    return pointer_part(pair, p, key, value);
}

/* A describer's (key, value) result unpacked into new references. */
static int unpack_pair(PyObject *result, PyObject **key, tl_value *value) {
    if (result == NULL || !PyTuple_Check(result) || PyTuple_Size(result) != 2) {
        Py_XDECREF(result);
        return -1;
    }
    *key = PyTuple_GetItem(result, 0);
    value->obj = PyTuple_GetItem(result, 1);
    Py_INCREF(*key);
    Py_INCREF(value->obj);
    Py_DECREF(result);
    return 0;
}

/* The argument itself as the launch value, with key (a new reference). */
static int as_is(PyObject *a, PyObject *key, PyObject **key_out, tl_value *value) {
    *key_out = key;
    Py_INCREF(a);
    value->obj = a;
    return 0;
}

/* The key part and launch value of argument a, as the generated Python code computes them;
 * -1 (an exception may be set) sends the launch to the Python path. */
int tl_describe(Dispatcher *d, PyObject *a, char kind, PyObject **key, tl_value *value) {
    if (kind == 'c') {
        PyObject *k = PyLong_CheckExact(a)
                          ? (Py_INCREF(a), a)
                          : PyObject_CallFunctionObjArgs(d->constexpr_key, a, NULL);
        return k == NULL ? -1 : as_is(a, k, key, value);
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
            PyObject *k = d->int_key[v == 1 ? 0 : ((v & 15) ? 1 : 2)];
            Py_INCREF(k);
            return as_is(a, k, key, value);
        }
    } else if (PyFloat_CheckExact(a)) {
        Py_INCREF(d->int_key[3]);
        return as_is(a, d->int_key[3], key, value);
    }
    PyObject *fn = PyDict_GetItemWithError(d->describers, type);
    if (fn == NULL) {
        return -1;
    }
    return unpack_pair(PyObject_CallFunctionObjArgs(fn, a, NULL), key, value);
}

