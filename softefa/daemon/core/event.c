// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Event files: the async event fd of a context and completion channels.
 *
 * Each read() of the client's end returns one record, as the kernel's
 * ib_uverbs_event_read() does: 16-byte ib_uverbs_async_event_desc or 8-byte
 * ib_uverbs_comp_event_desc.  libibverbs waits, when it destroys a CQ or a
 * QP, until the application acknowledged every event the kernel says it
 * read; so the daemon counts what it queued, and on destroy takes back what
 * is still unread for that object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "core/core.h"

/*
 * Create an event file and install its client end in the caller, letting
 * the daemon lock go meanwhile (sefa_conn_install_fd()).
 */
int sefa_event_file_new(struct sefa_client *c, enum sefa_fd_kind kind,
			size_t reclen, struct sefa_event_file **out)
{
	struct sefa_event_file *ef;
	struct stat st;
	int sv[2];
	int ret;

	ef = calloc(1, sizeof(*ef));
	if (!ef)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		goto err_free;
	}
	if (fstat(sv[1], &st)) {
		ret = -errno;
		goto err_close;
	}
	ret = sefa_conn_install_fd(c, sv[1], kind, &ef->client_fd);
	if (ret)
		goto err_close;
	ef->fd = sv[0];
	ef->peer_fd = sv[1];
	ef->ino = st.st_ino;
	ef->reclen = reclen;
	*out = ef;
	return 0;

err_close:
	close(sv[0]);
	close(sv[1]);
err_free:
	free(ef);
	return ret;
}

void sefa_event_file_free(struct sefa_event_file *ef)
{
	if (!ef)
		return;
	close(ef->fd);
	close(ef->peer_fd);
	free(ef);
}

/*
 * Is @fd in the client the event file @ef?  The number alone is not
 * enough: the client may have closed it and got the number again.
 */
static bool client_fd_is(struct sefa_client *c, int fd,
			 const struct sefa_event_file *ef)
{
	struct stat st;
	bool same;
	int dup;

	if (fd < 0 || fd != ef->client_fd)
		return false;
	dup = sefa_fdget(c, fd);
	if (dup < 0)
		return false;
	same = !fstat(dup, &st) && st.st_ino == ef->ino;
	close(dup);
	return same;
}

struct sefa_event_file *sefa_channel_lookup(struct sefa_client *c, int fd)
{
	struct sefa_event_file *ef;

	for (ef = c->channels; ef; ef = ef->next)
		if (client_fd_is(c, fd, ef))
			return ef;
	return NULL;
}

bool sefa_is_async_fd(struct sefa_client *c, int fd)
{
	return c->async && client_fd_is(c, fd, c->async);
}

/* Queue one record; a full queue loses the event, as an overflowing EQ. */
int sefa_event_send(struct sefa_event_file *ef, const void *rec)
{
	if (send(ef->fd, rec, ef->reclen, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)ef->reclen)
		return -errno;
	return 0;
}

/*
 * Take the still unread records of one object (matched on their first 8
 * bytes, the user handle) out of the queue, keeping the order of the rest.
 * Returns how many were taken.
 */
unsigned int sefa_event_purge(struct sefa_event_file *ef, uint64_t element)
{
	uint8_t rec[sizeof(struct ib_uverbs_async_event_desc)];
	uint8_t (*keep)[sizeof(rec)] = NULL;
	unsigned int nkeep = 0, taken = 0, i;

	if (!ef)
		return 0;
	while (recv(ef->peer_fd, rec, sizeof(rec), MSG_DONTWAIT) ==
	       (ssize_t)ef->reclen) {
		uint64_t el;
		void *grown;

		memcpy(&el, rec, sizeof(el));
		if (el == element) {
			taken++;
			continue;
		}
		grown = realloc(keep, (nkeep + 1) * sizeof(*keep));
		if (!grown)
			break;
		keep = grown;
		memcpy(keep[nkeep++], rec, sizeof(rec));
	}
	for (i = 0; i < nkeep; i++)
		sefa_event_send(ef, keep[i]);
	free(keep);
	return taken;
}
