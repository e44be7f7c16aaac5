// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What softefa's commands share: their --help and refusals, their own
 * options, and the run directory they act on.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "profile.h"

char run_dir[SEFA_RUN_DIR_MAX + 1];
enum run_dir_source run_dir_from;

/* softefa COMMAND --help */
int command_help(const struct command *cmd)
{
	printf("usage: softefa [--run-dir DIR] %s%s\n%s\n", cmd->name,
	       cmd->args, cmd->what);
	/* start --help: which profiles --profile takes */
	if (!strcmp(cmd->name, "start"))
		sefa_profiles_print(stdout);
	return 0;
}

/* A command line refused before anything was done: why, then the usage. */
int __attribute__((format(printf, 2, 3)))
command_refuse(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "softefa %s: ", cmd->name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "usage: softefa [--run-dir DIR] %s%s\n", cmd->name,
		cmd->args);
	return 2;
}

/*
 * Before getopt_long over a command's own arguments (argv[0] is its name):
 * getopt names the program by argv[0] in what it says of a bad option.
 */
void command_getopt_init(const struct command *cmd, char **argv)
{
	static char prog[32];

	snprintf(prog, sizeof(prog), "softefa %s", cmd->name);
	argv[0] = prog;
	optind = 1;
}

/*
 * The arguments of a command that takes none but --help.  Returns -1 to go
 * on, else the exit status.
 */
int plain_args(const struct command *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	command_getopt_init(cmd, argv);
	c = getopt_long(argc, argv, "+h", opts, NULL);
	if (c != -1)
		return c == 'h' ? command_help(cmd) : command_refuse(cmd, NULL);
	if (optind < argc)
		return command_refuse(cmd, "unexpected argument '%s'",
				      argv[optind]);
	return -1;
}

/*
 * The run directory, unless --run-dir gave it: a user starts a host of its
 * own (@own), and finds one to use.  0, or the exit status 2.
 */
int find_run_dir(bool own)
{
	const char *env = getenv(SEFA_RUN_DIR_ENV);

	if (run_dir_from == RUN_DIR_OPTION)
		return 0;
	run_dir_from = env && *env ? RUN_DIR_ENV : RUN_DIR_DEFAULT;
	if (own ? sefa_run_dir_own(run_dir, sizeof(run_dir)) :
		  sefa_run_dir(run_dir, sizeof(run_dir))) {
		fprintf(stderr,
			"softefa: run directory longer than %d characters\n",
			SEFA_RUN_DIR_MAX);
		return 2;
	}
	return 0;
}

/* Directory of this executable, to find softefad and the libraries. */
int self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return 0;
}

/* <run dir>/<name>; sefa_run_dir*() bounded the directory's length. */
void run_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s/%s", SEFA_RUN_DIR_MAX, run_dir, name);
}

/*
 * --run-dir DIR may stand before or after the command (but not inside the
 * program line of exec): take it out of argv.
 */
int take_run_dir(int *argc, char **argv)
{
	int i, j;

	for (i = 1; i < *argc && strcmp(argv[i], "--"); i++) {
		const char *dir;
		int used;

		if (!strcmp(argv[i], "--run-dir")) {
			dir = i + 1 < *argc ? argv[i + 1] : NULL;
			used = 2;
		} else if (!strncmp(argv[i], "--run-dir=", 10)) {
			dir = argv[i] + 10;
			used = 1;
		} else {
			continue;
		}
		if (!dir || sefa_run_dir_set(run_dir, sizeof(run_dir), dir)) {
			fprintf(stderr,
				"softefa: --run-dir needs a directory of at most %d characters\n",
				SEFA_RUN_DIR_MAX);
			return -1;
		}
		run_dir_from = RUN_DIR_OPTION;
		for (j = i; j + used <= *argc; j++)
			argv[j] = argv[j + used];
		*argc -= used;
		i--;
	}
	return 0;
}
