/* The Dispatcher's state, shared by dispatcher.c (the object), dispatch.c (binding, lookup,
 * launch) and describe.c (arguments to key parts).
 */
#ifndef TILEC_DISPATCHER_H
#define TILEC_DISPATCHER_H

#include "pyglue.h"

#define DTYPE_CACHE 8

typedef PyObject *(*tl_getter)(PyObject *descr, PyObject *obj, PyObject *type);

#define DL_DTYPES 64

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
    PyObject *config;     /* tilec.config: ``_active``, the configuration in force, is read */
    PyObject *config_dict; /* from its dict (borrowed: the module holds it) */
    PyObject *slow;       /* the generated launch function: slow(grid, *args, **kwargs) */
    PyObject *names;      /* parameter names (tuple of str) */
    PyObject *defaults;   /* defaults, ``missing`` where a parameter has none */
    PyObject *missing;
    PyObject *kinds;      /* bytes: 'c' constexpr, 'u' do_not_specialize, 'n' other, 'w' written */
    PyObject **name_at;   /* names and defaults as C arrays (borrowed from the tuples), kinds */
    PyObject **default_at; /* as chars */
    const char *kind_at;
    PyObject *np_type;    /* numpy.ndarray, or None */
    Py_ssize_t np_data;   /* byte offsets of its data pointer and flags (0: unknown) */
    Py_ssize_t np_flags;
    Py_ssize_t np_descr;  /* where it keeps its dtype (0: ask for ``dtype``) */
    PyObject *np_keys;    /* numpy dtype -> (unaligned key, aligned key) */
    PyObject *pt_type;    /* torch.Tensor, or None */
    PyObject *pt_host;    /* torch dtype -> key pair, host and CUDA tensors */
    PyObject *pt_cuda;
    PyObject *pt_getters; /* (dtype, is_cuda) data descriptors of torch.Tensor, or None */
    PyObject *pt_exchange; /* (capsule, {packed DLPack dtype: torch dtype or None}) or None */
    int (*pt_dltensor)(void *object, tl_dltensor *out); /* its dltensor_from..., or NULL */
    struct {
        uint32_t packed;  /* code | bits << 8 | lanes << 16 */
        PyObject *dtype;  /* borrowed from the dict; None: several dtypes share the code */
    } pt_dl[DL_DTYPES];
    int pt_dl_count;
    struct {
        PyObject *descr;  /* borrowed from pt_getters */
        tl_getter get;    /* its __get__ (NULL: generic attribute lookup) */
    } pt_dtype, pt_is_cuda;
    PyObject *describers; /* type -> describer(value) -> (key, value) */
    PyObject *constexpr_key;
    PyObject *unspecialized;
    PyObject *int_keys;   /* (ONE, I32, I32 divisible by 16, FP32) */
    PyObject *int_key[4]; /* the same, borrowed */
    PyObject *guards;     /* None, or the module globals the kernel read: a list of (globals
                           * dict, name, object last seen) triples, flattened */
    Py_ssize_t n;
} Dispatcher;

extern PyObject *tl_s_kernels, *tl_s_cfg, *tl_s_active, *tl_s_plan, *tl_s_launch;
extern PyObject *tl_s_data_ptr, *tl_s_dtype, *tl_s_is_cuda, *tl_s_is_cpu;

/* describe.c: what describing torch tensors resolves once (descriptors, DLPack exchange). */
void tl_describe_setup(Dispatcher *d);
int tl_describe(Dispatcher *d, PyObject *a, char kind, PyObject **key, tl_value *value);

#endif
