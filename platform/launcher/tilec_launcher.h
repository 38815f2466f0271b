/* The launcher's C core: CPU grid runner, argument packing and run-time libcuda loading.
 *
 * Nothing here touches the Python API, so the same sources compile for every OS and
 * architecture (the `cross` nox session builds them for Windows and macOS with zig cc); the
 * CPython binding in module.c is a thin layer over these functions.
 */
#ifndef TILEC_LAUNCHER_H
#define TILEC_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of the core functions (0 is success). */
enum {
    TL_OK = 0,
    TL_ERR_GRID = 1,       /* a grid dimension is negative */
    TL_ERR_THREADS = 2,    /* num_threads < 1 */
    TL_ERR_CODE = 3,       /* unknown argument type code */
    TL_ERR_RANGE = 4,      /* an integer does not fit its parameter type */
    TL_ERR_NO_CUDA = 5,    /* libcuda is not loaded */
    TL_ERR_FAULT = 6,      /* kernel code faulted; the grid was stopped (see tl_fault) */
    TL_ERR_INTERRUPTED = 7 /* the poll asked to stop; the grid was stopped between programs */
};

/* The CPU kernel ABI: run programs begin..end-1, id = x + gx * (y + gy * z). */
typedef void (*tl_entry_fn)(const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                            int64_t begin, int64_t end, int64_t *status);

/* Most threads one grid run uses; more than the cores of any current machine. */
#define TL_MAX_THREADS 512

/* What kind of fault stopped a grid. */
enum { TL_FAULT_MEMORY = 1, TL_FAULT_ARITHMETIC = 2, TL_FAULT_INSTRUCTION = 3 };

/* The first fault of a grid run: its kind, the data address when known (memory faults; else
 * TL_FAULT_ADDRESS_UNKNOWN), and the chunk of program ids begin..end-1 that was running. */
#define TL_FAULT_ADDRESS_UNKNOWN UINTPTR_MAX
typedef struct {
    int kind;
    uintptr_t address;
    int64_t begin, end;
} tl_fault;

/* Calls entry over programs begin..end-1 with hardware faults trapped (fault.c): returns 0, or
 * 1 with *fault filled when the kernel faulted (its outputs are then undefined). */
int tl_guarded_call(tl_entry_fn entry, const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                    int64_t begin, int64_t end, int64_t *status, tl_fault *fault);

/* Asked by the launching thread while a grid runs, at most every TL_POLL_NS: nonzero stops the
 * grid (the binding's poll runs Python's signal handlers, so Ctrl-C stops a long grid). */
typedef struct {
    int (*fn)(void *ctx);
    void *ctx;
} tl_poll;

/* How often the launching thread polls while a grid runs (nanoseconds). */
#define TL_POLL_NS 10000000

/* Runs every program of the gx*gy*gz grid on up to num_threads native threads (the calling
 * thread included), handing out chunks of program ids from a shared counter. Stops handing
 * out chunks once status[0] is non-zero (a failed device_assert), a kernel call faulted or
 * poll (may be NULL) asked to stop; returns once no thread runs a program any more:
 * TL_ERR_INTERRUPTED when poll stopped it, else TL_ERR_FAULT with the first fault in *fault.
 * A chunk is sized to run about a millisecond, so the grid stops that soon after; one program
 * that runs longer is never cut short. */
int tl_run_grid(tl_entry_fn entry, const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                int num_threads, int64_t *status, tl_fault *fault, const tl_poll *poll);

/* Argument type codes (the struct module's letters where one exists; 'E' is bfloat16). */
#define TL_CODE_POINTER 'P'
#define TL_CODE_BOOL '?'
#define TL_CODE_I8 'b'
#define TL_CODE_I16 'h'
#define TL_CODE_I32 'i'
#define TL_CODE_I64 'q'
#define TL_CODE_U8 'B'
#define TL_CODE_U16 'H'
#define TL_CODE_U32 'I'
#define TL_CODE_U64 'Q'
#define TL_CODE_F16 'e'
#define TL_CODE_BF16 'E'
#define TL_CODE_F32 'f'
#define TL_CODE_F64 'd'

/* 1 if code is a floating-point code, 0 if an integer or pointer code, -1 if unknown. */
int tl_code_is_float(char code);

/* Packs an integer into an 8-byte argument slot (sign- or zero-extended to 64 bits).
 * `is_unsigned_value` says that `value` holds a uint64 that does not fit an int64. */
int tl_pack_int(char code, int64_t value, int is_unsigned_value, uint64_t *slot);

/* Packs a float into an 8-byte slot: fp16/bf16 in the low 2 bytes, fp32 in the low 4, fp64 in
 * all 8, each rounded to nearest-even straight from the double (overflow gives infinity). */
int tl_pack_float(char code, double value, uint64_t *slot);

/* The bits of `value` rounded to a binary format with ebits exponent and mbits mantissa bits. */
uint64_t tl_round_float(double value, int ebits, int mbits);

/* Loads libcuda (path, or the platform's default names when path is NULL or empty). Returns
 * TL_OK or TL_ERR_NO_CUDA with a reason in msg. Loading twice keeps the first library. */
int tl_cuda_load(const char *path, char *msg, size_t msglen);
int tl_cuda_is_loaded(void);

/* cuLaunchKernel through the loaded library. Returns the CUresult (0 = success), or -1 when
 * libcuda is not loaded. A grid with a zero dimension launches nothing and returns 0. */
int tl_cuda_launch(void *function, const uint32_t grid[3], const uint32_t block[3],
                   uint32_t shared, void *stream, void **params);

/* The CUresult's name (cuGetErrorName), or NULL when the driver does not know it. */
const char *tl_cuda_error_name(int result);

/* Launch with the parameters packed in one buffer at the kernel's own offsets (CUDA's
 * CU_LAUNCH_PARAM_BUFFER_POINTER), which the driver copies in one piece. */
int tl_cuda_launch_buffer(void *function, const uint32_t grid[3], const uint32_t block[3],
                          uint32_t shared, void *stream, void *buffer, size_t size);

/* Offset and size of the kernel's parameter `index`; nonzero when unknown (no such parameter,
 * or a driver before CUDA 12.4 without cuFuncGetParamInfo). */
int tl_cuda_param_info(void *function, size_t index, size_t *offset, size_t *size);

/* The calling thread's current CUDA context, or NULL (none, or libcuda not loaded). */
void *tl_cuda_current_context(void);

#ifdef __cplusplus
}
#endif
#endif
