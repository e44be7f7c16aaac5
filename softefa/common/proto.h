/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softefa/common/ holds what the shim, the daemon and the command line
 * share: this request protocol, run directories (rundir.h), whether a run
 * directory's daemon lives (hoststate.h) and the device profiles
 * (profile.h).  Its files include only the system's headers, each other
 * and the device contract of include/efa/; never daemon/, shim/, cli/ or
 * the provider, so that each of those can link them alone.
 *
 * This header is the wire between libsoftefa-preload.so and softefad.
 *
 * Every open() of /dev/infiniband/uverbsN becomes one SOCK_SEQPACKET
 * connection to the daemon, the way every open of the real character device
 * becomes one ib_uverbs_file.  The shim never interprets a verbs command: it
 * forwards the system call (number, user pointer, length) and the daemon
 * reads and writes the caller's memory itself, as copy_from_user() and
 * copy_to_user() do.
 */
#ifndef SEFA_SOFTEFA_COMMON_PROTO_H
#define SEFA_SOFTEFA_COMMON_PROTO_H

#include <stdint.h>

#define SEFA_PROTO_VERSION	1
#define SEFA_SOCKET_NAME	"softefad.sock"
#define SEFA_PID_NAME		"softefad.pid"
/* Where softefa start has the daemon log. */
#define SEFA_LOG_NAME		"softefad.log"
#define SEFA_SYSFS_DIR		"sys"
#define SEFA_DEV_DIR		"dev/infiniband"
#define SEFA_RUN_DIR_ENV	"SOFTEFA_RUN_DIR"

/* uverbs character devices: major 231, minors from 192 like the kernel. */
#define SEFA_UVERBS_MAJOR	231
#define SEFA_UVERBS_BASE_MINOR	192
#define SEFA_MAX_DEVICES	16

/*
 * ib_umad's nodes, one pair per port: umadN (minor N) and issmN (minor
 * 64 + N), major 231 like the kernel's.  N is the device index here, as
 * every SoftEFA device has one port.
 */
#define SEFA_UMAD_MAJOR		231
#define SEFA_UMAD_BASE_MINOR	0
#define SEFA_ISSM_BASE_MINOR	64
#define SEFA_UMAD_ABI_VERSION	5

/*
 * The first message of a connection says what it is: an open of a node
 * (arg: its index N, addr: the open(2) flags) or a control request.
 */
enum sefa_op {
	SEFA_OP_OPEN = 1,	/* uverbsN */
	SEFA_OP_WRITE,		/* addr, len: write(2) on the device fd */
	SEFA_OP_IOCTL,		/* arg: request, addr: argument */
	SEFA_OP_FD_NUM,		/* arg: fd number the shim installed */
	SEFA_OP_CTL,		/* arg: enum sefa_ctl */
	SEFA_OP_MMAP,		/* arg: offset (key), len, addr: flags */
	SEFA_OP_OPEN_UMAD,	/* umadN */
	SEFA_OP_OPEN_ISSM,	/* issmN: answered once the port's SM is ours */
	SEFA_OP_READ,		/* addr, len: read(2), never blocks */
};

enum sefa_ctl {
	SEFA_CTL_STATUS = 1,
	SEFA_CTL_STOP,
	SEFA_CTL_STATS,
	/*
	 * Fault rules (softefa inject): ADD's rule text follows in a second
	 * message of len bytes; CLEAR takes the rule id in addr, 0 for all.
	 */
	SEFA_CTL_INJECT_ADD,
	SEFA_CTL_INJECT_LIST,
	SEFA_CTL_INJECT_CLEAR,
};

struct sefa_req {
	uint32_t op;
	uint32_t version;
	uint64_t arg;
	uint64_t addr;
	uint64_t len;
};

enum sefa_reply_type {
	/* Final answer: ret is the syscall's return value, err its errno. */
	SEFA_REPLY_DONE = 1,
	/*
	 * A file descriptor rides along (SCM_RIGHTS).  The shim installs it
	 * and answers with SEFA_OP_FD_NUM so the daemon can write the number
	 * the process really got into the response, like fd_install().  ret
	 * says what it is (enum sefa_fd_kind).
	 */
	SEFA_REPLY_FD,
	/* Control answer: text follows the header in the same message. */
	SEFA_REPLY_TEXT,
};

/*
 * umadN: the open hands over (SEFA_REPLY_FD) one end of a socket pair, the
 * file's readiness, and that is the fd the process gets; the connection
 * stays the shim's.  The daemon keeps exactly one byte in it while MADs
 * are queued and none otherwise, adjusting it under its lock before it
 * answers the call that changed the queue, so poll(), select() and epoll
 * on the fd mean what they mean on a real umad fd.  read() never blocks in
 * the daemon: with nothing queued it is EAGAIN, and the shim, for a
 * blocking fd, waits for POLLIN and asks again.
 */

/*
 * What an fd the daemon hands over is.  The shim watches event files: when
 * the daemon is gone (their end of the socket pair closed), a read of the
 * async one gives IBV_EVENT_DEVICE_FATAL once, if the daemon could not
 * queue it itself, and every read after that fails with EIO, as reads of
 * a disassociated uverbs event file do.
 */
enum sefa_fd_kind {
	SEFA_FD_MEMORY,			/* a memfd to map */
	SEFA_FD_ASYNC_EVENTS,		/* a context's async event file */
	SEFA_FD_COMP_EVENTS,		/* a completion channel */
	SEFA_FD_UMAD_READY,		/* a umad file's readiness */
};

struct sefa_reply {
	uint32_t type;
	int32_t err;
	int64_t ret;
};

/* Largest control answer, header included. */
#define SEFA_MAX_MSG		65536

#endif
