/*
 * Checked output files (util/outfile.h says why): the first failure of a
 * file is kept with its errno, logged once at close, and counted for the
 * exit status.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"
#include "util/outfile.h"

static pthread_mutex_t lost_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned lost_count;
static char lost_first[512];

static void count_lost(const char *path)
{
    pthread_mutex_lock(&lost_lock);
    if (lost_count++ == 0)
        snprintf(lost_first, sizeof(lost_first), "%s", path);
    pthread_mutex_unlock(&lost_lock);
}

unsigned shoal_outfile_lost_count(const char **first_path_p)
{
    pthread_mutex_lock(&lost_lock);
    unsigned n = lost_count;
    pthread_mutex_unlock(&lost_lock);
    if (first_path_p != NULL)
        *first_path_p = lost_first;
    return n;
}

void shoal_outfile_lost(const char *path, int quiet, const char *fmt, ...)
{
    if (quiet)
        return; /* this file was reported and counted already */
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    SHOAL_ERROR("%s", why);
    count_lost(path);
}

/* Whether this failure of the file is the one to log. */
static int first_report(shoal_outfile_t *o)
{
    if (o->reported == NULL)
        return 1;
    int first = !*o->reported;
    *o->reported = 1;
    return first;
}

shoal_status_t shoal_outfile_open(shoal_outfile_t *o, const char *call, const char *what,
                                  const char *path, const char *mode, int *reported)
{
    *o = (shoal_outfile_t){
        .f = NULL, .call = call, .what = what, .path = path, .err = 0, .reported = reported};
    o->f = fopen(path, mode);
    if (o->f != NULL)
        return SHOAL_OK;
    o->err = errno;
    shoal_outfile_lost(path, !first_report(o),
                       "%s: %s: cannot open %s for writing: %s (errno %d); nothing is written "
                       "there. Name a place this user may write, on a file system with room",
                       call, what, path, strerror(o->err), o->err);
    return SHOAL_ERR_IO;
}

void shoal_outfile_printf(shoal_outfile_t *o, const char *fmt, ...)
{
    if (o->f == NULL || o->err != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(o->f, fmt, ap);
    va_end(ap);
    if (n < 0)
        o->err = errno != 0 ? errno : EIO;
}

shoal_status_t shoal_outfile_close(shoal_outfile_t *o)
{
    if (o->f == NULL)
        return o->err != 0 ? SHOAL_ERR_IO : SHOAL_OK;
    /* The buffered tail is written by the flush; a file system that reports
     * late (NFS, quotas) does so at close. */
    if (fflush(o->f) != 0 && o->err == 0)
        o->err = errno != 0 ? errno : EIO;
    if (ferror(o->f) && o->err == 0)
        o->err = EIO;
    if (fclose(o->f) != 0 && o->err == 0)
        o->err = errno != 0 ? errno : EIO;
    o->f = NULL;
    if (o->err == 0)
        return SHOAL_OK;
    shoal_outfile_lost(o->path, !first_report(o),
                       "%s: %s: writing %s failed: %s (errno %d); the file is incomplete. Free "
                       "space there or point %s at a file system with room",
                       o->call, o->what, o->path, strerror(o->err), o->err, o->what);
    return SHOAL_ERR_IO;
}
