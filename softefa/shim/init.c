// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The libc calls the shim stands in front of, and the run directory that
 * says where the daemon is.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "shim.h"

char run_dir[PATH_MAX];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

int (*real_openat)(int, const char *, int, ...);
ssize_t (*real_write)(int, const void *, size_t);
ssize_t (*real_read)(int, void *, size_t);
int (*real_ioctl)(int, unsigned long, ...);
int (*real_close)(int);
int (*real_dup)(int);
int (*real_dup2)(int, int);
int (*real_dup3)(int, int, int);
int (*real_fcntl)(int, int, ...);
int (*real_socket)(int, int, int);
int (*real_fstatat)(int, const char *, struct stat *, int);
int (*real_fstat)(int, struct stat *);
void *(*real_mmap)(void *, size_t, int, int, int, off_t);
int (*real_statx)(int, const char *, int, unsigned int, struct statx *);
DIR *(*real_opendir)(const char *);
FILE *(*real_fopen)(const char *, const char *);
FILE *(*real_fopen64)(const char *, const char *);
int (*real_scandir)(const char *, struct dirent ***, filter_fn, compar_fn);
int (*real_scandir64)(const char *, struct dirent64 ***, filter64_fn,
		      compar64_fn);

static void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "libsoftefa-preload: no %s in libc\n", name);
		abort();
	}
	return p;
}

static void shim_init(void)
{
	real_openat = next_sym("openat");
	real_write = next_sym("write");
	real_read = next_sym("read");
	real_ioctl = next_sym("ioctl");
	real_close = next_sym("close");
	real_dup = next_sym("dup");
	real_dup2 = next_sym("dup2");
	real_dup3 = next_sym("dup3");
	real_fcntl = next_sym("fcntl");
	real_socket = next_sym("socket");
	real_fstatat = next_sym("fstatat");
	real_fstat = next_sym("fstat");
	real_mmap = next_sym("mmap");
	real_statx = next_sym("statx");
	real_opendir = next_sym("opendir");
	real_fopen = next_sym("fopen");
	real_fopen64 = next_sym("fopen64");
	real_scandir = next_sym("scandir");
	real_scandir64 = next_sym("scandir64");

	if (sefa_run_dir(run_dir, sizeof(run_dir)))
		run_dir[0] = 0;
}

/*
 * Another library's constructor may call in before ours has run, so every
 * wrapper makes sure of the real_* pointers and run_dir itself.
 */
void ensure_init(void)
{
	pthread_once(&init_once, shim_init);
}

__attribute__((constructor)) static void shim_ctor(void)
{
	char sys[PATH_MAX];

	ensure_init();
	/* libibverbs reads SYSFS_PATH lazily, at its first device listing. */
	if (run_dir[0] && !getenv("SYSFS_PATH") &&
	    snprintf(sys, sizeof(sys), "%s/%s", run_dir, SEFA_SYSFS_DIR) <
		    (int)sizeof(sys))
		setenv("SYSFS_PATH", sys, 0);
}
