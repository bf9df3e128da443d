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
