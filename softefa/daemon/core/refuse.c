// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Why a request is refused, said where it is refused and logged once the
 * request is answered (softefad(8), LOG).  Nothing here runs unless a
 * request fails.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/core.h"

/*
 * An error travels up through callers that mostly pass it on: the deepest
 * site speaks first and knows most, so its reason stands.  A caller that
 * turns the errno into another one may explain the new one, which then
 * replaces it.  The log prints a reason only for the errno the request
 * ended with, so a reason for an error some caller recovered from is
 * never shown for another one.
 */
int sefa_refuse(struct sefa_client *c, int err, const char *fmt, ...)
{
	struct sefa_req_note *n = &c->note;
	va_list ap;

	if (n->err == err)
		return err;
	n->err = err;
	va_start(ap, fmt);
	vsnprintf(n->why, sizeof(n->why), fmt, ap);
	va_end(ap);
	return err;
}

/* @err is what this client asks for and counts on: not a refusal. */
int sefa_routine(struct sefa_client *c, int err)
{
	c->note.routine = err;
	return err;
}
