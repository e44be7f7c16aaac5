// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MADs through the kernel's MAD layer, the way kernel code sends them,
 * over the umad device of a port.  Each agent has a umad file of its own
 * with one agent registered in it, so that a read of the file returns
 * what that agent receives.  A send buffer keeps room for the umad header
 * in front of the MAD, so that posting is one write() of both.
 */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>

#include "efa.h"

#define EFA_UMAD_SYSFS_DIR	"/sys/class/infiniband_mad"
#define EFA_UMAD_DEV_DIR	"/dev/infiniband"
#define EFA_UMAD_ABI_VERSION	5
/* umadN indexes are allocated lowest first, over all devices and ports */
#define EFA_UMAD_MAX_INDEX	256

/* Bounds of the kernel MAD layer's registration tables */
#define EFA_MAD_MAX_CLASS	0x50
#define EFA_MAD_MAX_CLASS_VERSION 0x83

#define EFA_UMAD_HDR_SIZE	sizeof(struct ib_user_mad_hdr)

_Static_assert(sizeof(struct ib_user_mad_hdr) == 64, "umad header layout");
_Static_assert(sizeof(struct efadv_mad_hdr) == EFADV_MAD_HDR_SIZE, "MAD hdr");
_Static_assert(sizeof(struct efadv_mad_rmpp_hdr) + EFADV_MAD_HDR_SIZE ==
	       EFADV_MAD_RMPP_HDR_SIZE, "RMPP hdr");
_Static_assert(sizeof(struct efadv_mad_sa_hdr) + EFADV_MAD_RMPP_HDR_SIZE ==
	       EFADV_MAD_SA_HDR_SIZE, "SA hdr");
_Static_assert(sizeof(((struct ib_user_mad_reg_req2 *)0)->method_mask) ==
	       sizeof(((struct efadv_mad_reg_req *)0)->method_mask),
	       "method mask");

struct efa_mad_agent {
	struct efadv_mad_agent agent;
	/* the registration's, and one per send buffer */
	unsigned int refcnt;
};

struct efa_mad_send {
	struct efadv_mad_send_buf buf;
	struct ib_user_mad_hdr umad;
	uint64_t mad[];			/* right after the umad header */
};

_Static_assert(offsetof(struct efa_mad_send, mad) ==
	       offsetof(struct efa_mad_send, umad) + EFA_UMAD_HDR_SIZE,
	       "the MAD follows the umad header");

static struct efa_mad_agent *to_efa_mad_agent(struct efadv_mad_agent *agent)
{
	return (struct efa_mad_agent *)((char *)agent -
					offsetof(struct efa_mad_agent, agent));
}

static struct efa_mad_send *to_efa_mad_send(struct efadv_mad_send_buf *buf)
{
	return (struct efa_mad_send *)((char *)buf -
				       offsetof(struct efa_mad_send, buf));
}

static bool efa_mad_class_vendor2(uint8_t mgmt_class)
{
	return mgmt_class >= EFADV_MAD_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= EFADV_MAD_CLASS_VENDOR_RANGE2_END;
}

int efadv_get_mad_data_offset(uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case EFADV_MAD_CLASS_SUBN_ADM:
		return EFADV_MAD_SA_HDR_SIZE;
	case EFADV_MAD_CLASS_DEVICE_MGMT:
	case EFADV_MAD_CLASS_DEVICE_ADM:
	case EFADV_MAD_CLASS_BIS:
		return EFADV_MAD_DEVICE_HDR_SIZE;
	}
	if (efa_mad_class_vendor2(mgmt_class))
		return EFADV_MAD_VENDOR_HDR_SIZE;
	return EFADV_MAD_HDR_SIZE;
}

int efadv_is_mad_class_rmpp(uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case EFADV_MAD_CLASS_SUBN_ADM:
	case EFADV_MAD_CLASS_DEVICE_MGMT:
	case EFADV_MAD_CLASS_DEVICE_ADM:
	case EFADV_MAD_CLASS_BIS:
		return 1;
	}
	return efa_mad_class_vendor2(mgmt_class);
}

/*
 * The kernel's rules for a registration, checked here too so that a
 * caller gets the same answer whatever plays the kernel.
 */
int efa_mad_reg_check(enum efadv_mad_qp_type qp_type,
		      const struct efadv_mad_reg_req *req,
		      uint8_t rmpp_version, uint32_t flags)
{
	uint8_t cls;
	bool smi_class;

	if (qp_type != EFADV_MAD_QPT_SMI && qp_type != EFADV_MAD_QPT_GSI)
		return EINVAL;
	if (flags & ~EFADV_MAD_USER_RMPP)
		return EINVAL;
	if (rmpp_version > EFADV_MAD_RMPP_VERSION)
		return EINVAL;
	/* an agent for responses only has nothing to do RMPP for itself */
	if (!req)
		return flags & EFADV_MAD_USER_RMPP ? EINVAL : 0;

	cls = req->mgmt_class;
	if (!efa_buf_cleared(req->reserved, sizeof(req->reserved)))
		return EINVAL;
	if (req->mgmt_class_version >= EFA_MAD_MAX_CLASS_VERSION)
		return EINVAL;
	/* 0 is reserved; the directed-route class is the only one above */
	if (!cls || (cls >= EFA_MAD_MAX_CLASS &&
		     cls != EFADV_MAD_CLASS_SUBN_DIRECTED_ROUTE))
		return EINVAL;
	if (efa_mad_class_vendor2(cls) &&
	    efa_buf_cleared(req->oui, sizeof(req->oui)))
		return EINVAL;
	if (rmpp_version && !efadv_is_mad_class_rmpp(cls))
		return EINVAL;
	smi_class = cls == EFADV_MAD_CLASS_SUBN_LID_ROUTED ||
		    cls == EFADV_MAD_CLASS_SUBN_DIRECTED_ROUTE;
	if (smi_class != (qp_type == EFADV_MAD_QPT_SMI))
		return EINVAL;
	return 0;
}

/*
 * One line of a sysfs file, without its newline.  open() and read(), as
 * libibumad does, so that a preloaded shim that redirects the paths
 * libibumad uses sees ours too.
 */
static int efa_sysfs_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return EIO;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int efa_sysfs_read_uint(const char *path, unsigned long *val)
{
	char buf[32], *end;
	int err;

	err = efa_sysfs_read(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*val = strtoul(buf, &end, 0);
	return errno || end == buf ? EINVAL : 0;
}

/*
 * The index N of the umadN of a device's port, from sysfs_dir (normally
 * /sys/class/infiniband_mad).  EOPNOTSUPP: no umad ABI 5, or no umad
 * device for this device at all; ENODEV: none for that port.
 */
int efa_umad_find(const char *sysfs_dir, const char *ibdev, uint8_t port,
		  int *index)
{
	char path[PATH_MAX], name[IBV_SYSFS_NAME_MAX];
	bool dev_seen = false;
	unsigned long val;

	snprintf(path, sizeof(path), "%s/abi_version", sysfs_dir);
	if (efa_sysfs_read_uint(path, &val) || val != EFA_UMAD_ABI_VERSION)
		return EOPNOTSUPP;

	for (int i = 0; i < EFA_UMAD_MAX_INDEX; i++) {
		snprintf(path, sizeof(path), "%s/umad%d/ibdev", sysfs_dir, i);
		if (efa_sysfs_read(path, name, sizeof(name)) ||
		    strcmp(name, ibdev))
			continue;
		dev_seen = true;
		snprintf(path, sizeof(path), "%s/umad%d/port", sysfs_dir, i);
		if (efa_sysfs_read_uint(path, &val) || val != port)
			continue;
		*index = i;
		return 0;
	}
	return dev_seen ? ENODEV : EOPNOTSUPP;
}

static void efa_mad_agent_put(struct efa_mad_agent *ma)
{
	if (!__atomic_sub_fetch(&ma->refcnt, 1, __ATOMIC_ACQ_REL))
		free(ma);
}

/* efadv_register_mad_agent() with the sysfs and /dev directories given. */
struct efadv_mad_agent *
efa_register_mad_agent_at(const char *sysfs_dir, const char *dev_dir,
			  struct ibv_context *ibvctx, uint8_t port_num,
			  enum efadv_mad_qp_type qp_type,
			  const struct efadv_mad_reg_req *reg_req,
			  uint8_t rmpp_version, uint32_t flags)
{
	struct verbs_context *vctx = to_verbs_context(ibvctx);
	struct ib_user_mad_reg_req2 req = {};
	struct efa_mad_agent *ma;
	char path[PATH_MAX];
	int err, index, fd;

	if (!efa_is_dev(ibvctx->device)) {
		verbs_err(vctx, "not an EFA device\n");
		errno = EOPNOTSUPP;
		return NULL;
	}

	err = efa_mad_reg_check(qp_type, reg_req, rmpp_version, flags);
	if (err) {
		verbs_err(vctx, "MAD agent registration refused\n");
		errno = err;
		return NULL;
	}

	err = efa_umad_find(sysfs_dir, ibvctx->device->name, port_num, &index);
	if (err) {
		verbs_err(vctx, "no umad device for port %u of %s\n", port_num,
			  ibvctx->device->name);
		errno = err;
		return NULL;
	}

	ma = calloc(1, sizeof(*ma));
	if (!ma)
		return NULL;

	snprintf(path, sizeof(path), "%s/umad%d", dev_dir, index);
	fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		verbs_err(vctx, "open %s: %s\n", path, strerror(err));
		goto err_free;
	}

	/* REGISTER_AGENT2 also switches the file to the 64-byte header. */
	req.qpn = qp_type;
	req.rmpp_version = rmpp_version;
	req.flags = flags;
	if (reg_req) {
		req.mgmt_class = reg_req->mgmt_class;
		req.mgmt_class_version = reg_req->mgmt_class_version;
		req.oui = reg_req->oui[0] << 16 | reg_req->oui[1] << 8 |
			  reg_req->oui[2];
		memcpy(req.method_mask, reg_req->method_mask,
		       sizeof(req.method_mask));
	}
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, &req)) {
		err = errno;
		verbs_err(vctx, "MAD agent registration failed: %s\n",
			  strerror(err));
		goto err_close;
	}

	ma->refcnt = 1;
	ma->agent = (struct efadv_mad_agent){
		.context = ibvctx,
		.fd = fd,
		.id = req.id,
		.flags = flags,
		.port_num = port_num,
		.qp_type = qp_type,
		.rmpp_version = rmpp_version,
		.mgmt_class = reg_req ? reg_req->mgmt_class : 0,
		.mgmt_class_version = reg_req ? reg_req->mgmt_class_version : 0,
	};
	return &ma->agent;

err_close:
	close(fd);
err_free:
	free(ma);
	errno = err;
	return NULL;
}

struct efadv_mad_agent *
efadv_register_mad_agent(struct ibv_context *context, uint8_t port_num,
			 enum efadv_mad_qp_type qp_type,
			 const struct efadv_mad_reg_req *reg_req,
			 uint8_t rmpp_version, uint32_t flags)
{
	return efa_register_mad_agent_at(EFA_UMAD_SYSFS_DIR, EFA_UMAD_DEV_DIR,
					 context, port_num, qp_type, reg_req,
					 rmpp_version, flags);
}

/* Send buffers of the agent stay valid until they are freed. */
void efadv_unregister_mad_agent(struct efadv_mad_agent *agent)
{
	if (!agent)
		return;

	if (ioctl(agent->fd, IB_USER_MAD_UNREGISTER_AGENT, &agent->id))
		verbs_debug(to_verbs_context(agent->context),
			    "MAD agent unregistration failed: %s\n",
			    strerror(errno));
	close(agent->fd);
	agent->fd = -1;
	efa_mad_agent_put(to_efa_mad_agent(agent));
}

/*
 * Padding that fills the last segment of the data; a message without data
 * still takes one segment, all padding.
 */
static int efa_mad_pad(int hdr_len, int data_len, int mad_size)
{
	int seg_size = mad_size - hdr_len;
	int tail;

	if (!data_len || !seg_size)
		return seg_size;
	tail = data_len % seg_size;
	return tail ? seg_size - tail : 0;
}

struct efadv_mad_send_buf *
efadv_create_send_mad(struct efadv_mad_agent *agent, uint32_t remote_qpn,
		      uint16_t pkey_index, int rmpp_active, int hdr_len,
		      int data_len, uint8_t base_version)
{
	const int mad_size = EFADV_MAD_SIZE;
	struct efadv_mad_rmpp_hdr *rmpp;
	struct efa_mad_send *ms;
	bool kernel_rmpp;
	long long msg_size;
	int seg_size, pad;

	if (!agent || remote_qpn > 0xffffff || data_len < 0 ||
	    hdr_len < EFADV_MAD_HDR_SIZE || hdr_len > mad_size)
		goto err_inval;
	if (base_version != EFADV_MAD_BASE_VERSION_IB) {
		/* OPA's 2 KiB MADs need an OPA port */
		errno = base_version == EFADV_MAD_BASE_VERSION_OPA ?
			EOPNOTSUPP : EINVAL;
		return NULL;
	}

	seg_size = mad_size - hdr_len;
	pad = efa_mad_pad(hdr_len, data_len, mad_size);
	msg_size = (long long)hdr_len + data_len + pad;
	kernel_rmpp = agent->rmpp_version &&
		      !(agent->flags & EFADV_MAD_USER_RMPP);
	if (rmpp_active) {
		if (!kernel_rmpp || hdr_len < EFADV_MAD_RMPP_HDR_SIZE ||
		    !seg_size)
			goto err_inval;
	} else if (msg_size > mad_size) {
		goto err_inval;
	}
	if (msg_size > INT_MAX - (long long)sizeof(*ms))
		goto err_inval;

	ms = calloc(1, sizeof(*ms) + msg_size);
	if (!ms)
		return NULL;

	ms->buf.agent = agent;
	ms->buf.mad = ms->mad;
	ms->buf.remote_qpn = remote_qpn;
	ms->buf.pkey_index = pkey_index;
	ms->buf.base_version = base_version;
	ms->buf.rmpp_active = !!rmpp_active;
	ms->buf.hdr_len = hdr_len;
	ms->buf.data_len = data_len;
	ms->buf.seg_size = seg_size;
	ms->buf.seg_count = seg_size ? (data_len + pad) / seg_size : 1;
	if (rmpp_active) {
		ms->buf.seg_rmpp_size = mad_size - EFADV_MAD_RMPP_HDR_SIZE;
		rmpp = (void *)((uint8_t *)ms->mad + EFADV_MAD_HDR_SIZE);
		rmpp->rmpp_version = agent->rmpp_version;
		rmpp->rmpp_type = EFADV_MAD_RMPP_TYPE_DATA;
		rmpp->rmpp_rtime_flags = EFADV_MAD_RMPP_FLAG_ACTIVE;
	}

	__atomic_add_fetch(&to_efa_mad_agent(agent)->refcnt, 1,
			   __ATOMIC_RELAXED);
	return &ms->buf;

err_inval:
	errno = EINVAL;
	return NULL;
}

void efadv_free_send_mad(struct efadv_mad_send_buf *send_buf)
{
	if (!send_buf)
		return;
	efa_mad_agent_put(to_efa_mad_agent(send_buf->agent));
	free(to_efa_mad_send(send_buf));
}

/*
 * The kernel takes one write() of a MAD: with RMPP the headers and all
 * the data, which it splits into segments by the class's header length;
 * without, one whole MAD.
 */
int efadv_post_send_mad(struct efadv_mad_send_buf *send_buf,
			const struct efadv_mad_addr *addr, int timeout_ms,
			int retries)
{
	struct efa_mad_send *ms;
	const struct efadv_mad_hdr *hdr;
	const struct efadv_mad_rmpp_hdr *rmpp;
	struct ib_user_mad_hdr *umad;
	struct efadv_mad_agent *agent;
	size_t len;
	ssize_t n;

	if (!send_buf || !addr || timeout_ms < 0 || retries < 0)
		return EINVAL;
	ms = to_efa_mad_send(send_buf);
	agent = send_buf->agent;
	if (agent->fd < 0)
		return EIO;		/* the agent is gone */

	hdr = send_buf->mad;
	if (agent->rmpp_version && !efadv_is_mad_class_rmpp(hdr->mgmt_class))
		return EINVAL;
	if (send_buf->rmpp_active) {
		rmpp = (const void *)(hdr + 1);
		if (!efadv_is_mad_class_rmpp(hdr->mgmt_class) ||
		    efadv_get_mad_data_offset(hdr->mgmt_class) !=
			    send_buf->hdr_len ||
		    !(rmpp->rmpp_rtime_flags & EFADV_MAD_RMPP_FLAG_ACTIVE))
			return EINVAL;
		len = send_buf->hdr_len + send_buf->data_len;
	} else {
		len = EFADV_MAD_SIZE;
	}

	umad = &ms->umad;
	memset(umad, 0, sizeof(*umad));
	umad->id = agent->id;
	umad->timeout_ms = timeout_ms;
	umad->retries = retries;
	umad->qpn = htobe32(send_buf->remote_qpn);
	umad->qkey = htobe32(send_buf->remote_qpn ? EFADV_MAD_QP1_QKEY : 0);
	umad->lid = htobe16(addr->lid);
	umad->sl = addr->sl;
	umad->path_bits = addr->path_bits;
	umad->pkey_index = send_buf->pkey_index;
	if (addr->grh_present) {
		umad->grh_present = 1;
		umad->gid_index = addr->sgid_index;
		umad->hop_limit = addr->hop_limit;
		umad->traffic_class = addr->traffic_class;
		umad->flow_label = htobe32(addr->flow_label);
		memcpy(umad->gid, &addr->gid, sizeof(umad->gid));
	}

	n = write(agent->fd, umad, sizeof(*umad) + len);
	if (n < 0)
		return errno;
	return (size_t)n == sizeof(*umad) + len ? 0 : EIO;
}

static long long efa_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * One read() of the agent's file, waiting for it as timeout_ms says.  The
 * file is non-blocking: a message another reader took first means waiting
 * on.
 */
static ssize_t efa_umad_read(int fd, void *buf, size_t size, int timeout_ms,
			     int *err)
{
	long long deadline = efa_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int wait_ms = timeout_ms;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, size);
		if (n >= 0 || errno != EAGAIN) {
			*err = n < 0 ? errno : 0;
			return n;
		}
		if (pfd.revents & (POLLERR | POLLHUP)) {
			*err = EIO;
			return -1;
		}
		if (!timeout_ms) {
			*err = EAGAIN;
			return -1;
		}
		if (timeout_ms > 0) {
			wait_ms = deadline - efa_now_ms();
			if (wait_ms <= 0) {
				*err = ETIMEDOUT;
				return -1;
			}
		}
		n = poll(&pfd, 1, wait_ms);
		if (n < 0) {
			*err = errno;
			return -1;
		}
		if (!n) {
			*err = ETIMEDOUT;
			return -1;
		}
	}
}

static void efa_mad_recv_info_fill(struct efadv_mad_recv_info *info,
				   const struct ib_user_mad_hdr *umad)
{
	memset(info, 0, sizeof(*info));
	info->status = umad->status;
	info->src_qpn = be32toh(umad->qpn) & 0xffffff;
	info->pkey_index = umad->pkey_index;
	info->src.lid = be16toh(umad->lid);
	info->src.sl = umad->sl;
	info->src.path_bits = umad->path_bits;
	if (umad->grh_present) {
		info->src.grh_present = 1;
		info->src.sgid_index = umad->gid_index;
		info->src.hop_limit = umad->hop_limit;
		info->src.traffic_class = umad->traffic_class;
		info->src.flow_label = be32toh(umad->flow_label);
		memcpy(&info->src.gid, umad->gid, sizeof(info->src.gid));
	}
}

/*
 * The kernel hands out a message only to a buffer that holds the umad
 * header and a whole MAD; a longer (RMPP) message that does not fit stays
 * queued, and the header it copies says how long the message is.
 */
int efadv_recv_mad(struct efadv_mad_agent *agent, void *buf, size_t *len,
		   int timeout_ms, struct efadv_mad_recv_info *info)
{
	struct ib_user_mad_hdr *umad;
	size_t size;
	ssize_t n;
	int err;

	if (!agent || !buf || !len || *len < EFADV_MAD_SIZE)
		return EINVAL;
	if (agent->fd < 0)
		return EIO;

	size = *len < INT_MAX - EFA_UMAD_HDR_SIZE ?
		       *len : INT_MAX - EFA_UMAD_HDR_SIZE;
	umad = malloc(EFA_UMAD_HDR_SIZE + size);
	if (!umad)
		return ENOMEM;

	n = efa_umad_read(agent->fd, umad, EFA_UMAD_HDR_SIZE + size,
			  timeout_ms, &err);
	if (err == ENOSPC) {
		if (umad->length > EFA_UMAD_HDR_SIZE + size)
			*len = umad->length - EFA_UMAD_HDR_SIZE;
		else
			err = EIO;	/* it would have fit */
	} else if (!err) {
		if (n < (ssize_t)EFA_UMAD_HDR_SIZE) {
			err = EIO;
		} else {
			*len = n - EFA_UMAD_HDR_SIZE;
			memcpy(buf, umad + 1, *len);
			if (info)
				efa_mad_recv_info_fill(info, umad);
		}
	}
	free(umad);
	return err;
}
