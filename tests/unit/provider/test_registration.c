// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How the provider introduces itself to libibverbs: its name, ABI range and
 * the devices it claims, checked the way libibverbs 44 matches them.
 */

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

#include "efa.h"
#include "check_main.h"

/* libibverbs turns a PCI match entry into this modalias pattern. */
static bool pci_entry_matches(const struct verbs_match_ent *ent,
			      const char *modalias)
{
	char pattern[64];

	snprintf(pattern, sizeof(pattern), "pci:v%08Xd%08Xsv*", ent->vendor,
		 ent->device);
	return fnmatch(pattern, modalias, 0) == 0;
}

static bool claims(const char *modalias)
{
	const struct verbs_match_ent *ent;

	for (ent = efa_dev_ops.match_table; ent->kind != VERBS_MATCH_SENTINEL;
	     ent++)
		if (ent->kind == VERBS_MATCH_PCI &&
		    pci_entry_matches(ent, modalias))
			return true;
	return false;
}

START_TEST(test_identity)
{
	ck_assert_str_eq(efa_dev_ops.name, "efa");
	ck_assert_uint_eq(efa_dev_ops.match_min_abi_version, 1);
	ck_assert_uint_eq(efa_dev_ops.match_max_abi_version, 1);
	ck_assert_ptr_nonnull(efa_dev_ops.alloc_device);
	ck_assert_ptr_nonnull(efa_dev_ops.uninit_device);
	ck_assert_ptr_nonnull(efa_dev_ops.alloc_context);
	/* Without a match_device hook libibverbs requires a table match. */
	ck_assert_ptr_null(efa_dev_ops.match_device);
}
END_TEST

START_TEST(test_match_table)
{
	const struct verbs_match_ent *ent = efa_dev_ops.match_table;
	unsigned int pci = 0, driver_id = 0;

	for (; ent->kind != VERBS_MATCH_SENTINEL; ent++) {
		switch (ent->kind) {
		case VERBS_MATCH_PCI:
			ck_assert_uint_eq(ent->vendor, 0x1d0f);
			ck_assert_uint_eq(ent->device, 0xefa0 + pci);
			pci++;
			break;
		case VERBS_MATCH_DRIVER_ID:
			ck_assert_uint_eq(ent->u.driver_id, RDMA_DRIVER_EFA);
			driver_id++;
			break;
		default:
			ck_abort_msg("unexpected match kind %u", ent->kind);
		}
	}
	ck_assert_uint_eq(pci, 5);
	ck_assert_uint_eq(driver_id, 1);
}
END_TEST

START_TEST(test_modalias)
{
	ck_assert(claims("pci:v00001D0Fd0000EFA0sv00001D0Fsd0000EFA0bc02sc00i00"));
	ck_assert(claims("pci:v00001D0Fd0000EFA1sv00001D0Fsd0000EFA1bc02sc00i00"));
	ck_assert(claims("pci:v00001D0Fd0000EFA2sv00001D0Fsd00000000bc02sc00i00"));
	ck_assert(claims("pci:v00001D0Fd0000EFA3sv00001D0Fsd0000EFA3bc02sc00i00"));
	ck_assert(claims("pci:v00001D0Fd0000EFA4sv00001D0Fsd0000EFA4bc02sc00i00"));
	ck_assert(!claims("pci:v00001D0Fd0000EFA5sv00001D0Fsd0000EFA5bc02sc00i00"));
	ck_assert(!claims("pci:v000015B3d0000101Bsv000015B3sd00000008bc02sc07i00"));
	ck_assert(!claims(""));
}
END_TEST

START_TEST(test_device_lifecycle)
{
	struct verbs_sysfs_dev sysfs = {};
	struct verbs_device *vdev;

	vdev = efa_dev_ops.alloc_device(&sysfs);
	ck_assert_ptr_nonnull(vdev);
	vdev->ops = &efa_dev_ops;
	ck_assert(efa_is_dev(&vdev->device));
	efa_dev_ops.uninit_device(vdev);
}
END_TEST

static Suite *registration_suite(void)
{
	Suite *s = suite_create("efa_registration");
	TCase *tc = tcase_create("ops");

	tcase_add_test(tc, test_identity);
	tcase_add_test(tc, test_match_table);
	tcase_add_test(tc, test_modalias);
	tcase_add_test(tc, test_device_lifecycle);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(registration_suite)
