/*
 * POSIX port: what the result records about the system (Linux files where
 * present; anything missing stays "unknown" rather than guessed).
 */
#define _GNU_SOURCE
#include "rtscope/port.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
        bool starts = p == list || p[-1] == ' ';
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

/* Preemption model: PREEMPT_RT from uname or /sys/kernel/realtime; for a
 * PREEMPT_DYNAMIC kernel the mode in use is in debugfs when mounted. */
static void read_preempt_model(rts_sysinfo *info)
{
    char mode[128];
    const char *v = info->kernel_version;
    const char *model = "unknown";
    if (info->realtime_kernel == 1 || strstr(v, "PREEMPT_RT"))
        model = "rt";
    else if (read_line("/sys/kernel/debug/sched/preempt", mode, sizeof mode)) {
        /* The active mode is the one in parentheses: "none (voluntary) full". */
        static const char *const modes[] = { "none", "voluntary", "full", "lazy" };
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            char want[32];
            snprintf(want, sizeof want, "(%s)", modes[i]);
            if (strstr(mode, want))
                model = modes[i];
        }
    } else if (strstr(v, "PREEMPT_DYNAMIC"))
        model = "dynamic";
    else if (strstr(v, "PREEMPT_LAZY"))
        model = "lazy";
    else if (strstr(v, "PREEMPT "))
        model = "full";
    else if (strstr(v, "SMP") || v[0])
        model = "none"; /* a uname without PREEMPT: voluntary or none, reported as none */
    copy_text(info->preempt_model, sizeof info->preempt_model, model);
}

static void read_virtualization(rts_sysinfo *info)
{
    char buf[4096];
    char vendor[128] = "";
    bool hypervisor = cpuinfo_field("flags", buf, sizeof buf) && has_word(buf, "hypervisor");
    read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
    bool container = access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0;
    if (!hypervisor && !container) {
        snprintf(info->virtualization, sizeof info->virtualization, "none");
        return;
    }
    char text[sizeof vendor + 32]; /* room for it all: cut below, to the size configured */
    snprintf(text, sizeof text, "%s%s%s%s%s", hypervisor ? "vm" : "", hypervisor && vendor[0] ? " (" : "",
             hypervisor ? vendor : "", hypervisor && vendor[0] ? ")" : "",
             container ? (hypervisor ? ", container" : "container") : "");
    copy_text(info->virtualization, sizeof info->virtualization, text);
}

void rts_sysinfo_read(rts_sysinfo *info)
{
    memset(info, 0, sizeof *info);
    struct utsname u;
    if (uname(&u) == 0) {
        copy_text(info->os, sizeof info->os, u.sysname);
        copy_text(info->hostname, sizeof info->hostname, u.nodename);
        copy_text(info->kernel_release, sizeof info->kernel_release, u.release);
        copy_text(info->kernel_version, sizeof info->kernel_version, u.version);
        copy_text(info->arch, sizeof info->arch, u.machine);
    }
    long long rt = read_ll("/sys/kernel/realtime", -1);
    info->realtime_kernel = rt < 0 ? (strcmp(info->os, "Linux") == 0 ? 0 : -1) : (rt != 0);
    read_preempt_model(info);
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
    read_virtualization(info);
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
