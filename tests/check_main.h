/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The main() of every Check test program: run one suite, fail the process
 * if any test failed.
 */
#ifndef SEFA_CHECK_MAIN_H
#define SEFA_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

#define SEFA_CHECK_MAIN(suite_fn)					\
	int main(void)							\
	{								\
		SRunner *sr = srunner_create(suite_fn());		\
		int failed;						\
									\
		srunner_run_all(sr, CK_NORMAL);				\
		failed = srunner_ntests_failed(sr);			\
		srunner_free(sr);					\
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;		\
	}

#endif
