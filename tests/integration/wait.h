/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Waits of the test programs, bounded by CLOCK_MONOTONIC: how long a count
 * of tries lasts on a loaded machine nobody knows.  A wait that gives up
 * says what it waited for and for how long ("gave up waiting ...").
 *
 *	struct wait w = wait_start(10000);
 *
 *	while (!done())
 *		if (!wait_more(&w, 1000))
 *			return fail("gave up waiting %ld ms for ...", wait_ms(&w));
 *
 * or, in a Check test, CK_WAIT_UNTIL(10000, done(), "what").
 */
#ifndef SEFA_TESTS_INTEGRATION_WAIT_H
#define SEFA_TESTS_INTEGRATION_WAIT_H

#include <stdbool.h>
#include <time.h>

struct wait {
	struct timespec t0;
	long limit_ms;
};

static inline struct wait wait_start(long limit_ms)
{
	struct wait w = { .limit_ms = limit_ms };

	clock_gettime(CLOCK_MONOTONIC, &w.t0);
	return w;
}

/* Milliseconds since wait_start(). */
static inline long wait_ms(const struct wait *w)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - w->t0.tv_sec) * 1000 +
	       (t.tv_nsec - w->t0.tv_nsec) / 1000000;
}

/*
 * Whether to try again: false once the limit has passed, else true after
 * a pause of @pause_us (0: none, for a poll that spins).
 */
static inline bool wait_more(const struct wait *w, unsigned int pause_us)
{
	struct timespec ts = {
		.tv_sec = pause_us / 1000000,
		.tv_nsec = pause_us % 1000000 * 1000L,
	};

	if (wait_ms(w) >= w->limit_ms)
		return false;
	if (pause_us)
		nanosleep(&ts, NULL);
	return true;
}

/*
 * In a Check test: evaluate @cond until it holds, 1 ms apart, for at most
 * @ms; the test fails then, saying it gave up waiting for @what.  (Only
 * its callers include check.h.)
 */
#define CK_WAIT_UNTIL(ms, cond, what)					\
	do {								\
		struct wait w_ = wait_start(ms);			\
									\
		while (!(cond))						\
			ck_assert_msg(wait_more(&w_, 1000),		\
				      "gave up waiting %ld ms for %s",	\
				      wait_ms(&w_), (what));		\
	} while (0)

#endif
