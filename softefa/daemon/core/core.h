/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel core of softefad, below the verbs objects: connections (an
 * open device file each), copies to and from a client's memory, command
 * buffers and driver udata, shared memory and mmap keys, event files.
 */
#ifndef SEFA_SOFTEFA_DAEMON_CORE_CORE_H
#define SEFA_SOFTEFA_DAEMON_CORE_CORE_H

#include "host/host.h"

/*
 * A memory region the client may mmap: pages of its owner's device file
 * from @base (in_file), or a memfd of its own from 0.
 */
struct sefa_shm {
	int fd;
	void *addr;
	size_t base;
	size_t len;
	bool in_file;
	unsigned int refs;
	struct sefa_client *owner;	/* whose queue memory it is, if any */
};

struct sefa_mmap_entry {
	uint64_t key;
	struct sefa_shm *shm;
	size_t off;
	size_t len;
};

/*
 * An event file (async or completion channel).  The client holds one end
 * of a SOCK_SEQPACKET pair; the daemon keeps both, so it can take back
 * events that must not be delivered any more (a destroyed object's).
 */
struct sefa_event_file {
	int fd;			/* daemon end */
	int peer_fd;		/* the client's end, kept open */
	int client_fd;		/* its number in the client */
	ino_t ino;
	size_t reclen;		/* every record has this size */
	struct sefa_event_file *next;
};

/*
 * The request a connection serves, for the log line of a refusal
 * (softefad(8), LOG): the decoders name it, a refusal site says why with
 * sefa_refuse(), and an answer the client counts on (a probe) is marked
 * with sefa_routine(), so that it is not logged.  Cleared before each
 * request; only the connection's own thread touches it.
 */
struct sefa_req_note {
	uint32_t cmd;			/* write command, also of INVOKE_WRITE */
	uint16_t object;		/* ioctl object and method */
	uint16_t method;
	bool has_cmd;
	bool has_method;
	int routine;			/* the errno that is no refusal, or 0 */
	int err;			/* the errno @why explains, or 0 */
	char why[96];
};

/* One kind of refusal: what was asked and the errno (refusal.c). */
struct sefa_refusal_kind {
	uint32_t op;
	uint32_t cmd;			/* or the ioctl request */
	uint16_t object;
	uint16_t method;
	bool has_cmd;
	bool has_method;
	int err;
};

/* The kinds of refusal logged per connection without --verbose. */
#define SEFA_LOGGED_KINDS	8

/*
 * A connection: an open uverbs fd (the kernel's ib_uverbs_file), an open
 * umadN or issmN, or a control request.
 */
struct sefa_client {
	struct sefa_daemon *d;
	struct sefa_device *dev;	/* NULL for control connections */
	struct umad_file *umad;		/* umadN and issmN */
	int sock;
	pid_t pid;
	uid_t uid;
	pthread_t thread;
	struct sefa_client *next;

	/* ib_ucontext: present after GET_CONTEXT */
	atomic_bool has_ucontext;
	uint32_t efa_comp_mask;		/* what userspace announced */
	struct sefa_event_file *async;
	struct sefa_event_file *channels;
	atomic_uint nobjects;
	uint64_t queue_bytes;		/* rings and doorbells it holds */
	uint64_t pinned_pages;		/* of its memory regions */

	struct sefa_uobj **uobj;	/* handle table */
	unsigned int nuobj;
	struct sefa_mmap_entry *mmap;
	unsigned int nmmap;
	/*
	 * The open file's own memory, a memfd the process holds as its
	 * uverbs fd (has_file): every mmap key is an offset in it, where
	 * the pages of the key are, so that a bare mmap(2) system call on
	 * the fd maps them.  Offsets below mmap_end are taken, and never
	 * given out again.
	 */
	bool has_file;
	int file_fd;
	uint64_t mmap_end;

	struct sefa_req_note note;
	bool told_no_ioctl;		/* --abi write: libibverbs knows */
	struct sefa_refusal_kind logged[SEFA_LOGGED_KINDS];
	unsigned int nlogged;		/* one more once the log is full */
};

/*
 * refuse.c: why the request is refused.  Both return @err, a negative
 * errno, for the caller to return.
 */
int sefa_refuse(struct sefa_client *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sefa_routine(struct sefa_client *c, int err);

/* uaccess.c: the kernel's copy_from_user()/copy_to_user(). */
int sefa_copy_from_user(struct sefa_client *c, void *dst, uint64_t src,
			size_t len);
int sefa_copy_to_user(struct sefa_client *c, uint64_t dst, const void *src,
		      size_t len);
int sefa_clear_user(struct sefa_client *c, uint64_t dst, size_t len);
int sefa_user_is_zero(struct sefa_client *c, uint64_t src, size_t len);
int sefa_user_pages_ok(struct sefa_client *c, uint64_t addr, uint64_t len,
		       bool write);
int sefa_fdget(struct sefa_client *c, int fd);

/* A user buffer as an ioctl attribute or a write() payload describes it. */
struct sefa_ubuf {
	uint64_t addr;
	size_t len;
	bool is_inline;			/* PTR_IN of 8 bytes or less */
	uint8_t inline_data[8];
};

int sefa_ubuf_read(struct sefa_client *c, const struct sefa_ubuf *b,
		   void *dst, size_t len);
int sefa_ubuf_is_zero_from(struct sefa_client *c, const struct sefa_ubuf *b,
			   size_t from);

/*
 * One uverbs command once decoded, whichever way it arrived: ucore is the
 * core payload, udata the driver's (struct ib_udata).
 */
struct sefa_cmd {
	struct sefa_client *c;
	struct sefa_ubuf core_in;
	struct sefa_ubuf core_out;
	struct sefa_ubuf udata_in;
	struct sefa_ubuf udata_out;
	bool from_ioctl;
};

int sefa_request(struct sefa_cmd *cmd, void *req, size_t size);
int sefa_response(struct sefa_cmd *cmd, const void *resp, size_t size);
int sefa_udata_in(struct sefa_cmd *cmd, void *req, size_t size);
int sefa_udata_out(struct sefa_cmd *cmd, const void *resp, size_t size);
int sefa_udata_unknown(struct sefa_client *c);

/*
 * A process with pinned memory: the kernel's mm.  Its regions hold it, and
 * the device reaches its memory through it.  The pidfd says which process
 * it is, whatever process later gets the pid; once that one exits the mm
 * is gone, and the regions it holds move nothing (as the kernel's pinned
 * pages of a dead process reach no other one).  A forked child that keeps
 * the regions on an inherited file keeps them gone.
 */
struct sefa_mm {
	pid_t pid;
	int pidfd;
	bool gone;			/* under the daemon lock */
	uint64_t pinned;		/* pages */
	unsigned int refs;		/* regions charged to it */
	struct sefa_mm *next;
};

/*
 * charge.c: what a client makes the daemon hold.  Pinned pages count per
 * process (the kernel's mm->pinned_vm), the rest per open file.
 * sefa_mm_watch_init() makes the process-exit watch, d->mm_watch, which
 * the main loop polls, calling sefa_mm_reap() under the lock.
 */
int sefa_mm_watch_init(struct sefa_daemon *d);
void sefa_mm_reap(struct sefa_daemon *d);
int sefa_pin(struct sefa_client *c, uint64_t addr, uint64_t len,
	     struct sefa_mm **mm, uint64_t *npages);
void sefa_unpin(struct sefa_client *c, struct sefa_mm *mm, uint64_t npages);
int sefa_charge_object(struct sefa_client *c);
int sefa_charge_queue(struct sefa_client *c, uint64_t len);
void sefa_uncharge_queue(struct sefa_client *c, uint64_t len);
int sefa_limit_take(struct sefa_client *c, enum sefa_limit k);
void sefa_limit_give(struct sefa_device *dev, enum sefa_limit k);

/* pages.c */
int sefa_pages_new(struct sefa_shm *s, unsigned int memfd_flags);
int sefa_pages_in_file(struct sefa_shm *s, int file_fd);
void sefa_pages_free(struct sefa_shm *s);

/* shm.c */
int sefa_file_open(struct sefa_client *c);
void sefa_file_close(struct sefa_client *c);
struct sefa_shm *sefa_shm_new(struct sefa_client *c, size_t len);
struct sefa_shm *sefa_shm_new_ro(size_t len);
struct sefa_shm *sefa_shm_get(struct sefa_shm *s);
void sefa_shm_put(struct sefa_shm *s);
int sefa_mmap_insert(struct sefa_client *c, struct sefa_shm *s, size_t off,
		     size_t len, uint64_t *key);
void sefa_mmap_remove(struct sefa_client *c, struct sefa_shm *s);
void sefa_mmap_remove_all(struct sefa_client *c);
int64_t sefa_uverbs_mmap(struct sefa_client *c, uint64_t key, uint64_t len,
			 uint64_t flags);

/* event.c */
int sefa_event_file_new(struct sefa_client *c, enum sefa_fd_kind kind,
			size_t reclen, struct sefa_event_file **out);
void sefa_event_file_free(struct sefa_event_file *ef);
struct sefa_event_file *sefa_channel_lookup(struct sefa_client *c, int fd);
bool sefa_is_async_fd(struct sefa_client *c, int fd);
int sefa_event_send(struct sefa_event_file *ef, const void *rec);
unsigned int sefa_event_purge(struct sefa_event_file *ef, uint64_t element);

/*
 * conn.c: the connection's own socket.  Installing an fd waits for the
 * client: the functions that do, and the callers of those, run under the
 * daemon lock (sefa_daemon_lock()) and let it go meanwhile.
 */
int sefa_conn_recv_req(struct sefa_client *c, struct sefa_req *req);
int sefa_conn_install_fd(struct sefa_client *c, int fd,
			 enum sefa_fd_kind kind, int *client_fd);

#endif
