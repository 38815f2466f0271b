/* The CUDA driver, loaded at run time: libcuda is never linked at build time, so the wheel
 * installs and imports on machines without a GPU.
 *
 * Only cuLaunchKernel, cuCtxGetCurrent, cuFuncGetParamInfo and cuGetErrorName are resolved; modules and contexts are created by the
 * CUDA backend's driver (cuda-bindings), which shares the same process-wide libcuda.
 */
#include <stdio.h>
#include <string.h>

#include "tilec_launcher.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <dlfcn.h>
#endif

typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                         void **extra);
typedef int (*error_name_fn)(int result, const char **name);
typedef int (*current_context_fn)(void **context);
typedef int (*param_info_fn)(void *f, size_t index, size_t *offset, size_t *size);

static launch_fn cu_launch_kernel;
static error_name_fn cu_get_error_name;
static current_context_fn cu_ctx_get_current;
static param_info_fn cu_func_get_param_info;

#ifdef _WIN32
static const char *const default_names[] = {"nvcuda.dll", NULL};

static void *open_library(const char *name) { return (void *)LoadLibraryA(name); }

static void *symbol(void *lib, const char *name) {
    return (void *)GetProcAddress((HMODULE)lib, name);
}

static void describe_failure(const char *name, char *msg, size_t msglen) {
    snprintf(msg, msglen, "LoadLibrary(%s) failed with Windows error %lu", name,
             (unsigned long)GetLastError());
}
#else
#ifdef __APPLE__
/* No CUDA driver exists for current macOS; a path given explicitly is still tried. */
static const char *const default_names[] = {NULL};
#else
/* libcuda.so.1 is what the driver installs (and what WSL2 provides); libcuda.so only with
 * development symlinks. */
static const char *const default_names[] = {"libcuda.so.1", "libcuda.so", NULL};
#endif

static void *open_library(const char *name) { return dlopen(name, RTLD_NOW | RTLD_GLOBAL); }

static void *symbol(void *lib, const char *name) { return dlsym(lib, name); }

static void describe_failure(const char *name, char *msg, size_t msglen) {
    const char *why = dlerror();
    snprintf(msg, msglen, "dlopen(%s) failed: %s", name, why ? why : "unknown error");
}
#endif

static int bind(void *lib, const char *name, char *msg, size_t msglen) {
    /* Function pointers cast through void*: POSIX guarantees this works for dlsym. */
    launch_fn launch = (launch_fn)symbol(lib, "cuLaunchKernel");
    error_name_fn error_name = (error_name_fn)symbol(lib, "cuGetErrorName");
    if (launch == NULL) {
        snprintf(msg, msglen, "%s has no cuLaunchKernel", name);
        return TL_ERR_NO_CUDA;
    }
    cu_get_error_name = error_name;
    cu_ctx_get_current = (current_context_fn)symbol(lib, "cuCtxGetCurrent");
    cu_func_get_param_info = (param_info_fn)symbol(lib, "cuFuncGetParamInfo");
    cu_launch_kernel = launch;
    return TL_OK;
}

int tl_cuda_load(const char *path, char *msg, size_t msglen) {
    if (cu_launch_kernel != NULL) {
        return TL_OK;
    }
    if (path != NULL && path[0] != '\0') {
        void *lib = open_library(path);
        if (lib == NULL) {
            describe_failure(path, msg, msglen);
            return TL_ERR_NO_CUDA;
        }
        return bind(lib, path, msg, msglen);
    }
    snprintf(msg, msglen, "no CUDA driver library on this platform");
    for (int i = 0; default_names[i] != NULL; i++) {
        void *lib = open_library(default_names[i]);
        if (lib == NULL) {
            describe_failure(default_names[i], msg, msglen);
            continue;
        }
        return bind(lib, default_names[i], msg, msglen);
    }
    return TL_ERR_NO_CUDA;
}

int tl_cuda_is_loaded(void) { return cu_launch_kernel != NULL; }

/* One cuLaunchKernel, arguments as parameter pointers or through `extra`; an empty grid
 * launches nothing. */
static int launch(void *function, const uint32_t grid[3], const uint32_t block[3],
                  uint32_t shared, void *stream, void **params, void **extra) {
    if (cu_launch_kernel == NULL) {
        return -1;
    }
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) {
        return 0;
    }
    return cu_launch_kernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                            shared, stream, params, extra);
}

int tl_cuda_launch(void *function, const uint32_t grid[3], const uint32_t block[3],
                   uint32_t shared, void *stream, void **params) {
    return launch(function, grid, block, shared, stream, params, NULL);
}

const char *tl_cuda_error_name(int result) {
    const char *name = NULL;
    if (cu_get_error_name == NULL || cu_get_error_name(result, &name) != 0) {
        return NULL;
    }
    return name;
}

void *tl_cuda_current_context(void) {
    void *context = NULL;
    if (cu_ctx_get_current == NULL || cu_ctx_get_current(&context) != 0) {
        return NULL;
    }
    return context;
}

int tl_cuda_launch_buffer(void *function, const uint32_t grid[3], const uint32_t block[3],
                          uint32_t shared, void *stream, void *buffer, size_t size) {
    /* CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_END */
    void *extra[] = {(void *)1, buffer, (void *)2, &size, (void *)0};
    return launch(function, grid, block, shared, stream, NULL, extra);
}

int tl_cuda_param_info(void *function, size_t index, size_t *offset, size_t *size) {
    if (cu_func_get_param_info == NULL) {
        return -1;
    }
    return cu_func_get_param_info(function, index, offset, size);
}
