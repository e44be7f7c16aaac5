// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An MPI program that checks every byte it moves: point-to-point at sizes
 * from 1 byte to 1 MiB (blocking, non-blocking, tagged out of order, any
 * source), collectives, and one-sided operations (active and passive
 * target).  Run over libfabric's efa provider on SoftEFA by mpi.sh.
 * Prints one line per part and exits non-zero on the first mismatch.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE	(1 << 20)

static int rank, nranks;

static void die(const char *what, size_t at, unsigned int got,
		unsigned int want)
{
	fprintf(stderr, "rank %d: %s: byte %zu is 0x%02x, expected 0x%02x\n",
		rank, what, at, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The byte at @i of a message from @src with @seed: differs per sender. */
static uint8_t pattern(int src, unsigned int seed, size_t i)
{
	return (uint8_t)(i * 31 + seed * 7 + src * 101 + (i >> 8));
}

static void fill(uint8_t *buf, size_t len, int src, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(src, seed, i);
}

static void check(const char *what, const uint8_t *buf, size_t len, int src,
		  unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != pattern(src, seed, i))
			die(what, i, buf[i], pattern(src, seed, i));
}

/* Untouched bytes past a message keep their poison. */
static void check_poison(const char *what, const uint8_t *buf, size_t from,
			 size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (buf[i] != 0xa5)
			die(what, i, buf[i], 0xa5);
}

/*
 * Every rank sends to its right neighbour and receives from its left,
 * at every size: powers of two and their odd neighbours, so both the
 * eager, medium and long protocols of the transport run.
 */
static void point_to_point(uint8_t *sbuf, uint8_t *rbuf)
{
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	unsigned int seed = 0;
	size_t len, n = 0;

	for (len = 1; len <= MAX_SIZE; len *= 2) {
		size_t sizes[3] = { len - 1, len, len + 1 };
		int k;

		for (k = 0; k < 3; k++) {
			size_t sz = sizes[k] > MAX_SIZE ? MAX_SIZE : sizes[k];
			MPI_Request req[2];

			seed++;
			fill(sbuf, sz, rank, seed);
			memset(rbuf, 0xa5, sz + 64);
			MPI_Irecv(rbuf, (int)sz, MPI_BYTE, left, (int)seed,
				  MPI_COMM_WORLD, &req[0]);
			MPI_Isend(sbuf, (int)sz, MPI_BYTE, right, (int)seed,
				  MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
			check("isend/irecv", rbuf, sz, left, seed);
			check_poison("isend/irecv tail", rbuf, sz, sz + 64);

			/* Blocking, the other way round. */
			seed++;
			fill(sbuf, sz, rank, seed);
			MPI_Sendrecv(sbuf, (int)sz, MPI_BYTE, left, 7, rbuf,
				     (int)sz, MPI_BYTE, right, 7,
				     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			check("sendrecv", rbuf, sz, right, seed);
			n += 2;
		}
	}

	/* Two tagged messages received in the opposite order, from anyone. */
	{
		uint8_t *b2 = rbuf + MAX_SIZE / 2;
		MPI_Request req[4];
		MPI_Status st[2];
		int count;

		fill(sbuf, 1000, rank, 900);
		fill(sbuf + 1000, 70000, rank, 901);
		MPI_Irecv(b2, 70000, MPI_BYTE, MPI_ANY_SOURCE, 2,
			  MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(rbuf, 1000, MPI_BYTE, MPI_ANY_SOURCE, 1,
			  MPI_COMM_WORLD, &req[1]);
		MPI_Isend(sbuf, 1000, MPI_BYTE, right, 1, MPI_COMM_WORLD,
			  &req[2]);
		MPI_Isend(sbuf + 1000, 70000, MPI_BYTE, right, 2,
			  MPI_COMM_WORLD, &req[3]);
		MPI_Waitall(2, req, st);
		MPI_Waitall(2, req + 2, MPI_STATUSES_IGNORE);
		if (st[0].MPI_SOURCE != left || st[1].MPI_SOURCE != left) {
			fprintf(stderr, "rank %d: any-source from %d/%d\n", rank,
				st[0].MPI_SOURCE, st[1].MPI_SOURCE);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Get_count(&st[0], MPI_BYTE, &count);
		if (count != 70000) {
			fprintf(stderr, "rank %d: count %d\n", rank, count);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		check("tagged 1", rbuf, 1000, left, 900);
		for (size_t i = 0; i < 70000; i++)
			if (b2[i] != pattern(left, 901, i))
				die("tagged 2", i, b2[i], pattern(left, 901, i));
	}
	if (!rank)
		printf("point-to-point: %zu messages of 0 B to 1 MiB, intact\n",
		       n * nranks);
}

static void collectives(uint8_t *sbuf, uint8_t *rbuf)
{
	const int n = 65536;	/* ints: 256 KiB, past the eager sizes */
	int *iv = (int *)sbuf, *ov = (int *)rbuf;
	int i, r;

	/* Broadcast from each root in turn. */
	for (r = 0; r < nranks; r++) {
		if (rank == r)
			fill(rbuf, 300000, r, 500 + r);
		else
			memset(rbuf, 0, 300000);
		MPI_Bcast(rbuf, 300000, MPI_BYTE, r, MPI_COMM_WORLD);
		check("bcast", rbuf, 300000, r, 500 + r);
	}

	for (i = 0; i < n; i++)
		iv[i] = i * (rank + 1);
	MPI_Allreduce(iv, ov, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		if (ov[i] != i * nranks * (nranks + 1) / 2) {
			fprintf(stderr, "rank %d: allreduce[%d] = %d\n", rank,
				i, ov[i]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}

	/* Each rank contributes 4000 bytes; every rank gets them all. */
	fill(sbuf, 4000, rank, 600);
	MPI_Allgather(sbuf, 4000, MPI_BYTE, rbuf, 4000, MPI_BYTE,
		      MPI_COMM_WORLD);
	for (r = 0; r < nranks; r++)
		check("allgather", rbuf + (size_t)r * 4000, 4000, r, 600);

	/* Block r of rank s's buffer goes to rank r. */
	for (r = 0; r < nranks; r++)
		fill(sbuf + (size_t)r * 20000, 20000, rank, 700 + r);
	MPI_Alltoall(sbuf, 20000, MPI_BYTE, rbuf, 20000, MPI_BYTE,
		     MPI_COMM_WORLD);
	for (r = 0; r < nranks; r++)
		check("alltoall", rbuf + (size_t)r * 20000, 20000, r,
		      700 + rank);

	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank)
		printf("collectives: bcast, allreduce, allgather, alltoall, "
		       "barrier on %d ranks, intact\n", nranks);
}

/*
 * One-sided: each rank puts a block into its right neighbour's window and
 * gets one back from its left (fence epochs), then accumulates into rank
 * 0's window under a passive-target lock.
 */
static void one_sided(uint8_t *sbuf, uint8_t *rbuf)
{
	const size_t blk = 100000;
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	uint8_t *base;
	MPI_Win win;
	int64_t one = 1, *acc;
	int r;

	MPI_Alloc_mem((MPI_Aint)(2 * blk + 64), MPI_INFO_NULL, &base);
	memset(base, 0, 2 * blk + 64);
	fill(base + blk, blk, rank, 800);	/* what the left rank gets */
	MPI_Win_create(base, (MPI_Aint)(2 * blk + 64), 1, MPI_INFO_NULL,
		       MPI_COMM_WORLD, &win);

	fill(sbuf, blk, rank, 801);
	memset(rbuf, 0, blk);
	MPI_Win_fence(0, win);
	MPI_Put(sbuf, (int)blk, MPI_BYTE, right, 0, (int)blk, MPI_BYTE, win);
	MPI_Get(rbuf, (int)blk, MPI_BYTE, right, (MPI_Aint)blk, (int)blk,
		MPI_BYTE, win);
	MPI_Win_fence(0, win);
	check("put", base, blk, left, 801);
	check("get", rbuf, blk, right, 800);

	/* Every rank adds its rank + 1 to a counter in rank 0's window. */
	MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
	for (r = 0; r < 10; r++)
		MPI_Accumulate(&one, 1, MPI_INT64_T, 0, (MPI_Aint)(2 * blk), 1,
			       MPI_INT64_T, MPI_SUM, win);
	MPI_Win_unlock(0, win);
	MPI_Barrier(MPI_COMM_WORLD);
	acc = (int64_t *)(base + 2 * blk);
	if (!rank && *acc != 10 * nranks) {
		fprintf(stderr, "accumulate: %lld, expected %d\n",
			(long long)*acc, 10 * nranks);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Win_free(&win);
	MPI_Free_mem(base);
	if (!rank)
		printf("one-sided: put, get (fence), accumulate (lock), "
		       "intact\n");
}

int main(int argc, char **argv)
{
	size_t len = (size_t)MAX_SIZE + 4096;
	uint8_t *sbuf, *rbuf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if ((size_t)nranks * 20000 > len) {
		fprintf(stderr, "too many ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	sbuf = malloc(len);
	rbuf = malloc(len);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 1);

	point_to_point(sbuf, rbuf);
	collectives(sbuf, rbuf);
	one_sided(sbuf, rbuf);

	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	if (!rank)
		printf("ok: %d ranks\n", nranks);
	return 0;
}
