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
#include "cli.h"

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


static const struct command commands[] = {
	{ "start", " [OPTIONS]",
	  "Start softefad serving the run directory and wait until it serves;\n"
	  "OPTIONS are softefad's (softefad --help): --profile NAME|list,\n"
	  "--devices N, --netdev IF, --abi ioctl|write, --host-id N, --verbose,\n"
	  "--max-objects N, --max-queue-mem BYTES, --limit NAME=N[,NAME=N...],\n"
	  "--wire [--sm] [--wire-*],\n"
	  "--inject FILE (fault rules, one a line: softefa inject --help).\n"
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
	{ "inject", " add RULE... | list | clear [ID|all]",
	  "Add a fault rule to the running host (its id is printed), list the\n"
	  "rules (id, hits, spent, seed, text) or clear one or all.  A rule is\n"
	  "an action and matchers, words key=value, the matchers ANDed:\n"
	  "actions:\n"
	  "  rnr [tries=N]          answer RNR as if no receive were posted,\n"
	  "                         N times per packet (default: until cleared)\n"
	  "  status=NAME            the WR completes with that status: loc-len,\n"
	  "                         loc-qp-op, loc-prot, wr-flush, rem-access,\n"
	  "                         rem-op, rem-inv-req, retry-exc, rnr-retry-exc,\n"
	  "                         general... (softefa(8)); with op=recv a\n"
	  "                         receive's: loc-len, loc-qp-op, loc-prot, general\n"
	  "  fail-create obj=ah|mr|qp|cq|pd|ctx [errno=ENOMEM]\n"
	  "                         the next matching create command fails\n"
	  "  event type=qp-fatal|cq-error|port-down|port-up|device-fatal\n"
	  "  loss | dup | reorder   on the one-host path\n"
	  "  delay usec=N\n"
	  "  blackhole              with peer-gid=GID (here or on another host),\n"
	  "                         or dev=A peer-dev=B\n"
	  "  freeze [usec=N]        the engine stops, N us or until cleared\n"
	  "matchers:\n"
	  "  dev=efa_N  peer-dev=efa_N  qp=QPN  peer=QPN  peer-gid=GID\n"
	  "  op=send|recv|write|read|write-imm|any\n"
	  "  nth=N                  the Nth match only\n"
	  "  share=PCT [seed=S]     a seeded share of the matches (seed: the id)\n"
	  "  count=N                fire at most N times, then spent\n"
	  "Exits 2 for a rule the host refuses, naming the word.",
	  cmd_inject },
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

