// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefad: one simulated host with one or more software EFA devices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "rundir.h"
#include "client.h"
#include "host/host.h"
#include "mad/mad.h"
#include "nic/nic.h"

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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: softefad [--run-dir DIR] [--profile efa|extended] [--devices N]\n"
		"                [--netdev IF] [--abi ioctl|write] [--host-id N]\n"
		"                [--ready-fd FD] [--log FILE] [--verbose]\n"
		"                [--max-objects N] [--max-queue-mem BYTES[K|M|G]]\n"
		"                [--wire [--sm] [--wire-loss PCT] [--wire-reorder PCT]\n"
		"                 [--wire-dup PCT] [--wire-delay USEC]]\n");
}

static int parse_uint(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || !*s || *end || *out < min || *out > max)
		return -EINVAL;
	return 0;
}

/* --wire-*: a percentage, or a delay of at most a second. */
static int parse_wire(int c, const char *arg, struct sefa_wire_opts *w)
{
	unsigned long v;

	if (parse_uint(arg, 0, c == 'D' ? 1000000 : 100, &v)) {
		fprintf(stderr, c == 'D' ?
			"softefad: --wire-delay takes 0 to 1000000 (us)\n" :
			"softefad: --wire-loss, -reorder and -dup take 0 to 100 (%%)\n");
		return -EINVAL;
	}
	switch (c) {
	case 'L':
		w->loss = v;
		break;
	case 'O':
		w->reorder = v;
		break;
	case 'U':
		w->dup = v;
		break;
	default:
		w->delay_us = v;
	}
	return 0;
}

/* --max-objects N, --max-queue-mem BYTES with an optional K, M or G. */
static int parse_caps(int c, const char *arg, struct sefa_caps *caps)
{
	static const char units[] = "KMG";
	unsigned int shift = 0;
	unsigned long long v;
	const char *u;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	u = c == 'Q' && *end ? strchr(units, *end) : NULL;
	if (u && !end[1]) {
		shift = 10 * (unsigned int)(u - units + 1);
		end++;
	}
	if (errno || *arg < '0' || *arg > '9' || *end || !v ||
	    v > (c == 'Q' ? UINT64_MAX >> shift : 1ULL << 20)) {
		fprintf(stderr, c == 'Q' ?
			"softefad: --max-queue-mem takes a positive size (BYTES, or with K, M or G)\n" :
			"softefad: --max-objects takes 1 to 1048576\n");
		return -EINVAL;
	}
	if (c == 'Q')
		caps->max_queue_bytes = v << shift;
	else
		caps->max_objects = v;
	return 0;
}

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

/* Remove @name from the run directory: never a truncated path's file. */
static void run_file_remove(const struct sefa_daemon *d, const char *name)
{
	char path[PATH_MAX];

	if (!sock_path(d, name, path, sizeof(path)))
		unlink(path);
}

/* Is another daemon serving this run directory, whoever runs it? */
static bool socket_alive(const char *dir)
{
	int fd = sefa_host_connect(dir, SOCK_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd != -ENXIO;
}

/*
 * The run directory, made if missing.  What lies in it is the device to
 * every user, so it must be ours and nobody else's to change, as /dev is
 * root's: a directory another user made or may write is refused.
 */
static int run_dir_make(const char *dir)
{
	struct stat st;
	int err;

	if (mkdir(dir, 0755) && errno != EEXIST)
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
	if (socket_alive(d->run_dir)) {
		fprintf(stderr, "softefad: a daemon already serves %s\n",
			d->run_dir);
		return -EADDRINUSE;
	}
	unlink(path);
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
	FILE *f;
	int ret;

	ret = sock_path(d, SEFA_PID_NAME, path, sizeof(path));
	if (ret)
		return ret;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "%d\n", (int)getpid());
	return fclose(f) ? -errno : 0;
}

static void serve(struct sefa_daemon *d, int lfd)
{
	struct pollfd pfd[3] = {
		{ .fd = lfd, .events = POLLIN },
		{ .fd = d->stop_pipe[0], .events = POLLIN },
		{ .fd = d->mm_watch, .events = POLLIN },
	};

	for (;;) {
		int fd;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("softefad: poll");
			return;
		}
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

static void wait_clients_gone(struct sefa_daemon *d)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	int i;

	sefa_clients_shutdown(d);
	for (i = 0; i < 500; i++) {
		unsigned int n;

		/* the clients list, which connection threads leave */
		sefa_daemon_lock(d);
		n = d->nclients;
		sefa_daemon_unlock(d);
		if (!n)
			return;
		nanosleep(&ts, NULL);
	}
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run-dir", required_argument, NULL, 'r' },
		{ "profile", required_argument, NULL, 'p' },
		{ "devices", required_argument, NULL, 'n' },
		{ "netdev", required_argument, NULL, 'i' },
		{ "abi", required_argument, NULL, 'a' },
		{ "host-id", required_argument, NULL, 'H' },
		{ "ready-fd", required_argument, NULL, 'R' },
		{ "log", required_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "wire", no_argument, NULL, 'w' },
		{ "sm", no_argument, NULL, 'S' },
		{ "wire-loss", required_argument, NULL, 'L' },
		{ "wire-reorder", required_argument, NULL, 'O' },
		{ "wire-dup", required_argument, NULL, 'U' },
		{ "wire-delay", required_argument, NULL, 'D' },
		{ "max-objects", required_argument, NULL, 'M' },
		{ "max-queue-mem", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct sefa_daemon *d = &daemon_state;
	const char *netdev = NULL, *log = NULL;
	unsigned long ndev = 1, v;
	int ready_fd = -1, lfd = -1, c, ret;
	bool sm = false;

	d->profile = sefa_profile_find("efa");
	d->abi = SEFA_ABI_IOCTL;
	if (sefa_run_dir_own(d->run_dir, sizeof(d->run_dir))) {
		fprintf(stderr,
			"softefad: run directory longer than %d characters\n",
			SEFA_RUN_DIR_MAX);
		return 2;
	}

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (sefa_run_dir_set(d->run_dir, sizeof(d->run_dir),
					     optarg)) {
				fprintf(stderr,
					"softefad: --run-dir needs a directory of at most %d characters\n",
					SEFA_RUN_DIR_MAX);
				return 2;
			}
			break;
		case 'p':
			d->profile = sefa_profile_find(optarg);
			if (!d->profile) {
				fprintf(stderr,
					"softefad: unknown profile '%s' (efa or extended)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_uint(optarg, 1, SEFA_MAX_DEVICES, &ndev)) {
				fprintf(stderr,
					"softefad: --devices takes 1 to %d\n",
					SEFA_MAX_DEVICES);
				return 2;
			}
			break;
		case 'i':
			netdev = optarg;
			break;
		case 'a':
			if (!strcmp(optarg, "ioctl")) {
				d->abi = SEFA_ABI_IOCTL;
			} else if (!strcmp(optarg, "write")) {
				d->abi = SEFA_ABI_WRITE;
			} else {
				fprintf(stderr,
					"softefad: unknown --abi '%s' (ioctl or write)\n",
					optarg);
				return 2;
			}
			break;
		case 'H':
			if (parse_uint(optarg, 0, 255, &v)) {
				fprintf(stderr, "softefad: --host-id takes 0 to 255\n");
				return 2;
			}
			d->host_id = v;
			break;
		case 'R':
			if (parse_uint(optarg, 0, INT_MAX, &v)) {
				fprintf(stderr, "softefad: bad --ready-fd\n");
				return 2;
			}
			ready_fd = v;
			break;
		case 'l':
			log = optarg;
			break;
		case 'v':
			d->verbose = true;
			break;
		case 'w':
			d->wire.on = true;
			break;
		case 'S':
			sm = true;
			break;
		case 'L':
		case 'O':
		case 'U':
		case 'D':
			if (parse_wire(c, optarg, &d->wire))
				return 2;
			break;
		case 'M':
		case 'Q':
			if (parse_caps(c, optarg, &d->caps))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	ret = sefa_netdev_lookup(netdev, &d->netdev);
	if (ret) {
		fprintf(stderr, "softefad: %s%s: %s\n",
			netdev ? "network interface " : "no usable network interface",
			netdev ? netdev : "", strerror(-ret));
		return 1;
	}
	/* Alone, a host is its own subnet; on a wire, one host runs the SM. */
	d->run_sm = !d->wire.on || sm;
	if (sefa_devices_init(d, ndev) || sefa_mad_init(d)) {
		fprintf(stderr, "softefad: out of memory\n");
		return 1;
	}
	if (!d->wire.on && sm) {
		fprintf(stderr, "softefad: --sm needs --wire\n");
		return 2;
	}
	if (!d->wire.on && (d->wire.loss || d->wire.reorder || d->wire.dup ||
			    d->wire.delay_us)) {
		fprintf(stderr, "softefad: --wire-* faults need --wire\n");
		return 2;
	}

	if (run_dir_make(d->run_dir))
		return 1;
	if (pipe2(d->stop_pipe, O_CLOEXEC)) {
		perror("softefad: pipe");
		return 1;
	}
	ret = sefa_mm_watch_init(d);
	if (ret) {
		fprintf(stderr, "softefad: process watch: %s\n", strerror(-ret));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	ret = listen_on(d, &lfd);
	if (ret)
		return 1;
	ret = sefa_sysfs_create(d);
	if (ret) {
		fprintf(stderr, "softefad: cannot build sysfs tree in %s: %s\n",
			d->run_dir, strerror(-ret));
		goto err_listen;
	}
	ret = write_pidfile(d);
	if (ret) {
		fprintf(stderr, "softefad: pid file: %s\n", strerror(-ret));
		goto err_sysfs;
	}
	if (d->wire.on) {
		ret = sefa_net_open(d);
		if (ret) {
			fprintf(stderr,
				"softefad: wire on %s: %s%s\n", d->netdev.name,
				strerror(-ret), ret == -EPERM ?
				" (adding the GIDs as addresses needs CAP_NET_ADMIN)" :
				"");
			goto err_pid;
		}
	}
	d->engine_tick = sefa_mad_tick;
	if (d->wire.on && d->profile->has_mad) {
		d->mad_out = sefa_net_mad_xmit;
		d->mad_in = sefa_mad_wire_in;
	}
	ret = sefa_engine_start(d);
	if (ret) {
		fprintf(stderr, "softefad: device engine: %s\n", strerror(-ret));
		goto err_net;
	}
	if (log && redirect_log(log))
		goto err_engine;
	if (ready_fd >= 0) {
		if (write(ready_fd, "ok\n", 3) != 3)
			goto err_engine;
		close(ready_fd);
	}

	serve(d, lfd);

	close(lfd);
	run_file_remove(d, SEFA_SOCKET_NAME);
	wait_clients_gone(d);
	sefa_engine_stop(d);
	sefa_net_close(d);
	sefa_sysfs_remove(d);
	run_file_remove(d, SEFA_PID_NAME);
	return 0;

err_engine:
	sefa_engine_stop(d);
err_net:
	sefa_net_close(d);
err_pid:
	run_file_remove(d, SEFA_PID_NAME);
err_sysfs:
	sefa_sysfs_remove(d);
err_listen:
	close(lfd);
	run_file_remove(d, SEFA_SOCKET_NAME);
	return 1;
}
