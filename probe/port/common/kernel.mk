# The user's kernel checkout, as an RTOS port's port.mk takes it (docs/rtos.md):
# included once port.mk has set BUILD and these:
#   KERNEL_VAR       the variable naming the checkout (FREERTOS_KERNEL, THREADX)
#   KERNEL_MISSING   why it cannot be built against ("" when it can: the
#                    Makefile's kernel_missing)
#   KERNEL_CHECKOUT  what the variable must name ("a FreeRTOS-Kernel checkout")
#   KERNEL_PRODUCT   the kernel's name before its version (FreeRTOS-Kernel)
#   KERNEL_VERSION_SH  a shell command printing the checkout's version, run in it
#   <PREFIX>_TESTED, _OLDEST, _OLDEST_WHY, _SOURCES with KERNEL_PREFIX naming PREFIX:
#                    the versions the port was tested with, the oldest it
#                    builds with and what older ones lack, the files and
#                    folders the ports compile from (rtscope kernels reads
#                    these lines of port.mk too)
# It refuses, in one line, a kernel that is missing, inside rtscope's files,
# of no readable version or too old; and sets:
#   KERNEL_DIR       the checkout's real path (a link followed)
#   KERNEL_VERSION   its version
#   KERNEL_DEFINES   what the port records of it (-DRTS_KERNEL_…), and the
#                    run warning of a version the port was not tested with
#   KERNEL_STAMP     a file that changes when the kernel does (another
#                    checkout, commit, or edit): what the kernel's objects
#                    and the probe depend on, so that a build never mixes two
comma := ,
space := $() $()
ifneq ($(KERNEL_MISSING),)
$(error $(KERNEL_MISSING))
endif
KERNEL_DIR := $(realpath $($(KERNEL_VAR)))
# The kernels are the user's: none is built from rtscope's own files, where it could end up committed.
ifneq ($(filter $(realpath $(CURDIR)/..)/%,$(KERNEL_DIR)),)
$(error $(KERNEL_DIR) is inside rtscope's own files ($(realpath $(CURDIR)/..)): the kernels are the user's, kept outside them)
endif

KERNEL_VERSION := $(shell cd '$(KERNEL_DIR)' && $(KERNEL_VERSION_SH))
ifeq ($(KERNEL_VERSION),)
$(error $(KERNEL_DIR): no version in its headers: is it $(KERNEL_CHECKOUT)?)
endif
# A version's first three numbers as one, for ordering, a "+" (a commit after
# that release: FreeRTOS's development) above the release itself: V11.1.0 is
# 110010000, V11.1.0+ is 110010001.
kernel_version_number = $(shell printf '%s\n' '$(1)' | grep -o '[0-9][0-9]*' | head -n 3 | \
                                awk '{ n = n * 1000 + $$1 } END { print n * 10 + $(if $(filter %+,$(1)),1,0) }')
ifeq ($(shell test $(call kernel_version_number,$(KERNEL_VERSION)) -lt $(call kernel_version_number,$($(KERNEL_PREFIX)_OLDEST)) && echo old),old)
$(error $(KERNEL_PRODUCT) $(KERNEL_VERSION) at $(KERNEL_DIR) is too old for the port: it builds with $($(KERNEL_PREFIX)_OLDEST) and later ($($(KERNEL_PREFIX)_OLDEST_WHY)))
endif
KERNEL_TESTED := $(if $(filter $(KERNEL_VERSION),$($(KERNEL_PREFIX)_TESTED)),true,false)

# Which sources: the commit where the checkout is a git one of its own (not a
# folder inside another repository), with whether git sees local changes in
# the files the ports compile; and always the hash of those files,
# sha256sum's line for each, in the C locale's order of their paths, hashed
# (rtscope.targets.kernels computes the same).
KERNEL_FILES := $($(KERNEL_PREFIX)_SOURCES)
KERNEL_COMMIT := $(shell test "$$(git -C '$(KERNEL_DIR)' rev-parse --show-toplevel 2>/dev/null)" = '$(KERNEL_DIR)' && \
                         git -C '$(KERNEL_DIR)' rev-parse HEAD)
KERNEL_MODIFIED := $(if $(KERNEL_COMMIT),$(if $(shell git -C '$(KERNEL_DIR)' status --porcelain -- $(KERNEL_FILES)),true,false))
KERNEL_SOURCES_SHA256 := $(shell cd '$(KERNEL_DIR)' && find $(KERNEL_FILES) -type f -print0 2>/dev/null | \
                                 LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-64)
KERNEL_SOURCE_ID := $(if $(KERNEL_COMMIT),commit $(KERNEL_COMMIT)$(if $(filter true,$(KERNEL_MODIFIED)), modified),sources sha256 $(KERNEL_SOURCES_SHA256))
KERNEL_UNTESTED := $(KERNEL_PRODUCT) $(KERNEL_VERSION) is not a version the port was tested with \
                   ($(subst $(space),$(comma)$(space),$(strip $($(KERNEL_PREFIX)_TESTED)))): it built$(comma) but its figures and checks are untested (docs/rtos.md)
KERNEL_DEFINES := -DRTS_KERNEL_PATH='"$(KERNEL_DIR)"' \
                  -DRTS_KERNEL_COMMIT='"$(or $(KERNEL_COMMIT),none: not a git checkout)"' \
                  -DRTS_KERNEL_SOURCE_ID='"$(KERNEL_SOURCE_ID)"' -DRTS_KERNEL_SOURCES_SHA256='"$(KERNEL_SOURCES_SHA256)"' \
                  -DRTS_KERNEL_TESTED='"$(KERNEL_TESTED)"' $(if $(KERNEL_MODIFIED),-DRTS_KERNEL_MODIFIED='"$(KERNEL_MODIFIED)"') \
                  $(if $(filter false,$(KERNEL_TESTED)),-DRTS_BUILD_WARNING='"$(strip $(KERNEL_UNTESTED))"')

KERNEL_STAMP := $(BUILD)/kernel.id
$(KERNEL_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(KERNEL_DIR) $(KERNEL_VERSION) $(KERNEL_SOURCE_ID) $(KERNEL_SOURCES_SHA256)' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi
