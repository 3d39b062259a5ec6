/*
 * The POSIX port's rules for a Linux system's preemption model and
 * virtualisation (port/posix/sysinfo_posix.h), fed the texts real kernels
 * and machines show: Debian's stock and rt kernels for amd64 and arm64,
 * x86 and arm64 virtual machines, containers, boards.
 */
#include <string.h>

#include "check.h"
#include "sysinfo_posix.h"

/* What Debian 12's kernels write in uname -v, as rtscope's QEMU guests boot them (6.1.0-56). */
#define STOCK_AMD64 "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-2 (2026-11-16)"
#define STOCK_ARM64 "#1 SMP Debian 6.1.192-2 (2026-11-16)"
#define RT "#1 SMP PREEMPT_RT Debian 6.1.192-2 (2026-11-16)"

static void expect_model(const rts_posix_system_texts *t, const char *want)
{
    const char *got = rts_posix_preempt_model(t);
    CHECK(strcmp(got, want) == 0, "uname -v '%s', realtime %s, debugfs '%s': %s, not %s",
          t->uname_version ? t->uname_version : "(none)", t->realtime ? t->realtime : "(none)",
          t->preempt ? t->preempt : "(none)", got, want);
}

static void test_preempt_model(void)
{
    /* PREEMPT_RT, by /sys/kernel/realtime or by uname -v alone (also the RT patch's older "PREEMPT RT"). */
    expect_model(&(rts_posix_system_texts){ .uname_version = RT, .realtime = "1" }, "rt");
    expect_model(&(rts_posix_system_texts){ .uname_version = RT }, "rt");
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_ARM64, .realtime = "1" }, "rt");
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 SMP PREEMPT RT Debian 4.19.67-2" }, "rt");
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_ARM64, .realtime = "0" }, "none");
    /* A PREEMPT_DYNAMIC kernel: the mode in use where debugfs shows it, else "dynamic". */
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_AMD64 }, "dynamic");
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_AMD64, .preempt = "none (voluntary) full" },
                 "voluntary");
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_AMD64, .preempt = "none voluntary (full)" },
                 "full");
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_AMD64, .preempt = "(none) voluntary full" },
                 "none");
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 SMP PREEMPT_DYNAMIC",
                                            .preempt = "none voluntary full (lazy)" },
                 "lazy");
    /* A mode this rule does not know: uname -v still tells what it can. */
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_AMD64, .preempt = "(rt-lazy)" }, "dynamic");
    /* Fixed models, by whole words of uname -v wherever they stand. */
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 SMP PREEMPT Thu Jan  1 00:00:00 UTC 2026" },
                 "full");
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 SMP PREEMPT" }, "full");
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 PREEMPT" }, "full");
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 SMP PREEMPT_LAZY Debian 6.12.48-1" }, "lazy");
    expect_model(&(rts_posix_system_texts){ .uname_version = "#1 SMP PREEMPTIBLE" }, "none");
    expect_model(&(rts_posix_system_texts){ .uname_version = STOCK_ARM64 }, "none");
    expect_model(&(rts_posix_system_texts){ .uname_version = "" }, "unknown");
    expect_model(&(rts_posix_system_texts){ 0 }, "unknown");
}

static void expect_virt(const rts_posix_system_texts *t, const char *want)
{
    char got[64];
    rts_posix_virtualization(t, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "flags %s, DMI vendor '%s', device tree %d (hypervisor '%s', fw-cfg %d), "
          "container %d: '%s', not '%s'",
          t->cpu_flags ? "read" : "(none)", t->dmi_vendor ? t->dmi_vendor : "(none)", t->dt_present,
          t->dt_hypervisor ? t->dt_hypervisor : "(none)", t->dt_fw_cfg, t->container, got, want);
}

static void test_virtualization(void)
{
    const char *x86 = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr constant_tsc rep_good nopl";
    const char *x86_vm = "fpu vme de pse tsc msr pae constant_tsc hypervisor lahf_lm abm";
    /* x86: the CPU's hypervisor flag, with the DMI vendor saying whose. */
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86_vm, .dmi_vendor = "QEMU" }, "vm (QEMU)");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86_vm }, "vm");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86_vm, .dmi_vendor = "Microsoft Corporation" },
                "vm (Microsoft Corporation)");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86, .dmi_vendor = "Dell Inc." }, "none");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86 }, "none");
    /* arm64 has no hypervisor flag: a VM's DMI vendor (UEFI boot) or its device tree says it. */
    expect_virt(&(rts_posix_system_texts){ .dmi_vendor = "QEMU" }, "vm (QEMU)");
    expect_virt(&(rts_posix_system_texts){ .dmi_vendor = "innotek GmbH" }, "vm (innotek GmbH)");
    expect_virt(&(rts_posix_system_texts){ .dt_present = true, .dt_fw_cfg = true }, "vm (QEMU)");
    expect_virt(&(rts_posix_system_texts){ .dt_present = true, .dt_hypervisor = "xen,xen" }, "vm (xen,xen)");
    expect_virt(&(rts_posix_system_texts){ .dmi_vendor = "Ampere(R)" }, "none");
    expect_virt(&(rts_posix_system_texts){ .dt_present = true }, "none");
    /* Nothing that could tell: unknown, not "none". */
    expect_virt(&(rts_posix_system_texts){ 0 }, "");
    expect_virt(&(rts_posix_system_texts){ .dmi_vendor = "" }, "");
    /* Containers, alone and in a VM. */
    expect_virt(&(rts_posix_system_texts){ .container = true }, "container");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86, .container = true }, "container");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86_vm, .container = true }, "vm, container");
    expect_virt(&(rts_posix_system_texts){ .cpu_flags = x86_vm, .dmi_vendor = "QEMU", .container = true },
                "vm (QEMU), container");
    /* Cut to the room given, never overrun. */
    char small[8];
    rts_posix_virtualization(&(rts_posix_system_texts){ .cpu_flags = x86_vm, .dmi_vendor = "QEMU" }, small,
                             sizeof small);
    CHECK(strcmp(small, "vm (QEM") == 0, "cut to 7 characters: '%s'", small);
}

int main(void)
{
    test_preempt_model();
    test_virtualization();
    return check_report("test_sysinfo_posix");
}
