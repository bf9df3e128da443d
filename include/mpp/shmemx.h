/*
 * <mpp/shmemx.h>: the header path of the OpenSHMEM deprecated-API annex, kept
 * so that older programs build. It is the same as <shmemx.h>.
 */
#ifndef SHOAL_MPP_SHMEMX_H
#define SHOAL_MPP_SHMEMX_H

#include <shmemx.h>

#endif
