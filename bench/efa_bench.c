// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * efa_bench: what one SRD message costs through whichever provider drives
 * the device (run it under "softefa exec --provider ours|stock").
 *
 *   efa_bench rate N   64-byte sends from one process to another: messages
 *                      per second at the receiver
 *   efa_bench lat N    64-byte ping-pong between two processes: round trip
 *   efa_bench pair N   a QP sending to itself; under callgrind, only the
 *                      ibv_post_send() and ibv_poll_cq() calls are counted
 *   efa_bench wbw N    64 KiB RDMA writes over SRD from one process into
 *                      another: bandwidth
 *   efa_bench memcpy N 64 KiB memcpy() on one core: the bandwidth a copy
 *                      engine on this machine could hope for
 *   efa_bench spin N   N rounds of a QP sending to itself as in pair, but
 *                      polling without pause: a receive, a send and polls
 *                      until both completions ("rounds N"); under
 *                      "strace -c", the difference between two N is the
 *                      data path's system calls
 *   efa_bench idle S   two processes set up as lat, their first 64-byte
 *                      round trip ("fresh_rtt X us") and more, then S
 *                      seconds of nothing (both asleep, lines
 *                      "idle_start" and "idle_end" around it), then the
 *                      first round trip after it ("first_rtt X us") and
 *                      the mean of the next ones ("rtt X us")
 *   efa_bench rates P N
 *                      P pairs of processes at once, each as rate with N
 *                      messages, started together: "aggregate X Mmsg/s",
 *                      all messages over the span from the first pair's
 *                      first receive to the last pair's last, and the
 *                      slowest and fastest pair's own rate; with
 *                      EFA_BENCH_SPREAD=1 in the environment, pair i
 *                      on device i modulo the devices there are, else
 *                      every pair on the first
 *   efa_bench nap N    what the machine makes of the engine thread's
 *                      shortest timed sleep, with its timer slack and
 *                      priority: N futex waits of 20 us ("nap X us", the
 *                      mean they took)
 *
 * The two processes of rate, lat, idle and each pair of rates are a fork
 * of this one; they swap QP numbers over a pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>
#include <valgrind/callgrind.h>

#include "wait.h"

#define MSG		64
#define QKEY		0x1234
#define DEPTH		256
#define WINDOW		64
#define WBW_MSG		(64 * 1024)
#define WBW_SLOTS	16
/* How long a completion may take: a loaded machine's, not a lost one's. */
#define WAIT_MS		60000

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;
	uint32_t peer_qpn;
	/* wbw: the large region and the peer's */
	uint8_t *big;
	struct ibv_mr *big_mr;
	uint64_t peer_addr;
	uint32_t peer_rkey;
};

/* The device to open, by its place in the list (modulo its length). */
static unsigned int bench_dev;

static void die(const char *what)
{
	fprintf(stderr, "efa_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* with_write: RDMA write, which the stock provider (rdma-core 44) lacks */
static void setup(struct side *s, bool with_write)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_DRIVER,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct efadv_qp_init_attr dv = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};
	union ibv_gid gid;
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	unsigned int ndev = 0;

	if (!list || !list[0])
		die("no device");
	while (list[ndev])
		ndev++;
	s->ctx = ibv_open_device(list[bench_dev % ndev]);
	ibv_free_device_list(list);
	if (!s->ctx)
		die("open device");
	s->pd = ibv_alloc_pd(s->ctx);
	s->scq = ibv_create_cq(s->ctx, DEPTH, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->ctx, DEPTH, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, 2 * DEPTH * MSG);
	if (!s->pd || !s->scq || !s->rcq || !s->buf)
		die("resources");
	s->mr = ibv_reg_mr(s->pd, s->buf, 2 * DEPTH * MSG,
			   IBV_ACCESS_LOCAL_WRITE);
	s->big = aligned_alloc(4096, WBW_SLOTS * WBW_MSG);
	if (!s->mr || !s->big)
		die("reg_mr");
	memset(s->big, 1, WBW_SLOTS * WBW_MSG);
	s->big_mr = ibv_reg_mr(s->pd, s->big, WBW_SLOTS * WBW_MSG,
			       IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE);
	if (!s->big_mr)
		die("reg_mr (remote write)");
	if (with_write)
		qa.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE;
	qa.pd = s->pd;
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	s->qp = efadv_create_qp_ex(s->ctx, &qa, &dv, sizeof(dv));
	if (!s->qp)
		die("create SRD QP");
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE))
		die("RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("RTS");
	if (ibv_query_gid(s->ctx, 1, 0, &gid))
		die("query_gid");
	aha.grh.dgid = gid;
	s->ah = ibv_create_ah(s->pd, &aha);
	if (!s->ah)
		die("create_ah");
}

static void post_recv(struct side *s, unsigned int slot)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + (DEPTH + slot) * MSG, MSG,
			       s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		die("post_recv");
}

static int post_send(struct side *s, unsigned int slot)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + slot * MSG, MSG, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = s->ah, .remote_qpn = s->peer_qpn,
			   .remote_qkey = QKEY },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(s->qp, &wr, &bad);
}

/* A peer that never answers ends the bench, not hangs it. */
static void no_completion(const struct wait *w)
{
	fprintf(stderr, "efa_bench: gave up waiting %ld ms for a completion\n",
		wait_ms(w));
	exit(1);
}

/* Wait for one completion on @cq, at most WAIT_MS; it must be a success. */
static void wait_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct wait w = wait_start(WAIT_MS);
	unsigned int empty = 0;
	int n;

	/* the clock only now and then: it would weigh on the round trip */
	while (!(n = ibv_poll_cq(cq, 1, wc)))
		if (!(++empty % 4096) && !wait_more(&w, 0))
			no_completion(&w);
	if (n < 0 || wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "efa_bench: completion %s\n",
			n < 0 ? "poll error" : ibv_wc_status_str(wc->status));
		exit(1);
	}
}

/* Fork a peer; the two sides learn each other's QPN. */
static pid_t two_sides(struct side *s, bool *child, bool with_write)
{
	int up[2], down[2];
	pid_t pid;

	if (pipe(up) || pipe(down))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	*child = !pid;
	setup(s, with_write);
	struct {
		uint32_t qpn, rkey;
		uint64_t addr;
	} mine = { s->qp->qp_num, s->big_mr->rkey, (uintptr_t)s->big }, peer;

	if (write(*child ? up[1] : down[1], &mine, sizeof(mine)) != sizeof(mine) ||
	    read(*child ? down[0] : up[0], &peer, sizeof(peer)) != sizeof(peer))
		die("exchange");
	s->peer_qpn = peer.qpn;
	s->peer_rkey = peer.rkey;
	s->peer_addr = peer.addr;
	return pid;
}

static int finish(pid_t pid, bool child)
{
	int status;

	if (child)
		exit(0);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	return 0;
}

/*
 * rates: the pairs' ends of the pipes to the first process.  Each receiver
 * writes a byte to ready when its buffers are posted; every process waits
 * for go to close before the first message; each receiver writes its
 * rate_span to res.
 */
struct rate_sync {
	int ready, go, res;
};

struct rate_span {
	double t0, t1;		/* first and last receive, CLOCK_MONOTONIC */
	long n;			/* messages received after the first */
};

static void wait_go(const struct rate_sync *sync)
{
	char c;

	if (read(sync->go, &c, 1) != 0)
		die("wait for the start");
}

/*
 * Receiver counts, sender keeps WINDOW messages in flight.  Alone (sync
 * NULL) the receiver prints its rate; in rates it reports to the first
 * process.
 */
static int rate_pair(long n, const struct rate_sync *sync)
{
	struct side s = {};
	struct ibv_wc wc;
	bool child;
	pid_t pid = two_sides(&s, &child, false);
	long i, sent = 0, done = 0;
	struct rate_span span;
	char c = 1;

	if (child) {
		for (i = 0; i < DEPTH; i++)
			post_recv(&s, i);
		if (sync) {
			if (write(sync->ready, &c, 1) != 1)
				die("ready");
			wait_go(sync);
		}
		wait_one(s.rcq, &wc);
		span.t0 = now();
		post_recv(&s, wc.wr_id);
		for (i = 1; i < n; i++) {
			wait_one(s.rcq, &wc);
			post_recv(&s, wc.wr_id);
		}
		span.t1 = now();
		span.n = n - 1;
		if (sync) {
			if (write(sync->res, &span, sizeof(span)) != sizeof(span))
				die("report");
		} else {
			printf("rate %.3f Mmsg/s\n",
			       span.n / (span.t1 - span.t0) / 1e6);
			fflush(stdout);
		}
		return finish(pid, child);
	}
	if (sync)
		wait_go(sync);
	else
		usleep(100000);	/* the receiver's buffers are posted */
	while (done < n) {
		while (sent < n && sent - done < WINDOW)
			if (post_send(&s, sent++ % WINDOW))
				die("post_send");
		wait_one(s.scq, &wc);
		done++;
	}
	return finish(pid, child);
}

static int run_rate(long n)
{
	return rate_pair(n, NULL);
}

/* P pairs started together; each pair's sender is a child of this one. */
static int run_rates(long p, long n)
{
	int ready[2], go[2], res[2], status, bad = 0;
	double t0 = 0, t1 = 0, lo = 0, hi = 0, r;
	struct rate_span span;
	long i, got = 0, total = 0;
	pid_t *pids = calloc(p, sizeof(*pids));
	const char *spread = getenv("EFA_BENCH_SPREAD");
	char c;

	if (!pids || pipe(ready) || pipe(go) || pipe(res))
		die("rates");
	for (i = 0; i < p; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i]) {
			struct rate_sync sync = { ready[1], go[0], res[1] };

			close(ready[0]);
			close(go[1]);
			close(res[0]);
			if (spread && !strcmp(spread, "1"))
				bench_dev = i;
			exit(rate_pair(n, &sync));
		}
	}
	close(ready[1]);
	close(go[0]);
	close(res[1]);
	for (i = 0; i < p; i++)
		if (read(ready[0], &c, 1) != 1)
			break;
	close(go[1]);		/* all ready, or one failed: go */
	for (; got < p && read(res[0], &span, sizeof(span)) == sizeof(span);
	     got++) {
		r = span.n / (span.t1 - span.t0) / 1e6;
		if (!got || span.t0 < t0)
			t0 = span.t0;
		if (!got || span.t1 > t1)
			t1 = span.t1;
		if (!got || r < lo)
			lo = r;
		if (!got || r > hi)
			hi = r;
		total += span.n;
	}
	for (i = 0; i < p; i++)
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	free(pids);
	if (bad || got < p) {
		fprintf(stderr, "efa_bench: %ld of %ld pairs reported\n", got, p);
		return 1;
	}
	printf("aggregate %.3f Mmsg/s pairs %ld slowest %.3f fastest %.3f\n",
	       total / (t1 - t0) / 1e6, p, lo, hi);
	return 0;
}

/* One round trip of lat; the parent pings, the child pongs. */
static void round_trip(struct side *s, bool child)
{
	struct ibv_wc wc;

	if (!child) {
		if (post_send(s, 0))
			die("post_send");
		wait_one(s->scq, &wc);
	}
	wait_one(s->rcq, &wc);
	post_recv(s, 0);
	if (child) {
		if (post_send(s, 0))
			die("post_send");
		wait_one(s->scq, &wc);
	}
}

static int run_lat(long n)
{
	struct side s = {};
	bool child;
	pid_t pid = two_sides(&s, &child, false);
	double t0 = 0;
	long i;

	post_recv(&s, 0);
	usleep(100000);
	for (i = 0; i <= n; i++) {
		if (i == 1)
			t0 = now();
		round_trip(&s, child);
	}
	if (!child)
		printf("rtt %.2f us\n", (now() - t0) / n * 1e6);
	return finish(pid, child);
}

/*
 * Only the two verbs are counted: the completion is given time to arrive
 * outside the counted region, so the counted poll finds it.
 */
static int run_pair(long n)
{
	struct side s = {};
	struct ibv_wc wc;
	long i, empty = 0;
	struct wait w;
	int got;

	setup(&s, false);
	s.peer_qpn = s.qp->qp_num;
	for (i = 0; i < n; i++) {
		post_recv(&s, 0);
		CALLGRIND_TOGGLE_COLLECT;
		got = post_send(&s, 0);
		CALLGRIND_TOGGLE_COLLECT;
		if (got)
			die("post_send");
		w = wait_start(WAIT_MS);
		for (;;) {
			if (!wait_more(&w, 1000))
				no_completion(&w);
			CALLGRIND_TOGGLE_COLLECT;
			got = ibv_poll_cq(s.scq, 1, &wc);
			CALLGRIND_TOGGLE_COLLECT;
			if (got)
				break;
			empty++;
		}
		if (got < 0 || wc.status != IBV_WC_SUCCESS)
			die("send completion");
		wait_one(s.rcq, &wc);
	}
	printf("pairs %ld empty_polls %ld\n", n, empty);
	return 0;
}

/*
 * As pair without the pauses, for strace: every system call of a round is
 * the provider's (or libibverbs' or the shim's), none the benchmark's.
 */
static int run_spin(long n)
{
	struct side s = {};
	struct ibv_wc wc;
	long i;

	setup(&s, false);
	s.peer_qpn = s.qp->qp_num;
	for (i = 0; i < n; i++) {
		post_recv(&s, 0);
		if (post_send(&s, 0))
			die("post_send");
		wait_one(s.scq, &wc);
		wait_one(s.rcq, &wc);
	}
	printf("rounds %ld\n", n);
	return 0;
}

#define IDLE_MORE	1000

/*
 * A fresh pair's first round trip pays for first touches (ring pages in
 * both processes and the daemon, the engine's caches), which are not what
 * idleness costs: the pair warms up first.  Then both sides sleep @secs;
 * the parent a little longer, so that the child polls when the first
 * ping comes and the first round trip is the device's own after its idle
 * time.
 */
static int run_idle(long secs)
{
	struct side s = {};
	bool child;
	pid_t pid = two_sides(&s, &child, false);
	struct timespec idle = { secs, 0 }, late = { 0, 50 * 1000 * 1000 };
	double t0, first;
	long i;

	post_recv(&s, 0);
	if (child) {
		for (i = 0; i <= IDLE_MORE; i++)
			round_trip(&s, child);
		nanosleep(&idle, NULL);
		for (i = 0; i <= IDLE_MORE; i++)
			round_trip(&s, child);
		return finish(pid, child);
	}
	usleep(100000);
	t0 = now();
	round_trip(&s, child);
	printf("fresh_rtt %.2f us\n", (now() - t0) * 1e6);
	for (i = 0; i < IDLE_MORE; i++)
		round_trip(&s, child);
	printf("idle_start %ld s\n", secs);
	fflush(stdout);
	nanosleep(&idle, NULL);
	nanosleep(&late, NULL);
	printf("idle_end\n");
	fflush(stdout);
	t0 = now();
	round_trip(&s, child);
	first = now() - t0;
	t0 = now();
	for (i = 0; i < IDLE_MORE; i++)
		round_trip(&s, child);
	printf("first_rtt %.2f us\nrtt %.2f us\n", first * 1e6,
	       (now() - t0) / IDLE_MORE * 1e6);
	return finish(pid, child);
}

/* The parent writes WINDOW-deep into the child's region; the child waits. */
static int run_wbw(long n)
{
	struct ibv_qp_ex *qpx;
	struct side s = {};
	struct ibv_wc wc;
	long sent = 0, done = 0;
	int over[2];
	bool child;
	double t0;
	pid_t pid;
	char c;

	/* the target's region must live until the last write landed */
	if (pipe(over))
		die("pipe");
	pid = two_sides(&s, &child, true);
	if (child) {
		close(over[1]);
		if (read(over[0], &c, 1) < 0)
			die("wait");
		return finish(pid, child);
	}
	close(over[0]);
	qpx = ibv_qp_to_qp_ex(s.qp);
	t0 = now();
	while (done < n) {
		while (sent < n && sent - done < WBW_SLOTS) {
			unsigned int slot = sent++ % WBW_SLOTS;

			ibv_wr_start(qpx);
			qpx->wr_id = slot;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_rdma_write(qpx, s.peer_rkey,
					  s.peer_addr + slot * WBW_MSG);
			ibv_wr_set_ud_addr(qpx, s.ah, s.peer_qpn, QKEY);
			ibv_wr_set_sge(qpx, s.big_mr->lkey,
				       (uintptr_t)s.big + slot * WBW_MSG,
				       WBW_MSG);
			if (ibv_wr_complete(qpx))
				die("RDMA write");
		}
		wait_one(s.scq, &wc);
		done++;
	}
	printf("wbw %.1f MB/s\n", n * (double)WBW_MSG / (now() - t0) / 1e6);
	close(over[1]);
	return finish(pid, child);
}

static int run_memcpy(long n)
{
	size_t span = 64 << 20;
	uint8_t *src = malloc(span), *dst = malloc(span);
	size_t off = 0;
	double t0;
	long i;

	if (!src || !dst)
		die("malloc");
	memset(src, 3, span);
	memset(dst, 0, span);
	t0 = now();
	for (i = 0; i < n; i++) {
		memcpy(dst + off, src + off, WBW_MSG);
		off = (off + WBW_MSG) % span;
	}
	printf("memcpy %.1f MB/s (%u)\n", n * (double)WBW_MSG / (now() - t0) / 1e6,
	       dst[off] + dst[span - 1]);
	free(src);
	free(dst);
	return 0;
}

/* nap: the engine's shortest look interval (softefa/daemon/nic/task.c) */
#define NAP_NS		(20 * 1000L)

static long futex(_Atomic uint32_t *word, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* The engine's settings: a precise timer, real-time where allowed. */
static void engine_like(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static int run_nap(long n)
{
	const struct timespec nap = { .tv_nsec = NAP_NS };
	_Atomic uint32_t never = 0;
	double t0;
	long i;

	engine_like();
	t0 = now();
	for (i = 0; i < n; i++)
		futex(&never, FUTEX_WAIT_PRIVATE, 0, &nap);
	printf("nap %.1f us (asked %.1f)\n", (now() - t0) / n * 1e6,
	       NAP_NS / 1e3);
	return 0;
}

#define USAGE	"usage: efa_bench rate|lat|pair|spin|wbw|memcpy|nap N\n" \
		"       efa_bench idle SECONDS\n" \
		"       efa_bench rates PAIRS N\n"

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[2]) : 0;

	if (argc == 4 && !strcmp(argv[1], "rates")) {
		long p = atol(argv[2]);

		n = atol(argv[3]);
		if (p >= 1 && n > 1)
			return run_rates(p, n);
	}
	if (argc == 3 && !strcmp(argv[1], "idle") && n >= 0)
		return run_idle(n);
	if (n <= 1) {
		fputs(USAGE, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "rate"))
		return run_rate(n);
	if (!strcmp(argv[1], "lat"))
		return run_lat(n);
	if (!strcmp(argv[1], "pair"))
		return run_pair(n);
	if (!strcmp(argv[1], "spin"))
		return run_spin(n);
	if (!strcmp(argv[1], "wbw"))
		return run_wbw(n);
	if (!strcmp(argv[1], "memcpy"))
		return run_memcpy(n);
	if (!strcmp(argv[1], "nap"))
		return run_nap(n);
	fputs(USAGE, stderr);
	return 2;
}
