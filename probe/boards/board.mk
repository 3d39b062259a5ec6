# The board layer, included by an RTOS port's port.mk once it has checked
# that it knows BOARD (port/PORT/boards/$(BOARD)/). Every board is a folder
# boards/NAME/ whose board.mk sets:
#   BOARD_CC, BOARD_CFLAGS    its compiler and the flags of its CPU (compile and link)
#   BOARD_CPPFLAGS            its defines (C library features, rtscope's sizes)
#   BOARD_LDFLAGS             its link flags (linker script, C library specs …)
#   BOARD_SRC                 its sources (board.c, startup …), compiled with the probe
# The port's folder for the board (PORT_BOARD_DIR) comes first in the
# include path, so that the board finds the kernel's settings it asks for
# (board_kernel.h).
BOARD_DIR := boards/$(BOARD)
ifeq ($(wildcard $(BOARD_DIR)/board.mk),)
$(error no board '$(BOARD)' in probe/boards/ (the boards are: $(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk))))
endif
include $(BOARD_DIR)/board.mk
BOARD_INCLUDES := -I$(PORT_BOARD_DIR) -I$(BOARD_DIR) -Iboards
