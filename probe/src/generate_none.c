/*
 * rtscope-probe generate in an RTOS's build: the generator is a process
 * that wave.square starts beside its observer (generate.c), and an RTOS
 * starts no processes, so its 1.1 KiB of code and its models' table would
 * only take flash (the microcontroller build's 128 KiB has none to spare).
 * The command stays, and says so in one line.
 */
#include <stdio.h>

#include "generate.h"

int rts_generate_main(int argc, char **argv, char *why, size_t whysize)
{
    (void)argc, (void)argv;
    snprintf(why, whysize, "not in this build: an RTOS starts no generator process");
    return 1;
}
