# Build settings of the template port: a cross compiler and the RTOS's
# include paths and libraries go here, e.g. for FreeRTOS
#   CC := arm-none-eabi-gcc
#   PORT_CPPFLAGS := -I$(FREERTOS)/include -I$(FREERTOS)/portable/GCC/ARM_CM4F
PORT_CPPFLAGS :=
PORT_LDLIBS   :=
