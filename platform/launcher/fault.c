/* Traps hardware faults (bad memory access, illegal instruction, integer division) raised by
 * kernel code, so a wrong CPU kernel gives an error instead of ending the process.
 *
 * Each guarded call arms a per-thread jump buffer; a process-wide handler jumps back to it when
 * the fault happens on a thread whose buffer is armed, and passes every other fault on to the
 * handler installed before it (Python's faulthandler, the default action). POSIX: sigaction
 * with SA_ONSTACK and a per-thread alternate stack (a stack overflow faults too). Windows: a
 * vectored exception handler, which runs before any stack walk (JIT code has no unwind data),
 * and a setjmp that does not unwind.
 */
#if !defined(_WIN32) && !defined(__APPLE__)
#define _XOPEN_SOURCE 700 /* sigaction, sigaltstack and siginfo_t under -std=c11 */
#endif
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#ifndef _MSC_VER
#define __USE_MINGW_SETJMP_NON_SEH /* a plain register restore, no SEH unwinding */
#endif
#include <windows.h>
#endif
#include <setjmp.h>
#include <stdlib.h>

#include "tilec_launcher.h"

#ifdef _MSC_VER
#define THREAD_LOCAL __declspec(thread)
#else
#define THREAD_LOCAL _Thread_local
#endif

typedef struct {
#ifdef _WIN32
    jmp_buf jump;
#else
    sigjmp_buf jump;
#endif
    int kind;
    uintptr_t address;
} trap;

/* The armed buffer of this thread, NULL while no kernel code runs on it. */
static THREAD_LOCAL trap *volatile armed;

#ifdef _WIN32

#define SET_JUMP(t) setjmp((t)->jump)
#ifdef _MSC_VER
/* MSVC's longjmp unwinds through SEH frames (JIT code has no unwind data) unless Frame is 0. */
#define NO_UNWIND(t) (((_JUMP_BUFFER *)(t)->jump)->Frame = 0)
#else
#define NO_UNWIND(t) ((void)0)
#endif

static int is_fault(DWORD code) {
    switch (code) {
    case EXCEPTION_ACCESS_VIOLATION:
    case EXCEPTION_IN_PAGE_ERROR:
    case EXCEPTION_DATATYPE_MISALIGNMENT:
    case EXCEPTION_ARRAY_BOUNDS_EXCEEDED:
    case EXCEPTION_ILLEGAL_INSTRUCTION:
    case EXCEPTION_PRIV_INSTRUCTION:
    case EXCEPTION_INT_DIVIDE_BY_ZERO:
    case EXCEPTION_INT_OVERFLOW:
        return 1;
    default:
        return 0;
    }
}

static LONG WINAPI on_exception(EXCEPTION_POINTERS *info) {
    trap *t = armed;
    EXCEPTION_RECORD *record = info->ExceptionRecord;
    if (t == NULL || !is_fault(record->ExceptionCode)) {
        return EXCEPTION_CONTINUE_SEARCH;
    }
    armed = NULL;
    DWORD code = record->ExceptionCode;
    t->kind = code == EXCEPTION_ACCESS_VIOLATION || code == EXCEPTION_IN_PAGE_ERROR
                  ? TL_FAULT_MEMORY
                  : code == EXCEPTION_INT_DIVIDE_BY_ZERO || code == EXCEPTION_INT_OVERFLOW
                        ? TL_FAULT_ARITHMETIC
                        : TL_FAULT_INSTRUCTION;
    t->address = record->NumberParameters >= 2 ? (uintptr_t)record->ExceptionInformation[1]
                                                : TL_FAULT_ADDRESS_UNKNOWN;
    longjmp(t->jump, 1);
}

static volatile LONG installed;

static void thread_prepare(void) {
    if (!installed && InterlockedCompareExchange(&installed, 1, 0) == 0) {
        AddVectoredExceptionHandler(1, on_exception);
    }
}

static void after_fault(void) {}

#else /* POSIX */

#include <pthread.h>
#include <signal.h>

#define SET_JUMP(t) sigsetjmp((t)->jump, 0) /* no mask saved: no system call per launch */
#define NO_UNWIND(t) ((void)0)
#define ALT_STACK_SIZE ((size_t)64 << 10)

static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
#define NSIGNALS (sizeof signals / sizeof signals[0])
static struct sigaction previous[NSIGNALS];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static pthread_key_t stack_key;

static void pass_on(int sig, siginfo_t *info, void *context) {
    for (size_t i = 0; i < NSIGNALS; i++) {
        if (signals[i] != sig) {
            continue;
        }
        struct sigaction *p = &previous[i];
        if (p->sa_flags & SA_SIGINFO) {
            p->sa_sigaction(sig, info, context);
        } else if (p->sa_handler == SIG_DFL || p->sa_handler == SIG_IGN) {
            /* The faulting instruction runs again and takes the default action. */
            signal(sig, SIG_DFL);
        } else {
            p->sa_handler(sig);
        }
    }
}

static void on_signal(int sig, siginfo_t *info, void *context) {
    trap *t = armed;
    if (t == NULL) {
        pass_on(sig, info, context);
        return;
    }
    armed = NULL;
    t->kind = sig == SIGFPE ? TL_FAULT_ARITHMETIC : sig == SIGILL ? TL_FAULT_INSTRUCTION
                                                                  : TL_FAULT_MEMORY;
    /* si_addr is the faulting address only for a fault the hardware raised (si_code > 0); a
     * handler installed after this one (faulthandler) passes a fault on with raise(), and then
     * it holds the sender's pid. */
    t->address = info->si_code > 0 ? (uintptr_t)info->si_addr : TL_FAULT_ADDRESS_UNKNOWN;
    siglongjmp(t->jump, 1);
}

static void free_stack(void *memory) {
    stack_t off = {0};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    free(memory);
}

static void install(void) {
    struct sigaction sa = {0};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++) {
        sigaction(signals[i], &sa, &previous[i]);
    }
    pthread_key_create(&stack_key, free_stack);
}

static THREAD_LOCAL int prepared;

/* The handler must not run on the stack a kernel may have overflowed: give this thread an
 * alternate one unless it has one (faulthandler sets one up on the threads it watches). */
static void thread_prepare(void) {
    if (prepared) {
        return;
    }
    pthread_once(&install_once, install);
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t fresh = {0};
        fresh.ss_sp = malloc(ALT_STACK_SIZE);
        fresh.ss_size = ALT_STACK_SIZE;
        if (fresh.ss_sp != NULL && sigaltstack(&fresh, NULL) == 0) {
            pthread_setspecific(stack_key, fresh.ss_sp); /* freed when the thread ends */
        } else {
            free(fresh.ss_sp);
        }
    }
    prepared = 1;
}

/* The handler ran with its signal blocked and jumped out without restoring the mask. */
static void after_fault(void) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NSIGNALS; i++) {
        sigaddset(&set, signals[i]);
    }
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

#endif

int tl_guarded_call(tl_entry_fn entry, const uint64_t *args, int32_t gx, int32_t gy, int32_t gz,
                    int64_t begin, int64_t end, int64_t *status, tl_fault *fault) {
    trap t;
    thread_prepare();
    if (SET_JUMP(&t)) {
        after_fault();
        fault->kind = t.kind;
        fault->address = t.address;
        fault->begin = begin;
        fault->end = end;
        return 1;
    }
    NO_UNWIND(&t);
    armed = &t;
    entry(args, gx, gy, gz, begin, end, status);
    armed = NULL;
    return 0;
}
