/* CPU grid runner: spreads a kernel's linear program range over native threads.
 *
 * Each thread runs its own contiguous share of the programs in chunks, then takes chunks from
 * the others' shares, so uneven programs still balance. The threads come from a persistent
 * pool, so a launch costs a wake-up rather than a thread creation; a launch that finds the pool
 * busy (another thread is running a grid) starts threads of its own. Waits spin briefly before
 * they sleep: waking a sleeping thread costs tens of microseconds (more on virtual machines), a
 * large part of a millisecond-long grid, and launches usually come back to back. The portable
 * primitives are in sync.h.
 *
 * A grid must stop soon when told to (Ctrl-C, a fault, a failed assert): threads look at the
 * stop flags between chunks, so chunks are sized by time, not only by count, and the
 * launching thread polls its caller (Python's signal handlers) every TL_POLL_NS.
 */
#include "sync.h" /* first: it sets _XOPEN_SOURCE before any system header */

#include <stdlib.h>

#include "tilec_launcher.h"

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
    volatile int cancelled;   /* set by the launching thread when its poll asked to stop */
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

static int stopping(grid_job *job) {
    return assert_failed(job->status) || job->faulted || load_int(&job->cancelled);
}

/* How long a claim of programs should run: a thread looks at the stop flags this often. */
#define TL_CHUNK_NS 1000000
/* Most claims between two clock reads. */
#define TL_MAX_EVERY 16

/* A thread's pacing: how many programs it claims at a time and how many claims go between
 * two reads of the clock. Both start at one and double while the clock says the work between
 * reads is short (the claim size first, up to the grid's chunk); a claim that ran long cuts the
 * size in proportion, so a grid of long programs still stops within about TL_CHUNK_NS. Reading
 * the clock costs more than a short program on some machines, hence the reads are spaced out
 * too: a short grid reads it a few times per thread. */
typedef struct {
    int64_t size, every, left, last;
} pace;

static void pace_start(pace *p) {
    p->size = p->every = p->left = 1;
    p->last = coarse_ns();
}

/* After `every` claims: adjusts the pacing to the time they took (now - last). */
static void pace_after(pace *p, int64_t most, int64_t now) {
    int64_t elapsed = now - p->last, per_claim = elapsed / p->every;
    p->last = now;
    if (per_claim > TL_CHUNK_NS) {
        int64_t cut = (int64_t)((double)p->size * TL_CHUNK_NS / (double)per_claim);
        p->size = cut < 1 ? 1 : cut;
        p->every = 1;
    } else if (elapsed > TL_CHUNK_NS) {
        p->every = p->every / 2 < 1 ? 1 : p->every / 2;
    } else if (elapsed < TL_CHUNK_NS / 2) {
        if (p->size < most) {
            p->size = p->size * 2 < most ? p->size * 2 : most;
        } else if (p->every < TL_MAX_EVERY) {
            p->every *= 2;
        }
    }
    p->left = p->every;
}

/* Runs chunks of the thread's own share, then of the others' (stops early on a failed assert,
 * a fault or an interrupt). The launching thread passes its poll, the others NULL; a worker
 * whose claims are single programs anyway never reads the clock. */
static void work(grid_job *job, const tl_poll *poll) {
    int home = arrive(job) % job->n_shares;
    int paced = job->chunk > 1 || poll != NULL;
    pace pc;
    pace_start(&pc);
    int64_t polled = pc.last;
    for (int s = 0; s < job->n_shares; s++) {
        grid_share *share = &job->shares[(home + s) % job->n_shares];
        for (;;) {
            int64_t begin = claim(share, pc.size);
            if (begin >= share->end) {
                break;
            }
            if (stopping(job)) {
                return;
            }
            int64_t end = begin + pc.size < share->end ? begin + pc.size : share->end;
            tl_fault fault;
            if (tl_guarded_call(job->entry, job->args, job->gx, job->gy, job->gz, begin, end,
                                job->status, &fault)) {
                if (first_fault(job)) {
                    job->fault = fault; /* read by the caller after every thread is done */
                }
                return;
            }
            if (!paced || --pc.left > 0) {
                continue;
            }
            int64_t now = coarse_ns();
            pace_after(&pc, job->chunk, now);
            if (poll != NULL && now - polled >= TL_POLL_NS) {
                if (poll->fn(poll->ctx)) {
                    store_int(&job->cancelled, 1);
                    return;
                }
                pc.last = polled = coarse_ns(); /* the poll's own time is no claim's */
            }
        }
    }
}

THREAD_FN(spawned_main) {
    work((grid_job *)arg, NULL);
    THREAD_RETURN;
}

/* Threads of this run's own, for when the pool is busy. */
static void run_spawned(grid_job *job, int threads, const tl_poll *poll) {
    tl_thread handles[TL_MAX_THREADS];
    int started = 0;
    /* A thread that fails to start is not fatal: the others (and this one) take its chunks. */
    for (int i = 1; i < threads; i++) {
        started += thread_start(&handles[started], spawned_main, job);
    }
    work(job, poll);
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
            work(job, NULL);
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

/* Waits for the pool's workers to finish their last chunks, polling while it sleeps: a worker
 * may still be in a long program, and the signal should be seen when it comes. */
static void wait_workers(pool *p, grid_job *job, int wanted, const tl_poll *poll) {
    if (spin_until_int(&p->finished, wanted, TL_CALLER_SPIN_NS)) {
        return;
    }
    lock(&p->lock);
    while (p->finished < wanted) {
        if (poll == NULL || load_int(&job->cancelled)) {
            cond_wait(&p->done, &p->lock);
            continue;
        }
        cond_wait_ns(&p->done, &p->lock, TL_POLL_NS);
        if (p->finished < wanted) {
            unlock(&p->lock); /* the poll may block on the GIL: never with the pool locked */
            if (poll->fn(poll->ctx)) {
                store_int(&job->cancelled, 1);
            }
            lock(&p->lock);
        }
    }
    unlock(&p->lock);
}

/* Runs job on the pool's workers plus this thread; 0 when the pool is busy or unavailable. */
static int run_pooled(grid_job *job, int threads, const tl_poll *poll) {
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
    work(job, poll);
    wait_workers(p, job, wanted, poll);
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
                int num_threads, int64_t *status, tl_fault *fault, const tl_poll *poll) {
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
    if (total == 1 || (threads == 1 && poll == NULL)) { /* nothing to stop between */
        return tl_guarded_call(entry, args, gx, gy, gz, 0, total, status, fault) ? TL_ERR_FAULT
                                                                                 : TL_OK;
    }
    grid_job job;
    job.entry = entry;
    job.args = args;
    job.gx = gx;
    job.gy = gy;
    job.gz = gz;
    /* one thread needs no balancing: its claims grow as long as pacing allows */
    job.chunk = threads == 1 ? total : chunk_size(total, threads);
    job.arrivals = 0;
    job.status = status;
    job.faulted = 0;
    job.cancelled = 0;
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
    if (threads == 1) {
        work(&job, poll); /* in chunks, to poll between them */
    } else if (!run_pooled(&job, threads, poll)) {
        run_spawned(&job, threads, poll);
    }
    if (job.shares != job.inline_shares) {
        free(job.shares);
    }
    if (job.cancelled) {
        return TL_ERR_INTERRUPTED;
    }
    if (job.faulted) {
        *fault = job.fault;
        return TL_ERR_FAULT;
    }
    return TL_OK;
}
