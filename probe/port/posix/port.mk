# Build settings of the POSIX port, included by probe/Makefile.
PORT_CPPFLAGS := -D_POSIX_C_SOURCE=200809L
PORT_LDLIBS   := -lpthread
# The status names, the block pool (its lock pool_lock.h) and the image sizes (port/common/).
PORT_SRC      := port/common/status.c port/common/pool.c port/common/image.c
