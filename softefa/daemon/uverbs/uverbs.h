/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The uverbs ABI of softefad: the write() and ioctl() decoders, the
 * commands they lead to, the efa driver's udata, and the ABI's names for
 * the log.  This room may include the layers below it (verbs/, core/,
 * host/) and the ABI headers; never nic/, mad/ or the client above it.
 * ioctl.h is the ioctl() decoder's own, for the files of this room only.
 */
#ifndef SEFA_SOFTEFA_DAEMON_UVERBS_UVERBS_H
#define SEFA_SOFTEFA_DAEMON_UVERBS_UVERBS_H

#include "verbs/verbs.h"

/*
 * The decoders run a command under the daemon lock (sefa_daemon_lock()); a
 * command that installs an fd in the client lets it go meanwhile
 * (sefa_conn_install_fd()).
 */

/* admin_count.c: the device counters of the request just run */
void sefa_uverbs_count_admin(struct sefa_client *c, bool mmap, int64_t ret);

/* names.c: the ABI's names of its numbers, NULL for an unknown one */
const char *sefa_write_cmd_name(uint32_t command);
const char *sefa_ioctl_object_name(uint16_t object);
const char *sefa_ioctl_method_name(uint16_t object, uint16_t method);

/* uverbs_write.c */
int sefa_uverbs_write(struct sefa_client *c, uint64_t buf, uint64_t count);
int sefa_invoke_write(struct sefa_cmd *cmd, uint32_t command);

/* uverbs_ioctl.c, its methods in ioctl_*.c */
int sefa_uverbs_ioctl(struct sefa_client *c, uint64_t request, uint64_t arg);

/* uverbs_cmd.c: the object commands of the write() ABI */
int sefa_cmd_alloc_pd(struct sefa_cmd *cmd);
int sefa_cmd_dealloc_pd(struct sefa_cmd *cmd);
int sefa_cmd_reg_mr(struct sefa_cmd *cmd);
int sefa_cmd_dereg_mr(struct sefa_cmd *cmd);
int sefa_cmd_create_comp_channel(struct sefa_cmd *cmd);
int sefa_cmd_create_cq(struct sefa_cmd *cmd);
int sefa_cmd_ex_create_cq(struct sefa_cmd *cmd);
int sefa_cmd_destroy_cq(struct sefa_cmd *cmd);
int sefa_cmd_create_qp(struct sefa_cmd *cmd);
int sefa_cmd_modify_qp(struct sefa_cmd *cmd);
int sefa_cmd_query_qp(struct sefa_cmd *cmd);
int sefa_cmd_destroy_qp(struct sefa_cmd *cmd);
int sefa_cmd_create_ah(struct sefa_cmd *cmd);
int sefa_cmd_destroy_ah(struct sefa_cmd *cmd);
int sefa_qp_create_cmd(struct sefa_cmd *cmd, const struct sefa_qp_params *p,
		       struct sefa_qp **out);
void sefa_objects_release(struct sefa_client *c);

/* uverbs_device.c: device-level commands of ib_uverbs. */
int sefa_cmd_get_context(struct sefa_cmd *cmd);
int sefa_cmd_query_device(struct sefa_cmd *cmd);
int sefa_cmd_ex_query_device(struct sefa_cmd *cmd);
int sefa_cmd_query_port(struct sefa_cmd *cmd);
int sefa_alloc_async_fd(struct sefa_client *c, int *client_fd);
void sefa_client_release(struct sefa_client *c);

/* efa_driver.c: the efa kernel driver. */
int efa_alloc_ucontext(struct sefa_cmd *cmd);
int efa_query_device_udata(struct sefa_cmd *cmd);
struct ib_uverbs_query_device_resp;
struct ib_uverbs_query_port_resp;
void efa_fill_device_attr(const struct sefa_device *dev,
			  struct ib_uverbs_query_device_resp *resp);
int efa_fill_port_attr(const struct sefa_device *dev, unsigned int port,
		       struct ib_uverbs_query_port_resp *resp);
int efa_port_speed(const struct sefa_device *dev, unsigned int port,
		   uint64_t *speed);

#endif
