/*
 * The probe's sizes, in one place. Each has two defaults: one fit for a
 * POSIX host, and one for a microcontroller of 64 KiB of RAM, chosen by
 * RTS_MCU_SMALL (make MCU=small; RTS_SIZE(small, big) below). A build
 * overrides any of them with -D, e.g. in a board's board.mk:
 *   BOARD_CPPFLAGS += -DRTS_MAX_CPUS=1 -DRTS_THREAD_STACK_BYTES=16384
 * Everything that is sized by one of these includes this header, so one
 * setting holds for the whole build (the tests check that, build/test_config).
 */
#ifndef RTSCOPE_CONFIG_H
#define RTSCOPE_CONFIG_H

#include <stdint.h>

/* The small build's value, or the default one. */
#ifdef RTS_MCU_SMALL
#define RTS_SIZE(small, big) (small)
#else
#define RTS_SIZE(small, big) (big)
#endif

/* ------------------------------------------------------------ the run */

/* CPUs a run can name (--cpus), and CPU numbers a bench accepts (0 .. RTS_MAX_CPUS-1). */
#ifndef RTS_MAX_CPUS
#define RTS_MAX_CPUS RTS_SIZE(1, 256)
#endif

/* Benches in one run. */
#ifndef RTS_MAX_RUN_BENCHES
#define RTS_MAX_RUN_BENCHES RTS_SIZE(20, 32)
#endif

/* --param assignments in one run, and the longest one (with its NUL). */
#ifndef RTS_MAX_ASSIGNMENTS
#define RTS_MAX_ASSIGNMENTS RTS_SIZE(24, 64)
#endif
#ifndef RTS_ASSIGNMENT_TEXT
#define RTS_ASSIGNMENT_TEXT RTS_SIZE(40, 256)
#endif

/* Warnings kept for the result (later ones are only printed). */
#ifndef RTS_MAX_WARNINGS
#define RTS_MAX_WARNINGS RTS_SIZE(4, 16)
#endif

/* Longest warning, bench error or metric invalid reason, with its NUL
 * (longer ones are cut). */
#ifndef RTS_MESSAGE_TEXT
#define RTS_MESSAGE_TEXT RTS_SIZE(80, 256)
#endif

/* ------------------------------------------------------------ benches */

/* Parameters one bench declares. */
#ifndef RTS_MAX_PARAMS
#define RTS_MAX_PARAMS RTS_SIZE(7, 16)
#endif

/* Longest value of a text parameter (a file name, a command), with its NUL. */
#ifndef RTS_PARAM_TEXT_MAX
#define RTS_PARAM_TEXT_MAX RTS_SIZE(48, 256)
#endif

/* Metrics one bench records: one per CPU for the benches with a measuring
 * thread per CPU (lat.wakeup), and some more. */
#ifndef RTS_MAX_METRICS
#define RTS_MAX_METRICS RTS_SIZE(8, (RTS_MAX_CPUS + 16))
#endif

/* Longest metric id, with its NUL. */
#ifndef RTS_METRIC_ID_MAX
#define RTS_METRIC_ID_MAX 48
#endif

/* Named checks per metric. */
#ifndef RTS_MAX_CHECKS
#define RTS_MAX_CHECKS RTS_SIZE(8, 16)
#endif

/* Labels per metric, and the longest text value of one, with its NUL. */
#ifndef RTS_MAX_LABELS
#define RTS_MAX_LABELS RTS_SIZE(1, 4)
#endif
#ifndef RTS_LABEL_TEXT
#define RTS_LABEL_TEXT RTS_SIZE(8, 32)
#endif

/* Threads of one process of the application workload (app.workload): the
 * study goes to 32. */
#ifndef RTS_MAX_APP_THREADS
#define RTS_MAX_APP_THREADS 64
#endif

/* Memory the application workload may take for its data (every process's
 * operands, every thread's copy and result), refused beyond: under
 * mlockall all of it is made resident before the run, and more than a
 * machine has would stall it there. */
#ifndef RTS_MAX_APP_BYTES
#define RTS_MAX_APP_BYTES (UINT64_C(1) << 30)
#endif

/* Stack of each measuring thread and of the watchdog. Under mlockall every
 * byte of a stack is resident, so this stays far below the 8 MiB default
 * of a POSIX thread. */
#ifndef RTS_THREAD_STACK_BYTES
#define RTS_THREAD_STACK_BYTES RTS_SIZE(1024, (256 * 1024))
#endif

/* Stack of the probe's own first thread on an RTOS (the run, the result's
 * number formatting: newlib's printf of a double is its deepest user).
 * Small: its deepest point in a run of micro, threadmetric and latency
 * (tm.basic's 4 KiB array, and under it newlib's formatting and the
 * allocation of its metric), measured by filling the stack and scanning it
 * at the run's end, was 6,056 bytes on FreeRTOS and 5,988 on ThreadX
 * (docs/rtos.md): 7 KiB leaves each about 1.1 KiB, more than newlib's
 * printf takes (0.6 KiB) should a bench there format a message, as an
 * invalidation does. 6 KiB left FreeRTOS 88 bytes. */
#ifndef RTS_MAIN_STACK_BYTES
#define RTS_MAIN_STACK_BYTES RTS_SIZE(7168, RTS_THREAD_STACK_BYTES)
#endif

/* Stack a measuring thread touches before it measures (when the run asks
 * for stack prefault), so that page faults on it happen before. */
#ifndef RTS_STACK_PREFAULT_BYTES
#define RTS_STACK_PREFAULT_BYTES RTS_SIZE(1024, (64 * 1024))
#endif

/* ------------------------------------------------------------ metrics */

/* The log-linear histogram of every metric (rtscope/stats.h): values below
 * 2^RTS_HIST_SUB_BITS steps are exact, each power of two above is split
 * into 2^RTS_HIST_SUB_BITS buckets, and values of 2^RTS_HIST_MAX_EXP steps
 * and more count as overflow. The defaults (0.78 % wide buckets up to
 * 68.7 s in ns) take 30 KiB per metric; the small build's 3 and 30 take
 * 1.7 KiB (12.5 % buckets up to 1.07 s). */
#ifndef RTS_HIST_SUB_BITS
#define RTS_HIST_SUB_BITS RTS_SIZE(3, 7)
#endif
#ifndef RTS_HIST_MAX_EXP
#define RTS_HIST_MAX_EXP RTS_SIZE(30, 36)
#endif

/* Longest series of a time metric, in windows (8 bytes each): 2^20 is 12
 * days of one-second windows, 8 MiB. */
#ifndef RTS_SERIES_MAX_WINDOWS
#define RTS_SERIES_MAX_WINDOWS RTS_SIZE(64, (UINT64_C(1) << 20))
#endif

/* Back-to-back clock reads whose median is the cost of one read (odd, 8
 * bytes each, allocated while calibrating). */
#ifndef RTS_CALIBRATION_PAIRS
#define RTS_CALIBRATION_PAIRS RTS_SIZE(501, 20001)
#endif

/* Calibration metrics (per period, e.g. tm.basic) whose medians a run
 * keeps after their bench's metrics are written and released, for the
 * ratios of the metrics measured against them (src/result.h). */
#ifndef RTS_MAX_BASELINES
#define RTS_MAX_BASELINES RTS_SIZE(2, 8)
#endif

/* ------------------------------------------------------------ output */

/* Deepest nesting of the JSON writer, and the bytes it gathers before
 * handing them to its output (the result sink, the console). */
#ifndef RTS_JSON_MAX_DEPTH
#define RTS_JSON_MAX_DEPTH 32
#endif
#ifndef RTS_JSON_CHUNK
#define RTS_JSON_CHUNK RTS_SIZE(128, 512)
#endif

/* A line of console or diagnostic text formatted on the stack; a longer
 * one takes the heap for a moment. */
#ifndef RTS_TEXT_LINE
#define RTS_TEXT_LINE RTS_SIZE(96, 256)
#endif

/* What a port records about its system (rts_sysinfo in rtscope/port.h),
 * each with its NUL; longer values are cut. */
#ifndef RTS_SYS_TEXT
#define RTS_SYS_TEXT RTS_SIZE(192, 512) /* kernel version */
#endif
#ifndef RTS_SYS_NAME
#define RTS_SYS_NAME RTS_SIZE(32, 128) /* hostname, kernel release, virtualisation */
#endif
#ifndef RTS_SYS_WORD
#define RTS_SYS_WORD RTS_SIZE(32, 64) /* OS, online CPUs, governor, clocksource */
#endif
#ifndef RTS_SYS_LIST
#define RTS_SYS_LIST RTS_SIZE(64, 256) /* CPU model, isolated CPUs */
#endif
#ifndef RTS_SYS_CMDLINE
#define RTS_SYS_CMDLINE RTS_SIZE(64, 2048) /* kernel command line */
#endif

/* ------------------------------------------------------------ checks */

_Static_assert(RTS_MAX_CPUS >= 1 && RTS_MAX_RUN_BENCHES >= 1 && RTS_MAX_METRICS >= 1, "at least one of each");
_Static_assert(RTS_MAX_LABELS >= 1, "per-CPU metrics carry a cpu label");
_Static_assert(RTS_HIST_SUB_BITS >= 1 && RTS_HIST_SUB_BITS < RTS_HIST_MAX_EXP && RTS_HIST_MAX_EXP <= 63,
               "histogram: 1 <= RTS_HIST_SUB_BITS < RTS_HIST_MAX_EXP <= 63");
_Static_assert(RTS_CALIBRATION_PAIRS % 2 == 1, "an odd number of calibration pairs has one median");
_Static_assert(RTS_JSON_CHUNK >= 64 && RTS_TEXT_LINE >= 64, "output buffers of at least 64 bytes");
_Static_assert(RTS_PARAM_TEXT_MAX >= 16, "a text parameter holds at least a word such as c-timerfd");
_Static_assert(RTS_METRIC_ID_MAX >= 16 && RTS_MESSAGE_TEXT >= 64 && RTS_LABEL_TEXT >= 2, "room for text");

#endif
