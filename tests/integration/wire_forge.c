// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A host on the link that sends what it likes: RoCEv2 frames from a plain
 * UDP socket, as an attacker with no SoftEFA would (softefa-wire(7)).  The
 * typed frames are built by the daemon's own frame code, so that they are
 * exactly what a peer would send; --hex sends any bytes at all (a LID
 * query or reply, a MAD, a malformed frame).
 *
 *   wire_forge --to IPV6[%IF] [--port P] [--from IPV6] [--count N]
 *              [--random-sqpn] [--random-psn | --psn-sweep] [--seed S]
 *              (--hex HEX | --ud-send | --srd-send | --rc-ack | --rc-send
 *               | --mad HEX [--slid N] [--dlid N] [--random-slid]
 *                 [--random-tid])
 *              [--dqpn N] [--sqpn N] [--psn N] [--qkey N] [--lwm N]
 *              [--status N] [--len N]
 *
 * --rc-ack: an RC Acknowledge, ACK unless --status gives the completion
 *   status a NAK stands for (EFA's numbering, as the daemon's completer
 *   takes it).  --ud-send, --srd-send, --rc-send: a SEND Only of --len
 *   bytes (0xa5).  --random-sqpn and --random-psn draw the source QP (the
 *   datagram transports' DETH; with bit 15 set, clear of the QP numbers
 *   devices hand out) and the PSN afresh for each packet; --psn-sweep
 *   counts the PSN up from --psn, one a packet.  --mad: a MAD as
 *   softefa-wire(7) carries it, a UD SEND Only with Immediate of 256
 *   bytes (HEX, then zeros) to --dqpn (QP1 unless given; --qkey too), the
 *   immediate --slid << 16 | --dlid; --random-slid and --random-tid draw
 *   the source LID (1-0xfffe) and the low half of the MAD's transaction
 *   id (the high half, HEX's, names the agent that asked) afresh for each
 *   packet.  Numbers may be decimal or 0x-hex.  Prints "sent N of M" and
 *   exits 0 when every packet went, 1 otherwise, 2 on a bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

enum forge_kind {
	FORGE_NONE,
	FORGE_HEX,
	FORGE_UD_SEND,
	FORGE_SRD_SEND,
	FORGE_RC_ACK,
	FORGE_RC_SEND,
	FORGE_MAD,
};

struct forge {
	const char *to, *from, *port, *hex;
	enum forge_kind kind;
	unsigned long count;
	bool random_sqpn, random_psn, psn_sweep, random_slid, random_tid;
	uint16_t slid, dlid;
	unsigned int seed;
	struct sefa_pkt pkt;
	uint8_t payload[NIC_WIRE_CHUNK];
	uint8_t frame[NIC_FRAME_MAX];
	size_t len;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: wire_forge --to IPV6[%%IF] [--port P] [--from IPV6] [--count N]\n"
		"\t[--random-sqpn] [--random-psn | --psn-sweep] [--seed S]\n"
		"\t(--hex HEX | --ud-send | --srd-send | --rc-ack | --rc-send\n"
		"\t | --mad HEX [--slid N] [--dlid N] [--random-slid] [--random-tid])\n"
		"\t[--dqpn N] [--sqpn N] [--psn N] [--qkey N] [--lwm N] [--status N] [--len N]\n");
	exit(2);
}

static unsigned long number(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "wire_forge: bad number %s\n", s);
		usage();
	}
	return v;
}

/* @hex into @buf of @max bytes; returns the length, or -EINVAL */
static ssize_t hex_bytes(const char *hex, uint8_t *buf, size_t max)
{
	size_t n = strlen(hex), i;

	if (n % 2 || n / 2 > max)
		return -EINVAL;
	for (i = 0; i < n / 2; i++) {
		char b[3] = { hex[2 * i], hex[2 * i + 1], 0 };
		char *end;

		buf[i] = strtoul(b, &end, 16);
		if (*end)
			return -EINVAL;
	}
	return n / 2;
}

static int hex_frame(struct forge *f)
{
	ssize_t n = hex_bytes(f->hex, f->frame, sizeof(f->frame));

	if (n < 0)
		return n;
	f->len = n;
	return 0;
}

/* The typed frame, built as the daemon's requester or responder would. */
static int typed_frame(struct forge *f)
{
	ssize_t n;

	/*
	 * Clear of the small numbers devices hand out, also in the 16 bits
	 * an EFA receive completion reports: a test can tell its peer.
	 */
	if (f->random_sqpn)
		f->pkt.sqpn = (rand_r(&f->seed) & 0xffffff) | 0x8000;
	if (f->random_psn)
		f->pkt.psn = rand_r(&f->seed) & 0xffffff;
	if (f->random_slid)
		f->slid = 1 + rand_r(&f->seed) % 0xfffe;
	if (f->random_tid) {
		int i;

		/* the TID's low half: the high half names the asking agent */
		for (i = 12; i < 16; i++)
			f->payload[i] = rand_r(&f->seed);
	}
	if (f->kind == FORGE_MAD)
		f->pkt.imm = (uint32_t)f->slid << 16 | f->dlid;
	n = nic_frame_pkt(&f->pkt, f->frame);
	if (f->psn_sweep)
		f->pkt.psn = (f->pkt.psn + 1) & 0xffffff;
	if (n < 0)
		return n;
	f->len = n;
	return 0;
}

static void set_kind(struct forge *f, enum forge_kind k)
{
	if (f->kind != FORGE_NONE)
		usage();
	f->kind = k;
	switch (k) {
	case FORGE_UD_SEND:
	case FORGE_SRD_SEND:
	case FORGE_RC_SEND:
		f->pkt.op = SEFA_PKT_SEND;
		f->pkt.flags = SEFA_PKT_FIRST | SEFA_PKT_LAST;
		f->pkt.qpt = k == FORGE_UD_SEND ? IBV_QPT_UD :
			     k == FORGE_SRD_SEND ? IBV_QPT_DRIVER : IBV_QPT_RC;
		break;
	case FORGE_RC_ACK:
		f->pkt.op = SEFA_PKT_ACK;
		f->pkt.qpt = IBV_QPT_RC;
		break;
	case FORGE_MAD:
		f->pkt.op = SEFA_PKT_SEND;
		f->pkt.flags = SEFA_PKT_FIRST | SEFA_PKT_LAST | SEFA_PKT_IMM;
		f->pkt.qpt = IBV_QPT_UD;
		f->pkt.dqpn = 1;
		f->pkt.qkey = SEFA_QP1_QKEY;
		f->pkt.len = SEFA_MAD_LEN;
		break;
	default:
		break;
	}
}

static void parse(struct forge *f, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "random-sqpn", no_argument, NULL, 'R' },
		{ "random-psn", no_argument, NULL, 'P' },
		{ "psn-sweep", no_argument, NULL, 'W' },
		{ "seed", required_argument, NULL, 'S' },
		{ "hex", required_argument, NULL, 'x' },
		{ "ud-send", no_argument, NULL, 'u' },
		{ "srd-send", no_argument, NULL, 's' },
		{ "rc-ack", no_argument, NULL, 'a' },
		{ "rc-send", no_argument, NULL, 'r' },
		{ "dqpn", required_argument, NULL, 'd' },
		{ "sqpn", required_argument, NULL, 'q' },
		{ "psn", required_argument, NULL, 'N' },
		{ "qkey", required_argument, NULL, 'k' },
		{ "lwm", required_argument, NULL, 'l' },
		{ "status", required_argument, NULL, 'c' },
		{ "len", required_argument, NULL, 'L' },
		{ "mad", required_argument, NULL, 'M' },
		{ "slid", required_argument, NULL, 'i' },
		{ "dlid", required_argument, NULL, 'D' },
		{ "random-slid", no_argument, NULL, 'I' },
		{ "random-tid", no_argument, NULL, 'T' },
		{}
	};
	int c;

	f->port = "4791";
	f->count = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': f->to = optarg; break;
		case 'p': f->port = optarg; break;
		case 'f': f->from = optarg; break;
		case 'n': f->count = number(optarg, ~0UL); break;
		case 'R': f->random_sqpn = true; break;
		case 'P': f->random_psn = true; break;
		case 'W': f->psn_sweep = true; break;
		case 'S': f->seed = number(optarg, ~0U); break;
		case 'x': set_kind(f, FORGE_HEX); f->hex = optarg; break;
		case 'u': set_kind(f, FORGE_UD_SEND); break;
		case 's': set_kind(f, FORGE_SRD_SEND); break;
		case 'a': set_kind(f, FORGE_RC_ACK); break;
		case 'r': set_kind(f, FORGE_RC_SEND); break;
		case 'd': f->pkt.dqpn = number(optarg, 0xffffff); break;
		case 'q': f->pkt.sqpn = number(optarg, 0xffffff); break;
		case 'N': f->pkt.psn = number(optarg, 0xffffff); break;
		case 'k': f->pkt.qkey = number(optarg, 0xffffffff); break;
		case 'l': f->pkt.lwm = number(optarg, 0xffffff); break;
		case 'c': f->pkt.status = number(optarg, 0xff); break;
		case 'L': f->pkt.len = number(optarg, NIC_WIRE_CHUNK); break;
		case 'M': set_kind(f, FORGE_MAD); f->hex = optarg; break;
		case 'i': f->slid = number(optarg, 0xffff); break;
		case 'D': f->dlid = number(optarg, 0xffff); break;
		case 'I': f->random_slid = true; break;
		case 'T': f->random_tid = true; break;
		default: usage();
		}
	}
	if (optind != argc || !f->to || f->kind == FORGE_NONE)
		usage();
	memset(f->payload, 0xa5, sizeof(f->payload));
	/* an answer with data would be a read's */
	if (f->pkt.op == SEFA_PKT_ACK)
		f->pkt.len = 0;
	else
		f->pkt.data = f->payload;
	if (f->kind == FORGE_MAD) {
		/* HEX, then zeros */
		memset(f->payload, 0, sizeof(f->payload));
		if (hex_bytes(f->hex, f->payload, SEFA_MAD_LEN) < 0) {
			fprintf(stderr, "wire_forge: bad --mad\n");
			usage();
		}
	}
}

static int udp_socket(const struct forge *f, struct sockaddr_storage *to,
		      socklen_t *tolen)
{
	struct addrinfo hints = {
		.ai_family = AF_INET6, .ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	}, *ai;
	int fd, ret;

	ret = getaddrinfo(f->to, f->port, &hints, &ai);
	if (ret) {
		fprintf(stderr, "wire_forge: %s: %s\n", f->to, gai_strerror(ret));
		return -1;
	}
	memcpy(to, ai->ai_addr, ai->ai_addrlen);
	*tolen = ai->ai_addrlen;
	freeaddrinfo(ai);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0)
		goto err_sys;
	if (f->from) {
		struct sockaddr_in6 *dst = (struct sockaddr_in6 *)to;

		ret = getaddrinfo(f->from, NULL, &hints, &ai);
		if (ret) {
			fprintf(stderr, "wire_forge: %s: %s\n", f->from,
				gai_strerror(ret));
			goto err_close;
		}
		/* a link-local source needs the destination's scope */
		if (!((struct sockaddr_in6 *)ai->ai_addr)->sin6_scope_id)
			((struct sockaddr_in6 *)ai->ai_addr)->sin6_scope_id =
				dst->sin6_scope_id;
		ret = bind(fd, ai->ai_addr, ai->ai_addrlen);
		freeaddrinfo(ai);
		if (ret)
			goto err_sys;
	}
	return fd;

err_sys:
	perror("wire_forge: socket");
err_close:
	if (fd >= 0)
		close(fd);
	return -1;
}

int main(int argc, char **argv)
{
	static struct forge f;
	struct sockaddr_storage to;
	socklen_t tolen;
	unsigned long sent = 0, i;
	int fd;

	parse(&f, argc, argv);
	if (f.kind == FORGE_HEX && hex_frame(&f)) {
		fprintf(stderr, "wire_forge: bad --hex frame\n");
		usage();
	}
	fd = udp_socket(&f, &to, &tolen);
	if (fd < 0)
		return 1;
	for (i = 0; i < f.count; i++) {
		if (f.kind != FORGE_HEX && typed_frame(&f))
			break;
		if (sendto(fd, f.frame, f.len, 0, (struct sockaddr *)&to,
			   tolen) == (ssize_t)f.len)
			sent++;
		else if (errno != ENOBUFS && errno != EAGAIN)
			break;
	}
	if (sent < f.count)
		perror("wire_forge: sendto");
	printf("sent %lu of %lu\n", sent, f.count);
	close(fd);
	return sent == f.count ? 0 : 1;
}
