/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The compile-time layout checks of the private libibverbs ABI that
 * ibverbs_private.h declares, for the ABI it chose: a build against a
 * libibverbs whose structures differ fails here instead of corrupting
 * memory inside libibverbs at run time.  Included only at the end of
 * ibverbs_private.h, after every structure it checks.
 */

#ifndef SEFA_PROVIDERS_EFA_IBVERBS_LAYOUT_H
#define SEFA_PROVIDERS_EFA_IBVERBS_LAYOUT_H

#ifndef SEFA_PROVIDERS_EFA_IBVERBS_PRIVATE_H
#error "ibverbs_layout.h checks the declarations of ibverbs_private.h"
#endif

/*
 * Layout checks (x86_64 / LP64).  Offsets were computed from the driver.h
 * and kern-abi.h of rdma-core 44 and 64; IBV_PABI_PICK(a, b) is the value
 * for ABI 34 or 64.  ibv_device, verbs_context and ibv_qp_ex are public
 * but listed because the private structs are built around them.
 */
#if EFA_IBVERBS_PABI == 34
#define IBV_PABI_PICK(v34, v64) (v34)
#define IBV_PABI_NAME "IBVERBS_PRIVATE_34"
#else
#define IBV_PABI_PICK(v34, v64) (v64)
#define IBV_PABI_NAME "IBVERBS_PRIVATE_64"
#endif
#define IBV_PRIVATE_ASSERT_OFF(type, field, off)                              \
	_Static_assert(offsetof(struct type, field) == (off),                  \
		       IBV_PABI_NAME " layout: " #type "." #field)
#define IBV_PRIVATE_ASSERT_SIZE(type, size)                                    \
	_Static_assert(sizeof(struct type) == (size),                          \
		       IBV_PABI_NAME " size: " #type)

IBV_PRIVATE_ASSERT_SIZE(ibv_device, 664);
/* 64 added six operations at the front, where verbs_context grows */
IBV_PRIVATE_ASSERT_SIZE(verbs_context, IBV_PABI_PICK(648, 696));
IBV_PRIVATE_ASSERT_OFF(verbs_context, context, IBV_PABI_PICK(320, 368));

IBV_PRIVATE_ASSERT_SIZE(verbs_mr, 56);
IBV_PRIVATE_ASSERT_OFF(verbs_mr, mr_type, 48);
IBV_PRIVATE_ASSERT_OFF(verbs_mr, access, 52);
/* and ibv_qp_ex gained wr_flush at its end */
IBV_PRIVATE_ASSERT_SIZE(ibv_qp_ex, IBV_PABI_PICK(352, 360));
IBV_PRIVATE_ASSERT_SIZE(verbs_qp, IBV_PABI_PICK(368, 376));
IBV_PRIVATE_ASSERT_OFF(verbs_qp, qp, 0);
IBV_PRIVATE_ASSERT_OFF(verbs_qp, qp_ex, 0);
IBV_PRIVATE_ASSERT_OFF(verbs_qp, comp_mask, IBV_PABI_PICK(352, 360));
IBV_PRIVATE_ASSERT_OFF(verbs_qp, xrcd, IBV_PABI_PICK(360, 368));
IBV_PRIVATE_ASSERT_SIZE(verbs_cq, 288);
IBV_PRIVATE_ASSERT_OFF(verbs_cq, cq_ex, 0);
_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "qp_ex layout");
_Static_assert(offsetof(struct ibv_cq_ex, context) ==
	       offsetof(struct ibv_cq, context), "cq_ex layout");

IBV_PRIVATE_ASSERT_SIZE(verbs_match_ent, 24);
IBV_PRIVATE_ASSERT_OFF(verbs_match_ent, u, 8);
IBV_PRIVATE_ASSERT_OFF(verbs_match_ent, vendor, 16);
IBV_PRIVATE_ASSERT_OFF(verbs_match_ent, device, 18);
IBV_PRIVATE_ASSERT_OFF(verbs_match_ent, kind, 20);

IBV_PRIVATE_ASSERT_SIZE(verbs_sysfs_dev, 992);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, provider_data, 16);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, match, 24);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, flags, 32);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, sysfs_name, 36);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, sysfs_cdev, 104);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, ibdev_name, 112);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, ibdev_path, 176);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, modalias, 432);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, node_guid, 944);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, driver_id, 952);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, node_type, 956);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, ibdev_idx, 960);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, num_ports, 964);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, abi_ver, 968);
IBV_PRIVATE_ASSERT_OFF(verbs_sysfs_dev, time_created, 976);

IBV_PRIVATE_ASSERT_SIZE(verbs_device_ops, 72);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, match_min_abi_version, 8);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, match_table, 16);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, static_providers, 24);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, match_device, 32);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, alloc_context, 40);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, import_context, 48);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, alloc_device, 56);
IBV_PRIVATE_ASSERT_OFF(verbs_device_ops, uninit_device, 64);

IBV_PRIVATE_ASSERT_SIZE(verbs_device, 712);
IBV_PRIVATE_ASSERT_OFF(verbs_device, device, 0);
IBV_PRIVATE_ASSERT_OFF(verbs_device, ops, 664);
IBV_PRIVATE_ASSERT_OFF(verbs_device, refcount, 672);
IBV_PRIVATE_ASSERT_OFF(verbs_device, entry, 680);
IBV_PRIVATE_ASSERT_OFF(verbs_device, sysfs, 696);
IBV_PRIVATE_ASSERT_OFF(verbs_device, core_support, 704);

/* 76 function pointers in 34, 83 in 64; check the first, the last, the
 * ones this provider sets and the ones 64 added, so that a missing or
 * misplaced member cannot compile.
 */
#define IBV_OPS_ASSERT(op, i34, i64)                                           \
	IBV_PRIVATE_ASSERT_OFF(verbs_context_ops, op,                          \
			       IBV_PABI_PICK(i34, i64) * sizeof(void *))
IBV_PRIVATE_ASSERT_SIZE(verbs_context_ops,
			IBV_PABI_PICK(76, 83) * sizeof(void (*)(void)));
IBV_OPS_ASSERT(advise_mr, 0, 0);
IBV_OPS_ASSERT(alloc_pd, 5, 7);
IBV_OPS_ASSERT(cq_event, 12, 14);
IBV_OPS_ASSERT(create_ah, 13, 15);
IBV_OPS_ASSERT(create_cq, 15, 17);
IBV_OPS_ASSERT(create_cq_ex, 16, 18);
IBV_OPS_ASSERT(create_qp, 19, 21);
IBV_OPS_ASSERT(create_qp_ex, 20, 22);
IBV_OPS_ASSERT(dealloc_pd, 26, 29);
IBV_OPS_ASSERT(dereg_mr, 28, 31);
IBV_OPS_ASSERT(destroy_ah, 29, 32);
IBV_OPS_ASSERT(destroy_cq, 31, 34);
IBV_OPS_ASSERT(destroy_qp, 34, 37);
IBV_OPS_ASSERT(free_context, 39, 44);
IBV_OPS_ASSERT(modify_qp, 47, 52);
IBV_OPS_ASSERT(poll_cq, 53, 58);
IBV_OPS_ASSERT(post_recv, 54, 59);
IBV_OPS_ASSERT(post_send, 55, 60);
IBV_OPS_ASSERT(query_device_ex, 58, 63);
IBV_OPS_ASSERT(query_port, 60, 65);
IBV_OPS_ASSERT(query_qp, 61, 67);
IBV_OPS_ASSERT(reg_mr, 68, 74);
IBV_OPS_ASSERT(req_notify_cq, 69, 76);
IBV_OPS_ASSERT(unimport_pd, 75, 82);
/* the operations 64 added */
#if EFA_IBVERBS_PABI == 64
#define IBV_OPS64_ASSERT(op, i)                                                \
	IBV_PRIVATE_ASSERT_OFF(verbs_context_ops, op, (i) * sizeof(void *))
IBV_OPS64_ASSERT(alloc_buf, 1);
IBV_OPS64_ASSERT(alloc_dmah, 3);
IBV_OPS64_ASSERT(dealloc_dmah, 27);
IBV_OPS64_ASSERT(dm_export_dmabuf_fd, 42);
IBV_OPS64_ASSERT(free_buf, 43);
IBV_OPS64_ASSERT(query_port_speed, 66);
IBV_OPS64_ASSERT(query_qp_data_in_order, 68);
IBV_OPS64_ASSERT(reg_mr_ex, 75);

IBV_PRIVATE_ASSERT_SIZE(verbs_create_cq_prov_attr, 24);
IBV_PRIVATE_ASSERT_OFF(verbs_create_cq_prov_attr, buffer.ptr, 8);
IBV_PRIVATE_ASSERT_OFF(verbs_create_cq_prov_attr, buffer.dmabuf.fd, 16);
IBV_PRIVATE_ASSERT_SIZE(ibv_fd_arr, 16);
#endif

IBV_PRIVATE_ASSERT_SIZE(ex_hdr, 24);
IBV_PRIVATE_ASSERT_SIZE(ibv_get_context, 16);
IBV_PRIVATE_ASSERT_SIZE(ibv_query_port, 24);
IBV_PRIVATE_ASSERT_SIZE(ibv_query_device_ex, 32);
IBV_PRIVATE_ASSERT_SIZE(ibv_alloc_pd, 16);
IBV_PRIVATE_ASSERT_SIZE(ibv_reg_mr, 48);
IBV_PRIVATE_ASSERT_SIZE(ibv_create_cq_ex, 56);
IBV_PRIVATE_ASSERT_SIZE(ibv_create_qp, 64);
IBV_PRIVATE_ASSERT_SIZE(ibv_modify_qp, 120);
IBV_PRIVATE_ASSERT_SIZE(ibv_query_qp, 24);

_Static_assert(RDMA_DRIVER_EFA == 17, "RDMA_DRIVER_EFA moved");

#endif /* SEFA_PROVIDERS_EFA_IBVERBS_LAYOUT_H */
