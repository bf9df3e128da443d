/*
 * Faults inside the library's entry points (core/fault.c): a pointer the
 * fast path cannot check without slowing every call (a NULL source of a
 * put, a NULL ivar of a wait) is reported by name when it faults.
 */
#ifndef SHOAL_CORE_FAULT_H
#define SHOAL_CORE_FAULT_H

/* Installs the SIGSEGV/SIGBUS handler (shmem_init); the one that was there
 * before still gets every fault that is not in an OpenSHMEM routine. */
void shoal_fault_install(void);
/* Puts the previous handlers back, unless the program replaced ours. */
void shoal_fault_uninstall(void);

#endif
