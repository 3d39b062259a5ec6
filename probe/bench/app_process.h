/* The probe as one process of app.workload: rtscope-probe app-process (app_process.c). */
#ifndef RTSCOPE_APP_PROCESS_H
#define RTSCOPE_APP_PROCESS_H

/* rtscope-probe app-process REGION GROUP: run group GROUP's threads on the
 * shared region at path REGION (app_worker.h) until it says stop. Returns
 * the exit status: 0, or 1 after one line on diagnostics. Started by
 * app.workload, not by people: `rtscope-probe help` does not name it. */
int rts_app_process_main(int argc, char **argv);

/* The subcommand (the bench's process_command). */
#define APP_PROCESS_COMMAND "app-process"

#endif
