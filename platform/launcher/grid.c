/* CPU grid runner: spreads a kernel's linear program range over native threads.
 *
 * Programs are handed out in chunks from one shared atomic counter (dynamic chunking), so
 * uneven programs still balance. The threads come from a persistent pool, so a launch costs a
 * wake-up rather than a thread creation; a launch that finds the pool busy (another thread is
 * running a grid) starts threads of its own. Waits spin briefly before they sleep: waking a
 * sleeping thread costs tens of microseconds (more on virtual machines), a large part of a
 * millisecond-long grid, and launches usually come back to back. Win32 threads, SRW locks and
 * Interlocked* on Windows; pthreads and the GCC/Clang __atomic builtins elsewhere.
 */
#if !defined(_WIN32) && !defined(__APPLE__)
#define _XOPEN_SOURCE 700 /* clock_gettime and CLOCK_MONOTONIC under -std=c11 */
#endif
#include <stdlib.h>

#include "tilec_launcher.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
typedef SRWLOCK tl_mutex;
typedef CONDITION_VARIABLE tl_cond;
typedef HANDLE tl_thread;
typedef LPTHREAD_START_ROUTINE tl_thread_fn;
#define THREAD_FN(name) static DWORD WINAPI name(LPVOID arg)
#define THREAD_RETURN return 0
#else
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
typedef pthread_mutex_t tl_mutex;
typedef pthread_cond_t tl_cond;
typedef pthread_t tl_thread;
typedef void *(*tl_thread_fn)(void *);
#define THREAD_FN(name) static void *name(void *arg)
#define THREAD_RETURN return NULL
#endif

/* Kernels keep tiles on the stack; macOS gives secondary threads only 512 KiB by default. */
#define TL_STACK_SIZE ((size_t)8 << 20)

/* How long an idle worker watches for the next grid, and how long a launching thread watches
 * for its workers to finish, before sleeping on a condition variable (nanoseconds). */
#define TL_WORKER_SPIN_NS 300000
#define TL_CALLER_SPIN_NS 1000000

#ifdef _WIN32
static void mutex_init(tl_mutex *m) { InitializeSRWLock(m); }
static void lock(tl_mutex *m) { AcquireSRWLockExclusive(m); }
static int trylock(tl_mutex *m) { return TryAcquireSRWLockExclusive(m) != 0; }
static void unlock(tl_mutex *m) { ReleaseSRWLockExclusive(m); }
static void cond_init(tl_cond *c) { InitializeConditionVariable(c); }
static void cond_wait(tl_cond *c, tl_mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static void cond_signal(tl_cond *c) { WakeConditionVariable(c); }
static void cond_broadcast(tl_cond *c) { WakeAllConditionVariable(c); }

static int thread_start(tl_thread *t, tl_thread_fn fn, void *arg) {
    *t = CreateThread(NULL, TL_STACK_SIZE, fn, arg, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
    return *t != NULL;
}
static void thread_join(tl_thread t) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
static void thread_detach(tl_thread t) { CloseHandle(t); }

static int64_t now_ns(void) {
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (freq.QuadPart == 0) {
        QueryPerformanceFrequency(&freq);
    }
    QueryPerformanceCounter(&t);
    return (int64_t)((double)t.QuadPart * 1e9 / (double)freq.QuadPart);
}
static void cpu_relax(void) { YieldProcessor(); }
static void thread_yield(void) { SwitchToThread(); }
static uint64_t load_u64(volatile uint64_t *x) {
    return (uint64_t)InterlockedCompareExchange64((volatile LONG64 *)x, 0, 0);
}
static void store_u64(volatile uint64_t *x, uint64_t v) {
    InterlockedExchange64((volatile LONG64 *)x, (LONG64)v);
}
static int load_int(volatile int *x) { return InterlockedCompareExchange((volatile LONG *)x, 0, 0); }
static void store_int(volatile int *x, int v) { InterlockedExchange((volatile LONG *)x, v); }
#else
static void mutex_init(tl_mutex *m) { pthread_mutex_init(m, NULL); }
static void lock(tl_mutex *m) { pthread_mutex_lock(m); }
static int trylock(tl_mutex *m) { return pthread_mutex_trylock(m) == 0; }
static void unlock(tl_mutex *m) { pthread_mutex_unlock(m); }
static void cond_init(tl_cond *c) { pthread_cond_init(c, NULL); }
static void cond_wait(tl_cond *c, tl_mutex *m) { pthread_cond_wait(c, m); }
static void cond_signal(tl_cond *c) { pthread_cond_signal(c); }
static void cond_broadcast(tl_cond *c) { pthread_cond_broadcast(c); }

static int thread_start(tl_thread *t, tl_thread_fn fn, void *arg) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, TL_STACK_SIZE);
    int ok = pthread_create(t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}
static void thread_join(tl_thread t) { pthread_join(t, NULL); }
static void thread_detach(tl_thread t) { pthread_detach(t); }

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
static void thread_yield(void) { sched_yield(); }
static uint64_t load_u64(volatile uint64_t *x) { return __atomic_load_n(x, __ATOMIC_ACQUIRE); }
static void store_u64(volatile uint64_t *x, uint64_t v) { __atomic_store_n(x, v, __ATOMIC_RELEASE); }
static int load_int(volatile int *x) { return __atomic_load_n(x, __ATOMIC_ACQUIRE); }
static void store_int(volatile int *x, int v) { __atomic_store_n(x, v, __ATOMIC_RELEASE); }
#endif

/* Spins until *x != old (1) or until budget_ns have passed (0). A spinning thread yields now
 * and then: on a busy machine the thread it waits for may be queued on the same core. */
static int spin_while_u64(volatile uint64_t *x, uint64_t old, int64_t budget_ns) {
    int64_t deadline = now_ns() + budget_ns;
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (load_u64(x) != old) {
                return 1;
            }
            cpu_relax();
        }
        if (now_ns() > deadline) {
            return 0;
        }
        thread_yield();
    }
}

/* Spins until *x >= goal (1) or until budget_ns have passed (0); yields like the above. */
static int spin_until_int(volatile int *x, int goal, int64_t budget_ns) {
    int64_t deadline = now_ns() + budget_ns;
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (load_int(x) >= goal) {
                return 1;
            }
            cpu_relax();
        }
        if (now_ns() > deadline) {
            return 0;
        }
        thread_yield();
    }
}

/* ---- one grid run ------------------------------------------------------------------------ */

/* One thread's share of a grid: a contiguous run of program ids, handed out in chunks from the
 * front, first to the thread it belongs to, then to threads that have finished their own. A
 * thread then walks one contiguous range (one stream for the hardware prefetchers, neighbouring
 * programs' data in its own cache) instead of chunks dealt out in turn from one counter. */
typedef struct {
    volatile int64_t next; /* first program id of the share not yet handed out */
    int64_t end;
    char pad[64 - 2 * sizeof(int64_t)]; /* one cache line each */
} grid_share;

/* Shares kept inside the job; more threads than this allocate theirs. */
#define TL_INLINE_SHARES 64

typedef struct {
    tl_entry_fn entry;
    const uint64_t *args;
    int32_t gx, gy, gz;
    int64_t chunk;
    int n_shares;
    grid_share *shares;
    volatile int32_t arrivals; /* the n-th thread to start working takes share n first */
    int64_t *status;
    volatile int32_t faulted; /* set once, by the first call that faulted */
    tl_fault fault;
    grid_share inline_shares[TL_INLINE_SHARES];
} grid_job;

static int64_t claim(grid_share *share, int64_t chunk) {
#ifdef _WIN32
    return InterlockedExchangeAdd64((volatile LONG64 *)&share->next, chunk);
#else
    return __atomic_fetch_add(&share->next, chunk, __ATOMIC_RELAXED);
#endif
}

static int arrive(grid_job *job) {
#ifdef _WIN32
    return (int)InterlockedExchangeAdd((volatile LONG *)&job->arrivals, 1);
#else
    return __atomic_fetch_add(&job->arrivals, 1, __ATOMIC_RELAXED);
#endif
}

static int64_t assert_failed(const int64_t *status) {
#ifdef _WIN32
    return InterlockedCompareExchange64((volatile LONG64 *)status, 0, 0);
#else
    return __atomic_load_n(status, __ATOMIC_RELAXED);
#endif
}

static int first_fault(grid_job *job) {
#ifdef _WIN32
    return InterlockedCompareExchange((volatile LONG *)&job->faulted, 1, 0) == 0;
#else
    int32_t expected = 0;
    return __atomic_compare_exchange_n(&job->faulted, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
#endif
}

/* Runs chunks of the thread's own share, then of the others' (stops early on a failed assert
 * or a fault). */
static void work(grid_job *job) {
    int home = arrive(job) % job->n_shares;
    for (int s = 0; s < job->n_shares; s++) {
        grid_share *share = &job->shares[(home + s) % job->n_shares];
        for (;;) {
            int64_t begin = claim(share, job->chunk);
            if (begin >= share->end) {
                break;
            }
            if (assert_failed(job->status) || job->faulted) {
                return;
            }
            int64_t end = begin + job->chunk < share->end ? begin + job->chunk : share->end;
            tl_fault fault;
            if (tl_guarded_call(job->entry, job->args, job->gx, job->gy, job->gz, begin, end,
                                job->status, &fault)) {
                if (first_fault(job)) {
                    job->fault = fault; /* read by the caller after every thread is done */
                }
                return;
            }
        }
    }
}

THREAD_FN(spawned_main) {
    work((grid_job *)arg);
    THREAD_RETURN;
}

/* Threads of this run's own, for when the pool is busy. */
static void run_spawned(grid_job *job, int threads) {
    tl_thread handles[TL_MAX_THREADS];
    int started = 0;
    /* A thread that fails to start is not fatal: the others (and this one) take its chunks. */
    for (int i = 1; i < threads; i++) {
        started += thread_start(&handles[started], spawned_main, job);
    }
    work(job);
    for (int i = 0; i < started; i++) {
        thread_join(handles[i]);
    }
}

/* ---- the persistent pool ----------------------------------------------------------------- */

typedef struct {
    tl_mutex run;         /* held for a whole grid run: one job at a time */
    tl_mutex lock;        /* guards the fields below */
    tl_cond wake, done;
    int workers;          /* threads started so far */
    volatile uint64_t generation; /* bumped once per job (read unlocked while spinning) */
    int wanted;           /* workers with index < wanted take part in the current job */
    volatile int finished; /* (read unlocked while the caller spins) */
    grid_job *job;
#ifndef _WIN32
    pid_t owner;          /* a forked child has none of the parent's threads */
#endif
} pool;

typedef struct {
    pool *p;
    int index;
    uint64_t seen; /* the generation current when the worker was started */
} worker_arg;

static pool *volatile current_pool;

THREAD_FN(pool_main) {
    worker_arg w = *(worker_arg *)arg;
    free(arg);
    pool *p = w.p;
    int took_part = 1;
    for (;;) {
        /* Watch for the next job a while (only a worker the last job used: the pool may hold
         * more workers than today's grids want), then sleep until one comes. Job, wanted and
         * generation are read together under the lock: a worker that was not wanted may see a
         * later generation than the one that woke it, and must then read that job's fields. */
        if (took_part) {
            spin_while_u64(&p->generation, w.seen, TL_WORKER_SPIN_NS);
        }
        lock(&p->lock);
        while (p->generation == w.seen) {
            cond_wait(&p->wake, &p->lock);
        }
        w.seen = p->generation;
        int take = w.index < p->wanted;
        grid_job *job = p->job;
        unlock(&p->lock);
        took_part = take;
        if (take) {
            work(job);
            lock(&p->lock);
            store_int(&p->finished, p->finished + 1);
            if (p->finished == p->wanted) {
                cond_signal(&p->done);
            }
            unlock(&p->lock);
        }
    }
    THREAD_RETURN; /* not reached: workers live as long as the process */
}

static pool *load_pool(void) {
#ifdef _WIN32
    return (pool *)InterlockedCompareExchangePointer((PVOID volatile *)&current_pool, NULL, NULL);
#else
    return __atomic_load_n(&current_pool, __ATOMIC_ACQUIRE);
#endif
}

static pool *get_pool(void) {
    pool *p = load_pool();
#ifdef _WIN32
    if (p != NULL) {
        return p;
    }
#else
    if (p != NULL && p->owner == getpid()) {
        return p;
    }
#endif
    /* First use, or first use in a forked child (the parent's pool is abandoned there). */
    pool *fresh = (pool *)calloc(1, sizeof *fresh);
    if (fresh == NULL) {
        return NULL;
    }
    mutex_init(&fresh->run);
    mutex_init(&fresh->lock);
    cond_init(&fresh->wake);
    cond_init(&fresh->done);
#ifdef _WIN32
    if (InterlockedCompareExchangePointer((PVOID volatile *)&current_pool, fresh, p) == p) {
        return fresh;
    }
#else
    fresh->owner = getpid();
    if (__atomic_compare_exchange_n(&current_pool, &p, fresh, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        return fresh;
    }
#endif
    free(fresh); /* another thread installed one first (it was never shared, so this is safe) */
    return load_pool();
}

/* Starts workers until `want` exist (or starting one fails); returns how many exist. */
static int grow(pool *p, int want) {
    while (p->workers < want) {
        worker_arg *arg = (worker_arg *)malloc(sizeof *arg);
        tl_thread t;
        if (arg == NULL) {
            break;
        }
        arg->p = p;
        arg->index = p->workers;
        arg->seen = p->generation;
        if (!thread_start(&t, pool_main, arg)) {
            free(arg);
            break;
        }
        thread_detach(t);
        p->workers++;
    }
    return p->workers < want ? p->workers : want;
}

/* Runs job on the pool's workers plus this thread; 0 when the pool is busy or unavailable. */
static int run_pooled(grid_job *job, int threads) {
    pool *p = get_pool();
    if (p == NULL || !trylock(&p->run)) {
        return 0;
    }
    lock(&p->lock);
    p->wanted = grow(p, threads - 1);
    int wanted = p->wanted;
    p->job = job;
    store_int(&p->finished, 0);
    store_u64(&p->generation, p->generation + 1);
    cond_broadcast(&p->wake);
    unlock(&p->lock);
    work(job);
    if (!spin_until_int(&p->finished, wanted, TL_CALLER_SPIN_NS)) {
        lock(&p->lock);
        while (p->finished < p->wanted) {
            cond_wait(&p->done, &p->lock);
        }
        unlock(&p->lock);
    }
    unlock(&p->run);
    return 1;
}

/* Chunks small enough that each share splits into many: when one thread is slowed (a core
 * shared with another process), the others finish at most a chunk apart, 1/32 of a share; large
 * enough that the shares' counters are touched rarely (a chunk of a 64-program grid is one
 * ~40-microsecond program, so its claim is noise). */
static int64_t chunk_size(int64_t total, int threads) {
    int64_t chunk = total / ((int64_t)threads * 32);
    if (chunk < 1) {
        chunk = 1;
    }
    return chunk > 4096 ? 4096 : chunk;
}

/* Share i gets programs [total*i/n, total*(i+1)/n), without overflowing for any int64 total. */
static void split(grid_job *job, int64_t total) {
    int64_t n = job->n_shares, base = total / n, extra = total % n;
    int64_t begin = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t size = base + (i < extra ? 1 : 0);
        job->shares[i].next = begin;
        job->shares[i].end = begin + size;
        begin += size;
    }
}

int tl_run_grid(tl_entry_fn entry, const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                int num_threads, int64_t *status, tl_fault *fault) {
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
        return tl_guarded_call(entry, args, gx, gy, gz, 0, total, status, fault) ? TL_ERR_FAULT
                                                                                 : TL_OK;
    }
    grid_job job;
    job.entry = entry;
    job.args = args;
    job.gx = gx;
    job.gy = gy;
    job.gz = gz;
    job.chunk = chunk_size(total, threads);
    job.arrivals = 0;
    job.status = status;
    job.faulted = 0;
    job.shares = job.inline_shares;
    job.n_shares = threads <= TL_INLINE_SHARES ? threads : 1;
    if (threads > TL_INLINE_SHARES) {
        grid_share *many = (grid_share *)malloc(sizeof(grid_share) * (size_t)threads);
        if (many != NULL) { /* else one shared range: still correct, just less local */
            job.shares = many;
            job.n_shares = threads;
        }
    }
    split(&job, total);
    if (!run_pooled(&job, threads)) {
        run_spawned(&job, threads);
    }
    if (job.shares != job.inline_shares) {
        free(job.shares);
    }
    if (job.faulted) {
        *fault = job.fault;
        return TL_ERR_FAULT;
    }
    return TL_OK;
}
