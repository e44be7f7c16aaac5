// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon of a harness, and its one client (fuzz.h).  The daemon is made
 * once per process: its devices' key tables are large, and an input only
 * changes what fuzz_daemon_reset() makes new again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "mad/mad.h"
#include "uverbs/uverbs.h"

static struct sefa_daemon fuzz_d = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.sm_cond = PTHREAD_COND_INITIALIZER,
	.stop_pipe = { -1, -1 },
};

/*
 * The devices as sefa_devices_init() makes them, per profile, made once:
 * a reset copies them back and clears the key tables in place, as large
 * as they grew, so an input costs no fresh table, whose pages would all
 * fault.
 */
struct pristine {
	const char *profile;
	struct sefa_device dev[SEFA_MAX_DEVICES];
};

static const struct sefa_device *pristine(struct sefa_daemon *d,
					  const char *profile)
{
	static struct pristine p[2];
	static struct sefa_daemon tmp;
	unsigned int i, k;

	for (k = 0; k < 2 && p[k].profile; k++)
		if (!strcmp(p[k].profile, profile))
			return p[k].dev;
	if (k == 2)
		abort();
	memset(&tmp, 0, sizeof(tmp));
	tmp.netdev = d->netdev;
	tmp.profile = sefa_profile_find(profile);
	if (!tmp.profile || sefa_devices_init(&tmp, d->ndev))
		abort();
	for (i = 0; i < d->ndev; i++) {
		free(tmp.dev[i].mr);
		free(tmp.dev[i].mr_gen);
		p[k].dev[i] = tmp.dev[i];
	}
	p[k].profile = profile;
	return p[k].dev;
}

void fuzz_daemon_reset(struct sefa_daemon *d, const char *profile)
{
	const struct sefa_device *p = pristine(d, profile);
	unsigned int i;

	for (i = 0; i < d->ndev; i++) {
		struct sefa_mr **mr = d->dev[i].mr;
		uint8_t *gen = d->dev[i].mr_gen;
		unsigned int slots = d->dev[i].mr_slots;

		d->dev[i] = p[i];
		d->dev[i].mr = mr;
		d->dev[i].mr_gen = gen;
		d->dev[i].mr_slots = slots;
		memset(mr, 0, slots * sizeof(*mr));
		memset(gen, 0, slots);
	}
	d->profile = sefa_profile_find(profile);
	d->abi = SEFA_ABI_IOCTL;
	d->mad_last_hi_tid = 0;
}

struct sefa_daemon *fuzz_daemon(unsigned int ndev)
{
	struct sefa_daemon *d = &fuzz_d;

	if (!d->ndev) {
		memcpy(d->netdev.mac, "\x02\x00\x00\x00\x00\x01", 6);
		strcpy(d->netdev.name, "fuzz0");
		d->ndev = ndev;
		d->profile = sefa_profile_find("efa");
		if (sefa_devices_init(d, ndev))
			abort();
	}
	return d;
}

int fuzz_client_open(struct fuzz_client *fc, struct sefa_daemon *d)
{
	int sv[2];

	memset(fc, 0, sizeof(*fc));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fc->c.d = d;
	fc->c.dev = &d->dev[0];
	fc->c.pid = getpid();
	fc->c.uid = getuid();
	fc->c.sock = sv[0];
	fc->peer = sv[1];
	return 0;
}

/*
 * The shim's answer to an fd the daemon hands over, sent ahead: the daemon
 * reads it once it has sent the fd.  No call installs more than one.
 */
void fuzz_client_prime(struct fuzz_client *fc)
{
	struct sefa_req req = {
		.op = SEFA_OP_FD_NUM, .version = SEFA_PROTO_VERSION,
		.arg = 100 + fc->fds++,
	};

	if (send(fc->peer, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req))
		abort();
}

void fuzz_client_drain(struct fuzz_client *fc)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct sefa_reply r;
	struct sefa_req req;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int fd;

	/* answers the daemon did not need */
	while (recv(fc->c.sock, &req, sizeof(req), MSG_DONTWAIT) > 0)
		;
	for (;;) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		if (recvmsg(fc->peer, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) <= 0)
			break;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SCM_RIGHTS)
				continue;
			memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
			close(fd);
		}
	}
}

/*
 * What the daemon does when the file is closed, and the check it left
 * nothing behind in the device's tables.
 */
void fuzz_client_close(struct fuzz_client *fc)
{
	static struct sefa_mr *no_mrs[SEFA_MR_SLOTS_MAX];	/* zero */
	struct sefa_device *dev = fc->c.dev;
	unsigned int i;

	sefa_daemon_lock(fc->c.d);
	sefa_umad_close(&fc->c);
	sefa_client_release(&fc->c);
	sefa_daemon_unlock(fc->c.d);
	fuzz_client_drain(fc);
	close(fc->c.sock);
	close(fc->peer);
	if (fc->c.nobjects || fc->c.uobj || fc->c.channels || fc->c.nmmap)
		abort();
	for (i = 0; i < SEFA_MAX_QP_IDX; i++)
		if (dev->qp[i])
			abort();
	for (i = 0; i < SEFA_MAX_PD; i++)
		if (dev->pdn_used[i])
			abort();
	for (i = 0; i < SEFA_MAX_AH; i++)
		if (dev->ah[i].users)
			abort();
	/* memcmp: the sanitizers' own, not a loop they trace */
	if (memcmp(dev->mr, no_mrs, dev->mr_slots * sizeof(*dev->mr)))
		abort();
}
