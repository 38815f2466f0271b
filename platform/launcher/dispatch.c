/* The warm launch of a @jit function, ``kernel[grid](*args, **meta)``, in C.
 *
 * It does what the kernel's generated Python launch function does on a warm call (bind the
 * arguments, describe each into its specialization key part, look the compiled kernel up in
 * the JIT's table, launch it through its Plan) and builds exactly the same keys, so both share
 * one table. Whatever it does not handle itself (a missing kernel, ``warmup=``, an argument
 * type without a describer, any error) goes to that Python function, which compiles, explains
 * or raises, so the two paths behave identically.
 */
#include "dispatcher.h"

/* The keywords of a call that are not parameters: launch options such as num_warps (borrowed
 * from the call's vector). As in the Python path, they key the kernel table in call order. */
typedef struct {
    Py_ssize_t n;
    PyObject *kwnames;
    PyObject *const *values; /* the keyword values, in kwnames order */
    Py_ssize_t at[MAX_ARGS]; /* the options' positions in kwnames */
} launch_options;

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

/* The arguments in parameter order (borrowed), defaults filled in, and the launch options;
 * 0 when Python must bind (a duplicate, a missing argument, ``warmup=``). */
static int bind_arguments(Dispatcher *d, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, PyObject **bound, launch_options *opts) {
    opts->n = 0;
    opts->kwnames = kwnames;
    opts->values = args + nargs;
    if (nargs > d->n) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        bound[i] = i < nargs ? args[i] : NULL;
    }
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GetItem(kwnames, k);
        Py_ssize_t i = param_index(d, name);
        if (i < 0) {
            if (opts->n == MAX_ARGS || PyUnicode_CompareWithASCIIString(name, "warmup") == 0) {
                return 0; /* compiling without launching is the Python path's */
            }
            opts->at[opts->n++] = k;
            continue;
        }
        if (bound[i] != NULL) {
            return 0;
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

/* The grid to launch: a tuple as given, or a callable's result for the arguments and launch
 * options by name. */
static PyObject *evaluate_grid(Dispatcher *d, PyObject *grid, PyObject *const *bound,
                               const launch_options *opts) {
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
    for (Py_ssize_t j = 0; j < opts->n; j++) {
        Py_ssize_t k = opts->at[j];
        if (PyDict_SetItem(meta, PyTuple_GetItem(opts->kwnames, k), opts->values[k]) < 0) {
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
    PyObject *plan = PyObject_GetAttr(kernel, tl_s_plan);
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
        PyObject *launch = PyObject_GetAttr(kernel, tl_s_launch);
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
    PyObject *active = PyDict_GetItemWithError(d->config_dict, tl_s_active); /* borrowed */
    PyErr_Clear();
    return active != NULL && active == d->cfg;
}

/* Whether the module globals the kernel read are still the objects it was compiled with (or
 * last found equal to them): one dict lookup each. Anything else goes to the Python path,
 * which compares values and raises, or adopts an equal new object (global_guard.py). */
static int globals_unchanged(Dispatcher *d) {
    if (d->guards == Py_None) {
        return 1;
    }
    int same = 1;
    Py_ssize_t n = PyList_Size(d->guards);
    for (Py_ssize_t i = 0; same && i + 2 < n; i += 3) {
        /* held: a lookup may compare keys in Python code, which could change the list */
        PyObject *scope = PyList_GetItem(d->guards, i);
        PyObject *name = PyList_GetItem(d->guards, i + 1);
        PyObject *seen = PyList_GetItem(d->guards, i + 2);
        Py_INCREF(scope);
        Py_INCREF(name);
        Py_INCREF(seen);
        same = PyDict_Check(scope) && PyDict_GetItemWithError(scope, name) == seen;
        Py_DECREF(scope);
        Py_DECREF(name);
        Py_DECREF(seen);
    }
    PyErr_Clear();
    return same;
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

/* The key parts as a tuple (new reference), or NULL without an exception. */
static PyObject *key_tuple(Dispatcher *d, PyObject *const *parts) {
    PyObject *keys = PyTuple_New(d->n);
    if (keys == NULL) {
        PyErr_Clear();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < d->n; i++) {
        Py_INCREF(parts[i]);
        PyTuple_SetItem(keys, i, parts[i]);
    }
    return keys;
}

/* The kernel compiled with launch options: the table's key is (key parts, ((name, value),
 * ...)) in call order, as the Python path stores it. NULL without an exception: none. */
static PyObject *find_kernel_with_options(Dispatcher *d, PyObject *keys,
                                          const launch_options *opts) {
    PyObject *items = PyTuple_New(opts->n);
    for (Py_ssize_t j = 0; items != NULL && j < opts->n; j++) {
        Py_ssize_t k = opts->at[j];
        PyObject *item = PyTuple_Pack(2, PyTuple_GetItem(opts->kwnames, k), opts->values[k]);
        if (item == NULL) {
            Py_CLEAR(items);
            break;
        }
        PyTuple_SetItem(items, j, item);
    }
    PyObject *full = items != NULL ? PyTuple_Pack(2, keys, items) : NULL;
    PyObject *kernel = full != NULL ? lookup(d, full) : NULL; /* unhashable: not found */
    Py_XDECREF(full);
    Py_XDECREF(items);
    PyErr_Clear();
    return kernel;
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
    PyObject *keys = key_tuple(d, parts);
    if (keys == NULL) {
        return NULL;
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
    launch_options opts;
    if (!bind_arguments(d, args, nargs, kwnames, bound, &opts) || !config_current(d) ||
        !globals_unchanged(d)) {
        return slow_path(d, grid, args, nargs, kwnames);
    }
    Py_ssize_t done = 0;
    for (; done < d->n; done++) {
        if (tl_describe(d, bound[done], d->kind_at[done], &parts[done], &values[done]) < 0) {
            break;
        }
    }
    PyObject *kernel = NULL, *result = NULL;
    if (done == d->n && opts.n == 0) {
        kernel = find_kernel(d, parts);
    } else if (done == d->n) {
        PyObject *keys = key_tuple(d, parts);
        kernel = keys != NULL ? find_kernel_with_options(d, keys, &opts) : NULL;
        Py_XDECREF(keys);
    }
    if (kernel != NULL) {
        PyObject *g = evaluate_grid(d, grid, bound, &opts);
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

