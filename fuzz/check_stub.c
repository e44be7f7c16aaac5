// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NIC's unit-test fixture asserts with Check, whose asserts report to
 * a test runner.  A harness has none: a passed assert is nothing, a failed
 * one aborts, which libFuzzer reports as a crash.  Defined here, Check's
 * own are never linked.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

void _mark_point(const char *file, int line)
{
}

void _ck_assert_failed(const char *file, int line, const char *expr,
		       const char *msg, ...)
{
	fprintf(stderr, "%s:%d: %s\n", file, line, expr);
	abort();
}
