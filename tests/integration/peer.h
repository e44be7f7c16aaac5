/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Two-process integration tests: the Check program is one side, and the
 * same program run again with "--peer FD" is the other, connected by a
 * SOCK_SEQPACKET pair over which the test asks the peer to act.
 */
#ifndef SEFA_TESTS_INTEGRATION_PEER_H
#define SEFA_TESTS_INTEGRATION_PEER_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"

#define PEER_ARGS_MAX	32

/*
 * The peer's command line: this program, or what SEFA_PEER_RUN (words
 * apart at spaces) runs it under, such as "ip netns exec NS softefa
 * --run-dir DIR exec --" for a peer on another host.  In the child.
 */
static inline void peer_exec(const char *name, const char *fd)
{
	char exe[4096], *run = getenv("SEFA_PEER_RUN"), *argv[PEER_ARGS_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int argc = 0;
	char *tok;

	if (n <= 0)
		_exit(127);
	exe[n] = 0;
	for (tok = run ? strtok(run, " ") : NULL;
	     tok && argc < PEER_ARGS_MAX - 4; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = run ? exe : (char *)name;
	argc++;
	argv[argc++] = "--peer";
	argv[argc++] = (char *)fd;
	argv[argc] = NULL;
	execvp(run ? argv[0] : exe, argv);
	_exit(127);
}

/*
 * Start the peer and return this side's socket.  Call it before opening a
 * device: the peer is a new program and must share no fd with this one.
 */
static inline int peer_spawn(const char *name, pid_t *pid)
{
	char fd[16];
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	*pid = fork();
	ck_assert_int_ge(*pid, 0);
	if (!*pid) {
		close(sv[0]);
		snprintf(fd, sizeof(fd), "%d", sv[1]);
		peer_exec(name, fd);
	}
	close(sv[1]);
	return sv[0];
}

/*
 * One request to the peer and its answer, both len bytes and both
 * beginning with the same 32-bit operation.
 */
static inline void peer_exchange(int sock, const void *req, void *resp,
				 size_t len)
{
	ck_assert_int_eq(write(sock, req, len), len);
	ck_assert_int_eq(read(sock, resp, len), len);
	ck_assert_msg(!memcmp(resp, req, sizeof(uint32_t)),
		      "the peer answered another operation");
}

/* After the peer was told to quit: it must have exited with 0. */
static inline void peer_reap(int sock, pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(sock);
}

/* main(): the peer's loop when run as one, the suite otherwise. */
#define SEFA_PEER_MAIN(suite_fn, peer_fn)				\
	int main(int argc, char **argv)					\
	{								\
		if (argc == 3 && !strcmp(argv[1], "--peer"))		\
			return peer_fn(atoi(argv[2]));			\
		return sefa_check_run(suite_fn());			\
	}

#endif
