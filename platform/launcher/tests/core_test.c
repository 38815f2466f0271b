/* Tests of the launcher's C core (grid.c, pack.c, fault.c, cuda.c) with no Python: built and run
 * natively and, for Windows, with mingw-w64 under wine (ci/core_test.py). Prints one line per
 * failed check and a summary; exits 1 when any check failed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tilec_launcher.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        ++checks;                                                                            \
        if (!(cond)) {                                                                       \
            ++failures;                                                                      \
            printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                         \
        }                                                                                    \
    } while (0)

/* -- the grid runner -------------------------------------------------------------------------- */

#define MAX_PROGRAMS 200000
static volatile int visits[MAX_PROGRAMS];

/* args[0]: programs after which to fail a device_assert (or -1) */
static void count_programs(const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                           int64_t begin, int64_t end, int64_t *status) {
    (void)gx, (void)gy, (void)gz;
    for (int64_t id = begin; id < end; ++id) {
        visits[id] += 1;
        if ((int64_t)args[0] >= 0 && id == (int64_t)args[0]) {
            status[0] = 1; /* a failed device_assert: the grid stops handing out programs */
        }
    }
}

static int every_program_once(int64_t total) {
    for (int64_t i = 0; i < total; ++i) {
        if (visits[i] != 1) {
            printf("  program %lld ran %d times\n", (long long)i, visits[i]);
            return 0;
        }
    }
    return 1;
}

static void test_grid_runs_each_program_once(void) {
    const int32_t grids[][3] = {{1, 1, 1}, {7, 1, 1}, {1000, 3, 2}, {65535, 3, 1}, {5, 7, 11}};
    const int threads[] = {1, 2, 3, 8, 600};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; ++g) {
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
            int64_t total = (int64_t)grids[g][0] * grids[g][1] * grids[g][2];
            memset((void *)visits, 0, sizeof visits);
            uint64_t args[1] = {(uint64_t)(int64_t)-1};
            int64_t status[4] = {0};
            tl_fault fault;
            int rc = tl_run_grid(count_programs, args, grids[g][0], grids[g][1], grids[g][2],
                                 threads[t], status, &fault, NULL);
            CHECK(rc == TL_OK);
            CHECK(every_program_once(total));
        }
    }
}

static void test_grid_errors_and_empty_grids(void) {
    uint64_t args[1] = {(uint64_t)(int64_t)-1};
    int64_t status[4] = {0};
    tl_fault fault;
    CHECK(tl_run_grid(count_programs, args, -1, 1, 1, 2, status, &fault, NULL) == TL_ERR_GRID);
    CHECK(tl_run_grid(count_programs, args, 4, 1, 1, 0, status, &fault, NULL) == TL_ERR_THREADS);
    memset((void *)visits, 0, sizeof visits);
    CHECK(tl_run_grid(count_programs, args, 0, 5, 5, 2, status, &fault, NULL) == TL_OK);
    CHECK(visits[0] == 0);
}

static void test_a_failed_assert_stops_the_grid(void) {
    memset((void *)visits, 0, sizeof visits);
    uint64_t args[1] = {3};
    int64_t status[4] = {0};
    tl_fault fault;
    int rc = tl_run_grid(count_programs, args, 100000, 1, 1, 2, status, &fault, NULL);
    CHECK(rc == TL_OK);
    CHECK(status[0] == 1);
    int ran = 0;
    for (int i = 0; i < 100000; ++i) {
        ran += visits[i];
    }
    CHECK(ran >= 4 && ran < 100000); /* the chunk that asserted finished; the rest never ran */
}

static int polls = 0;
static int stop_on_second_poll(void *ctx) {
    (void)ctx;
    return ++polls >= 2;
}

static void slow_programs(const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                          int64_t begin, int64_t end, int64_t *status) {
    (void)args, (void)gx, (void)gy, (void)gz, (void)status;
    for (int64_t id = begin; id < end; ++id) {
        volatile double x = 0;
        for (int i = 0; i < 20000; ++i) { /* about 20 µs */
            x += sqrt((double)i);
        }
        visits[id] += 1;
    }
}

static void test_poll_interrupts_a_long_grid(void) {
    memset((void *)visits, 0, sizeof visits);
    uint64_t args[1] = {0};
    int64_t status[4] = {0};
    tl_fault fault;
    tl_poll poll = {stop_on_second_poll, NULL};
    polls = 0;
    int rc = tl_run_grid(slow_programs, args, MAX_PROGRAMS, 1, 1, 2, status, &fault, &poll);
    CHECK(rc == TL_ERR_INTERRUPTED);
    int ran = 0, twice = 0;
    for (int i = 0; i < MAX_PROGRAMS; ++i) {
        twice += visits[i] > 1;
        ran += visits[i];
    }
    CHECK(twice == 0);
    CHECK(ran < MAX_PROGRAMS); /* stopped between programs, well before the end (~4 s) */
}

/* -- hardware faults ----------------------------------------------------------------------- */

static void read_null(const uint64_t *args, int32_t gx, int32_t gy, int32_t gz, int64_t begin,
                      int64_t end, int64_t *status) {
    (void)gx, (void)gy, (void)gz, (void)begin, (void)end;
    volatile const int64_t *bad = (volatile const int64_t *)(uintptr_t)args[0];
    status[1] = *bad;
}

static void divide_by_zero(const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                           int64_t begin, int64_t end, int64_t *status) {
    (void)gx, (void)gy, (void)gz, (void)begin, (void)end;
    volatile int32_t zero = (int32_t)args[0];
    volatile int32_t one = 1;
    status[1] = one / zero;
}

static void test_faults_are_trapped(int threads) {
    uint64_t args[1] = {16}; /* address 16: unmapped on every OS */
    int64_t status[4] = {0};
    tl_fault fault;
    memset(&fault, 0, sizeof fault);
    int rc = tl_run_grid(read_null, args, 4, 1, 1, threads, status, &fault, NULL);
    CHECK(rc == TL_ERR_FAULT);
    CHECK(fault.kind == TL_FAULT_MEMORY);
    CHECK(fault.address == 16 || fault.address == TL_FAULT_ADDRESS_UNKNOWN);
    CHECK(fault.begin >= 0 && fault.begin < fault.end && fault.end <= 4);
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    /* integer division by zero traps on x86 (on arm64 it gives 0 and is not a fault) */
    args[0] = 0;
    memset(&fault, 0, sizeof fault);
    rc = tl_run_grid(divide_by_zero, args, 3, 1, 1, threads, status, &fault, NULL);
    CHECK(rc == TL_ERR_FAULT);
    CHECK(fault.kind == TL_FAULT_ARITHMETIC);
#endif
    /* and the runner still works afterwards */
    memset((void *)visits, 0, sizeof visits);
    uint64_t ok[1] = {(uint64_t)(int64_t)-1};
    CHECK(tl_run_grid(count_programs, ok, 50, 1, 1, threads, status, &fault, NULL) == TL_OK);
    CHECK(every_program_once(50));
}

/* -- argument packing ---------------------------------------------------------------------- */

static void test_pack_int(void) {
    uint64_t slot = 0;
    CHECK(tl_pack_int(TL_CODE_I8, -128, 0, &slot) == TL_OK && slot == (uint64_t)(int64_t)-128);
    CHECK(tl_pack_int(TL_CODE_I8, 128, 0, &slot) == TL_ERR_RANGE);
    CHECK(tl_pack_int(TL_CODE_U8, 255, 0, &slot) == TL_OK && slot == 255);
    CHECK(tl_pack_int(TL_CODE_U8, -1, 0, &slot) == TL_ERR_RANGE);
    CHECK(tl_pack_int(TL_CODE_I32, INT32_MIN, 0, &slot) == TL_OK);
    CHECK(slot == (uint64_t)(int64_t)INT32_MIN);
    CHECK(tl_pack_int(TL_CODE_I32, (int64_t)INT32_MAX + 1, 0, &slot) == TL_ERR_RANGE);
    CHECK(tl_pack_int(TL_CODE_U64, -1, 1, &slot) == TL_OK && slot == UINT64_MAX);
    CHECK(tl_pack_int(TL_CODE_I64, -1, 1, &slot) == TL_ERR_RANGE); /* 2**64 - 1 as int64 */
    CHECK(tl_pack_int('z', 0, 0, &slot) == TL_ERR_CODE);
    CHECK(tl_code_is_float(TL_CODE_BF16) == 1 && tl_code_is_float(TL_CODE_I16) == 0);
    CHECK(tl_code_is_float('z') == -1);
}

static void test_pack_float(void) {
    uint64_t slot = 0;
    CHECK(tl_pack_float(TL_CODE_F16, 1.0 / 3.0, &slot) == TL_OK && slot == 0x3555);
    CHECK(tl_pack_float(TL_CODE_BF16, 1.0 / 3.0, &slot) == TL_OK && slot == 0x3EAB);
    CHECK(tl_pack_float(TL_CODE_F16, 65520.0, &slot) == TL_OK && slot == 0x7C00); /* to inf */
    CHECK(tl_pack_float(TL_CODE_F16, 65519.0, &slot) == TL_OK && slot == 0x7BFF);
    CHECK(tl_pack_float(TL_CODE_F16, 2049.0, &slot) == TL_OK && slot == 0x6800); /* tie: even */
    CHECK(tl_pack_float(TL_CODE_F16, 2051.0, &slot) == TL_OK && slot == 0x6802); /* tie: even */
    CHECK(tl_pack_float(TL_CODE_F16, -0.0, &slot) == TL_OK && slot == 0x8000);
    CHECK(tl_pack_float(TL_CODE_F16, 5.960464477539063e-08, &slot) == TL_OK && slot == 1);
    CHECK(tl_pack_float(TL_CODE_BF16, 1.0 + 1.0 / 256, &slot) == TL_OK && slot == 0x3F80);
    CHECK(tl_pack_float(TL_CODE_BF16, 1.0 + 3.0 / 256, &slot) == TL_OK && slot == 0x3F82);
    CHECK(tl_pack_float(TL_CODE_F32, 0.1, &slot) == TL_OK && slot == 0x3DCCCCCD);
    CHECK(tl_pack_float(TL_CODE_F64, -2.5, &slot) == TL_OK && slot == 0xC004000000000000ULL);
    uint64_t nan = tl_round_float(NAN, 5, 10);
    CHECK((nan & 0x7C00) == 0x7C00 && (nan & 0x3FF) != 0);
    CHECK(tl_pack_float(TL_CODE_I32, 1.0, &slot) == TL_ERR_CODE);
}

/* -- libcuda ------------------------------------------------------------------------------- */

static void test_a_missing_libcuda_is_a_message(void) {
    char msg[512] = {0};
    CHECK(tl_cuda_load("no-such-directory/no-such-libcuda", msg, sizeof msg) == TL_ERR_NO_CUDA);
    CHECK(strlen(msg) > 0);
    CHECK(tl_cuda_is_loaded() == 0);
    uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    CHECK(tl_cuda_launch(NULL, grid, block, 0, NULL, NULL) == -1);
}

int main(void) {
    test_grid_runs_each_program_once();
    test_grid_errors_and_empty_grids();
    test_a_failed_assert_stops_the_grid();
    test_poll_interrupts_a_long_grid();
    test_faults_are_trapped(1);
    test_faults_are_trapped(4);
    test_pack_int();
    test_pack_float();
    test_a_missing_libcuda_is_a_message();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
