/*
 * Sharing registered buffers' pages with the PEs of this host (see
 * register.h for which memory and the rule on other threads).
 *
 * One memfd per process backs every registered page, at the file offset
 * equal to the page's address (the file is sparse: only registered pages
 * take memory). So two buffers that share a page share it in the file too,
 * and a buffer's bytes are one contiguous file range that a peer maps with
 * one mmap at the offset of the buffer's first page (transport/shm/shm.c
 * tells such a memfd from a segment by its size: it is longer than the
 * buffer's address). A page stays on the memfd while any registration
 * covers it; the last one to go moves it back to private memory.
 *
 * The kind of memory is read from /proc/self/maps: every mapping covering
 * the buffer's pages must be private, anonymous and writable, or this
 * file's own memfd for pages another registration holds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem/share_pages.h"
#include "util/log.h"

#define REG_MEMFD_NAME "shoal-registered"

/* The memfd and the page ranges of the live registrations (which may
 * overlap). Callers serialize (core holds shoal.lock). */
static struct {
    int fd;       /* -1 while nothing is registered */
    uint64_t len; /* the file's size */
    struct range {
        uintptr_t lo, hi;
    } * live;
    size_t nlive, cap;
} reg_mem = {.fd = -1};

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* Whether a live registration other than live[skip] covers page `pg`. */
static int page_held(uintptr_t pg, size_t skip)
{
    for (size_t i = 0; i < reg_mem.nlive; i++)
        if (i != skip && reg_mem.live[i].lo <= pg && pg < reg_mem.live[i].hi)
            return 1;
    return 0;
}

/* Copies word by word. Not instrumented: under AddressSanitizer the bytes
 * around a malloc'd buffer are poisoned redzones, and the copy must move
 * them too; volatile keeps the compiler from making it a memcpy call. */
__attribute__((no_sanitize("address", "thread"))) static void
copy_words(volatile uint64_t *dst, const volatile uint64_t *src, size_t len)
{
    for (size_t w = 0; w < len / sizeof(uint64_t); w++)
        dst[w] = src[w];
}

/* Copies the pages [a, a + len) into tmp. The first and last pages may
 * hold other data (malloc's own, and Shoal's threads' when they share the
 * brk heap): they are copied last, right before the caller's move, to keep
 * the window for a lost write short. */
static void copy_pages(char *tmp, const char *a, size_t len)
{
    const size_t page = page_size();
    if (len > 2 * page)
        copy_words((uint64_t *)(tmp + page), (const uint64_t *)(a + page), len - 2 * page);
    copy_words((uint64_t *)tmp, (const uint64_t *)a, page);
    if (len > page)
        copy_words((uint64_t *)(tmp + len - page), (const uint64_t *)(a + len - page), page);
}

/* The kind of one line of /proc/self/maps, in words for a refusal, or NULL
 * when it is private anonymous writable memory. */
static const char *mapping_kind(const char *perms, unsigned long long inode, const char *path)
{
    if (strcmp(path, "[stack]") == 0)
        return "the stack (a local variable)";
    if (perms[3] == 's' && strncmp(path, "/memfd:shoal", 12) == 0)
        return "Shoal's symmetric memory, or a peer's mapped here";
    if (perms[3] == 's')
        return "a shared mapping (shared memory or MAP_SHARED file)";
    if (inode != 0 || (path[0] == '/' && strncmp(path, "/memfd:", 7) != 0))
        return "a file-backed mapping (mmap of a file)";
    if (path[0] == '[' && strcmp(path, "[heap]") != 0 && strncmp(path, "[anon:", 6) != 0)
        return "a special kernel mapping";
    if (perms[0] != 'r' || perms[1] != 'w')
        return "not readable and writable";
    return NULL;
}

/* Whether every page of [a, b) is held by a live registration. */
static int range_held(uintptr_t a, uintptr_t b)
{
    const size_t page = page_size();
    for (uintptr_t pg = a; pg < b; pg += page)
        if (!page_held(pg, SIZE_MAX))
            return 0;
    return 1;
}

shoal_status_t shoal_reg_pages_check(const void *ptr, size_t size, char *why, size_t whylen)
{
    const size_t page = page_size();
    const uintptr_t lo = (uintptr_t)ptr & ~(uintptr_t)(page - 1);
    const uintptr_t hi = ((uintptr_t)ptr + size + page - 1) & ~(uintptr_t)(page - 1);
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) {
        snprintf(why, whylen, "/proc/self/maps cannot be read (%s)", strerror(errno));
        return SHOAL_ERR_SYSTEM;
    }
    char line[4096];
    uintptr_t covered = lo; /* [lo, covered) is known to be fine */
    const char *bad = NULL;
    while (covered < hi && bad == NULL && fgets(line, sizeof(line), maps) != NULL) {
        unsigned long long start, end, off, inode;
        char perms[8] = "", dev[32] = "", path[4096] = "";
        int n = sscanf(line, "%llx-%llx %7s %llx %31s %llu %4095[^\n]", &start, &end, perms, &off,
                       dev, &inode, path);
        if (n < 6 || end <= covered)
            continue;
        if (start > covered)
            break; /* a hole */
        const char *p = path;
        while (*p == ' ')
            p++;
        const uintptr_t upto = (uintptr_t)end < hi ? (uintptr_t)end : hi;
        /* Pages another registration moved onto this file's memfd. */
        const int ours = perms[3] == 's' && strncmp(p, "/memfd:" REG_MEMFD_NAME, 23) == 0 &&
                         range_held(covered, upto);
        if (!ours)
            bad = mapping_kind(perms, inode, p);
        covered = (uintptr_t)end;
    }
    fclose(maps);
    if (bad != NULL) {
        snprintf(why, whylen, "its memory is %s", bad);
        return SHOAL_ERR_UNSUPPORTED;
    }
    if (covered < hi) {
        snprintf(why, whylen, "its memory is not mapped (freed or never allocated)");
        return SHOAL_ERR_INVALID;
    }
    return SHOAL_OK;
}

/* Moves the pages [a, b), which no registration holds, onto the memfd. */
static shoal_status_t share_run(const char *fn, uintptr_t a, uintptr_t b)
{
    const size_t len = b - a;
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, reg_mem.fd, (off_t)a);
    if (tmp == MAP_FAILED) {
        SHOAL_ERROR("%s: mapping %zu bytes of the registration memfd failed: %m", fn, len);
        return SHOAL_ERR_SYSTEM;
    }
    /* The filled file range replaces the pages in one step (MAP_FIXED: no
     * moment where the addresses are unmapped); tmp, another view of the
     * same file pages, goes. */
    copy_pages(tmp, (const char *)a, len);
    void *fixed =
        mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, reg_mem.fd, (off_t)a);
    munmap(tmp, len);
    if (fixed == MAP_FAILED) {
        SHOAL_ERROR("%s: mapping the memfd over the buffer's pages (%p, %zu bytes) failed: %m", fn,
                    (void *)a, len);
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}

/* Moves the pages [a, b) back into private anonymous memory. */
static shoal_status_t unshare_run(const char *fn, uintptr_t a, uintptr_t b)
{
    const size_t len = b - a;
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED) {
        SHOAL_ERROR("%s: no memory to copy %zu bytes of a buffer's pages back: %m; they stay "
                    "shared",
                    fn, len);
        return SHOAL_ERR_NOMEM;
    }
    /* Moved in one step, by the system call itself: UCX's memory hooks
     * (libucm, loaded for a job across hosts) replace mremap with a version
     * that drops MREMAP_FIXED's new address. */
    copy_pages(tmp, (const char *)a, len);
    if (syscall(SYS_mremap, tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)a) == -1) {
        SHOAL_ERROR("%s: moving private memory back over a buffer's pages (%p) failed: %m; they "
                    "stay shared",
                    fn, (void *)a);
        munmap(tmp, len);
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}

/* Applies `run` to each maximal run of pages of [lo, hi) that no live
 * registration but live[skip] holds. */
static shoal_status_t for_free_runs(const char *fn, uintptr_t lo, uintptr_t hi, size_t skip,
                                    shoal_status_t (*run)(const char *, uintptr_t, uintptr_t))
{
    const size_t page = page_size();
    shoal_status_t status = SHOAL_OK;
    uintptr_t a = lo;
    while (a < hi && status == SHOAL_OK) {
        while (a < hi && page_held(a, skip))
            a += page;
        uintptr_t b = a;
        while (b < hi && !page_held(b, skip))
            b += page;
        if (b > a)
            status = run(fn, a, b);
        a = b;
    }
    return status;
}

shoal_status_t shoal_reg_pages_share(const char *fn, void *ptr, size_t size,
                                     shoal_reg_pages_t *pages_p)
{
    char why[256];
    shoal_status_t status = shoal_reg_pages_check(ptr, size, why, sizeof(why));
    if (status != SHOAL_OK) {
        SHOAL_ERROR("%s: ptr %p (%zu bytes) cannot be registered: %s; register private "
                    "anonymous memory (malloc, posix_memalign, mmap MAP_PRIVATE|MAP_ANONYMOUS, "
                    "NumPy or torch CPU arrays), copying the data there first",
                    fn, ptr, size, why);
        return status;
    }
    const size_t page = page_size();
    const uintptr_t lo = (uintptr_t)ptr & ~(uintptr_t)(page - 1);
    const uintptr_t hi = ((uintptr_t)ptr + size + page - 1) & ~(uintptr_t)(page - 1);
    if (reg_mem.nlive == reg_mem.cap) {
        size_t cap = reg_mem.cap ? 2 * reg_mem.cap : 16;
        struct range *v = realloc(reg_mem.live, cap * sizeof(*v));
        if (v == NULL) {
            SHOAL_ERROR("%s: out of memory for the table of registered pages", fn);
            return SHOAL_ERR_NOMEM;
        }
        reg_mem.live = v;
        reg_mem.cap = cap;
    }
    if (reg_mem.fd < 0) {
        reg_mem.fd = memfd_create(REG_MEMFD_NAME, MFD_CLOEXEC);
        reg_mem.len = 0;
        if (reg_mem.fd < 0) {
            SHOAL_ERROR("%s: memfd_create failed: %m", fn);
            return SHOAL_ERR_SYSTEM;
        }
    }
    /* The file reaches the buffer's address: sparse, so only the pages
     * written take memory. */
    if (hi > reg_mem.len && ftruncate(reg_mem.fd, (off_t)hi) != 0) {
        SHOAL_ERROR("%s: growing the registration memfd to %#llx bytes (sparse) failed: %m", fn,
                    (unsigned long long)hi);
        return SHOAL_ERR_SYSTEM;
    }
    if (hi > reg_mem.len)
        reg_mem.len = hi;
    status = for_free_runs(fn, lo, hi, SIZE_MAX, share_run);
    if (status != SHOAL_OK) {
        for_free_runs(fn, lo, hi, SIZE_MAX, unshare_run); /* pages moved so far, if any */
        return status;
    }
    reg_mem.live[reg_mem.nlive++] = (struct range){lo, hi};
    *pages_p = (shoal_reg_pages_t){.page_lo = (char *)lo, .page_len = hi - lo, .fd = reg_mem.fd};
    return SHOAL_OK;
}

shoal_status_t shoal_reg_pages_unshare(const char *fn, shoal_reg_pages_t *pages)
{
    if (pages->fd < 0)
        return SHOAL_OK;
    const uintptr_t lo = (uintptr_t)pages->page_lo, hi = lo + pages->page_len;
    size_t i = 0;
    while (i < reg_mem.nlive && !(reg_mem.live[i].lo == lo && reg_mem.live[i].hi == hi))
        i++;
    if (i == reg_mem.nlive)
        return SHOAL_ERR_NOT_FOUND;
    shoal_status_t status = for_free_runs(fn, lo, hi, i, unshare_run);
    if (status != SHOAL_OK)
        return status;
    reg_mem.live[i] = reg_mem.live[--reg_mem.nlive];
    pages->fd = -1;
    if (reg_mem.nlive == 0) { /* peers that mapped it keep their mappings */
        close(reg_mem.fd);
        reg_mem.fd = -1;
        reg_mem.len = 0;
    }
    return SHOAL_OK;
}
