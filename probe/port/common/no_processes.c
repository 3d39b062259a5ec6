/*
 * The process functions of rtscope/port.h (processes, the memory they
 * share, shared libraries) for a port without processes (RTS_CAP_PROCESSES
 * clear): an RTOS runs one program image, so every call says "not supported". wave.square, which
 * starts a generator process, is then skipped; app.workload runs its
 * "processes" as thread groups. A port that can start programs implements
 * these itself (port/posix/proc_posix.c, shm_posix.c) instead.
 */
#include <stdio.h> /* snprintf only */

#include "rtscope/port.h"

rts_status rts_proc_spawn(rts_proc **out, const rts_proc_attr *attr, char *why, size_t whysize)
{
    (void)attr;
    *out = NULL;
    snprintf(why, whysize, "this port cannot start processes");
    return RTS_ENOTSUP;
}

rts_status rts_proc_wait(rts_proc *p, uint64_t timeout_ns, int *status)
{
    (void)p, (void)timeout_ns, (void)status;
    return RTS_ENOTSUP;
}

rts_status rts_proc_signal(rts_proc *p, bool force)
{
    (void)p, (void)force;
    return RTS_ENOTSUP;
}

const char *rts_proc_last_line(const rts_proc *p)
{
    (void)p;
    return "";
}

void rts_proc_release(rts_proc *p) { (void)p; }

rts_status rts_proc_self_path(char *buf, size_t size)
{
    (void)buf, (void)size;
    return RTS_ENOTSUP;
}

bool rts_proc_findable(const char *program)
{
    (void)program;
    return false;
}

rts_status rts_library_open(rts_library **out, const char *name, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this port loads no shared library (%s): it runs one program image", name);
    return RTS_ENOTSUP;
}

void *rts_library_symbol(rts_library *lib, const char *symbol)
{
    (void)lib, (void)symbol;
    return NULL;
}

void rts_library_close(rts_library *lib) { (void)lib; }

rts_status rts_shm_create(rts_shm **out, size_t bytes, char *why, size_t whysize)
{
    (void)bytes;
    *out = NULL;
    snprintf(why, whysize, "this port has no processes to share memory with");
    return RTS_ENOTSUP;
}

rts_status rts_shm_open(rts_shm **out, const char *path, char *why, size_t whysize)
{
    (void)path;
    return rts_shm_create(out, 0, why, whysize);
}

const char *rts_shm_path(const rts_shm *s)
{
    (void)s;
    return "";
}

void *rts_shm_base(const rts_shm *s)
{
    (void)s;
    return NULL;
}

size_t rts_shm_size(const rts_shm *s)
{
    (void)s;
    return 0;
}

void rts_shm_close(rts_shm *s) { (void)s; }

rts_status rts_shm_wait(atomic_uint *word, unsigned expected, uint64_t timeout_ns)
{
    (void)word, (void)expected, (void)timeout_ns;
    return RTS_ENOTSUP;
}

void rts_shm_wake(atomic_uint *word) { (void)word; }
