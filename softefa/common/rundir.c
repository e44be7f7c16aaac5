// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a SoftEFA host lives when nobody says, and whether to trust the
 * one found there: shared by all three parts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "rundir.h"

static int run_dir_fits(int n, size_t len)
{
	return n < 0 || (size_t)n >= len || n > SEFA_RUN_DIR_MAX ? -1 : 0;
}

int sefa_run_dir_own(char *buf, size_t len)
{
	const char *env = getenv(SEFA_RUN_DIR_ENV);
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, len, SEFA_SYSTEM_RUN_DIR);
	else if (xdg && *xdg)
		n = snprintf(buf, len, "%s/softefa", xdg);
	else
		n = snprintf(buf, len, "/tmp/softefa-%u", (unsigned int)geteuid());
	return run_dir_fits(n, len);
}

int sefa_run_dir(char *buf, size_t len)
{
	const char *env = getenv(SEFA_RUN_DIR_ENV);
	int fd;

	if (sefa_run_dir_own(buf, len))
		return -1;
	if ((env && *env) || geteuid() == 0)
		return 0;
	/* A user who started a host of its own means that one. */
	fd = sefa_host_connect(buf, SOCK_CLOEXEC);
	if (fd >= 0) {
		syscall(SYS_close, fd);
		return 0;
	}
	return run_dir_fits(snprintf(buf, len, SEFA_SYSTEM_RUN_DIR), len);
}

int sefa_run_dir_set(char *buf, size_t len, const char *dir)
{
	size_t n = strlen(dir);

	if (!n || n > SEFA_RUN_DIR_MAX || n >= len)
		return -1;
	memcpy(buf, dir, n + 1);
	return 0;
}

int sefa_host_connect(const char *dir, int flags)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, err;

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir,
		     SEFA_SOCKET_NAME) >= (int)sizeof(sa.sun_path))
		return -ENXIO;
	/*
	 * System calls themselves, here and for getsockopt() and close(): in
	 * the shim those are wrappers, which first find the run directory or
	 * tell netlink sockets apart, and the run directory may be what calls
	 * us.
	 */
	fd = syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | flags, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = ENXIO;
		goto err_close;
	}
	if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, &cred,
		    &len)) {
		err = errno;
		goto err_close;
	}
	if (cred.uid != 0 && cred.uid != geteuid()) {
		err = EACCES;
		goto err_close;
	}
	return fd;

err_close:
	syscall(SYS_close, fd);
	return -err;
}
