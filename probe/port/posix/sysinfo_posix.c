/*
 * POSIX port: what the result records about the system (Linux files where
 * present; anything missing stays "unknown" rather than guessed), with the
 * preemption model and virtualisation by the rules of sysinfo_posix.h.
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include "sysinfo_posix.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Where Linux shows the device tree the firmware handed it. */
#define DEVICE_TREE "/proc/device-tree"
/* Room for a virtualisation text before it is cut to the size configured. */
#define VIRT_TEXT_MAX 192

/* Copy src into dst of size bytes, cut if it does not fit. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Read the first line of path into buf (newline stripped). False if unreadable. */
static bool read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (!ok) {
        buf[0] = '\0';
        return false;
    }
    buf[strcspn(buf, "\n")] = '\0';
    return true;
}

static long long read_ll(const char *path, long long unknown)
{
    char buf[64];
    if (!read_line(path, buf, sizeof buf))
        return unknown;
    char *end;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? unknown : v;
}

/* Value of the first "key : value" line of /proc/cpuinfo whose key is key. */
static bool cpuinfo_field(const char *key, char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    size_t klen = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 || (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':'))
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        colon += strspn(colon, " \t");
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, size, "%s", colon);
        found = true;
    }
    fclose(f);
    return found;
}

/* Whether the word occurs in the space-separated text, as a whole word. */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; (p = strstr(p, word)) != NULL; p += n) {
        bool starts = p == text || p[-1] == ' ';
        bool ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends)
            return true;
    }
    return false;
}

/* Invariant TSC on x86 (constant and not stopped in idle); the arm64 generic
 * timer is fixed-frequency by architecture. */
bool rts_posix_cycle_counter_invariant(void)
{
#if defined(__x86_64__)
    char flags[4096];
    if (!cpuinfo_field("flags", flags, sizeof flags))
        return false;
    return has_word(flags, "constant_tsc") && has_word(flags, "nonstop_tsc") && has_word(flags, "rdtscp");
#elif defined(__aarch64__)
    return true;
#else
    return false;
#endif
}

const char *rts_posix_preempt_model(const rts_posix_system_texts *t)
{
    const char *v = t->uname_version;
    /* Before Linux 5.3 the RT patch wrote "PREEMPT RT"; since then "PREEMPT_RT". */
    bool rt_words = v && (has_word(v, "PREEMPT_RT") || (has_word(v, "PREEMPT") && has_word(v, "RT")));
    if ((t->realtime && atoi(t->realtime) != 0) || rt_words)
        return "rt";
    static const char *const modes[] = { "none", "voluntary", "full", "lazy" };
    for (size_t i = 0; t->preempt && i < sizeof modes / sizeof modes[0]; i++) {
        char active[16]; /* the mode in use is the one in parentheses */
        snprintf(active, sizeof active, "(%s)", modes[i]);
        if (strstr(t->preempt, active))
            return modes[i];
    }
    if (!v || !v[0])
        return "unknown";
    if (has_word(v, "PREEMPT_DYNAMIC"))
        return "dynamic";
    if (has_word(v, "PREEMPT_LAZY"))
        return "lazy";
    if (has_word(v, "PREEMPT"))
        return "full";
    return "none"; /* no PREEMPT word: voluntary or none, which uname -v does not tell apart */
}

/* Whether a DMI system vendor is one only virtual machines have. */
static bool vm_vendor(const char *vendor)
{
    static const char *const vendors[] = { "QEMU", "KVM", "VMware", "innotek", "Xen", "Parallels", "BHYVE" };
    for (size_t i = 0; vendor && i < sizeof vendors / sizeof vendors[0]; i++)
        if (strncmp(vendor, vendors[i], strlen(vendors[i])) == 0)
            return true;
    return false;
}

void rts_posix_virtualization(const rts_posix_system_texts *t, char *out, size_t size)
{
    bool flag = t->cpu_flags && has_word(t->cpu_flags, "hypervisor");
    const char *vendor = t->dmi_vendor && t->dmi_vendor[0] ? t->dmi_vendor : NULL;
    /* Who runs it: the DMI vendor (any, under the hypervisor flag), else the device tree's word. */
    const char *who = (flag || vm_vendor(vendor)) ? vendor : NULL;
    if (!who && t->dt_hypervisor && t->dt_hypervisor[0])
        who = t->dt_hypervisor;
    if (!who && t->dt_fw_cfg)
        who = "QEMU";
    bool vm = flag || who;
    bool could_tell = t->cpu_flags || vendor || t->dt_present;
    char text[VIRT_TEXT_MAX];
    if (vm)
        snprintf(text, sizeof text, "vm%s%s%s%s", who ? " (" : "", who ? who : "", who ? ")" : "",
                 t->container ? ", container" : "");
    else
        snprintf(text, sizeof text, "%s", t->container ? "container" : could_tell ? "none" : "");
    copy_text(out, size, text);
}

/* The first line of path as a string in buf, or NULL when it cannot be read. */
static const char *line_or_null(const char *path, char *buf, size_t size)
{
    return read_line(path, buf, size) ? buf : NULL;
}

/* Whether the device tree has a node whose name starts with prefix. */
static bool dt_has_node(const char *prefix)
{
    DIR *dir = opendir(DEVICE_TREE);
    if (!dir)
        return false;
    bool found = false;
    for (struct dirent *entry; !found && (entry = readdir(dir)) != NULL;)
        found = strncmp(entry->d_name, prefix, strlen(prefix)) == 0;
    closedir(dir);
    return found;
}

/* Preemption model, PREEMPT_RT and virtualisation, by the rules above, from
 * what this machine shows (uname_version whole: info's copy may be cut). */
static void classify(rts_sysinfo *info, const char *uname_version)
{
    char realtime[16], preempt[128], flags[4096], vendor[128], hypervisor[128];
    rts_posix_system_texts t = {
        .uname_version = uname_version,
        .realtime = line_or_null("/sys/kernel/realtime", realtime, sizeof realtime),
        .preempt = line_or_null("/sys/kernel/debug/sched/preempt", preempt, sizeof preempt),
        .cpu_flags = cpuinfo_field("flags", flags, sizeof flags) ? flags : NULL,
        .dmi_vendor = line_or_null("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor),
        .dt_hypervisor = line_or_null(DEVICE_TREE "/hypervisor/compatible", hypervisor, sizeof hypervisor),
        .dt_present = access(DEVICE_TREE, F_OK) == 0,
        .dt_fw_cfg = dt_has_node("fw-cfg"),
        .container = access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0,
    };
    const char *model = rts_posix_preempt_model(&t);
    copy_text(info->preempt_model, sizeof info->preempt_model, model);
    /* Linux without uname -v (never seen) leaves PREEMPT_RT unknown, as the model. */
    info->realtime_kernel = strcmp(model, "rt") == 0 ? 1 : strcmp(model, "unknown") == 0 ? -1 : 0;
    rts_posix_virtualization(&t, info->virtualization, sizeof info->virtualization);
}

/* The fair server of Linux 6.12 and later (a deadline server for normal
 * tasks: 50 ms of every 1000 ms by default, in ns in debugfs, which a
 * locked-down kernel does not let one read): its settings on CPU 0. */
static void read_fair_server(rts_sysinfo *info)
{
    const char *dir = "/sys/kernel/debug/sched/fair_server/cpu0";
    char path[96];
    snprintf(path, sizeof path, "%s/runtime", dir);
    long long runtime = read_ll(path, -2);
    snprintf(path, sizeof path, "%s/period", dir);
    long long period = read_ll(path, -2);
    if (runtime >= 0 && period > 0) {
        info->fair_runtime_us = runtime / 1000;
        info->fair_period_us = period / 1000;
        return;
    }
    int major = 0, minor = 0;
    if (sscanf(info->kernel_release, "%d.%d", &major, &minor) == 2 && (major > 6 || (major == 6 && minor >= 12))) {
        info->fair_runtime_us = 50000;
        info->fair_period_us = 1000000;
    }
}

void rts_sysinfo_read(rts_sysinfo *info)
{
    memset(info, 0, sizeof *info);
    struct utsname u;
    bool named = uname(&u) == 0;
    if (named) {
        copy_text(info->os, sizeof info->os, u.sysname);
        copy_text(info->hostname, sizeof info->hostname, u.nodename);
        copy_text(info->kernel_release, sizeof info->kernel_release, u.release);
        copy_text(info->kernel_version, sizeof info->kernel_version, u.version);
        copy_text(info->arch, sizeof info->arch, u.machine);
    }
    classify(info, named ? u.version : NULL);
    if (!cpuinfo_field("model name", info->cpu_model, sizeof info->cpu_model))
        cpuinfo_field("Model", info->cpu_model, sizeof info->cpu_model);
    info->cpu_count = rts_cpu_count();
    read_line("/sys/devices/system/cpu/online", info->cpus_online, sizeof info->cpus_online);
    read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", info->governor, sizeof info->governor);
    read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", info->clocksource,
              sizeof info->clocksource);
    read_line("/proc/cmdline", info->cmdline, sizeof info->cmdline);
    info->isolated_known = read_line("/sys/devices/system/cpu/isolated", info->isolated_cpus,
                                     sizeof info->isolated_cpus) ||
                           access("/sys/devices/system/cpu/isolated", R_OK) == 0;
    info->rt_runtime_us = read_ll("/proc/sys/kernel/sched_rt_runtime_us", -2);
    info->rt_period_us = read_ll("/proc/sys/kernel/sched_rt_period_us", -2);
    read_fair_server(info);
}

/* Linux is not built with the probe: no manifest of its build here (its
 * release, version and command line are the system's). */
const rts_os_setting *rts_os_config(size_t *count)
{
    *count = 0;
    return NULL;
}

void rts_wallclock(int64_t *sec, long *nsec)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *sec = (int64_t)ts.tv_sec;
    *nsec = ts.tv_nsec;
}

void rts_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got <= 0)
            break;
        p += got;
        n -= (size_t)got;
    }
    if (n > 0) { /* no entropy source: time and pid still make ids distinct */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
        for (size_t i = 0; i < n; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
            p[i] = (unsigned char)(x >> 56);
    }
}
