// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefad's command line: each option checked and set in the daemon's
 * state, before anything is made.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir.h"
#include "host/host.h"
#include "nic/nic.h"
#include "softefad_args.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: softefad [--run-dir DIR] [--profile NAME|list] [--devices N]\n"
		"                [--netdev IF] [--abi ioctl|write] [--host-id N]\n"
		"                [--ready-fd FD] [--log FILE] [--verbose] [--inject FILE]\n"
		"                [--max-objects N] [--max-queue-mem BYTES[K|M|G]]\n"
		"                [--wire [--sm] [--wire-loss PCT] [--wire-reorder PCT]\n"
		"                 [--wire-dup PCT] [--wire-delay USEC]]\n"
		"       softefad --help | --version\n");
}

static int parse_uint(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || !*s || *end || *out < min || *out > max)
		return -EINVAL;
	return 0;
}

/* --wire-*: a percentage, or a delay of at most a second. */
static int parse_wire(int c, const char *arg, struct sefa_wire_opts *w)
{
	unsigned long v;

	if (parse_uint(arg, 0, c == 'D' ? 1000000 : 100, &v)) {
		fprintf(stderr, c == 'D' ?
			"softefad: --wire-delay takes 0 to 1000000 (us)\n" :
			"softefad: --wire-loss, -reorder and -dup take 0 to 100 (%%)\n");
		return -EINVAL;
	}
	switch (c) {
	case 'L':
		w->loss = v;
		break;
	case 'O':
		w->reorder = v;
		break;
	case 'U':
		w->dup = v;
		break;
	default:
		w->delay_us = v;
	}
	return 0;
}

/* --max-objects N, --max-queue-mem BYTES with an optional K, M or G. */
static int parse_caps(int c, const char *arg, struct sefa_caps *caps)
{
	static const char units[] = "KMG";
	unsigned int shift = 0;
	unsigned long long v;
	const char *u;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	u = c == 'Q' && *end ? strchr(units, *end) : NULL;
	if (u && !end[1]) {
		shift = 10 * (unsigned int)(u - units + 1);
		end++;
	}
	if (errno || *arg < '0' || *arg > '9' || *end || !v ||
	    v > (c == 'Q' ? UINT64_MAX >> shift : 1ULL << 20)) {
		fprintf(stderr, c == 'Q' ?
			"softefad: --max-queue-mem takes a positive size (BYTES, or with K, M or G)\n" :
			"softefad: --max-objects takes 1 to 1048576\n");
		return -EINVAL;
	}
	if (c == 'Q')
		caps->max_queue_bytes = v << shift;
	else
		caps->max_objects = v;
	return 0;
}

/* One option: 0, or the exit status 2 after saying what is wrong. */
static int parse_opt(struct sefa_daemon *d, struct start_opts *o, int c,
		     const char *arg)
{
	unsigned long v;

	switch (c) {
	case 'r':
		if (sefa_run_dir_set(d->run_dir, sizeof(d->run_dir), arg)) {
			fprintf(stderr,
				"softefad: --run-dir needs a directory of at most %d characters\n",
				SEFA_RUN_DIR_MAX);
			return 2;
		}
		return 0;
	case 'p':
		d->profile = sefa_profile_find(arg);
		if (!d->profile) {
			fprintf(stderr, "softefad: unknown profile '%s'\n", arg);
			sefa_profiles_print(stderr);
			return 2;
		}
		return 0;
	case 'n':
		if (parse_uint(arg, 1, SEFA_MAX_DEVICES, &o->ndev)) {
			fprintf(stderr, "softefad: --devices takes 1 to %d\n",
				SEFA_MAX_DEVICES);
			return 2;
		}
		return 0;
	case 'i':
		o->netdev = arg;
		return 0;
	case 'a':
		if (!strcmp(arg, "ioctl") || !strcmp(arg, "write")) {
			d->abi = !strcmp(arg, "ioctl") ? SEFA_ABI_IOCTL :
							 SEFA_ABI_WRITE;
			return 0;
		}
		fprintf(stderr,
			"softefad: unknown --abi '%s' (ioctl or write)\n", arg);
		return 2;
	case 'H':
		if (parse_uint(arg, 0, 255, &v)) {
			fprintf(stderr, "softefad: --host-id takes 0 to 255\n");
			return 2;
		}
		d->host_id = v;
		return 0;
	case 'R':
		if (parse_uint(arg, 0, INT_MAX, &v)) {
			fprintf(stderr, "softefad: bad --ready-fd\n");
			return 2;
		}
		o->ready_fd = v;
		return 0;
	case 'l':
		o->log = arg;
		return 0;
	case 'I':
		o->inject = arg;
		return 0;
	case 'v':
		d->verbose = true;
		return 0;
	case 'w':
		d->wire.on = true;
		return 0;
	case 'S':
		o->sm = true;
		return 0;
	case 'L':
	case 'O':
	case 'U':
	case 'D':
		return parse_wire(c, arg, &d->wire) ? 2 : 0;
	case 'M':
	case 'Q':
		return parse_caps(c, arg, &d->caps) ? 2 : 0;
	default:
		/* getopt said what it did not know */
		usage(stderr);
		return 2;
	}
}

/* Options that only make sense together. */
static int check_opts(const struct sefa_daemon *d, const struct start_opts *o)
{
	if (!d->wire.on && o->sm) {
		fprintf(stderr, "softefad: --sm needs --wire\n");
		return 2;
	}
	if (!d->wire.on && (d->wire.loss || d->wire.reorder || d->wire.dup ||
			    d->wire.delay_us)) {
		fprintf(stderr, "softefad: --wire-* faults need --wire\n");
		return 2;
	}
	return 0;
}

/*
 * The command line, before anything is done.  Returns -1 to go on, or the
 * exit status: 0 after --help or --version, 2 for a bad command line.
 */
int sefa_parse_args(struct sefa_daemon *d, struct start_opts *o, int argc,
		    char **argv)
{
	static const struct option opts[] = {
		{ "run-dir", required_argument, NULL, 'r' },
		{ "profile", required_argument, NULL, 'p' },
		{ "devices", required_argument, NULL, 'n' },
		{ "netdev", required_argument, NULL, 'i' },
		{ "abi", required_argument, NULL, 'a' },
		{ "host-id", required_argument, NULL, 'H' },
		{ "ready-fd", required_argument, NULL, 'R' },
		{ "log", required_argument, NULL, 'l' },
		{ "inject", required_argument, NULL, 'I' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "wire", no_argument, NULL, 'w' },
		{ "sm", no_argument, NULL, 'S' },
		{ "wire-loss", required_argument, NULL, 'L' },
		{ "wire-reorder", required_argument, NULL, 'O' },
		{ "wire-dup", required_argument, NULL, 'U' },
		{ "wire-delay", required_argument, NULL, 'D' },
		{ "max-objects", required_argument, NULL, 'M' },
		{ "max-queue-mem", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c, ret;

	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			sefa_profiles_print(stdout);
			return 0;
		}
		/* --profile list, or with no name: which there are */
		if (c == 'p' && !strcmp(optarg, "list")) {
			sefa_profiles_print(stdout);
			return 0;
		}
		if (c == '?' && optopt == 'p') {
			sefa_profiles_print(stderr);
			return 2;
		}
		if (c == 'V') {
			printf("softefad %s\n", SOFTEFA_VERSION);
			return 0;
		}
		ret = parse_opt(d, o, c, optarg);
		if (ret)
			return ret;
	}
	if (optind != argc) {
		fprintf(stderr, "softefad: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	return check_opts(d, o) ?: -1;
}
