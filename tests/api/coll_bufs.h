/*
 * What the reduction and scan tests share: the element counts they try,
 * source and dest buffers on the heap and in globals (big enough for NMAX
 * long doubles plus a guard), and the check that a call wrote nothing past
 * the elements of its dest. Include after check.h, inside SHT_HAVE_TEAMS.
 */
#ifndef SHT_COLL_BUFS_H
#define SHT_COLL_BUFS_H

#define NMAX 9000
#define GUARD 16
#define SENTINEL 0xA5

static const size_t sizes[] = {1, 7, 1000, NMAX};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static sht_shape_t shapes[SHT_NSHAPES];
/* Heap buffers (shmem_malloc'd by main) and global (static) ones. */
static unsigned char *src_buf, *dst_buf;
#define BUF_BYTES ((NMAX + GUARD) * sizeof(long double))
static long double g_src[NMAX + GUARD], g_dst[NMAX + GUARD];

static char what[256];

/* Check that the guard bytes after n elements of size sz are untouched. */
static void check_guard(const char *name, const unsigned char *dst, size_t n, size_t sz)
{
    for (size_t b = n * sz; b < (n + GUARD) * sz; b++)
        CHECK(dst[b] == SENTINEL, "%s: byte %zu past the %zu elements of dest was written (0x%02x)",
              name, b - n * sz, n, dst[b]);
}

#endif
