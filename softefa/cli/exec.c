// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefa exec: a program run on the host, with the shim and a provider
 * preloaded and the environment pointing at the run directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hoststate.h"

#ifndef SOFTEFA_INSTALL_LIBDIR
#define SOFTEFA_INSTALL_LIBDIR "/usr/lib"
#endif
/* From the installed softefa to the installed libraries, e.g. "../lib". */
#ifndef SOFTEFA_BIN_TO_LIBDIR
#define SOFTEFA_BIN_TO_LIBDIR "../lib"
#endif
/*
 * libibverbs' provider directory, where the stock plugin is, or where our
 * Debian package has diverted it to when ours is installed in its place.
 */
#ifndef SOFTEFA_PROVIDER_DIR
#define SOFTEFA_PROVIDER_DIR "/usr/lib/libibverbs"
#endif
#define SOFTEFA_PLUGIN "libefa-rdmav" SOFTEFA_PABI ".so"
#define SOFTEFA_STOCK_PLUGIN SOFTEFA_PROVIDER_DIR "/" SOFTEFA_PLUGIN
#define SOFTEFA_DIVERTED_PLUGIN                                                \
	SOFTEFA_PROVIDER_DIR "/libefa-stock-rdmav" SOFTEFA_PABI ".so"

/*
 * One of our libraries: lib/NAME beside bin/ in the build tree, else
 * INSTALLED below the library directory of the installation this program
 * belongs to (found from where it runs, so that a copy installed into a
 * DESTDIR uses its own libraries), else below the configured one.
 */
static int find_lib(const char *name, const char *installed, char *buf,
		    size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX], *slash;
	bool have_dir = !self_dir(dir, sizeof(dir));

	if (have_dir &&
	    snprintf(buf, len, "%s/../lib/%s", dir, name) < (int)len &&
	    !access(buf, R_OK))
		goto found;
	if (have_dir &&
	    snprintf(buf, len, "%s/" SOFTEFA_BIN_TO_LIBDIR "/%s", dir,
		     installed) < (int)len &&
	    !access(buf, R_OK))
		goto found;
	if (snprintf(buf, len, "%s/%s", SOFTEFA_INSTALL_LIBDIR, installed) <
		    (int)len && !access(buf, R_OK))
		goto found;
	return -1;

found:
	/* Without "bin/..": the environment of exec shows where it is. */
	slash = strrchr(buf, '/');
	*slash = 0;
	if (!realpath(buf, real) ||
	    snprintf(dir, sizeof(dir), "%s/%s", real, slash + 1) >=
		    (int)sizeof(dir) ||
	    strlen(dir) >= len)
		return -1;
	strcpy(buf, dir);
	return 0;
}

/* Whether the file name of PATH starts with PREFIX. */
static bool base_starts(const char *path, const char *prefix)
{
	const char *slash = strrchr(path, '/');

	return !strncmp(slash ? slash + 1 : path, prefix, strlen(prefix));
}

/*
 * LD_PRELOAD of exec: the shim, the provider's libefa.so.1, then what the
 * caller preloads but another shim or libefa (an outer exec's).  The loader
 * binds the program's libefa.so.1 to the preloaded one by its soname, and
 * its constructor registers the provider before libibverbs looks for
 * devices, so libibverbs never loads a plugin for them: one libefa per
 * process, whatever the program links and /etc/libibverbs.d names.
 */
static int set_preload(const char *shim, const char *libefa)
{
	const char *old = getenv("LD_PRELOAD");
	char *v, *list, *tok, *save;
	size_t len = strlen(shim) + strlen(libefa) + 2;
	int ret;

	list = strdup(old ? old : "");
	v = malloc(len + strlen(list) + 1);
	if (!list || !v) {
		free(list);
		free(v);
		return -1;
	}
	snprintf(v, len, "%s:%s", shim, libefa);
	for (tok = strtok_r(list, ": ", &save); tok;
	     tok = strtok_r(NULL, ": ", &save)) {
		if (base_starts(tok, "libsoftefa-preload.so") ||
		    base_starts(tok, "libefa.so"))
			continue;
		strcat(v, ":");
		strcat(v, tok);
	}
	ret = setenv("LD_PRELOAD", v, 1);
	free(list);
	free(v);
	return ret;
}

/*
 * --provider PATH: a shared library that exists, resolved, or why not.  A
 * file the loader cannot preload it would skip with a warning, and the
 * program would run on whatever provider libibverbs found instead.
 */
static int provider_path(const char *path, char *real)
{
	static const char elf[4] = { 0x7f, 'E', 'L', 'F' };
	char magic[4];
	ssize_t n;
	int fd;

	if (!realpath(path, real))
		return errno;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n != sizeof(magic) || memcmp(magic, elf, sizeof(magic)))
		return ENOEXEC;
	return 0;
}

int cmd_exec(const struct command *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "provider", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	char preload[PATH_MAX], provider[PATH_MAX], sys[PATH_MAX + 8];
	char libefa[PATH_MAX];
	const char *choice = "ours";
	char *text;
	int c;

	command_getopt_init(cmd, argv);
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h')
			return command_help(cmd);
		if (c != 'P')
			return command_refuse(cmd, NULL);
		choice = optarg;
		/* a path has a slash: ./libefa.so.1, not a file named ours */
		if (strchr(choice, '/')) {
			c = provider_path(choice, libefa);
			if (c)
				return command_refuse(cmd, "provider %s: %s",
						      choice,
						      c == ENOEXEC ?
							"not a shared library" :
							strerror(c));
		} else if (strcmp(choice, "ours") && strcmp(choice, "stock")) {
			return command_refuse(cmd,
					      "unknown provider '%s': ours, stock or a path to a provider library",
					      choice);
		}
	}
	if (optind >= argc)
		return command_refuse(cmd, "no program to run");
	c = find_run_dir(false);
	if (c)
		return c;

	text = control(SEFA_CTL_STATUS);
	if (!text) {
		no_daemon(errno);
		return 1;
	}
	free(text);

	if (find_lib("libsoftefa-preload.so", "softefa/libsoftefa-preload.so",
		     preload, sizeof(preload))) {
		fprintf(stderr, "softefa: cannot find libsoftefa-preload.so\n");
		return 1;
	}
	if (!strcmp(choice, "ours")) {
		if (find_lib(SOFTEFA_PLUGIN, "libibverbs/" SOFTEFA_PLUGIN,
			     provider, sizeof(provider))) {
			fprintf(stderr, "softefa: cannot find our provider (%s)\n",
				SOFTEFA_PLUGIN);
			return 1;
		}
	} else if (!strcmp(choice, "stock")) {
		/* Where ours is installed in its place, the diverted one. */
		snprintf(provider, sizeof(provider), "%s",
			 access(SOFTEFA_DIVERTED_PLUGIN, R_OK) ?
				 SOFTEFA_STOCK_PLUGIN : SOFTEFA_DIVERTED_PLUGIN);
	}
	/* The plugin is a link to the library itself; a path is resolved. */
	if (!strchr(choice, '/') && !realpath(provider, libefa)) {
		fprintf(stderr, "softefa: %s: %s\n", provider, strerror(errno));
		return 1;
	}

	run_path(SEFA_SYSFS_DIR, sys, sizeof(sys));
	if (setenv(SEFA_RUN_DIR_ENV, run_dir, 1) ||
	    setenv("SYSFS_PATH", sys, 1) || set_preload(preload, libefa))
		goto err_env;

	execvp(argv[optind], argv + optind);
	/* As a shell says: not found, or found but not to be run. */
	c = errno;
	fprintf(stderr, "softefa: %s: %s\n", argv[optind], strerror(c));
	return c == ENOENT ? 127 : 126;

err_env:
	perror("softefa: environment");
	return 1;
}
