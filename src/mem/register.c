/*
 * Sharing a registered buffer's pages with the PEs of this host (see
 * register.h for which memory and the rule on other threads). The kind of
 * memory is read from /proc/self/maps: every mapping that covers the
 * buffer's pages must be private, anonymous and writable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem/register.h"
#include "util/log.h"

/* Copies word by word. Not instrumented: under AddressSanitizer the bytes
 * around a malloc'd buffer are poisoned redzones, and the copy must move
 * them too; volatile keeps the compiler from making it a memcpy call. */
__attribute__((no_sanitize("address", "thread"))) static void
copy_pages(volatile uint64_t *dst, const volatile uint64_t *src, size_t len)
{
    for (size_t w = 0; w < len / sizeof(uint64_t); w++)
        dst[w] = src[w];
}

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* The kind of one line of /proc/self/maps, in words for a refusal, or NULL
 * when it is private anonymous writable memory. */
static const char *mapping_kind(const char *perms, unsigned long long inode, const char *path)
{
    if (strcmp(path, "[stack]") == 0)
        return "the stack (a local variable)";
    if (perms[3] == 's' && strncmp(path, "/memfd:shoal", 12) == 0)
        return "already shared: it shares a page with a registered buffer or lies in Shoal's "
               "own symmetric memory";
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
    char *lo = (char *)((uintptr_t)ptr & ~(uintptr_t)(page - 1));
    const size_t len = (((uintptr_t)ptr + size + page - 1) & ~(uintptr_t)(page - 1)) - (uintptr_t)lo;
    int fd = memfd_create("shoal-registered", MFD_CLOEXEC);
    if (fd < 0) {
        SHOAL_ERROR("%s: memfd_create failed: %m", fn);
        return SHOAL_ERR_SYSTEM;
    }
    if (ftruncate(fd, (off_t)len) != 0) {
        SHOAL_ERROR("%s: ftruncate of a memfd to %zu bytes failed: %m", fn, len);
        goto err_close;
    }
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        SHOAL_ERROR("%s: mapping a memfd of %zu bytes failed: %m", fn, len);
        goto err_close;
    }
    copy_pages(tmp, (uint64_t *)lo, len);
    /* mremap moves the filled mapping over the buffer's pages in one step:
     * no moment where the addresses are unmapped. */
    if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, lo) == MAP_FAILED) {
        SHOAL_ERROR("%s: moving the memfd over the buffer's pages (%p, %zu bytes) failed: %m", fn,
                    (void *)lo, len);
        munmap(tmp, len);
        goto err_close;
    }
    *pages_p = (shoal_reg_pages_t){.page_lo = lo, .page_len = len, .fd = fd};
    return SHOAL_OK;

err_close:
    close(fd);
    return SHOAL_ERR_SYSTEM;
}

shoal_status_t shoal_reg_pages_unshare(const char *fn, shoal_reg_pages_t *pages)
{
    if (pages->fd < 0)
        return SHOAL_OK;
    void *tmp =
        mmap(NULL, pages->page_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED) {
        SHOAL_ERROR("%s: no memory to copy the buffer's %zu bytes of pages back: %m; the buffer "
                    "stays shared",
                    fn, pages->page_len);
        return SHOAL_ERR_NOMEM;
    }
    copy_pages(tmp, (uint64_t *)pages->page_lo, pages->page_len);
    if (mremap(tmp, pages->page_len, pages->page_len, MREMAP_MAYMOVE | MREMAP_FIXED,
               pages->page_lo) == MAP_FAILED) {
        SHOAL_ERROR("%s: moving private memory back over the buffer's pages (%p) failed: %m; the "
                    "buffer stays shared",
                    fn, (void *)pages->page_lo);
        munmap(tmp, pages->page_len);
        return SHOAL_ERR_SYSTEM;
    }
    close(pages->fd);
    pages->fd = -1;
    return SHOAL_OK;
}
