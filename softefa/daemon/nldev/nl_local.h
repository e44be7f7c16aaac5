/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside the netlink layer: the message under construction, the parsed
 * attributes of a request, and each command's handler.
 */
#ifndef SEFA_SOFTEFA_DAEMON_NLDEV_NL_LOCAL_H
#define SEFA_SOFTEFA_DAEMON_NLDEV_NL_LOCAL_H

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdbool.h>
#include <stdint.h>

#include "nldev/nl.h"

struct sefa_device;

/*
 * One answer.  The kernel sizes a dump's skb to about a page
 * (NLMSG_GOODSIZE), and the rdma tool reads with a page-sized buffer: a
 * dump that needs more goes on in further messages.
 */
#define NL_MSG_ROOM	3840

struct nl_msg {
	union {
		struct nlmsghdr hdr;
		uint8_t data[NL_MSG_ROOM];
	};
	size_t len;
};

/* A request: its header and its attributes by type (NULL: absent). */
struct nl_req {
	const struct nlmsghdr *hdr;
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	bool dump;
	bool admin;
	struct sefa_daemon *d;
	const struct sefa_nl_sink *out;
};

/* nl_attr.c */
int nl_parse(struct nl_req *r);
int nl_get_u32(const struct nl_req *r, int type, uint32_t *v);
const char *nl_get_str(const struct nl_req *r, int type);
void nl_start(struct nl_msg *m, const struct nl_req *r, unsigned int cmd,
	      uint16_t flags);
int nl_put(struct nl_msg *m, int type, const void *data, size_t len);
int nl_put_u8(struct nl_msg *m, int type, uint8_t v);
int nl_put_u32(struct nl_msg *m, int type, uint32_t v);
int nl_put_u64(struct nl_msg *m, int type, uint64_t v);
int nl_put_str(struct nl_msg *m, int type, const char *s);
size_t nl_nest_start(struct nl_msg *m, int type);
void nl_nest_end(struct nl_msg *m, size_t nest);
int nl_emit(const struct nl_req *r, struct nl_msg *m);
int nl_done(const struct nl_req *r, int err);
int nl_handle(struct nl_msg *m, const struct sefa_device *dev);
struct sefa_device *nl_device(const struct nl_req *r);
typedef int nl_fill_dev_fn(const struct nl_req *r, struct nl_msg *m,
			   const struct sefa_device *dev);
int nl_each_device(const struct nl_req *r, unsigned int cmd,
		   nl_fill_dev_fn *fill);

/*
 * nldev.c and nl_res.c: each command answers under the daemon lock and
 * returns 0 when it answered, a negative errno for nl_serve.c to answer,
 * or -EPIPE when the answer could not go.
 */
int nldev_get(const struct nl_req *r);
int nldev_port_get(const struct nl_req *r);
int nldev_sys_get(const struct nl_req *r);
int nldev_get_chardev(const struct nl_req *r);
int nldev_stat_get(const struct nl_req *r);
int nl_res_get(const struct nl_req *r);
int nl_res_obj_get(const struct nl_req *r, unsigned int cmd);

#endif
