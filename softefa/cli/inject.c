// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefa inject: the fault rules of a running host, added, listed and
 * cleared.  The daemon parses and checks a rule; a refused one is a bad
 * command line here (exit 2), with the daemon's reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The longest rule softefad takes from a control request. */
#define RULE_MAX	1024

static int answer(const struct command *cmd, int err, char *text)
{
	if (err && !text) {
		no_daemon(err);
		return 1;
	}
	if (err) {
		fprintf(stderr, "softefa %s: %s", cmd->name, text);
		free(text);
		return err == EINVAL || err == ENOENT ? 2 : 1;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}

static int inject_add(const struct command *cmd, int argc, char **argv)
{
	char rule[RULE_MAX + 1], *text;
	size_t off = 0;
	int i, err;

	if (argc < 1)
		return command_refuse(cmd, "add needs a rule");
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (off + n + 1 > sizeof(rule))
			return command_refuse(cmd, "a rule is at most %d characters",
					      RULE_MAX);
		if (off)
			rule[off++] = ' ';
		memcpy(rule + off, argv[i], n);
		off += n;
	}
	rule[off] = '\0';
	err = control_text(SEFA_CTL_INJECT_ADD, 0, rule, &text);
	return answer(cmd, err, text);
}

static int inject_clear(const struct command *cmd, int argc, char **argv)
{
	unsigned long id = 0;
	char *end, *text;
	int err;

	if (argc > 1)
		return command_refuse(cmd, "unexpected argument '%s'", argv[1]);
	if (argc == 1 && strcmp(argv[0], "all")) {
		errno = 0;
		id = strtoul(argv[0], &end, 10);
		if (errno || *end || !id || argv[0][0] < '0' ||
		    argv[0][0] > '9' || id > UINT32_MAX)
			return command_refuse(cmd,
					      "clear takes a rule id (from 1) or all, not '%s'",
					      argv[0]);
	}
	err = control_text(SEFA_CTL_INJECT_CLEAR, id, NULL, &text);
	return answer(cmd, err, text);
}

int cmd_inject(const struct command *cmd, int argc, char **argv)
{
	char *text;
	int ret;

	if (argc < 2)
		return command_refuse(cmd, "add, list or clear?");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return command_help(cmd);
	if (strcmp(argv[1], "add") && strcmp(argv[1], "list") &&
	    strcmp(argv[1], "clear"))
		return command_refuse(cmd, "unknown subcommand '%s'", argv[1]);
	if (!strcmp(argv[1], "list") && argc > 2)
		return command_refuse(cmd, "unexpected argument '%s'", argv[2]);
	ret = find_run_dir(false);
	if (ret)
		return ret;
	if (!strcmp(argv[1], "add"))
		return inject_add(cmd, argc - 2, argv + 2);
	if (!strcmp(argv[1], "clear"))
		return inject_clear(cmd, argc - 2, argv + 2);
	ret = control_text(SEFA_CTL_INJECT_LIST, 0, NULL, &text);
	return answer(cmd, ret, text);
}
