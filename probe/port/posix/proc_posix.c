/*
 * POSIX port: other programs as processes (contracts in
 * include/rtscope/port.h). A process is started with vfork, not fork: the
 * probe's memory is locked (mlockall) and its measuring threads run
 * meanwhile; a fork would make every page copy-on-write, and the next
 * write of a measuring thread would take a page fault in its measured
 * path. The child only sets itself up and execs, on memory prepared
 * before the vfork.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"
#include "port_time.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char **environ;

void rts_posix_proc_kill_all(void); /* for rts_process_end (output_posix.c) */

#define LINE_MAX_BYTES 128
#define WAIT_SLICE_NS 5000000u /* how often a wait looks at the process */

struct rts_proc {
    pid_t pid;                /* also its process group */
    int out_fd;               /* read end of its standard output; -1 once closed */
    bool ended;
    int status;               /* exit status or 128 + signal, once ended */
    char line[LINE_MAX_BYTES], last[LINE_MAX_BYTES]; /* the line being read, the last complete one */
    size_t line_len;
};

/* Processes started and not yet released, for rts_process_end: a probe
 * that ends from its watchdog must not leave a generator running. Written
 * by the starting thread, read on the way out. */
#define MAX_LIVE 16
static _Atomic pid_t live[MAX_LIVE];

static void live_add(pid_t pid)
{
    for (int i = 0; i < MAX_LIVE; i++) {
        pid_t none = 0;
        if (atomic_compare_exchange_strong(&live[i], &none, pid))
            return;
    }
}

static void live_remove(pid_t pid)
{
    for (int i = 0; i < MAX_LIVE; i++) {
        pid_t want = pid;
        if (atomic_compare_exchange_strong(&live[i], &want, 0))
            return;
    }
}

void rts_posix_proc_kill_all(void)
{
    for (int i = 0; i < MAX_LIVE; i++) {
        pid_t pid = atomic_exchange(&live[i], 0);
        if (pid > 0)
            kill(-pid, SIGKILL);
    }
}

/* ------------------------------------------------------------ starting */

/* What the child needs, all made before the vfork: it must not allocate. */
typedef struct {
    const char *const *argv;
    char **envp;
    int cpu;
    int out_fd;               /* write end of the output pipe */
    int err_fd;               /* write end of the exec-error pipe (close-on-exec) */
    pid_t parent;
    sigset_t all, none;
} child_plan;

/* The child's side: set up, exec; on failure report errno and leave. */
static _Noreturn void child_exec(const child_plan *c)
{
    int err = 0;
    struct sched_param normal = { .sched_priority = 0 };
    /* Default handlers before unblocking: the probe's must not run here. */
    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &c->none, NULL);
#ifdef __linux__
    /* The probe killed (SIGKILL, a crash): the generator goes with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != c->parent)
        _exit(127);
#endif
    if (setpgid(0, 0) != 0 || sched_setscheduler(0, SCHED_OTHER, &normal) != 0)
        err = errno;
    if (!err && c->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(c->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            err = errno;
    }
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!err && (in < 0 || dup2(in, 0) < 0 || dup2(c->out_fd, 1) < 0))
        err = errno;
    if (!err) {
        execvpe(c->argv[0], (char *const *)c->argv, c->envp);
        err = errno;
    }
    ssize_t ignored = write(c->err_fd, &err, sizeof err);
    (void)ignored;
    _exit(127);
}

/* Whether environment entry e names the variable of "NAME=value" entry kv. */
static bool same_name(const char *e, const char *kv)
{
    size_t n = strcspn(kv, "=");
    return strncmp(e, kv, n) == 0 && e[n] == '=';
}

static bool replaced(const char *e, const char *const *extra)
{
    for (; extra && *extra; extra++)
        if (same_name(e, *extra))
            return true;
    return false;
}

/* The probe's environment with extra added (replacing variables of their
 * names), or NULL. The strings are shared, only the array is allocated. */
static char **environment_with(const char *const *extra)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    for (const char *const *e = extra; e && *e; e++)
        n++;
    char **envp = calloc(n + 1, sizeof *envp);
    if (!envp)
        return NULL;
    for (char **e = environ; *e; e++)
        if (!replaced(*e, extra))
            envp[k++] = *e;
    for (const char *const *e = extra; e && *e; e++)
        envp[k++] = (char *)*e;
    return envp;
}

static void close_pair(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* vfork the child of plan c; its pid, or -1 with errno. Every signal is
 * blocked across the vfork: a handler of the probe must not run on the
 * child's side of the shared memory. */
static pid_t start_child(child_plan *c)
{
    sigset_t old;
    pthread_sigmask(SIG_SETMASK, &c->all, &old);
    pid_t pid = vfork();
    if (pid == 0)
        child_exec(c);
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return pid;
}

/* After the vfork: 0 when the exec succeeded, else the child's errno (the
 * child exited; it is reaped). */
static int exec_error(pid_t pid, int err_fd)
{
    int err = 0;
    ssize_t n;
    while ((n = read(err_fd, &err, sizeof err)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof err)
        return 0;
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return err;
}

rts_status rts_proc_spawn(rts_proc **out, const rts_proc_attr *attr, char *why, size_t whysize)
{
    *out = NULL;
    if (attr->cpu >= 0 && !rts_cpu_allowed(attr->cpu)) {
        snprintf(why, whysize, "cannot start %s on CPU %d: not available to this process", attr->argv[0], attr->cpu);
        return RTS_EINVAL;
    }
    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
    rts_proc *p = calloc(1, sizeof *p);
    child_plan c = { .argv = attr->argv, .envp = environment_with(attr->env), .cpu = attr->cpu,
                     .parent = getpid() };
    if (!p || !c.envp || pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        snprintf(why, whysize, "cannot start %s: %s", attr->argv[0], strerror(errno ? errno : ENOMEM));
        close_pair(outp);
        close_pair(errp);
        free(c.envp);
        free(p);
        return RTS_ENOMEM;
    }
    c.out_fd = outp[1];
    c.err_fd = errp[1];
    sigfillset(&c.all);
    sigemptyset(&c.none);
    pid_t pid = start_child(&c);
    int err = pid < 0 ? errno : 0;
    close(outp[1]);
    close(errp[1]);
    if (!err)
        err = exec_error(pid, errp[0]);
    close(errp[0]);
    free(c.envp);
    if (err) {
        snprintf(why, whysize, "cannot run %s: %s", attr->argv[0], strerror(err));
        close(outp[0]);
        free(p);
        return err == ENOENT || err == EACCES ? RTS_EINVAL : RTS_EFAIL;
    }
    *p = (rts_proc){ .pid = pid, .out_fd = outp[0] };
    fcntl(p->out_fd, F_SETFL, O_NONBLOCK);
    live_add(pid);
    *out = p;
    return RTS_OK;
}

/* ------------------------------------------------------------- output */

/* Take byte ch of the output into the current or the last line. */
static void take_byte(rts_proc *p, char ch)
{
    if (ch == '\n' || ch == '\r') {
        if (p->line_len) {
            memcpy(p->last, p->line, p->line_len);
            p->last[p->line_len] = '\0';
            p->line_len = 0;
        }
    } else if (p->line_len < LINE_MAX_BYTES - 1) {
        p->line[p->line_len++] = ch;
        p->line[p->line_len] = '\0';
    }
}

/* Read what the output holds now, without waiting; close it at its end. */
static void drain(rts_proc *p)
{
    char buf[512];
    ssize_t n;
    while (p->out_fd >= 0 && (n = read(p->out_fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return;
            break;
        }
        for (ssize_t i = 0; i < n; i++)
            take_byte(p, buf[i]);
    }
    close(p->out_fd);
    p->out_fd = -1;
}

/* An unterminated last line counts: a generator may end without a newline. */
const char *rts_proc_last_line(const rts_proc *p) { return p->line_len ? p->line : p->last; }

/* ------------------------------------------------------------- waiting */

/* Reap p if it ended; true then. */
static bool reap(rts_proc *p)
{
    int ws;
    pid_t r = waitpid(p->pid, &ws, WNOHANG);
    if (r != p->pid)
        return false;
    p->ended = true;
    p->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 255;
    live_remove(p->pid);
    return true;
}

/* Sleep up to slice_ns, waking early for output (and reading it). */
static void await_output(rts_proc *p, uint64_t slice_ns)
{
    if (p->out_fd < 0) {
        rts_sleep_ns(slice_ns);
        return;
    }
    struct pollfd pfd = { .fd = p->out_fd, .events = POLLIN };
    if (poll(&pfd, 1, (int)(slice_ns / 1000000u) + 1) > 0)
        drain(p);
}

rts_status rts_proc_wait(rts_proc *p, uint64_t timeout_ns, int *status)
{
    uint64_t start = rts_time_ns();
    for (;;) {
        if (p->out_fd >= 0)
            drain(p);
        if (p->ended || reap(p)) {
            /* What it wrote last is in the pipe already; writers it left
             * behind (a script's children) are not waited for. */
            if (p->out_fd >= 0)
                drain(p);
            if (status)
                *status = p->status;
            return RTS_OK;
        }
        uint64_t waited = rts_time_ns() - start;
        if (timeout_ns != RTS_FOREVER && waited >= timeout_ns)
            return RTS_ETIMEDOUT;
        uint64_t left = timeout_ns == RTS_FOREVER ? WAIT_SLICE_NS : timeout_ns - waited;
        await_output(p, left < WAIT_SLICE_NS ? left : WAIT_SLICE_NS);
    }
}

rts_status rts_proc_signal(rts_proc *p, bool force)
{
    if (p->ended)
        return RTS_OK;
    if (kill(-p->pid, force ? SIGKILL : SIGTERM) == 0 || errno == ESRCH)
        return RTS_OK;
    return errno == EPERM ? RTS_EPERM : RTS_EFAIL;
}

/* Its group is killed even when p ended: what it started in the group
 * (a script's commands) must not outlive it either. */
void rts_proc_release(rts_proc *p)
{
    if (!p)
        return;
    kill(-p->pid, SIGKILL);
    if (!p->ended) {
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        live_remove(p->pid);
    }
    if (p->out_fd >= 0)
        close(p->out_fd);
    free(p);
}

/* ------------------------------------------------------------- programs */

rts_status rts_proc_self_path(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size);
    if (n <= 0 || (size_t)n >= size)
        return RTS_EFAIL;
    buf[n] = '\0';
    return RTS_OK;
}

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool rts_proc_findable(const char *program)
{
    if (strchr(program, '/'))
        return executable(program);
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
        size_t n = strcspn(dir, ":");
        char full[4096];
        if (snprintf(full, sizeof full, "%.*s/%s", (int)(n ? n : 1), n ? dir : ".", program) < (int)sizeof full &&
            executable(full))
            return true;
        dir += n + (dir[n] == ':');
    }
    return false;
}
