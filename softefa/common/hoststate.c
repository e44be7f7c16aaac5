// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Whether a run directory's daemon lives, and clearing what a dead one
 * left: shared by the command line and the daemon.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hoststate.h"
#include "rundir.h"

static int dir_path(const char *dir, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

pid_t sefa_pid_file_read(const char *dir)
{
	char path[PATH_MAX];
	FILE *f;
	int pid;

	if (dir_path(dir, SEFA_PID_NAME, path, sizeof(path)))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%d", &pid) != 1 || pid <= 0)
		pid = 0;
	fclose(f);
	return pid;
}

/*
 * A pid alone may have been reused by any process since the daemon died:
 * it is the daemon only while it is a softefad that has not exited.  Not
 * ourselves either: a daemon starting may have got a dead one's pid.
 */
static bool is_live_softefad(pid_t pid)
{
	char path[32], stat[64], *comm, *end;
	FILE *f;
	size_t n;

	if (pid == getpid())
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = 0;
	/* "pid (comm) state ...": comm may hold anything, even ") " */
	comm = strchr(stat, '(');
	end = strrchr(stat, ')');
	if (!comm || !end || end < comm || end[1] != ' ')
		return false;
	*end = 0;
	return !strcmp(comm + 1, "softefad") && end[2] != 'Z' &&
	       end[2] != 'X';
}

enum sefa_host_state sefa_host_state(const char *dir, pid_t *pid)
{
	char sock[PATH_MAX];
	int fd;

	*pid = sefa_pid_file_read(dir);
	fd = sefa_host_connect(dir, SOCK_CLOEXEC);
	if (fd >= 0)
		close(fd);
	/* Also one that answers but is not trusted, or cannot be asked. */
	if (fd != -ENXIO)
		return SEFA_HOST_LIVE;
	if (*pid)
		return is_live_softefad(*pid) ? SEFA_HOST_MUTE : SEFA_HOST_DEAD;
	if (!dir_path(dir, SEFA_SOCKET_NAME, sock, sizeof(sock)) &&
	    !access(sock, F_OK))
		return SEFA_HOST_DEAD;
	return SEFA_HOST_NONE;
}

int64_t sefa_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool sefa_wait_daemon_gone(pid_t pid, int ms)
{
	struct timespec pause = { .tv_nsec = 5 * 1000 * 1000 };
	int64_t end = sefa_now_ms() + ms;

	/*
	 * Not the pid file: the daemon removes it last of all it does, but
	 * its process may still be running exit handlers (a sanitizer's leak
	 * check takes seconds) and holding what it had.
	 */
	for (;;) {
		if (!is_live_softefad(pid))
			return true;
		if (sefa_now_ms() >= end)
			return false;
		nanosleep(&pause, NULL);
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path) && errno != ENOENT ? -1 : 0;
}

int sefa_rm_tree(const char *dir, const char *sub)
{
	char path[PATH_MAX];
	int ret = dir_path(dir, sub, path, sizeof(path));

	if (ret)
		return ret;
	if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -errno;
	return 0;
}

static int rm_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int ret = dir_path(dir, name, path, sizeof(path));

	if (ret)
		return ret;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

int sefa_run_dir_clear(const char *dir)
{
	int ret = rm_file(dir, SEFA_SOCKET_NAME);

	if (!ret)
		ret = sefa_rm_tree(dir, SEFA_SYSFS_DIR);
	if (!ret)
		ret = sefa_rm_tree(dir, "dev");
	/* Last: a pid file left on a failure still says what died there. */
	if (!ret)
		ret = rm_file(dir, SEFA_PID_NAME);
	return ret;
}
