/*
 * memfd-backed segments. memfds have no name in /dev/shm, so nothing is left
 * behind when a PE is killed; peers get the fd over a unix socket.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem/segment.h"
#include "util/log.h"

/* Reserves `size` bytes of address space at a multiple of `align`. */
static void *reserve_aligned(size_t size, size_t align)
{
    size_t span = size + align;
    char *raw = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return MAP_FAILED;
    char *aligned = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (aligned > raw)
        munmap(raw, (size_t)(aligned - raw));
    size_t tail = (size_t)(raw + span - (aligned + size));
    if (tail > 0)
        munmap(aligned + size, tail);
    return aligned;
}

shoal_status_t shoal_segment_create(const char *name, size_t size, size_t align,
                                    shoal_segment_t *seg_p)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        SHOAL_ERROR("memfd_create(%s) failed: %m", name);
        return SHOAL_ERR_SYSTEM;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        SHOAL_ERROR("ftruncate of the %s memfd to %zu bytes failed: %m", name, size);
        goto err_close;
    }
    void *base = align > 4096 ? reserve_aligned(size, align) : NULL;
    if (base != MAP_FAILED)
        base = mmap(base, size, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_NORESERVE | (base ? MAP_FIXED : 0), fd, 0);
    if (base == MAP_FAILED) {
        SHOAL_ERROR("mmap of the %s segment (%zu bytes) failed: %m; lower SHMEM_SYMMETRIC_SIZE "
                    "or raise the address-space limit (ulimit -v)",
                    name, size);
        goto err_close;
    }
    seg_p->base = base;
    seg_p->size = size;
    seg_p->fd = fd;
    return SHOAL_OK;

err_close:
    close(fd);
    return SHOAL_ERR_SYSTEM;
}

void shoal_segment_destroy(shoal_segment_t *seg)
{
    if (seg->base != NULL)
        munmap(seg->base, seg->size);
    if (seg->fd >= 0)
        close(seg->fd);
    seg->base = NULL;
    seg->size = 0;
    seg->fd = -1;
}

shoal_status_t shoal_segment_map_peer(int fd, size_t size, char **base_p)
{
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (base == MAP_FAILED) {
        SHOAL_ERROR("mmap of a peer's segment (%zu bytes) failed: %m; lower "
                    "SHMEM_SYMMETRIC_SIZE or raise the address-space limit (ulimit -v)",
                    size);
        return SHOAL_ERR_SYSTEM;
    }
    *base_p = base;
    return SHOAL_OK;
}

void shoal_segment_unmap_peer(char *base, size_t size)
{
    if (base != NULL)
        munmap(base, size);
}
