/*
 * Data symbols of this process by address (see symbol.h). The main
 * program's .symtab is read once, on first use, into private memory and
 * kept; a program without one (stripped) simply has no names.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/symbol.h"

typedef struct {
    ElfW(Sym) * syms;
    size_t nsyms;
    char *strs;
    size_t strs_size;
    uintptr_t bias; /* the main program's load address */
} sym_table_t;

static sym_table_t table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = info->dlpi_addr;
    return 1; /* the first object is the main program */
}

static void *read_at(int fd, off_t off, size_t len)
{
    void *p = malloc(len ? len : 1);
    if (p != NULL && pread(fd, p, len, off) != (ssize_t)len) {
        free(p);
        p = NULL;
    }
    return p;
}

/* Reads the .symtab of the ELF file `path` into t (left empty when it has
 * none). */
static void load_file(const char *path, sym_table_t *t)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ElfW(Ehdr) eh;
    ElfW(Shdr) *sh = NULL;
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_shentsize != sizeof(ElfW(Shdr)))
        goto out;
    sh = read_at(fd, (off_t)eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
    if (sh == NULL)
        goto out;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh.e_shnum)
            continue;
        const ElfW(Shdr) *str = &sh[sh[i].sh_link];
        t->syms = read_at(fd, (off_t)sh[i].sh_offset, sh[i].sh_size);
        t->strs = read_at(fd, (off_t)str->sh_offset, str->sh_size);
        if (t->syms == NULL || t->strs == NULL) {
            free(t->syms);
            free(t->strs);
            t->syms = NULL;
            t->strs = NULL;
            break;
        }
        t->nsyms = sh[i].sh_size / sizeof(ElfW(Sym));
        t->strs_size = str->sh_size;
        break;
    }
out:
    free(sh);
    close(fd);
}

static void load_table(void)
{
    load_file("/proc/self/exe", &table);
    if (table.syms != NULL)
        dl_iterate_phdr(main_bias, &table.bias);
}

/* The data object of t holding address a (t's symbols relocated by its
 * bias). */
static const ElfW(Sym) * find_object(const sym_table_t *t, uintptr_t a)
{
    for (size_t i = 0; i < t->nsyms; i++) {
        const ElfW(Sym) *s = &t->syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_size == 0 ||
            s->st_name >= t->strs_size)
            continue;
        if (a - (t->bias + s->st_value) < s->st_size)
            return s;
    }
    return NULL;
}

static int write_name(const char *s, size_t off, char *name, size_t cap, size_t *off_p)
{
    snprintf(name, cap, "%s", s);
    *off_p = off;
    return 0;
}

int shoal_symbol_of(const void *addr, char *name, size_t cap, size_t *off_p)
{
    const uintptr_t a = (uintptr_t)addr;
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) != 0 && info.dli_sname != NULL &&
        sym != NULL && ELF64_ST_TYPE(sym->st_info) == STT_OBJECT &&
        a - (uintptr_t)info.dli_saddr < sym->st_size)
        return write_name(info.dli_sname, a - (uintptr_t)info.dli_saddr, name, cap, off_p);

    pthread_once(&table_once, load_table);
    const ElfW(Sym) *s = find_object(&table, a);
    return s != NULL ? write_name(table.strs + s->st_name, a - (table.bias + s->st_value), name,
                                  cap, off_p)
                     : -1;
}

int shoal_symbol_in_file(const char *path, uint64_t vaddr, char *name, size_t cap, size_t *off_p)
{
    static sym_table_t file; /* the last file asked about */
    static char file_path[4096];
    static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&file_lock);
    if (strcmp(file_path, path) != 0) {
        free(file.syms);
        free(file.strs);
        memset(&file, 0, sizeof(file));
        snprintf(file_path, sizeof(file_path), "%s", path);
        load_file(path, &file);
    }
    const ElfW(Sym) *s = find_object(&file, (uintptr_t)vaddr);
    int rc = s != NULL ? write_name(file.strs + s->st_name, (uintptr_t)vaddr - s->st_value, name,
                                    cap, off_p)
                       : -1;
    pthread_mutex_unlock(&file_lock);
    return rc;
}
