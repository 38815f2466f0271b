/* What the binding's files share: errors raised as tilec.errors.LaunchError, argument packing
 * from Python objects, and the native dispatch types (dispatch.c, plan.c, kernel_base.c).
 */
#ifndef TILEC_PYGLUE_H
#define TILEC_PYGLUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tilec_launcher.h"

/* Kernel parameters one launch accepts: 4 KiB of slots, CUDA's classic parameter limit. */
#define MAX_ARGS 512

PyObject *tl_py_launch_error(int code, const char *format, ...);
int tl_py_pack_one(char code, PyObject *obj, Py_ssize_t index, uint64_t *slot);
PyObject *tl_py_fault_error(const tl_fault *f, const uint32_t grid[3]);
PyObject *tl_py_cuda_failure(int rc);

/* tl_run_grid with the GIL released, polling Python's signal handlers (Ctrl-C stops the grid
 * between programs); 0, or -1 with the exception set (LaunchError, KeyboardInterrupt). */
int tl_py_run_grid(void *fn, const uint64_t *args, const uint32_t grid[3], int threads,
                   int64_t *status);

/* A type made from spec and added to module as `name`; NULL on failure. The module holds one
 * reference and the caller keeps the returned one for its own use. */
PyTypeObject *tl_py_add_type(PyObject *module, PyType_Spec *spec, const char *name);

/* Deallocates a garbage-collected heap-type instance after clear() dropped its references. */
void tl_py_gc_dealloc(PyObject *self, inquiry clear);

/* The vector call protocol (stable since CPython 3.8, in the limited API from 3.12): a type
 * flag and an instance field found through the ``__vectorcalloffset__`` member, which
 * PyType_FromSpec reads since 3.9. Defined here for the 3.10 and 3.11 headers. */
#ifndef Py_TPFLAGS_HAVE_VECTORCALL
#define Py_TPFLAGS_HAVE_VECTORCALL (1UL << 11)
#endif
#ifndef PY_VECTORCALL_ARGUMENTS_OFFSET
#define PY_VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << (8 * sizeof(size_t) - 1))
#endif
typedef PyObject *(*tl_vectorcall)(PyObject *callable, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames);

/* Replaces a reference, releasing the old one last (Py_XSETREF is not in the limited API). */
#define Py_XSETREF_COMPAT(field, value)                                                      \
    do {                                                                                     \
        PyObject *old_ = (PyObject *)(field);                                                \
        (field) = (value);                                                                   \
        Py_XDECREF(old_);                                                                    \
    } while (0)

/* One launch value: a Python object, or (obj NULL) an array's address, read from the array
 * without making an int of it. */
typedef struct {
    PyObject *obj;
    uint64_t address;
} tl_value;

/* DLPack's exchange API (major version 1), as torch.Tensor.__dlpack_c_exchange_api__ provides
 * it: a DLTensor filled from a Python object in one C call, and the current stream. */
typedef struct {
    void *data;
    int32_t device_type, device_id;
    int32_t ndim;
    uint8_t code, bits;
    uint16_t lanes;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} tl_dltensor;
#define DL_CPU 1
#define DL_CUDA 2
typedef struct {
    uint32_t major, minor;
    void *prev, *allocator, *managed_from, *managed_to;
    int (*dltensor_from)(void *object, tl_dltensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void **stream);
} tl_dlpack_api;

/* The table in a "dlpack_exchange_api" capsule of major version 1, else NULL (no error set). */
const tl_dlpack_api *tl_dlpack_api_of(PyObject *capsule);

/* plan.c: how one compiled kernel launches without Python. */
enum { TL_PLAN_ERROR = -1, TL_PLAN_DONE = 0, TL_PLAN_DELEGATE = 1, TL_PLAN_ASSERT = 2 };
typedef struct {
    int64_t index; /* the failed device_assert's index in the kernel's metadata */
    int64_t pid;   /* the linear program id that failed it */
    uint32_t grid[3];
} tl_assert_info;
extern PyTypeObject *tl_plan_type;
int tl_plan_add_type(PyObject *module);
int tl_plan_run(PyObject *plan, PyObject *grid, const tl_value *values, Py_ssize_t nvalues,
                tl_assert_info *info);

/* dispatch.c: the warm launch path of a @jit function. */
extern PyTypeObject *tl_dispatcher_type;
PyObject *tl_dispatch(PyObject *dispatcher, PyObject *grid, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames);
int tl_dispatch_add_types(PyObject *module);

/* kernel_base.c: kernel[grid] in C. */
PyObject *tl_bound_new(PyObject *dispatcher, PyObject *grid);
int tl_kernel_base_add_types(PyObject *module);

#endif
