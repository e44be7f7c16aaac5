// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mmap() as libfabric's memhooks monitor or UCX leave it once they have
 * patched it: a bare system call that nothing in the process can see.
 * Linked into a test program, whose own symbols come before any preloaded
 * library's, it takes the mappings of libibverbs and of the provider away
 * from the shim, so the device file must map its keys by itself, as a
 * kernel's does.  At exit it says how many mappings were of a uverbs file
 * (a character device of major 231, as the shim reports it), for the test
 * to see that the path was taken.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define UVERBS_MAJOR	231

static atomic_uint device_maps;

static void *raw_mmap(void *addr, size_t len, int prot, int flags, int fd,
		      off_t off)
{
	struct stat st;

	if (fd >= 0 && !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	    major(st.st_rdev) == UVERBS_MAJOR)
		atomic_fetch_add(&device_maps, 1);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return raw_mmap(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
	     off64_t off)
{
	return raw_mmap(addr, len, prot, flags, fd, off);
}

static void __attribute__((destructor)) raw_mmap_report(void)
{
	fprintf(stderr, "raw mmap: %u of the device\n",
		atomic_load(&device_maps));
}
