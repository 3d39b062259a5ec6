/* Every RTOS port on a board (boards/board.h): the one call of the porting
 * layer that is the board's alone and that Thread-Metric's tests make in
 * their measured loops, inline where the board's is (BOARD_SOFT_IRQ_INLINE:
 * board_soft_irq.h), as the suite raises its own (TM_CAUSE_INTERRUPT, a
 * macro). The ports' rts_soft_irq_raise is the board's board_soft_irq_raise,
 * which is this; thread_metric.h includes the header. */
#ifndef RTSCOPE_PORT_INLINE_H
#define RTSCOPE_PORT_INLINE_H

#ifdef BOARD_SOFT_IRQ_INLINE
#include "board_soft_irq.h"
#include "rtscope/port.h"

static inline rts_status rts_soft_irq_raise_inline(void)
{
    board_soft_irq_pend();
    return RTS_OK;
}
#define rts_soft_irq_raise() rts_soft_irq_raise_inline()
#endif

#endif
