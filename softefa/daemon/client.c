// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One thread per connection.  A device connection is an open uverbs fd and
 * carries the system calls the shim forwards; a control connection carries
 * one request of the softefa command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "client.h"
#include "status.h"
#include "fault/fault.h"
#include "mad/mad.h"
#include "nldev/nl.h"
#include "nic/nic.h"
#include "uverbs/uverbs.h"

static int send_reply(struct sefa_client *c, uint32_t type, int64_t ret,
		      int err)
{
	struct sefa_reply r = { .type = type, .ret = ret, .err = err };

	if (send(c->sock, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
		return -EPIPE;
	return 0;
}

static int64_t uverbs_call(struct sefa_client *c, const struct sefa_req *req)
{
	switch (req->op) {
	case SEFA_OP_WRITE:
		return sefa_uverbs_write(c, req->addr, req->len);
	case SEFA_OP_IOCTL:
		return sefa_uverbs_ioctl(c, req->arg, req->addr);
	case SEFA_OP_MMAP:
		return c->has_ucontext ?
		       sefa_uverbs_mmap(c, req->arg, req->len, req->addr) :
		       sefa_refuse(c, -EINVAL, "no context yet");
	case SEFA_OP_FD_NUM:
		return sefa_refuse(c, -EINVAL, "an fd number nobody asked for");
	default:
		return sefa_refuse(c, -EINVAL, "not a uverbs operation");
	}
}

/*
 * A device that died (a device-fatal fault) is gone as the kernel has it
 * once it disassociated the open files from it: every later call on them
 * fails with EIO.  Only a uverbs file has a device (c->dev); a umad file
 * has its port's agents.
 */
static int64_t device_dead(struct sefa_client *c)
{
	return sefa_refuse(c, -EIO, "device %s is dead (device fatal)",
			   c->dev->name);
}

/* One system call on the device, under the daemon lock like the kernel's. */
static int64_t dispatch(struct sefa_client *c, const struct sefa_req *req)
{
	int64_t ret;

	/*
	 * The call's objects, keys, event files and MAD agents, which the
	 * engine and the other connections use too.  A uverbs call that
	 * hands the client an fd lets it go while the client takes it.
	 */
	/* what the decoders and refusal sites say of this request */
	c->note.has_cmd = false;
	c->note.has_method = false;
	c->note.routine = 0;
	c->note.err = 0;
	sefa_daemon_lock(c->d);
	if (!c->umad && atomic_load(&c->dev->fatal))
		ret = device_dead(c);
	else
		ret = c->umad ? sefa_umad_call(c, req) : uverbs_call(c, req);
	if (!c->umad)
		sefa_uverbs_count_admin(c, req->op == SEFA_OP_MMAP, ret);
	/*
	 * What the call changed may be an engine's to act on.  Under the
	 * lock, as the engines stop under it (while clients hang on).
	 */
	atomic_store(&c->d->tick_asked, true);
	sefa_engine_kick(c->d);
	sefa_daemon_unlock(c->d);
	if (ret < 0)
		sefa_log_refusal(c, req, (int)ret);
	return ret;
}

static void serve_device(struct sefa_client *c)
{
	struct sefa_req req;
	int64_t ret;

	for (;;) {
		ret = sefa_conn_recv_req(c, &req);
		if (ret == -EPIPE)
			return;
		if (!ret)
			ret = dispatch(c, &req);
		if (send_reply(c, SEFA_REPLY_DONE, ret < 0 ? -1 : ret,
			       ret < 0 ? (int)-ret : 0))
			return;
	}
}

/*
 * Root, or the user the daemon runs as: who may do what the kernel keeps
 * for root, as the device's owner.
 */
static bool client_is_admin(const struct sefa_client *c)
{
	return c->uid == 0 || c->uid == geteuid();
}

static int open_umad(struct sefa_client *c, const struct sefa_req *req)
{
	int ret;

	/* umadN and issmN are root's 0600 nodes, unlike uverbsN. */
	if (!client_is_admin(c))
		return -EACCES;

	/*
	 * The port's SM holder and capability bits; let go while the
	 * readiness fd is installed and while issmN waits for its holder.
	 */
	sefa_daemon_lock(c->d);
	ret = req->arg >= SEFA_MAX_DEVICES ? -ENXIO :
	      sefa_umad_open(c, req->arg, req->op == SEFA_OP_OPEN_ISSM,
			     req->addr & O_NONBLOCK);
	sefa_daemon_unlock(c->d);
	return ret;
}

/* The longest rule text a control request may carry. */
#define INJECT_TEXT_MAX		1024

/*
 * softefa inject add: the rule's text follows the request.  Answers the
 * rule's id, or the parser's reason with the errno.
 */
static int inject_add(struct sefa_client *c, const struct sefa_req *req,
		      char *text, size_t room)
{
	char rule[INJECT_TEXT_MAX + 1];
	unsigned int id;
	ssize_t n;
	int ret;

	if (!req->len || req->len > INJECT_TEXT_MAX) {
		snprintf(text, room, "a rule is 1 to %d characters\n",
			 INJECT_TEXT_MAX);
		return -EINVAL;
	}
	do {
		n = recv(c->sock, rule, sizeof(rule), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)req->len || memchr(rule, '\0', n)) {
		snprintf(text, room, "the rule's text did not come whole\n");
		return -EINVAL;
	}
	rule[n] = '\0';
	ret = sefa_fault_apply_add(c->d, rule, &id, text, room - 1);
	if (ret) {
		strcat(text, "\n");
		return ret;
	}
	snprintf(text, room, "rule %u\n", id);
	return 0;
}

static int inject_clear(struct sefa_client *c, const struct sefa_req *req,
			char *text, size_t room)
{
	int ret;

	if (req->addr > UINT32_MAX) {
		snprintf(text, room, "no rule %llu\n",
			 (unsigned long long)req->addr);
		return -ENOENT;
	}
	ret = sefa_fault_clear(c->d->faults, (unsigned int)req->addr);
	if (ret)
		snprintf(text, room, "no rule %llu\n",
			 (unsigned long long)req->addr);
	else if (req->addr)
		snprintf(text, room, "cleared rule %llu\n",
			 (unsigned long long)req->addr);
	else
		snprintf(text, room, "cleared every rule\n");
	return ret;
}

static void serve_control(struct sefa_client *c, const struct sefa_req *req)
{
	struct sefa_daemon *d = c->d;
	char *msg = calloc(1, SEFA_MAX_MSG);
	struct sefa_reply *r = (struct sefa_reply *)msg;
	char *text = msg + sizeof(*r);
	size_t room = SEFA_MAX_MSG - sizeof(*r);

	if (!msg)
		return;
	r->type = SEFA_REPLY_TEXT;
	switch (req->arg) {
	case SEFA_CTL_STATUS:
		sefa_status_text(d, text, room);
		break;
	case SEFA_CTL_STATS:
		sefa_stats_text(d, text, room);
		break;
	case SEFA_CTL_INJECT_LIST:
		sefa_fault_list_text(d->faults, text, room);
		break;
	case SEFA_CTL_INJECT_ADD:
	case SEFA_CTL_INJECT_CLEAR:
		/* Faults are the device owner's to make, as stopping it is. */
		if (!client_is_admin(c)) {
			r->err = EPERM;
			snprintf(text, room, "only root or uid %u may inject faults\n",
				 (unsigned int)geteuid());
		} else {
			r->err = -(req->arg == SEFA_CTL_INJECT_ADD ?
				   inject_add(c, req, text, room) :
				   inject_clear(c, req, text, room));
		}
		r->ret = r->err ? -1 : 0;
		break;
	case SEFA_CTL_STOP:
		/* Unloading the driver: for root, or the daemon's own user. */
		if (!client_is_admin(c)) {
			r->err = EPERM;
			r->ret = -1;
			snprintf(text, room, "only root or uid %u may stop it\n",
				 (unsigned int)geteuid());
			break;
		}
		/* Answer first: the daemon may be gone right after. */
		snprintf(text, room, "stopping\n");
		send(c->sock, msg, sizeof(*r) + strlen(text), MSG_NOSIGNAL);
		free(msg);
		if (write(d->stop_pipe[1], "x", 1) < 0)
			perror("softefad: stop");
		return;
	default:
		r->err = EINVAL;
		r->ret = -1;
		snprintf(text, room, "unknown control request %llu\n",
			 (unsigned long long)req->arg);
	}
	send(c->sock, msg, sizeof(*r) + strlen(text), MSG_NOSIGNAL);
	free(msg);
}

static void client_unlink(struct sefa_client *c)
{
	struct sefa_daemon *d = c->d;
	struct sefa_client **pp;

	/* The clients list. */
	sefa_daemon_lock(d);
	for (pp = &d->clients; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	d->nclients--;
	sefa_daemon_unlock(d);
}

/*
 * uverbsN: the process's fd is the file's memory (sefa_file_open()), the
 * conversation goes on over the connection.
 */
static int open_uverbs(struct sefa_client *c, uint64_t index)
{
	int ret, fd;

	if (index >= c->d->ndev)
		return -ENXIO;
	ret = sefa_file_open(c);
	if (ret)
		return ret;
	/* The device, which status_text() reads. */
	sefa_daemon_lock(c->d);
	c->dev = &c->d->dev[index];
	ret = sefa_conn_install_fd(c, c->file_fd, SEFA_FD_UVERBS_FILE, &fd);
	sefa_daemon_unlock(c->d);
	return ret;
}

static void *client_thread(void *arg)
{
	struct sefa_client *c = arg;
	struct sefa_req req;
	int ret;

	ret = sefa_conn_recv_req(c, &req);
	if (!ret && req.op == SEFA_OP_OPEN) {
		ret = open_uverbs(c, req.arg);
		if (!send_reply(c, SEFA_REPLY_DONE, ret ? -1 : 0, -ret) && !ret)
			serve_device(c);
	} else if (!ret && (req.op == SEFA_OP_OPEN_UMAD ||
			    req.op == SEFA_OP_OPEN_ISSM)) {
		ret = open_umad(c, &req);
		if (!send_reply(c, SEFA_REPLY_DONE, ret ? -1 : 0, -ret) && !ret)
			serve_device(c);
	} else if (!ret && req.op == SEFA_OP_OPEN_NETLINK) {
		if (!send_reply(c, SEFA_REPLY_DONE, 0, 0))
			sefa_netlink_serve(c, client_is_admin(c));
	} else if (!ret && req.op == SEFA_OP_CTL) {
		serve_control(c, &req);
	} else if (ret != -EPIPE) {
		send_reply(c, SEFA_REPLY_DONE, -1, ret ? -ret : EINVAL);
	}

	client_unlink(c);
	/* What the connection leaves: objects and agents others use. */
	sefa_daemon_lock(c->d);
	sefa_umad_close(c);
	sefa_client_release(c);
	sefa_daemon_unlock(c->d);
	sefa_file_close(c);
	close(c->sock);
	free(c);
	return NULL;
}

int sefa_client_start(struct sefa_daemon *d, int sock)
{
	struct sefa_client *c;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	pthread_attr_t attr;
	int ret;

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -errno;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->d = d;
	c->sock = sock;
	c->pid = cred.pid;
	c->uid = cred.uid;
	setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int));

	/* The clients list. */
	sefa_daemon_lock(d);
	c->next = d->clients;
	d->clients = c;
	d->nclients++;
	sefa_daemon_unlock(d);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&c->thread, &attr, client_thread, c);
	pthread_attr_destroy(&attr);
	if (ret) {
		client_unlink(c);
		free(c);
		return -ret;
	}
	return 0;
}

/*
 * Wake every connection thread so the daemon can stop.  As the kernel does
 * when a device goes away under open files (disassociation), each context
 * gets IBV_EVENT_DEVICE_FATAL on its async fd first; every later call
 * fails with EIO and every event read, once the queue is empty, ends.
 */
void sefa_clients_shutdown(struct sefa_daemon *d)
{
	struct sefa_client *c;

	/* The clients list: a connection unlinks itself before it is freed. */
	sefa_daemon_lock(d);
	for (c = d->clients; c; c = c->next) {
		sefa_async_event(c, 0, IBV_EVENT_DEVICE_FATAL, NULL);
		shutdown(c->sock, SHUT_RDWR);
	}
	sefa_daemon_unlock(d);
}

