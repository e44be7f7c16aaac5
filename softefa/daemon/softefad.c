// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefad: one simulated host with one or more software EFA devices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hoststate.h"
#include "rundir.h"
#include "client.h"
#include "host/host.h"
#include "mad/mad.h"
#include "fault/fault.h"
#include "nic/nic.h"
#include "softefad_args.h"

static struct sefa_daemon daemon_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.sm_cond = PTHREAD_COND_INITIALIZER,
	.stop_pipe = { -1, -1 },
	/*
	 * Far above what one program's verbs use (the device's largest QP
	 * takes under 2 MiB of rings), yet a bound.
	 */
	.caps = { .max_objects = 65536, .max_queue_bytes = 512ULL << 20 },
};


static void on_signal(int sig)
{
	int saved = errno;

	if (write(daemon_state.stop_pipe[1], "s", 1) < 0)
		(void)0;
	errno = saved;
}

static int sock_path(const struct sefa_daemon *d, const char *name,
		     char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", d->run_dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * The run directory, made if missing (then *@made).  What lies in it is the
 * device to every user, so it must be ours and nobody else's to change, as
 * /dev is root's: a directory another user made or may write is refused.
 */
static int run_dir_make(const char *dir, bool *made)
{
	struct stat st;
	int err;

	*made = !mkdir(dir, 0755);
	if (!*made && errno != EEXIST)
		goto err;
	if (lstat(dir, &st))
		goto err;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		goto err;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		fprintf(stderr,
			"softefad: %s belongs to another user or others may write it; not serving there\n",
			dir);
		return -EPERM;
	}
	return 0;

err:
	err = errno;
	fprintf(stderr, "softefad: %s: %s\n", dir, strerror(err));
	return -err;
}

static int listen_on(struct sefa_daemon *d, int *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[PATH_MAX];
	int fd, ret;

	ret = sock_path(d, SEFA_SOCKET_NAME, path, sizeof(path));
	if (ret || strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "softefad: run directory %s: path too long\n",
			d->run_dir);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Accepted connections inherit it: every request carries its sender. */
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int));
	/* Clients of any uid may open the device, as with a 0666 cdev. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(path, 0666) || listen(fd, 64)) {
		ret = -errno;
		fprintf(stderr, "softefad: %s: %s\n", path, strerror(-ret));
		close(fd);
		return ret;
	}
	*out = fd;
	return 0;
}

static int write_pidfile(const struct sefa_daemon *d)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = sock_path(d, SEFA_PID_NAME, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = dprintf(fd, "%d\n", (int)getpid()) < 0 ? -errno : 0;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlink(path);
	return ret;
}

static void serve(struct sefa_daemon *d, int lfd)
{
	struct pollfd pfd[3] = {
		{ .fd = lfd, .events = POLLIN },
		{ .fd = d->stop_pipe[0], .events = POLLIN },
		{ .fd = d->mm_watch, .events = POLLIN },
	};

	for (;;) {
		int fd, n;

		/* awake at least as often as hw_counters are to be current */
		n = poll(pfd, 3, SEFA_HW_COUNTERS_LIFESPAN_MS);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("softefad: poll");
			return;
		}
		sefa_sysfs_counters_refresh(d);
		if (!n)
			continue;
		if (pfd[1].revents)
			return;
		if (pfd[2].revents & POLLIN) {
			sefa_daemon_lock(d);
			sefa_mm_reap(d);
			sefa_daemon_unlock(d);
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (sefa_client_start(d, fd))
			close(fd);
	}
}

/*
 * How long a stopping daemon waits for its connection threads to leave
 * once their sockets are shut down: they only finish the request at hand.
 */
#define CLIENTS_GONE_MS 10000

static void wait_clients_gone(struct sefa_daemon *d)
{
	struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	int64_t end = sefa_now_ms() + CLIENTS_GONE_MS;
	unsigned int n;

	sefa_clients_shutdown(d);
	for (;;) {
		/* the clients list, which connection threads leave */
		sefa_daemon_lock(d);
		n = d->nclients;
		sefa_daemon_unlock(d);
		if (!n)
			return;
		if (sefa_now_ms() >= end)
			break;
		nanosleep(&pause, NULL);
	}
	fprintf(stderr,
		"softefad: %u client connections still open after %d s; stopping without them\n",
		n, CLIENTS_GONE_MS / 1000);
}

static int redirect_log(const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "softefad: %s: %s\n", log, strerror(errno));
		return -errno;
	}
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	return 0;
}


/* How long a start waits for a daemon that is stopping there to go. */
#define MUTE_WAIT_MS 20000

/*
 * The run directory is ours now: what a dead daemon left there goes, and
 * our pid file, made exclusively, keeps a second daemon out from here on.
 */
static int run_dir_claim(const struct sefa_daemon *d)
{
	enum sefa_host_state state;
	pid_t pid;
	int ret;

	state = sefa_host_state(d->run_dir, &pid);
	/*
	 * A daemon that lives but does not answer is most likely stopping:
	 * it removes its socket first and its pid file last.
	 */
	if (state == SEFA_HOST_MUTE) {
		fprintf(stderr,
			"softefad: softefad (pid %d) in %s does not answer; waiting up to %d s for it to stop\n",
			(int)pid, d->run_dir, MUTE_WAIT_MS / 1000);
		if (sefa_wait_daemon_gone(pid, MUTE_WAIT_MS))
			state = sefa_host_state(d->run_dir, &pid);
	}
	switch (state) {
	case SEFA_HOST_LIVE:
		fprintf(stderr, "softefad: a softefad already runs in %s\n",
			d->run_dir);
		return -EADDRINUSE;
	case SEFA_HOST_MUTE:
		fprintf(stderr,
			"softefad: softefad (pid %d) still owns %s, though it has not answered for %d s\n",
			(int)pid, d->run_dir, MUTE_WAIT_MS / 1000);
		return -EBUSY;
	case SEFA_HOST_DEAD:
		if (pid)
			fprintf(stderr,
				"softefad: softefad (pid %d) died; clearing what it left in %s\n",
				(int)pid, d->run_dir);
		else
			fprintf(stderr,
				"softefad: clearing what a dead softefad left in %s\n",
				d->run_dir);
		break;
	case SEFA_HOST_NONE:
		break;
	}
	ret = sefa_run_dir_clear(d->run_dir);
	if (ret) {
		fprintf(stderr, "softefad: cannot clear %s: %s\n", d->run_dir,
			strerror(-ret));
		return ret;
	}
	ret = write_pidfile(d);
	if (ret == -EEXIST)
		fprintf(stderr, "softefad: another softefad is starting in %s\n",
			d->run_dir);
	else if (ret)
		fprintf(stderr, "softefad: pid file in %s: %s\n", d->run_dir,
			strerror(-ret));
	return ret;
}
static void unlink_in_run_dir(const struct sefa_daemon *d, const char *name)
{
	char path[PATH_MAX];

	if (!sock_path(d, name, path, sizeof(path)))
		unlink(path);
}

/* Devices and MAD state, in memory: nothing is made outside yet. */
static int host_init(struct sefa_daemon *d, const struct start_opts *o)
{
	int ret = sefa_netdev_lookup(o->netdev, &d->netdev);

	if (ret) {
		fprintf(stderr, "softefad: %s%s: %s\n",
			o->netdev ? "network interface " :
				    "no usable network interface",
			o->netdev ? o->netdev : "", strerror(-ret));
		return ret;
	}
	/* Alone, a host is its own subnet; on a wire, one host runs the SM. */
	d->run_sm = !d->wire.on || o->sm;
	if (sefa_devices_init(d, o->ndev) || sefa_mad_init(d)) {
		fprintf(stderr, "softefad: out of memory\n");
		return -ENOMEM;
	}
	d->engine_tick = sefa_mad_tick;
	if (d->wire.on && d->profile->has_mad) {
		d->mad_out = sefa_net_mad_xmit;
		d->mad_in = sefa_mad_wire_in;
	}
	/* the SM alone says which GID holds a LID (softefa-wire(7)) */
	if (d->wire.on && d->sm_port && d->profile->has_lid) {
		d->sm_where = sefa_sm_where;
		d->sm_candidate = sefa_sm_candidate;
	}
	return 0;
}

/* The fault table, with the rules of --inject: a bad one stops the start. */
static int faults_init(struct sefa_daemon *d, const struct start_opts *o)
{
	char why[320];
	int ret;

	ret = sefa_faults_new(d->ndev, &d->faults);
	if (ret) {
		fprintf(stderr, "softefad: out of memory\n");
		return ret;
	}
	/* a port-down or a freeze of the file holds from the start */
	sefa_fault_apply_init(d);
	if (!o->inject)
		return 0;
	ret = sefa_fault_add_file(d->faults, o->inject, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "softefad: --inject %s\n", why);
		/* a file it cannot read is a bad command line too */
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	return 0;
}

/* The rules of --inject again, in the log the start may have opened. */
static void faults_log(struct sefa_daemon *d)
{
	char buf[4096];

	sefa_fault_list_text(d->faults, buf, sizeof(buf));
	if (strchr(buf, '\n') != buf + strlen(buf) - 1)
		fprintf(stderr, "softefad: fault rules:\n%s", buf);
}

/* What runs beside the listening socket: the wire and the engines. */
static int engines_start(struct sefa_daemon *d)
{
	int ret;

	if (d->wire.on) {
		ret = sefa_net_open(d);
		if (ret) {
			fprintf(stderr,
				"softefad: wire on %s: %s%s\n", d->netdev.name,
				strerror(-ret), ret == -EPERM ?
				" (adding the GIDs as addresses needs CAP_NET_ADMIN)" :
				"");
			return ret;
		}
	}
	ret = sefa_engine_start(d);
	if (ret) {
		fprintf(stderr, "softefad: device engine: %s\n", strerror(-ret));
		sefa_net_close(d);
	}
	return ret;
}

static void engines_stop(struct sefa_daemon *d)
{
	sefa_engine_stop(d);
	sefa_net_close(d);
}

/*
 * Everything but serving: the pid file first and the sysfs tree, device
 * nodes and socket after it.  A start that fails takes back all it made,
 * the run directory too when it made it, so that nothing half made is left
 * to a reader or to the next daemon.
 */
static int host_up(struct sefa_daemon *d, const struct start_opts *o,
		   int *lfd)
{
	bool made;
	int ret;

	ret = run_dir_make(d->run_dir, &made);
	if (ret)
		return ret;
	ret = run_dir_claim(d);
	if (ret)
		goto err_dir;
	if (pipe2(d->stop_pipe, O_CLOEXEC)) {
		ret = -errno;
		perror("softefad: pipe");
		goto err_pid;
	}
	ret = sefa_mm_watch_init(d);
	if (ret) {
		fprintf(stderr, "softefad: process watch: %s\n", strerror(-ret));
		goto err_pid;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	ret = listen_on(d, lfd);
	if (ret)
		goto err_sock;
	ret = sefa_sysfs_create(d);
	if (ret) {
		fprintf(stderr, "softefad: cannot build sysfs tree in %s: %s\n",
			d->run_dir, strerror(-ret));
		goto err_sysfs;
	}
	ret = engines_start(d);
	if (ret)
		goto err_sysfs;
	if (o->log) {
		ret = redirect_log(o->log);
		if (ret)
			goto err_engines;
	}
	return 0;

err_engines:
	engines_stop(d);
err_sysfs:
	sefa_sysfs_remove(d);
	close(*lfd);
err_sock:
	unlink_in_run_dir(d, SEFA_SOCKET_NAME);
err_pid:
	unlink_in_run_dir(d, SEFA_PID_NAME);
err_dir:
	/* Only if empty: a log of an earlier run stays, and says what ran. */
	if (made)
		rmdir(d->run_dir);
	return ret;
}

/* The pid file last: while it is there, the run directory is taken. */
static void host_down(struct sefa_daemon *d, int lfd)
{
	close(lfd);
	unlink_in_run_dir(d, SEFA_SOCKET_NAME);
	wait_clients_gone(d);
	engines_stop(d);
	sefa_sysfs_remove(d);
	unlink_in_run_dir(d, SEFA_PID_NAME);
}

int main(int argc, char **argv)
{
	struct start_opts o = { .ndev = 1, .ready_fd = -1 };
	struct sefa_daemon *d = &daemon_state;
	int lfd, ret;

	d->profile = sefa_profile_find(SEFA_DEFAULT_PROFILE);
	d->abi = SEFA_ABI_IOCTL;
	if (sefa_run_dir_own(d->run_dir, sizeof(d->run_dir))) {
		fprintf(stderr,
			"softefad: run directory longer than %d characters\n",
			SEFA_RUN_DIR_MAX);
		return 2;
	}
	ret = sefa_parse_args(d, &o, argc, argv);
	if (ret >= 0)
		return ret;
	if (host_init(d, &o))
		return 1;
	ret = faults_init(d, &o);
	if (ret)
		goto err_faults;

	if (host_up(d, &o, &lfd)) {
		ret = -EIO;
		goto err_faults;
	}
	faults_log(d);
	if (o.ready_fd >= 0) {
		if (write(o.ready_fd, "ok\n", 3) != 3) {
			host_down(d, lfd);
			ret = -EIO;
			goto err_faults;
		}
		close(o.ready_fd);
	}
	serve(d, lfd);
	host_down(d, lfd);
	sefa_faults_free(d->faults);
	return 0;

err_faults:
	sefa_faults_free(d->faults);
	return ret == -EINVAL ? 2 : 1;
}

