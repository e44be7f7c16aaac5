// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefa: start, stop and inspect a SoftEFA host, and run programs on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hoststate.h"
#include "profile.h"
#include "rundir.h"

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
/*
 * The private ABI of the libibverbs we were built against, which names the
 * plugins it loads: ours and the stock one are for that libibverbs.
 */
#ifndef SOFTEFA_PABI
#define SOFTEFA_PABI "34"
#endif
#define SOFTEFA_PLUGIN "libefa-rdmav" SOFTEFA_PABI ".so"
#define SOFTEFA_STOCK_PLUGIN SOFTEFA_PROVIDER_DIR "/" SOFTEFA_PLUGIN
#define SOFTEFA_DIVERTED_PLUGIN                                                \
	SOFTEFA_PROVIDER_DIR "/libefa-stock-rdmav" SOFTEFA_PABI ".so"

static char run_dir[SEFA_RUN_DIR_MAX + 1];

/*
 * How long stop and start wait for softefad to go or come, and a command
 * for its answer: a loaded or flooded machine is slow.
 */
#define DAEMON_WAIT_MS 60000
#define CONTROL_WAIT_S 30

/* Where run_dir came from, for the hint when no host is there. */
static enum {
	RUN_DIR_DEFAULT,
	RUN_DIR_ENV,
	RUN_DIR_OPTION,
} run_dir_from;

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

/* softefa COMMAND --help */
static int command_help(const struct command *cmd)
{
	printf("usage: softefa [--run-dir DIR] %s%s\n%s\n", cmd->name,
	       cmd->args, cmd->what);
	/* start --help: which profiles --profile takes */
	if (!strcmp(cmd->name, "start"))
		sefa_profiles_print(stdout);
	return 0;
}

/* A command line refused before anything was done: why, then the usage. */
static int __attribute__((format(printf, 2, 3)))
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
static void command_getopt_init(const struct command *cmd, char **argv)
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
static int plain_args(const struct command *cmd, int argc, char **argv)
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
static int find_run_dir(bool own)
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
static int self_dir(char *buf, size_t len)
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
static void run_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s/%s", SEFA_RUN_DIR_MAX, run_dir, name);
}

/*
 * Nobody runs in run_dir: say where else a host may be, since a user's
 * commands look in two places and its start starts in only one.
 */
static void no_host(void)
{
	char own[SEFA_RUN_DIR_MAX + 1];

	fprintf(stderr, "softefa: no softefad is running in %s", run_dir);
	if (run_dir_from == RUN_DIR_OPTION) {
		fprintf(stderr, " (--run-dir)\n"
			"softefa: 'softefa --run-dir %s start' starts one there\n",
			run_dir);
		return;
	}
	if (run_dir_from == RUN_DIR_ENV) {
		fprintf(stderr, " (" SEFA_RUN_DIR_ENV ")\n"
			"softefa: 'softefa start' starts one there\n");
		return;
	}
	if (geteuid() == 0 || sefa_run_dir_own(own, sizeof(own)) ||
	    !strcmp(own, run_dir))
		fprintf(stderr, "\nsoftefa: 'softefa start' starts one there");
	else
		fprintf(stderr,
			", root's system-wide host, nor in your own, %s\n"
			"softefa: 'softefa start' starts your own there",
			own);
	fprintf(stderr,
		"; another host: --run-dir DIR or " SEFA_RUN_DIR_ENV "=DIR\n");
}

/* "softefad (pid N)", or "softefad" when no pid is known. */
static const char *daemon_name(pid_t pid)
{
	static char name[32];

	if (!pid)
		return "softefad";
	snprintf(name, sizeof(name), "softefad (pid %d)", (int)pid);
	return name;
}

static void host_dead(pid_t pid)
{
	char log[PATH_MAX];

	run_path(SEFA_LOG_NAME, log, sizeof(log));
	fprintf(stderr, "softefa: %s is not running: it died", daemon_name(pid));
	if (!access(log, F_OK))
		fprintf(stderr, "; its log: %s", log);
	fprintf(stderr,
		"\nsoftefa: 'softefa stop' clears what it left in %s, 'softefa start' starts anew\n",
		run_dir);
}

/* Nothing listens on run_dir's socket: a daemon died there, hangs, or none. */
static void no_answer(void)
{
	pid_t pid;

	switch (sefa_host_state(run_dir, &pid)) {
	case SEFA_HOST_DEAD:
		host_dead(pid);
		break;
	case SEFA_HOST_MUTE:
		fprintf(stderr, "softefa: %s runs in %s but does not answer\n",
			daemon_name(pid), run_dir);
		break;
	case SEFA_HOST_LIVE:
		/* one that was starting: it answers now */
		fprintf(stderr, "softefa: the softefad in %s did not answer in time\n",
			run_dir);
		break;
	case SEFA_HOST_NONE:
		no_host();
		break;
	}
}

/* After a failed control(): @err, its errno, says why nobody answered. */
static void no_daemon(int err)
{
	if (err == ENXIO)
		no_answer();
	else if (err == EACCES)
		fprintf(stderr,
			"softefa: the softefad in %s is neither root's nor yours: not trusted\n",
			run_dir);
	else if (err == EPERM)
		fprintf(stderr,
			"softefa: only root or the user who started it may do that to the softefad in %s\n",
			run_dir);
	else if (err == EAGAIN)
		fprintf(stderr,
			"softefa: the softefad in %s did not answer within %d s\n",
			run_dir, CONTROL_WAIT_S);
	else
		fprintf(stderr, "softefa: the softefad in %s does not answer: %s\n",
			run_dir, strerror(err));
}

/*
 * One control request.  Returns the reply text (malloc'd) or NULL with
 * errno set (EAGAIN: no answer in time); never waits more than
 * CONTROL_WAIT_S for a sick daemon.
 */
static char *control(uint32_t what)
{
	struct sefa_req req = { .op = SEFA_OP_CTL,
				.version = SEFA_PROTO_VERSION, .arg = what };
	struct timeval tv = { .tv_sec = CONTROL_WAIT_S };
	struct sefa_reply *r;
	char *buf;
	ssize_t n;
	int fd, err;

	fd = sefa_host_connect(run_dir, SOCK_CLOEXEC);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (send(fd, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
		goto err_close;

	buf = calloc(1, SEFA_MAX_MSG + 1);
	if (!buf)
		goto err_close;
	n = recv(fd, buf, SEFA_MAX_MSG, 0);
	if (n < (ssize_t)sizeof(*r)) {
		free(buf);
		errno = n < 0 ? errno : EIO;
		goto err_close;
	}
	close(fd);
	r = (struct sefa_reply *)buf;
	if (r->type != SEFA_REPLY_TEXT || r->err) {
		err = r->err ? r->err : EIO;
		free(buf);
		errno = err;
		return NULL;
	}
	memmove(buf, buf + sizeof(*r), n - sizeof(*r));
	buf[n - sizeof(*r)] = 0;
	return buf;

err_close:
	err = errno;
	close(fd);
	errno = err;
	return NULL;
}

static int show(uint32_t what)
{
	char *text = control(what);

	if (!text) {
		no_daemon(errno);
		return 1;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}

static int cmd_status(const struct command *cmd, int argc, char **argv)
{
	int ret = plain_args(cmd, argc, argv);

	if (ret >= 0)
		return ret;
	return find_run_dir(false) ?: show(SEFA_CTL_STATUS);
}

static int cmd_stats(const struct command *cmd, int argc, char **argv)
{
	int ret = plain_args(cmd, argc, argv);

	if (ret >= 0)
		return ret;
	return find_run_dir(false) ?: show(SEFA_CTL_STATS);
}

/*
 * stop of a daemon that died: what it left goes but its log, which says
 * why it died.  Only root or the daemon's user may, as they may stop it.
 */
static int clear_dead(pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;
	int ret;

	run_path(pid ? SEFA_PID_NAME : SEFA_SOCKET_NAME, path, sizeof(path));
	if (!lstat(path, &st) && geteuid() != 0 && st.st_uid != geteuid()) {
		fprintf(stderr,
			"softefa: only root or the user who started it may clear what %s left in %s\n",
			daemon_name(pid), run_dir);
		return 1;
	}
	ret = sefa_run_dir_clear(run_dir);
	if (ret) {
		fprintf(stderr, "softefa: clearing %s: %s\n", run_dir,
			strerror(-ret));
		return 1;
	}
	printf("softefa: %s had died; removed what it left in %s but its log\n",
	       daemon_name(pid), run_dir);
	return 0;
}

static int cmd_stop(const struct command *cmd, int argc, char **argv)
{
	int ret = plain_args(cmd, argc, argv);
	pid_t pid;
	char *text;

	if (ret >= 0)
		return ret;
	ret = find_run_dir(false);
	if (ret)
		return ret;
	pid = sefa_pid_file_read(run_dir);
	text = control(SEFA_CTL_STOP);
	if (!text) {
		ret = errno;
		if (ret == ENXIO &&
		    sefa_host_state(run_dir, &pid) == SEFA_HOST_DEAD)
			return clear_dead(pid);
		no_daemon(ret);
		return 1;
	}
	free(text);
	if (pid > 0 && !sefa_wait_daemon_gone(pid, DAEMON_WAIT_MS)) {
		fprintf(stderr,
			"softefa: softefad (pid %d) did not stop within %d s\n",
			(int)pid, DAEMON_WAIT_MS / 1000);
		return 1;
	}
	printf("softefa: stopped the daemon in %s\n", run_dir);
	return 0;
}

/*
 * start passes its options to softefad, which checks them before it does
 * anything; but --help is start's own.
 */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/* Whether softefad wrote or closed its end of the pipe in time. */
static bool ready_wait(struct pollfd *pfd)
{
	int64_t end = sefa_now_ms() + DAEMON_WAIT_MS, left;
	int n;

	while ((left = end - sefa_now_ms()) > 0) {
		n = poll(pfd, 1, (int)left);
		if (n >= 0)
			return n == 1;
		if (errno != EINTR)
			return false;
	}
	return false;
}

/*
 * softefad did not say it was ready.  It closed the pipe without a word
 * (@ended) only by exiting: 2 when it refused its command line, 0 when it
 * only printed its version, 1 else; or it hangs, and is ended.
 */
static int start_failed(pid_t pid, bool ended)
{
	int status;

	if (!ended) {
		fprintf(stderr,
			"softefa: softefad (pid %d) did not say it was ready within %d s; ending it\n",
			(int)pid, DAEMON_WAIT_MS / 1000);
		kill(pid, SIGTERM);
	}
	waitpid(pid, &status, 0);
	if (ended && WIFEXITED(status) &&
	    (WEXITSTATUS(status) == 2 || WEXITSTATUS(status) == 0))
		return WEXITSTATUS(status);
	fprintf(stderr, "softefa: softefad failed to start (see above)\n");
	return 1;
}

static int cmd_start(const struct command *cmd, int argc, char **argv)
{
	char dir[PATH_MAX], daemon[PATH_MAX + 16], log[PATH_MAX];
	char readyarg[32], ok[4] = {};
	char *args[16 + argc];
	int nargs = 0, i, p[2], ret;
	struct pollfd pfd;
	bool ended;
	pid_t pid;

	if (wants_help(argc, argv))
		return command_help(cmd);
	ret = find_run_dir(true);
	if (ret)
		return ret;
	if (self_dir(dir, sizeof(dir))) {
		fprintf(stderr, "softefa: cannot find my own directory\n");
		return 1;
	}
	snprintf(daemon, sizeof(daemon), "%s/softefad", dir);
	run_path(SEFA_LOG_NAME, log, sizeof(log));

	/*
	 * Whether one runs there already is softefad's to say, after it
	 * checked its options: a bad command line is refused first.
	 */
	if (pipe2(p, O_CLOEXEC)) {
		perror("softefa: pipe");
		return 1;
	}
	snprintf(readyarg, sizeof(readyarg), "--ready-fd=%d", p[1]);
	args[nargs++] = daemon;
	args[nargs++] = "--run-dir";
	args[nargs++] = run_dir;
	args[nargs++] = readyarg;
	args[nargs++] = "--log";
	args[nargs++] = log;
	/* The device options go to softefad as they are; it checks them. */
	for (i = 1; i < argc; i++)
		args[nargs++] = argv[i];
	args[nargs] = NULL;

	pid = fork();
	if (pid < 0) {
		perror("softefa: fork");
		return 1;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		setsid();
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		fcntl(p[1], F_SETFD, 0);
		execv(daemon, args);
		fprintf(stderr, "softefa: cannot run %s: %s\n", daemon,
			strerror(errno));
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	ended = ready_wait(&pfd);
	if (ended && read(p[0], ok, 3) == 3 && !strcmp(ok, "ok\n")) {
		close(p[0]);
		printf("softefa: softefad (pid %d) serves %s\n", (int)pid,
		       run_dir);
		return 0;
	}
	close(p[0]);
	return start_failed(pid, ended);
}

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

static int cmd_exec(const struct command *cmd, int argc, char **argv)
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

/*
 * --run-dir DIR may stand before or after the command (but not inside the
 * program line of exec): take it out of argv.
 */
static int take_run_dir(int *argc, char **argv)
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

static const struct command commands[] = {
	{ "start", " [OPTIONS]",
	  "Start softefad serving the run directory and wait until it serves;\n"
	  "OPTIONS are softefad's (softefad --help): --profile NAME|list,\n"
	  "--devices N, --netdev IF, --abi ioctl|write, --host-id N, --verbose,\n"
	  "--max-objects N, --max-queue-mem BYTES, --wire [--sm] [--wire-*].\n"
	  "Clears what a dead softefad left there first.",
	  cmd_start },
	{ "stop", "",
	  "Stop the softefad of the run directory and wait until it is gone;\n"
	  "of one that died, remove what it left but its log.",
	  cmd_stop },
	{ "status", "",
	  "Print the host's profile, devices and open device files; fails, and\n"
	  "says so, when its softefad died.",
	  cmd_status },
	{ "stats", "",
	  "Print the packet counters of the devices, QPs, wire and engines.",
	  cmd_stats },
	{ "exec", " [--provider ours|stock|PATH] [--] CMD [ARGS...]",
	  "Run CMD on the host with our provider (ours, the default), the\n"
	  "system's (stock) or the provider library PATH (with a slash).  Both\n"
	  "ours and stock are for the libibverbs softefa was built against\n"
	  "(private ABI " SOFTEFA_PABI ").  Exits with CMD's status, 126 when CMD\n"
	  "cannot be run, 127 when it is not found.",
	  cmd_exec },
	{}
};

static void usage(FILE *f)
{
	const struct command *cmd;

	fprintf(f,
		"usage: softefa [--run-dir DIR] COMMAND [ARGS]\n"
		"       softefa --help | --version\n"
		"commands (each also takes --help):\n");
	for (cmd = commands; cmd->name; cmd++)
		fprintf(f, "  %s%s\n", cmd->name, cmd->args);
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (take_run_dir(&argc, argv))
		return 2;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("softefa %s\n", SOFTEFA_VERSION);
		return 0;
	}
	for (cmd = commands; cmd->name; cmd++)
		if (!strcmp(cmd->name, argv[1]))
			return cmd->run(cmd, argc - 1, argv + 1);
	fprintf(stderr, "softefa: unknown %s '%s'\n",
		argv[1][0] == '-' ? "option" : "command", argv[1]);
	usage(stderr);
	return 2;
}
