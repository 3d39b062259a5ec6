# Build settings of the POSIX port, included by probe/Makefile.
PORT_CPPFLAGS := -D_POSIX_C_SOURCE=200809L
PORT_LDLIBS   := -lpthread
# The status names every port shares (port/common/).
PORT_SRC      := port/common/status.c
