/*
 * The fuzz target's stand-in for src/util/log.c: the store logs every
 * malformed frame it meets, which would flood the fuzzer's output.
 */
#include "util/log.h"

int shoal_log_level = SHOAL_LOG_ERROR;

void shoal_log_set_pe(int pe)
{
    (void)pe;
}

void shoal_log(shoal_log_level_t level, const char *fmt, ...)
{
    (void)level;
    (void)fmt;
}

int shoal_log_subsys_on(const char *file)
{
    (void)file;
    return 0;
}

shoal_status_t shoal_log_configure(const char *subsys, const char *file)
{
    (void)subsys;
    (void)file;
    return SHOAL_OK;
}

void shoal_log_from(shoal_log_level_t level, const char *file, const char *fmt, ...)
{
    (void)level;
    (void)file;
    (void)fmt;
}
