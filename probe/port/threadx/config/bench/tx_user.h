/*
 * ThreadX's benchmark configuration for rtscope (make CONFIG=bench), the
 * one a published Thread-Metric figure is measured in: no argument or
 * caller checking (TX_DISABLE_ERROR_CHECKING: the services are called
 * straight, not through the _txe_ layer), no stack filling or checking,
 * no notify callbacks, no event trace; the switch count (the kernel's own
 * run count) is still kept.
 */
#ifndef RTSCOPE_TX_USER_H
#define RTSCOPE_TX_USER_H

#include "../../tx_user_common.h"

#define RTS_OS_CONFIG_NAME "bench"

#define TX_DISABLE_ERROR_CHECKING
#define TX_DISABLE_STACK_FILLING
#undef TX_ENABLE_STACK_CHECKING
#define TX_DISABLE_NOTIFY_CALLBACKS

#endif
