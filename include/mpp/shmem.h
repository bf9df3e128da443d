/*
 * <mpp/shmem.h>: the header path of the OpenSHMEM deprecated-API annex, kept
 * so that older programs build. It is the same as <shmem.h>.
 */
#ifndef SHOAL_MPP_SHMEM_H
#define SHOAL_MPP_SHMEM_H

#include <shmem.h>

#endif
