/*
 * Symmetric globals: the executable's writable data (.data and .bss, after
 * the RELRO part) is moved onto a memfd mapped at the same address, so that
 * peers can map it and reach the program's global and static variables.
 *
 * Pitfalls handled here: the range starts after PT_GNU_RELRO (which becomes
 * read-only after relocation); the copy uses a loop that sanitizers do not
 * instrument; pages that are all zero are not copied, so a large .bss costs
 * no memory until touched; after fork() the child gets a private copy again,
 * or parent and child would share every global.
 */
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem/segment.h"
#include "util/log.h"

static shoal_segment_t globals_seg = {.base = NULL, .size = 0, .fd = -1};

typedef struct {
    uintptr_t start;
    uintptr_t end;
} data_range_t;

static int find_data_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    data_range_t *range = arg;
    uintptr_t relro_end = 0, start = 0, end = 0;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    (void)size;

    /* The first object reported is the main program. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        uintptr_t e = s + ph->p_memsz;
        if (start == 0 || s < start)
            start = s;
        if (e > end)
            end = e;
    }
    if (relro_end > start && relro_end < end)
        start = relro_end;
    start = (start + page - 1) & ~(page - 1);
    end = (end + page - 1) & ~(page - 1);
    if (start != 0 && end > start) {
        range->start = start;
        range->end = end;
    }
    return 1; /* stop after the main program */
}

/* Copies page by page, skipping pages that are all zero. Not instrumented:
 * under AddressSanitizer the source may hold poisoned redzones. */
__attribute__((no_sanitize("address", "thread"))) static void
copy_nonzero_pages(volatile unsigned char *dst, const volatile unsigned char *src, size_t len,
                   size_t page)
{
    for (size_t off = 0; off < len; off += page) {
        const volatile uint64_t *s = (const volatile uint64_t *)(src + off);
        size_t words = page / sizeof(uint64_t), w = 0;
        while (w < words && s[w] == 0)
            w++;
        if (w == words)
            continue;
        volatile uint64_t *d = (volatile uint64_t *)(dst + off);
        for (w = 0; w < words; w++)
            d[w] = s[w];
    }
}

/* In a child of fork(), the shared mapping would make parent and child share
 * their globals: give the child a private copy. */
static void globals_atfork_child(void)
{
    if (globals_seg.base == NULL)
        return;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *tmp =
        mmap(NULL, globals_seg.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED)
        return;
    copy_nonzero_pages(tmp, (unsigned char *)globals_seg.base, globals_seg.size, page);
    void *fixed = mmap(globals_seg.base, globals_seg.size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (fixed != MAP_FAILED)
        copy_nonzero_pages((unsigned char *)globals_seg.base, tmp, globals_seg.size, page);
    munmap(tmp, globals_seg.size);
    close(globals_seg.fd);
    globals_seg.base = NULL;
    globals_seg.size = 0;
    globals_seg.fd = -1;
}

shoal_status_t shoal_segment_globals(shoal_segment_t *seg_p)
{
    if (globals_seg.base != NULL) {
        *seg_p = globals_seg;
        return SHOAL_OK;
    }

    data_range_t range = {0, 0};
    dl_iterate_phdr(find_data_range, &range);
    if (range.end <= range.start) {
        SHOAL_WARN("the executable has no writable data segment to make symmetric; "
                   "global variables are not remotely accessible");
        return SHOAL_ERR_NOT_FOUND;
    }

    const size_t len = range.end - range.start;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    shoal_segment_t seg;
    shoal_status_t status = shoal_segment_create("shoal-globals", len, 0, &seg);
    if (status != SHOAL_OK)
        return status;

    copy_nonzero_pages((unsigned char *)seg.base, (unsigned char *)range.start, len, page);
    munmap(seg.base, len);
    void *fixed =
        mmap((void *)range.start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, seg.fd, 0);
    if (fixed == MAP_FAILED) {
        /* The original mapping is still in place: MAP_FIXED failed before replacing it. */
        SHOAL_ERROR("remapping the program's data segment (%p, %zu bytes) failed: %m; set "
                    "SHOAL_SYMMETRIC_GLOBALS=0 to run without symmetric globals",
                    (void *)range.start, len);
        close(seg.fd);
        return SHOAL_ERR_SYSTEM;
    }

    globals_seg.base = (char *)range.start;
    globals_seg.size = len;
    globals_seg.fd = seg.fd;
    pthread_atfork(NULL, NULL, globals_atfork_child);
    SHOAL_DEBUG("globals %p..%p (%zu bytes) are symmetric", (void *)range.start, (void *)range.end,
                len);
    *seg_p = globals_seg;
    return SHOAL_OK;
}
