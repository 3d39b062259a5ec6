/*
 * How an RTOS port's image was built, for its configuration manifest
 * (rts_os_config: "compiler" and "cflags"): the compiler that compiled this
 * file, and the flags the port's port.mk passes as RTS_BUILD_FLAGS (empty
 * when a build passes none). And which kernel sources it was built from:
 * what port/common/kernel.mk finds in the user's checkout and defines
 * (RTS_KERNEL_*; "unknown" in a build without them).
 */
#ifndef RTSCOPE_BUILD_INFO_H
#define RTSCOPE_BUILD_INFO_H

#ifndef RTS_BUILD_FLAGS
#define RTS_BUILD_FLAGS ""
#endif
#ifndef RTS_KERNEL_PATH
#define RTS_KERNEL_PATH "unknown"
#endif
#ifndef RTS_KERNEL_COMMIT
#define RTS_KERNEL_COMMIT "unknown"
#endif
#ifndef RTS_KERNEL_SOURCE_ID
#define RTS_KERNEL_SOURCE_ID "commit unknown"
#endif
#ifndef RTS_KERNEL_SOURCES_SHA256
#define RTS_KERNEL_SOURCES_SHA256 "unknown"
#endif
#ifndef RTS_KERNEL_TESTED
#define RTS_KERNEL_TESTED "false"
#endif
/* Whether the compiled files differ from the commit: only a git checkout says. */
#ifdef RTS_KERNEL_MODIFIED
#define RTS_KERNEL_MODIFIED_SETTING { "kernel_modified", RTS_KERNEL_MODIFIED },
#else
#define RTS_KERNEL_MODIFIED_SETTING
#endif

/* The manifest's settings that say where the kernel came from, in rts_os_setting's
 * initialiser form: its commit (with whether the compiled files were modified),
 * the hash of the files the port compiles from, the checkout's absolute path, and
 * whether the port was tested with its version. */
#define RTS_KERNEL_SOURCE_SETTINGS                                                                                     \
    { "kernel_commit", RTS_KERNEL_COMMIT }, RTS_KERNEL_MODIFIED_SETTING                                                \
    { "kernel_sources_sha256", RTS_KERNEL_SOURCES_SHA256 }, { "kernel_path", RTS_KERNEL_PATH },                        \
    { "kernel_tested", RTS_KERNEL_TESTED }

#if defined(__clang__)
#define RTS_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define RTS_COMPILER "gcc " __VERSION__
#else
#define RTS_COMPILER "an unknown compiler"
#endif

#endif
