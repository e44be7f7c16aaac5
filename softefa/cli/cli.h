/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The softefa command line: its commands and what they share, the run
 * directory they act on (command.c) and the control requests to its
 * softefad (control.c).  It includes only common/ and the daemon's
 * protocol and profile headers, never the daemon's code.
 */
#ifndef SEFA_SOFTEFA_CLI_CLI_H
#define SEFA_SOFTEFA_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rundir.h"

/*
 * The private ABI of the libibverbs we were built against, which names the
 * plugins it loads: ours and the stock one are for that libibverbs.
 */
#ifndef SOFTEFA_PABI
#define SOFTEFA_PABI "34"
#endif

/*
 * How long stop and start wait for softefad to go or come, and a command
 * for its answer: a loaded or flooded machine is slow.
 */
#define DAEMON_WAIT_MS 60000
#define CONTROL_WAIT_S 30

/* Where run_dir came from, for the hint when no host is there. */
enum run_dir_source {
	RUN_DIR_DEFAULT,
	RUN_DIR_ENV,
	RUN_DIR_OPTION,
};

extern char run_dir[SEFA_RUN_DIR_MAX + 1];
extern enum run_dir_source run_dir_from;

/*
 * A command: what follows its name in its usage (with its leading space),
 * and what it does.
 */
struct command {
	const char *name;
	const char *args;
	const char *what;
	int (*run)(const struct command *cmd, int argc, char **argv);
};

/* command.c */
int command_help(const struct command *cmd);
int __attribute__((format(printf, 2, 3)))
command_refuse(const struct command *cmd, const char *fmt, ...);
void command_getopt_init(const struct command *cmd, char **argv);
int plain_args(const struct command *cmd, int argc, char **argv);
int find_run_dir(bool own);
int self_dir(char *buf, size_t len);
void run_path(const char *name, char *buf, size_t len);
int take_run_dir(int *argc, char **argv);

/* control.c */
const char *daemon_name(pid_t pid);
void no_daemon(int err);
char *control(uint32_t what);
int control_text(uint32_t what, uint64_t addr, const char *payload,
		 char **text);

/* inject.c */
int cmd_inject(const struct command *cmd, int argc, char **argv);

/* exec.c */
int cmd_exec(const struct command *cmd, int argc, char **argv);

#endif
