/*
 * How an RTOS port's image was built, for its configuration manifest
 * (rts_os_config: "compiler" and "cflags"): the compiler that compiled this
 * file, and the flags the port's port.mk passes as RTS_BUILD_FLAGS (empty
 * when a build passes none).
 */
#ifndef RTSCOPE_BUILD_INFO_H
#define RTSCOPE_BUILD_INFO_H

#ifndef RTS_BUILD_FLAGS
#define RTS_BUILD_FLAGS ""
#endif
#if defined(__clang__)
#define RTS_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define RTS_COMPILER "gcc " __VERSION__
#else
#define RTS_COMPILER "an unknown compiler"
#endif

#endif
