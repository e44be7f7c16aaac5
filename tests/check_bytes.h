/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Byte assertions of the Check tests: memory as another copy of it has
 * it, or every byte of a range one value.  A failure names the caller's
 * line and the first byte that is wrong; a pass costs one Check assertion
 * however long the memory.
 */
#ifndef SEFA_TESTS_CHECK_BYTES_H
#define SEFA_TESTS_CHECK_BYTES_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* What a test fills memory with that nothing may write. */
#define SEFA_POISON	0xaa

static inline void sefa_check_bytes(const char *file, int line,
				    const void *got, const void *want,
				    size_t len)
{
	const uint8_t *g = got, *w = want;
	size_t i = 0;

	while (i < len && g[i] == w[i])
		i++;
	ck_assert_msg(i == len, "%s:%d: byte %zu of %zu: 0x%02x, want 0x%02x",
		      file, line, i, len, g[i], w[i]);
}

static inline void sefa_check_all(const char *file, int line,
				  const void *buf, size_t from, size_t to,
				  uint8_t val, const char *what)
{
	const uint8_t *b = buf;
	size_t i = from;

	while (i < to && b[i] == val)
		i++;
	ck_assert_msg(i == to, "%s:%d: byte %zu %s: 0x%02x", file, line, i,
		      what, b[i]);
}

/* The len bytes at got are those at want. */
#define sefa_assert_bytes(got, want, len) \
	sefa_check_bytes(__FILE__, __LINE__, got, want, len)

/* Bytes [from, to) of buf are all val, or else they were what. */
#define sefa_assert_all(buf, from, to, val, what) \
	sefa_check_all(__FILE__, __LINE__, buf, from, to, val, what)

/* Bytes [from, to) of buf still hold SEFA_POISON. */
#define sefa_assert_poisoned(buf, from, to) \
	sefa_assert_all(buf, from, to, SEFA_POISON, "written")

/* Bytes [from, to) of buf were zeroed. */
#define sefa_assert_zeroed(buf, from, to) \
	sefa_assert_all(buf, from, to, 0, "not zeroed")

#endif
