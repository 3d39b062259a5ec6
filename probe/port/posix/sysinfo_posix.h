/*
 * The POSIX port's rules for what a Linux system is: its preemption model and
 * its virtualisation, judged from the texts the kernel shows. The only place
 * rtscope classifies them: every result's "system" and rtscope doctor (which
 * asks the probe: rtscope-probe system) both come from here.
 */
#ifndef RTSCOPE_POSIX_SYSINFO_H
#define RTSCOPE_POSIX_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

/* What the rules read, as the files hold it; NULL where a file is missing
 * or cannot be read. */
typedef struct {
    const char *uname_version; /* uname -v: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-05)" */
    const char *realtime;      /* /sys/kernel/realtime: "1" (PREEMPT_RT kernels only have it) */
    const char *preempt;       /* /sys/kernel/debug/sched/preempt: "none (voluntary) full" */
    const char *cpu_flags;     /* the first "flags" line of /proc/cpuinfo, after its colon (x86) */
    const char *dmi_vendor;    /* /sys/class/dmi/id/sys_vendor: "QEMU" */
    const char *dt_hypervisor; /* /proc/device-tree/hypervisor/compatible: "xen,xen" */
    bool dt_present;           /* the firmware handed the kernel a device tree */
    bool dt_fw_cfg;            /* it has a QEMU fw-cfg node (QEMU's arm "virt" machine) */
    bool container;            /* /.dockerenv or /run/.containerenv is there */
} rts_posix_system_texts;

/* The preemption model t shows, as the result's system.preempt_model:
 * "rt" (PREEMPT_RT: a "1" in /sys/kernel/realtime, or the word PREEMPT_RT in
 * uname -v); else the mode in use of a PREEMPT_DYNAMIC kernel as debugfs
 * shows it ("none", "voluntary", "full", "lazy"); else by the words of
 * uname -v: PREEMPT_DYNAMIC "dynamic" (mode not readable), PREEMPT_LAZY
 * "lazy", PREEMPT "full", none of them "none" (voluntary and none are not
 * told apart there); "unknown" without uname -v. Words, not substrings:
 * "PREEMPT" is not "PREEMPT_RT", wherever it stands. */
const char *rts_posix_preempt_model(const rts_posix_system_texts *t);

/* The virtualisation t shows, into out (size bytes, cut to fit), as the
 * result's system.virtualization: "vm" when the CPU's hypervisor flag, a
 * virtual machine's DMI vendor (QEMU, KVM, VMware, VirtualBox, Xen,
 * Parallels, bhyve) or the device tree's hypervisor node or QEMU fw-cfg
 * node says so, with who in parentheses where known ("vm (QEMU)"); then
 * "container" (", container" after a vm). "none" when nothing says so and
 * something could have (a flags line, a DMI vendor or a device tree); ""
 * (unknown) when nothing could. */
void rts_posix_virtualization(const rts_posix_system_texts *t, char *out, size_t size);

#endif
