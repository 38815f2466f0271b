/* Threads, locks, condition variables (with timed waits), clocks and atomics for the CPU grid
 * runner (grid.c), on Windows (Win32 threads, SRW locks, Interlocked*) and elsewhere (pthreads,
 * the GCC/Clang __atomic builtins), plus the bounded spin-waits its pool uses before sleeping.
 */
#ifndef TILEC_SYNC_H
#define TILEC_SYNC_H

#if !defined(_WIN32) && !defined(__APPLE__)
#define _XOPEN_SOURCE 700 /* clock_gettime and CLOCK_MONOTONIC under -std=c11 */
#endif
#include <stdint.h>

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
static inline void mutex_init(tl_mutex *m) { InitializeSRWLock(m); }
static inline void lock(tl_mutex *m) { AcquireSRWLockExclusive(m); }
static inline int trylock(tl_mutex *m) { return TryAcquireSRWLockExclusive(m) != 0; }
static inline void unlock(tl_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline void cond_init(tl_cond *c) { InitializeConditionVariable(c); }
static inline void cond_wait(tl_cond *c, tl_mutex *m) {
    SleepConditionVariableSRW(c, m, INFINITE, 0);
}
/* Waits until signalled (or woken spuriously) or until ns have passed. */
static inline void cond_wait_ns(tl_cond *c, tl_mutex *m, int64_t ns) {
    SleepConditionVariableSRW(c, m, (DWORD)(ns / 1000000), 0);
}
static inline void cond_signal(tl_cond *c) { WakeConditionVariable(c); }
static inline void cond_broadcast(tl_cond *c) { WakeAllConditionVariable(c); }

static inline int thread_start(tl_thread *t, tl_thread_fn fn, void *arg) {
    *t = CreateThread(NULL, TL_STACK_SIZE, fn, arg, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
    return *t != NULL;
}
static inline void thread_join(tl_thread t) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
static inline void thread_detach(tl_thread t) { CloseHandle(t); }

static inline int64_t now_ns(void) {
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (freq.QuadPart == 0) {
        QueryPerformanceFrequency(&freq);
    }
    QueryPerformanceCounter(&t);
    return (int64_t)((double)t.QuadPart * 1e9 / (double)freq.QuadPart);
}
static inline int64_t coarse_ns(void) { return now_ns(); }
static inline void cpu_relax(void) { YieldProcessor(); }
static inline void thread_yield(void) { SwitchToThread(); }
static inline uint64_t load_u64(volatile uint64_t *x) {
    return (uint64_t)InterlockedCompareExchange64((volatile LONG64 *)x, 0, 0);
}
static inline void store_u64(volatile uint64_t *x, uint64_t v) {
    InterlockedExchange64((volatile LONG64 *)x, (LONG64)v);
}
static inline int load_int(volatile int *x) {
    return InterlockedCompareExchange((volatile LONG *)x, 0, 0);
}
static inline void store_int(volatile int *x, int v) { InterlockedExchange((volatile LONG *)x, v); }
#else
static inline void mutex_init(tl_mutex *m) { pthread_mutex_init(m, NULL); }
static inline void lock(tl_mutex *m) { pthread_mutex_lock(m); }
static inline int trylock(tl_mutex *m) { return pthread_mutex_trylock(m) == 0; }
static inline void unlock(tl_mutex *m) { pthread_mutex_unlock(m); }
static inline void cond_wait(tl_cond *c, tl_mutex *m) { pthread_cond_wait(c, m); }
static inline void cond_signal(tl_cond *c) { pthread_cond_signal(c); }
static inline void cond_broadcast(tl_cond *c) { pthread_cond_broadcast(c); }

static inline int thread_start(tl_thread *t, tl_thread_fn fn, void *arg) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, TL_STACK_SIZE);
    int ok = pthread_create(t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}
static inline void thread_join(tl_thread t) { pthread_join(t, NULL); }
static inline void thread_detach(tl_thread t) { pthread_detach(t); }

static inline int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
/* A clock for pacing work, cheaper to read than now_ns where the OS has one; it may advance
 * only every few milliseconds (Linux's tick). */
static inline int64_t coarse_ns(void) {
#if defined(__linux__) && defined(CLOCK_MONOTONIC_COARSE)
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &t) != 0) {
        return now_ns(); /* a kernel (or sandbox) without it */
    }
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
#else
    return now_ns();
#endif
}
#ifdef __APPLE__
static inline void cond_init(tl_cond *c) { pthread_cond_init(c, NULL); }
static inline void cond_wait_ns(tl_cond *c, tl_mutex *m, int64_t ns) {
    struct timespec rel = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    pthread_cond_timedwait_relative_np(c, m, &rel); /* a relative wait: no clock to choose */
}
#else
/* Timed waits count on the monotonic clock: a wall-clock step must not stretch them. */
static inline void cond_init(tl_cond *c) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(c, &attr);
    pthread_condattr_destroy(&attr);
}
/* Waits until signalled (or woken spuriously) or until ns have passed. */
static inline void cond_wait_ns(tl_cond *c, tl_mutex *m, int64_t ns) {
    int64_t deadline = now_ns() + ns;
    struct timespec at = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    pthread_cond_timedwait(c, m, &at);
}
#endif
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
static inline void thread_yield(void) { sched_yield(); }
static inline uint64_t load_u64(volatile uint64_t *x) {
    return __atomic_load_n(x, __ATOMIC_ACQUIRE);
}
static inline void store_u64(volatile uint64_t *x, uint64_t v) {
    __atomic_store_n(x, v, __ATOMIC_RELEASE);
}
static inline int load_int(volatile int *x) { return __atomic_load_n(x, __ATOMIC_ACQUIRE); }
static inline void store_int(volatile int *x, int v) { __atomic_store_n(x, v, __ATOMIC_RELEASE); }
#endif

/* Spins until *x != old (1) or until budget_ns have passed (0). A spinning thread yields now
 * and then: on a busy machine the thread it waits for may be queued on the same core. */
static inline int spin_while_u64(volatile uint64_t *x, uint64_t old, int64_t budget_ns) {
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
static inline int spin_until_int(volatile int *x, int goal, int64_t budget_ns) {
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

#endif
