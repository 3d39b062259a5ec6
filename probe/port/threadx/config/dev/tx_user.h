/*
 * ThreadX's development configuration for rtscope (make CONFIG=dev, the
 * default): the kernel checks every service call's arguments and caller
 * (its _txe_ layer), and each thread's stack is filled with a pattern at
 * creation and checked at each suspension and resumption (an overflow ends
 * the run through the board's board_fatal).
 */
#ifndef RTSCOPE_TX_USER_H
#define RTSCOPE_TX_USER_H

#include "../../tx_user_common.h"

#define RTS_OS_CONFIG_NAME "dev"

#define TX_ENABLE_STACK_CHECKING

#endif
