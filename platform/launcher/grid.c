/* CPU grid runner: spreads a kernel's linear program range over native threads.
 *
 * Programs are handed out in chunks from one shared atomic counter (dynamic chunking), so
 * uneven programs still balance. Win32 threads and Interlocked* on Windows, pthreads and the
 * GCC/Clang __atomic builtins elsewhere.
 */
#include "tilec_launcher.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <pthread.h>
#endif

typedef struct {
    tl_entry_fn entry;
    const uint64_t *args;
    int32_t gx, gy, gz;
    int64_t total;
    int64_t chunk;
    volatile int64_t next;   /* first program id not yet handed out */
    int64_t *status;
} grid_job;

static int64_t claim(grid_job *job) {
#ifdef _WIN32
    return InterlockedExchangeAdd64((volatile LONG64 *)&job->next, job->chunk);
#else
    return __atomic_fetch_add(&job->next, job->chunk, __ATOMIC_RELAXED);
#endif
}

static int64_t assert_failed(const int64_t *status) {
#ifdef _WIN32
    return InterlockedCompareExchange64((volatile LONG64 *)status, 0, 0);
#else
    return __atomic_load_n(status, __ATOMIC_RELAXED);
#endif
}

static void work(grid_job *job) {
    for (;;) {
        int64_t begin = claim(job);
        if (begin >= job->total || assert_failed(job->status)) {
            return;
        }
        int64_t end = begin + job->chunk < job->total ? begin + job->chunk : job->total;
        job->entry(job->args, job->gx, job->gy, job->gz, begin, end, job->status);
    }
}

#ifdef _WIN32
static DWORD WINAPI worker_main(LPVOID arg) {
    work((grid_job *)arg);
    return 0;
}
#else
static void *worker_main(void *arg) {
    work((grid_job *)arg);
    return NULL;
}
#endif

/* Chunks small enough that each thread takes several (load balance), large enough that the
 * shared counter is touched rarely. */
static int64_t chunk_size(int64_t total, int threads) {
    int64_t chunk = total / ((int64_t)threads * 8);
    if (chunk < 1) {
        chunk = 1;
    }
    return chunk > 4096 ? 4096 : chunk;
}

static void run_threads(grid_job *job, int threads) {
#ifdef _WIN32
    HANDLE handles[TL_MAX_THREADS];
#else
    pthread_t handles[TL_MAX_THREADS];
#endif
    int started = 0;
    /* A thread that fails to start is not fatal: the others (and this one) take its chunks. */
    for (int i = 1; i < threads; i++) {
#ifdef _WIN32
        HANDLE h = CreateThread(NULL, 0, worker_main, job, 0, NULL);
        if (h != NULL) {
            handles[started++] = h;
        }
#else
        if (pthread_create(&handles[started], NULL, worker_main, job) == 0) {
            started++;
        }
#endif
    }
    work(job);
    for (int i = 0; i < started; i++) {
#ifdef _WIN32
        WaitForSingleObject(handles[i], INFINITE);
        CloseHandle(handles[i]);
#else
        pthread_join(handles[i], NULL);
#endif
    }
}

int tl_run_grid(tl_entry_fn entry, const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                int num_threads, int64_t *status) {
    if (gx < 0 || gy < 0 || gz < 0) {
        return TL_ERR_GRID;
    }
    if (num_threads < 1) {
        return TL_ERR_THREADS;
    }
    int64_t total = (int64_t)gx * gy * gz;
    if (total == 0) {
        return TL_OK;
    }
    int threads = num_threads > TL_MAX_THREADS ? TL_MAX_THREADS : num_threads;
    if (threads > total) {
        threads = (int)total;
    }
    if (threads == 1) {
        entry(args, gx, gy, gz, 0, total, status);
        return TL_OK;
    }
    grid_job job = {entry, args, gx, gy, gz, total, chunk_size(total, threads), 0, status};
    run_threads(&job, threads);
    return TL_OK;
}
