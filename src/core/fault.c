/*
 * A bad pointer argument that the RMA, AMO and wait fast paths do not check
 * (a check would lengthen every call: bench/drivers/callgrind.sh) faults at its
 * first load or store. The SIGSEGV/SIGBUS handler installed at shmem_init
 * turns such a fault into the library's usual error: it walks the faulting
 * thread's frames, and when one of them is an OpenSHMEM routine of this
 * library, the job ends with a message naming the routine, the argument
 * that kind of routine takes the pointer in, and the address. Any other
 * fault (the program's own, or one in another library) goes to the handler
 * that was there before, or gets the default action: the same crash as
 * without Shoal.
 *
 * The handler formats and logs from signal context, which is not
 * async-signal-safe in general; it runs only on a fault inside an entry
 * point, where the thread holds no lock of malloc or stdio, and the
 * process ends right after.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "core/error.h"
#include "core/fault.h"
#include "core/trace.h"

static const int fault_signals[] = {SIGSEGV, SIGBUS};
#define NSIGNALS (sizeof(fault_signals) / sizeof(fault_signals[0]))

static struct sigaction previous[NSIGNALS];
static int installed;
static void *self_base; /* where this library is loaded */

/* The OpenSHMEM routine whose code `ip` is in, if it is one of this
 * library's: its spec name (the pshmem_ twin's name less the `p`). */
static const char *routine_at(void *ip)
{
    Dl_info info;
    if (dladdr(ip, &info) == 0 || info.dli_fbase != self_base || info.dli_sname == NULL)
        return NULL;
    const char *name = info.dli_sname;
    if (strncmp(name, "pshmem", 6) == 0)
        name++;
    return strncmp(name, "shmem_", 6) == 0 || strncmp(name, "shmemx_", 7) == 0 ? name : NULL;
}

#if defined(__x86_64__)
/* Where a PLT stub (or the function itself) at `t` jumps to: the stub's
 * GOT slot, which the call that led here has already resolved. */
static void *plt_target(const unsigned char *t)
{
    if (t[0] == 0xf3 && t[1] == 0x0f && t[2] == 0x1e && t[3] == 0xfa)
        t += 4; /* endbr64 */
    if (t[0] == 0xf2)
        t++;                            /* bnd */
    if (t[0] == 0xff && t[1] == 0x25) { /* jmp *rel32(%rip) */
        int32_t rel;
        memcpy(&rel, t + 2, sizeof(rel));
        void *const *slot = (void *const *)(t + 6 + rel);
        return *slot;
    }
    return (void *)t;
}

/* The function that the call instruction ending at return address `ret`
 * called, or NULL when the bytes before it are no direct or GOT call. An
 * entry point that ends in a tail call (shmem_putmem into memcpy) leaves no
 * frame of its own, but its caller's call instruction still names it. */
static void *called_from(void *ret)
{
    const unsigned char *r = ret;
    Dl_info info;
    if (dladdr(ret, &info) == 0)
        return NULL;
    int32_t rel;
    memcpy(&rel, r - 4, sizeof(rel));
    if (r[-5] == 0xe8) { /* call rel32 */
        const unsigned char *t = r + rel;
        return dladdr(t, &info) != 0 ? plt_target(t) : NULL;
    }
    if (r[-6] == 0xff && r[-5] == 0x15) /* call *rel32(%rip) */
        return *(void *const *)(r + rel);
    return NULL;
}

static void *fault_ip(const void *uctx)
{
    return (void *)((const ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
}
#else
static void *called_from(void *ret)
{
    (void)ret;
    return NULL;
}

static void *fault_ip(const void *uctx)
{
    (void)uctx;
    return NULL;
}
#endif

/* The OpenSHMEM routine of this library in whose call the fault happened:
 * the first frame from the faulting one outward that is in such a routine,
 * or whose call instruction called one. */
static const char *faulting_routine(const void *uctx)
{
    void *frames[64];
    const int n = backtrace(frames, 64);
    void *ip = fault_ip(uctx);
    int first = 0; /* the faulting frame, when it can be found */
    for (int i = 0; i < n; i++)
        if (frames[i] == ip) {
            first = i;
            break;
        }
    for (int i = first; i < n; i++) {
        const char *fn = routine_at(frames[i]);
        if (fn == NULL && ip != NULL && i > first) {
            void *callee = called_from(frames[i]);
            fn = callee != NULL ? routine_at(callee) : NULL;
        }
        if (fn != NULL)
            return fn;
    }
    return NULL;
}

/* Which argument of routine `fn` holds the local pointer that faulted. */
static const char *pointer_argument(const char *fn)
{
    const size_t len = strlen(fn);
    if (strstr(fn, "wait") != NULL || strstr(fn, "_test") != NULL)
        return "ivar";
    if (strstr(fn, "_nbi") != NULL && (strstr(fn, "fetch") != NULL || strstr(fn, "swap") != NULL))
        return "fetch";
    if (strstr(fn, "put") != NULL || (len > 2 && strcmp(fn + len - 2, "_p") == 0))
        return "source";
    if (strstr(fn, "get") != NULL || (len > 2 && strcmp(fn + len - 2, "_g") == 0))
        return "dest";
    return NULL;
}

static void restore(void)
{
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaction(fault_signals[i], &previous[i], NULL);
    installed = 0;
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
    if (si->si_code <= 0) {
        /* Sent (kill, raise), not a fault: delivered again to what was
         * there before, since nothing would repeat it. */
        restore();
        raise(sig);
        return;
    }
    const char *fn = faulting_routine(uctx);
    if (fn == NULL) {
        /* Not ours: the previous disposition takes the same fault again
         * when the faulting instruction restarts. */
        restore();
        return;
    }
    shoal_trace_flush_all(); /* the job ends: keep the trace so far */
    const uintptr_t addr = (uintptr_t)si->si_addr;
    const char *what = pointer_argument(fn);
    if (addr < 4096)
        shoal_fatal("%s: %s is NULL (the access at address %p faulted: %s); pass a pointer to "
                    "memory this PE can %s",
                    fn, what != NULL ? what : "a pointer argument", si->si_addr, strsignal(sig),
                    what != NULL && strcmp(what, "dest") == 0 ? "write" : "read and write");
    shoal_fatal("%s: %s points at memory this process cannot access (the access at address %p "
                "faulted: %s); pass valid pointers and handles (a handle that was destroyed or "
                "never made by the library faults the same way)",
                fn, what != NULL ? what : "a pointer or handle argument", si->si_addr,
                strsignal(sig));
}

void shoal_fault_install(void)
{
    if (installed)
        return;
    Dl_info info;
    if (dladdr((void *)shoal_fault_install, &info) == 0)
        return;
    self_base = info.dli_fbase;
    /* backtrace loads its unwinder on first use, which allocates: do that
     * here, not in the handler. */
    void *warm[2];
    backtrace(warm, 2);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaction(fault_signals[i], &sa, &previous[i]);
    installed = 1;
}

void shoal_fault_uninstall(void)
{
    if (!installed)
        return;
    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction now;
        if (sigaction(fault_signals[i], NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
            now.sa_sigaction == on_fault)
            sigaction(fault_signals[i], &previous[i], NULL);
    }
    installed = 0;
}
