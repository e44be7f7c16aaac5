/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softefad: the kernel (ib_uverbs + the efa driver) and the NIC of a
 * software EFA device, for one simulated host.
 */
#ifndef SOFTEFAD_H
#define SOFTEFAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto.h"

struct sefa_client;

/* What one kind of device reports; see profile.c. */
struct sefa_profile {
	const char *name;
	uint32_t node_type;		/* enum ibv_node_type / rdma node type */
	const char *node_type_str;	/* sysfs node_type text */
	uint8_t link_layer;		/* IBV_LINK_LAYER_* */
	bool has_lid;			/* ports get LIDs from the daemon's SM */
	uint16_t vendor_part_id;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_sge_rd;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_ah;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t mtu;			/* bytes: port max_msg_sz */
	uint8_t active_mtu;		/* IBV_MTU_* */
	/* efa driver data */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_rdma_size;
	uint32_t device_caps;		/* EFA_QUERY_DEVICE_CAPS_* */
	uint16_t sub_cqs_per_cq;
	uint16_t inline_buf_size;
	uint32_t max_llq_size;
	uint16_t max_tx_batch;
	uint16_t min_sq_wr;
};

const struct sefa_profile *sefa_profile_find(const char *name);

#define SEFA_VENDOR_ID		0x1d0f
#define SEFA_GID_TBL_LEN	1
#define SEFA_PKEY_TBL_LEN	1
#define SEFA_NUM_COMP_VECTORS	1

struct sefa_device {
	unsigned int index;
	char name[32];			/* ib device name, efa_N */
	uint64_t node_guid;		/* host byte order */
	uint8_t gid[16];
	uint16_t lid;
	uint16_t sm_lid;
	const struct sefa_profile *profile;
};

enum sefa_abi_mode {
	SEFA_ABI_IOCTL,		/* a current kernel: ioctl() and write() */
	SEFA_ABI_WRITE,		/* an old kernel: every ioctl is ENOTTY */
};

struct sefa_netdev {
	char name[32];
	uint8_t mac[6];
	char addr[64];			/* first address, for humans */
};

struct sefa_daemon {
	char run_dir[4096];
	enum sefa_abi_mode abi;
	const struct sefa_profile *profile;
	unsigned int host_id;
	struct sefa_netdev netdev;
	unsigned int ndev;
	struct sefa_device dev[SEFA_MAX_DEVICES];

	pthread_mutex_t lock;		/* clients list and counters */
	struct sefa_client *clients;
	unsigned int nclients;
	int stop_pipe[2];
};

/* An open uverbs fd: the kernel's ib_uverbs_file. */
struct sefa_client {
	struct sefa_daemon *d;
	struct sefa_device *dev;	/* NULL for control connections */
	int sock;
	pid_t pid;
	uid_t uid;
	pthread_t thread;
	struct sefa_client *next;

	/* ib_ucontext: present after GET_CONTEXT */
	atomic_bool has_ucontext;
	uint32_t efa_comp_mask;		/* what userspace announced */
	/* Async event file: daemon end and the end handed to the client. */
	int async_fd;
	int async_peer_fd;
	atomic_uint nobjects;
};

/* uaccess.c: the kernel's copy_from_user()/copy_to_user(). */
int sefa_copy_from_user(struct sefa_client *c, void *dst, uint64_t src,
			size_t len);
int sefa_copy_to_user(struct sefa_client *c, uint64_t dst, const void *src,
		      size_t len);
int sefa_clear_user(struct sefa_client *c, uint64_t dst, size_t len);
int sefa_user_is_zero(struct sefa_client *c, uint64_t src, size_t len);

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

/* uverbs_write.c */
int sefa_uverbs_write(struct sefa_client *c, uint64_t buf, uint64_t count);
int sefa_invoke_write(struct sefa_cmd *cmd, uint32_t command);

/* uverbs_ioctl.c */
int sefa_uverbs_ioctl(struct sefa_client *c, uint64_t request, uint64_t arg);

/* uverbs_device.c: device-level commands of ib_uverbs. */
int sefa_cmd_get_context(struct sefa_cmd *cmd);
int sefa_cmd_query_device(struct sefa_cmd *cmd);
int sefa_cmd_ex_query_device(struct sefa_cmd *cmd);
int sefa_cmd_query_port(struct sefa_cmd *cmd);
int sefa_alloc_async_fd(struct sefa_client *c, int *client_fd);
void sefa_client_release(struct sefa_client *c);

/* efa.c: the efa kernel driver. */
int efa_alloc_ucontext(struct sefa_cmd *cmd);
int efa_query_device_udata(struct sefa_cmd *cmd);
struct ib_uverbs_query_device_resp;
struct ib_uverbs_query_port_resp;
void efa_fill_device_attr(const struct sefa_device *dev,
			  struct ib_uverbs_query_device_resp *resp);
int efa_fill_port_attr(const struct sefa_device *dev, unsigned int port,
		       struct ib_uverbs_query_port_resp *resp);

/* client.c: connections */
int sefa_client_install_fd(struct sefa_client *c, int fd, int *client_fd);
int sefa_client_start(struct sefa_daemon *d, int sock);
void sefa_clients_shutdown(struct sefa_daemon *d);

/* netdev.c */
int sefa_netdev_lookup(const char *name, struct sefa_netdev *nd);

/* sysfs.c */
int sefa_sysfs_create(const struct sefa_daemon *d);
void sefa_sysfs_remove(const struct sefa_daemon *d);

/* device.c */
void sefa_devices_init(struct sefa_daemon *d, unsigned int ndev);
void sefa_gid_str(const uint8_t gid[16], char *buf, size_t len);

#endif
