// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefa's control requests to the softefad of the run directory, and
 * what it says when none answers: which host is dead, mute or missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "hoststate.h"

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
const char *daemon_name(pid_t pid)
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
void no_daemon(int err)
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
 * One control request, with @addr and a @payload that follows it when not
 * NULL.  Returns 0 or the errno: the daemon's (with its reason in *text),
 * or why no answer came (EAGAIN: not in time; *text NULL).  *text is
 * malloc'd; never waits more than CONTROL_WAIT_S for a sick daemon.
 */
int control_text(uint32_t what, uint64_t addr, const char *payload,
		 char **text)
{
	struct sefa_req req = { .op = SEFA_OP_CTL,
				.version = SEFA_PROTO_VERSION, .arg = what,
				.addr = addr };
	struct timeval tv = { .tv_sec = CONTROL_WAIT_S };
	struct sefa_reply *r;
	size_t plen = payload ? strlen(payload) : 0;
	char *buf;
	ssize_t n;
	int fd, err;

	*text = NULL;
	req.len = plen;
	fd = sefa_host_connect(run_dir, SOCK_CLOEXEC);
	if (fd < 0)
		return -fd;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (send(fd, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
		goto err_close;
	if (payload && send(fd, payload, plen, MSG_NOSIGNAL) != (ssize_t)plen)
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
	err = r->type != SEFA_REPLY_TEXT ? EIO : r->err;
	memmove(buf, buf + sizeof(*r), n - sizeof(*r));
	buf[n - sizeof(*r)] = 0;
	*text = buf;
	return err;

err_close:
	err = errno;
	close(fd);
	return err;
}

/*
 * A control request of no arguments.  Returns the reply text (malloc'd)
 * or NULL with errno set.
 */
char *control(uint32_t what)
{
	char *text;
	int err = control_text(what, 0, NULL, &text);

	if (err) {
		free(text);
		errno = err;
		return NULL;
	}
	return text;
}
