// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What ends the engine's sleep (nic/watch.c), on the NIC fixture's host:
 * the wake page a client may map only to read, a wake through that
 * mapping or on a doorbell as a provider does it, the daemon's own kick,
 * wakes that come before the wait began, and a sleep that nothing ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check_main.h"
#include "nic_fixture.h"
#include "nic/nic.h"
#include "verbs/verbs.h"

#define LONG_NS		(10 * 1000 * 1000 * 1000L)	/* never reached */

/* A client's view of the page, as the shim maps it for a provider. */
static const _Atomic uint32_t *client_word;

static void setup(void)
{
	void *p;

	fx_setup();
	ck_assert_int_eq(nic_watch_open(fx_eng), 0);
	/* the daemon's one engine, which sefa_engine_kick() wakes */
	fx_d.engines[0] = fx_eng;
	fx_d.nengines = 1;
	ck_assert_ptr_nonnull(fx_d.dev[0].wake_page);
	p = mmap(NULL, SEFA_PAGE_SIZE, PROT_READ, MAP_SHARED,
		 fx_d.dev[0].wake_page->fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	client_word = p;
}

static void teardown(void)
{
	munmap((void *)client_word, SEFA_PAGE_SIZE);
	nic_watch_close(fx_eng);
	ck_assert_ptr_null(fx_d.dev[0].wake_page);
	fx_teardown();
}

START_TEST(page_read_only)
{
	int fd = fx_d.dev[0].wake_page->fd;
	void *p;

	p = mmap(NULL, SEFA_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	ck_assert_ptr_eq(p, MAP_FAILED);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(mprotect((void *)client_word, SEFA_PAGE_SIZE,
				  PROT_READ | PROT_WRITE), -1);
	ck_assert_int_eq(write(fd, "x", 1), -1);
	ck_assert_int_eq(ftruncate(fd, 0), -1);

	/* what the engine says, the client reads */
	ck_assert_uint_eq(*client_word & 1, 0);
	nic_watch_prepare_sleep(fx_eng->watch);
	ck_assert_uint_eq(*client_word & 1, 1);
	nic_watch_end_sleep(fx_eng->watch);
	ck_assert_uint_eq(*client_word & 1, 0);
}
END_TEST

/* Who ends the engine's sleep in sleep_until_woken(). */
enum waker {
	PROVIDER,		/* after a doorbell, the word odd */
	PROVIDER_STREAM,	/* the same, for a queue already busy */
	PROVIDER_DOORBELL,	/* the same, on the doorbell it rang */
	DAEMON,			/* a command of the daemon's own */
};

/* A send queue's doorbell, as the engine sleeps on it. */
static _Atomic uint32_t sq_db;

/* What a provider does after a doorbell for an idle queue. */
static void ring_and_wake(const _Atomic uint32_t *word)
{
	atomic_fetch_add(&sq_db, 1);
	syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void *wake_engine(void *arg)
{
	enum waker who = (enum waker)(intptr_t)arg;

	while (!(atomic_load(client_word) & 1))
		usleep(100);
	usleep(1000);		/* the engine is in its wait by now */
	if (who == DAEMON)
		sefa_engine_kick(&fx_d);
	else if (who == PROVIDER_DOORBELL)
		ring_and_wake(&sq_db);
	else
		syscall(SYS_futex, client_word + (who == PROVIDER_STREAM ?
						  SEFA_WAKE_STREAM :
						  SEFA_WAKE_SLEEPING),
			FUTEX_WAKE, 1, NULL, NULL, 0);
	return NULL;
}

/*
 * Woken, through a client's mapping or by the daemon, long before a time
 * that would fail the test's own timeout, and awake after it.
 */
static void sleep_until_woken(enum waker who, enum nic_watch_wake expect)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, wake_engine,
					(void *)(intptr_t)who), 0);
	nic_watch_prepare_sleep(fx_eng->watch);
	nic_watch_doorbell(fx_eng->watch, (const uint32_t *)&sq_db, sq_db);
	ck_assert_int_eq(nic_watch_sleep(fx_eng->watch, LONG_NS), expect);
	ck_assert_uint_eq(*client_word & 1, 0);
	/* and it told providers to wake it on their doorbells */
	ck_assert_uint_eq(client_word[SEFA_WAKE_DOORBELL], 1);
	pthread_join(t, NULL);
}

START_TEST(provider_wakes)
{
	sleep_until_woken(PROVIDER, WATCH_WAKE);
}
END_TEST

START_TEST(provider_stream_wakes)
{
	sleep_until_woken(PROVIDER_STREAM, WATCH_STREAM);
}
END_TEST

START_TEST(provider_doorbell_wakes)
{
	sleep_until_woken(PROVIDER_DOORBELL, WATCH_WAKE);
}
END_TEST

START_TEST(daemon_wakes)
{
	sleep_until_woken(DAEMON, WATCH_WAKE);
}
END_TEST

/*
 * A wake that lands after the engine's last look but before its wait
 * began is not lost: the doorbell, or for the daemon the sleep word, moved
 * since, and the wait ends at once instead of at its time.
 */
START_TEST(early_wakes)
{
	nic_watch_prepare_sleep(fx_eng->watch);
	nic_watch_doorbell(fx_eng->watch, (const uint32_t *)&sq_db, sq_db);
	ring_and_wake(&sq_db);
	ck_assert_int_eq(nic_watch_sleep(fx_eng->watch, LONG_NS), WATCH_WAKE);

	nic_watch_prepare_sleep(fx_eng->watch);
	sefa_engine_kick(&fx_d);
	ck_assert_int_eq(nic_watch_sleep(fx_eng->watch, LONG_NS), WATCH_WAKE);
	ck_assert_uint_eq(*client_word & 1, 0);
}
END_TEST

/* Nothing wakes it: the sleep ends at its time, and says so. */
START_TEST(timed_sleep)
{
	nic_watch_prepare_sleep(fx_eng->watch);
	ck_assert_int_eq(nic_watch_sleep(fx_eng->watch, 1000 * 1000), WATCH_TIMEOUT);
	ck_assert_uint_eq(*client_word & 1, 0);
	/* a kick while awake wakes nothing that sleeps later */
	sefa_engine_kick(&fx_d);
	nic_watch_prepare_sleep(fx_eng->watch);
	ck_assert_int_eq(nic_watch_sleep(fx_eng->watch, 1000 * 1000), WATCH_TIMEOUT);
}
END_TEST

static Suite *watch_suite(void)
{
	Suite *s = suite_create("watch");
	TCase *tc = tcase_create("watch");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, page_read_only);
	tcase_add_test(tc, provider_wakes);
	tcase_add_test(tc, provider_stream_wakes);
	tcase_add_test(tc, provider_doorbell_wakes);
	tcase_add_test(tc, daemon_wakes);
	tcase_add_test(tc, early_wakes);
	tcase_add_test(tc, timed_sleep);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(watch_suite)
