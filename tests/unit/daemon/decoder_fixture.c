// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon and the client the decoder tests run on (decoder_fixture.h).
 */
#define _GNU_SOURCE
#include <check.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decoder_fixture.h"

struct sefa_daemon d;
struct sefa_client c;
void *unmapped;

void decoder_setup(void)
{
	memset(&d, 0, sizeof(d));
	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&d.lock, NULL);
	d.profile = sefa_profile_find("efa");
	d.abi = SEFA_ABI_IOCTL;
	memcpy(d.netdev.mac, "\x02\x00\x00\x00\x00\x01", 6);
	ck_assert_int_eq(sefa_devices_init(&d, 1), 0);
	c.d = &d;
	c.dev = &d.dev[0];
	c.pid = getpid();
	c.sock = -1;

	/* An address that is certainly not mapped. */
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	ck_assert_ptr_ne(unmapped, MAP_FAILED);
	munmap(unmapped, 4096);
}

/* As the connection thread calls them: under the daemon lock. */
int wr(const void *buf, size_t len)
{
	int ret;

	sefa_daemon_lock(&d);
	ret = sefa_uverbs_write(&c, (uintptr_t)buf, len);
	sefa_daemon_unlock(&d);
	return ret;
}

void query_port_cmd(struct query_port_cmd *cmd,
		    struct ib_uverbs_query_port_resp *resp)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.command = IB_USER_VERBS_CMD_QUERY_PORT;
	cmd->hdr.in_words = sizeof(*cmd) / 4;
	cmd->hdr.out_words = sizeof(*resp) / 4;
	cmd->core.response = (uintptr_t)resp;
	cmd->core.port_num = 1;
}
