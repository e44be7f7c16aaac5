/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The main() of every Check test program: run one suite, fail the process
 * if any test failed.
 */
#ifndef SEFA_TESTS_CHECK_MAIN_H
#define SEFA_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs the suite: the program's exit status. */
static inline int sefa_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#define SEFA_CHECK_MAIN(suite_fn)					\
	int main(void)							\
	{								\
		return sefa_check_run(suite_fn());			\
	}

#endif
